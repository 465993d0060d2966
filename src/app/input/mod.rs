//! The explorer's own reader of the terminal: bytes from the terminal and window-size changes,
//! decoded into crossterm's events by [`decode`].
//!
//! embedlens reads the terminal itself rather than through crossterm's reader so that no byte
//! sequence can hold the keys behind it: an unfinished sequence (a paste whose end never
//! comes) ends once the terminal has been quiet for [`decode::QUIET`].

pub mod decode;

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use ratatui::crossterm::event::Event;
use rustix::event::{PollFd, PollFlags, Timespec, poll};

pub use decode::Decoder;

/// How many bytes one read takes; a read that fills it says more bytes are waiting.
const READ_SIZE: usize = 1024;

/// Where the keys come from: standard input when it is the terminal, else the terminal itself.
enum Source {
    Stdin,
    Tty(File),
}

/// Reads events from the terminal.
pub struct Input {
    source: Source,
    /// Written by the `SIGWINCH` handler: the window changed size.
    resized: UnixStream,
    decoder: Decoder,
    /// When the last byte arrived, so an unfinished sequence can be ended after a quiet spell.
    last_byte: Instant,
}

impl Input {
    /// Opens the terminal for reading and listens for window-size changes.
    ///
    /// # Errors
    /// When there is no terminal to read or the signal cannot be listened for.
    pub fn open() -> io::Result<Self> {
        let source = if rustix::termios::isatty(rustix::stdio::stdin()) {
            Source::Stdin
        } else {
            Source::Tty(File::options().read(true).write(true).open("/dev/tty")?)
        };
        let (resized, on_resize) = UnixStream::pair()?;
        resized.set_nonblocking(true)?;
        on_resize.set_nonblocking(true)?;
        signal_hook::low_level::pipe::register(signal_hook::consts::SIGWINCH, on_resize)?;
        Ok(Self {
            source,
            resized,
            decoder: Decoder::default(),
            last_byte: Instant::now(),
        })
    }

    fn fd(&self) -> BorrowedFd<'_> {
        match &self.source {
            Source::Stdin => rustix::stdio::stdin(),
            Source::Tty(file) => file.as_fd(),
        }
    }

    /// The next event, waiting for it as long as it takes.
    ///
    /// # Errors
    /// When the terminal cannot be read or was closed.
    pub fn read(&mut self) -> io::Result<Event> {
        loop {
            if let Some(event) = self.poll(Duration::from_secs(60))? {
                return Ok(event);
            }
        }
    }

    /// The next event if one comes within `timeout`; a zero timeout takes only what is there.
    ///
    /// # Errors
    /// When the terminal cannot be read or was closed.
    pub fn poll(&mut self, timeout: Duration) -> io::Result<Option<Event>> {
        let until = Instant::now() + timeout;
        loop {
            if let Some(event) = self.decoder.next_event() {
                return Ok(Some(event));
            }
            let now = Instant::now();
            let quiet_end = self
                .decoder
                .is_unfinished()
                .then(|| self.last_byte + decode::QUIET);
            if quiet_end.is_some_and(|end| now >= end) {
                self.decoder.flush();
                continue;
            }
            let deadline = quiet_end.map_or(until, |end| end.min(until));
            let ready = self.wait(deadline.saturating_duration_since(now))?;
            if ready.resized {
                while read_some(self.resized.as_fd(), &mut [0; 64])? > 0 {}
                let (columns, rows) = ratatui::crossterm::terminal::size()?;
                return Ok(Some(Event::Resize(columns, rows)));
            }
            if ready.input {
                let mut buffer = [0; READ_SIZE];
                let read = read_some(self.fd(), &mut buffer)?;
                if read == 0 {
                    return Err(closed());
                }
                self.last_byte = Instant::now();
                self.decoder.feed(&buffer[..read], read == READ_SIZE);
                continue;
            }
            let now = Instant::now();
            if now >= until && quiet_end.is_none_or(|end| now < end) {
                return Ok(None);
            }
        }
    }

    /// Waits up to `timeout` for bytes or a window-size change.
    fn wait(&self, timeout: Duration) -> io::Result<Ready> {
        let timeout = Timespec::try_from(timeout).unwrap_or(Timespec {
            tv_sec: i64::MAX,
            tv_nsec: 0,
        });
        let input = self.fd();
        let mut fds = [
            PollFd::new(&input, PollFlags::IN),
            PollFd::new(&self.resized, PollFlags::IN),
        ];
        match poll(&mut fds, Some(&timeout)) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => return Ok(Ready::default()),
            Err(error) => return Err(error.into()),
        }
        let ready = |fd: &PollFd<'_>| !fd.revents().is_empty();
        let hung_up = fds[0].revents().intersects(PollFlags::HUP | PollFlags::ERR);
        if hung_up && !fds[0].revents().contains(PollFlags::IN) {
            return Err(closed());
        }
        Ok(Ready {
            input: ready(&fds[0]),
            resized: ready(&fds[1]),
        })
    }
}

/// The error of a terminal that is gone.
fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "the terminal was closed")
}

/// Which of the two sources has something.
#[derive(Default)]
struct Ready {
    input: bool,
    resized: bool,
}

/// Reads what is there without waiting; 0 when nothing is.
fn read_some(fd: BorrowedFd<'_>, buffer: &mut [u8]) -> io::Result<usize> {
    loop {
        match rustix::io::read(fd, &mut *buffer) {
            Ok(read) => return Ok(read),
            Err(rustix::io::Errno::INTR) => {}
            Err(rustix::io::Errno::AGAIN) => return Ok(0),
            Err(error) => return Err(error.into()),
        }
    }
}
