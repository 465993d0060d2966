//! The explorer's binary in a pseudo-terminal, for the pty tests (`tests/pty*.rs`): keys go
//! in as bytes, the screen comes back through a terminal emulator, and the terminal must be
//! restored on the way out.
//!
//! Every wait polls the emulated screen until what the test expects is drawn, so nothing here
//! depends on how fast the binary runs; a wait that times out fails with the whole screen.
//!
//! Each test file takes what it needs with `mod pty_session;`, so any one file leaves some of
//! this unused.
#![allow(
    dead_code,
    reason = "each pty test file uses some of the session's helpers; `expect` would fail in the files that use them all"
)]
use std::io::{ErrorKind, Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, ExitStatus, MasterPty, PtySize, native_pty_system};
use unicode_width::UnicodeWidthChar;

/// Rows of the pseudo-terminal the explorer opens in.
pub const ROWS: u16 = 40;
/// Columns of the pseudo-terminal the explorer opens in.
pub const COLS: u16 = 120;
/// How long a wait lasts before it fails: generous, as debug builds on a loaded machine are slow.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// How often a wait looks at the screen again.
pub const POLL: Duration = Duration::from_millis(20);

/// The right arrow key as a terminal sends it.
pub const RIGHT: &[u8] = b"\x1b[C";
/// The left arrow key as a terminal sends it.
pub const LEFT: &[u8] = b"\x1b[D";
/// The End key as a terminal sends it.
pub const END: &[u8] = b"\x1b[F";
/// Ctrl+U as a terminal in raw mode sends it: clears the input.
pub const CTRL_U: &[u8] = b"\x15";
/// The Enter key as a terminal in raw mode sends it.
pub const ENTER: &[u8] = b"\r";
/// Ctrl+C as a terminal in raw mode sends it.
pub const CTRL_C: &[u8] = b"\x03";

/// Switches to the alternate screen (`ratatui::init`).
pub const ENTER_ALTERNATE_SCREEN: &[u8] = b"\x1b[?1049h";
/// Switches back to the main screen (`ratatui::restore`).
pub const LEAVE_ALTERNATE_SCREEN: &[u8] = b"\x1b[?1049l";
/// Makes the cursor visible.
pub const SHOW_CURSOR: &[u8] = b"\x1b[?25h";
/// Hides the cursor.
pub const HIDE_CURSOR: &[u8] = b"\x1b[?25l";

/// Everything the binary wrote: the emulated screen it drew, and the raw bytes.
pub struct Output {
    pub parser: vt100::Parser,
    pub raw: Vec<u8>,
}

/// Locks the output even if a panicking thread poisoned it, so a failure still shows the screen.
pub fn lock(output: &Mutex<Output>) -> MutexGuard<'_, Output> {
    output.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Polls the screen's text until `predicate` holds and returns that text.
///
/// Panics after `timeout`, naming `what` it waited for and showing the whole screen as it stood.
pub fn wait_for(
    output: &Mutex<Output>,
    what: &str,
    predicate: impl Fn(&str) -> bool,
    timeout: Duration,
) -> String {
    let start = Instant::now();
    loop {
        let contents = lock(output).parser.screen().contents();
        if predicate(&contents) {
            return contents;
        }
        assert!(
            start.elapsed() < timeout,
            "timed out after {timeout:?} waiting for {what}; the screen was:\n{contents}"
        );
        thread::sleep(POLL);
    }
}

/// How long the screen must stay the same to count as settled ([`Session::wait_settled`]).
pub const SETTLED: Duration = Duration::from_millis(300);

/// How many sessions run at once. Each is a debug build redrawing on every key; on a
/// two-core machine fifteen at once starve each other past [`TIMEOUT`], so the rest wait
/// their turn (the wait is not part of any timeout).
pub const SESSIONS_AT_ONCE: usize = 3;

/// Sessions running now, and the signal that one ended.
static RUNNING: (Mutex<usize>, std::sync::Condvar) = (Mutex::new(0), std::sync::Condvar::new());

/// A turn to run a session, given back when dropped.
struct Turn;

impl Turn {
    fn wait() -> Self {
        let (count, ended) = &RUNNING;
        let mut running = count.lock().unwrap_or_else(PoisonError::into_inner);
        while *running >= SESSIONS_AT_ONCE {
            running = ended.wait(running).unwrap_or_else(PoisonError::into_inner);
        }
        *running += 1;
        Self
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let (count, ended) = &RUNNING;
        *count.lock().unwrap_or_else(PoisonError::into_inner) -= 1;
        ended.notify_one();
    }
}

/// Text between the markers a terminal with bracketed paste on puts around a paste.
pub fn bracketed(text: &str) -> Vec<u8> {
    let mut bytes = b"\x1b[200~".to_vec();
    bytes.extend_from_slice(text.as_bytes());
    bytes.extend_from_slice(b"\x1b[201~");
    bytes
}

/// The binary running in a pseudo-terminal, with a thread copying its output into [`Output`].
pub struct Session {
    /// Held while the session runs (see [`SESSIONS_AT_ONCE`]).
    _turn: Turn,
    pub output: Arc<Mutex<Output>>,
    pub master: Box<dyn MasterPty + Send>,
    pub writer: Box<dyn Write + Send>,
    pub child: Box<dyn Child + Send + Sync>,
    pub reader: Option<JoinHandle<()>>,
}

impl Session {
    /// Starts `embedlens args…` in a 120×40 pseudo-terminal with a colour `TERM`.
    pub fn launch(args: &[&str]) -> Self {
        Self::launch_with_term(args, "xterm-256color")
    }

    /// Starts `embedlens args…` in a 120×40 pseudo-terminal with `TERM` set to `term`.
    pub fn launch_with_term(args: &[&str], term: &str) -> Self {
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_embedlens"));
        command.args(args);
        Self::spawn(command, term)
    }

    /// Starts `embedlens args…` with at most `kib` KiB of address space (`ulimit -v`), so an
    /// allocation that grows out of bounds fails the test instead of exhausting the machine.
    pub fn launch_limited(args: &[&str], kib: u64) -> Self {
        let mut command = CommandBuilder::new("sh");
        command.args([
            "-c",
            "ulimit -v \"$1\" || exit 99; shift; exec \"$@\"",
            "sh",
        ]);
        command.arg(kib.to_string());
        command.arg(env!("CARGO_BIN_EXE_embedlens"));
        command.args(args);
        Self::spawn(command, "xterm-256color")
    }

    /// Runs `command` in a 120×40 pseudo-terminal with `TERM` set to `term`.
    pub fn spawn(mut command: CommandBuilder, term: &str) -> Self {
        let turn = Turn::wait();
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal opens");
        command.env("TERM", term);
        command.env_remove("NO_COLOR");
        // The dark theme without asking the terminal, unless a test asks for `auto` itself.
        if command.get_env("EMBEDLENS_THEME").is_none() {
            command.env("EMBEDLENS_THEME", "dark");
        }
        let child = pty.slave.spawn_command(command).expect("the binary starts");
        // Only the child may hold the slave: once it exits, reads from the master end.
        drop(pty.slave);
        let master = pty.master;
        let mut reader = master.try_clone_reader().expect("the master can be read");
        let writer = master.take_writer().expect("the master can be written");
        let output = Arc::new(Mutex::new(Output {
            parser: vt100::Parser::new(nonzero(ROWS), nonzero(COLS), 0),
            raw: Vec::new(),
        }));
        let sink = Arc::clone(&output);
        let reader = thread::spawn(move || {
            let mut buffer = [0; 4096];
            loop {
                match reader.read(&mut buffer) {
                    Err(error) if error.kind() == ErrorKind::Interrupted => {}
                    // Linux reports the slave's last close as EIO rather than EOF: both end it.
                    Ok(0) | Err(_) => break,
                    Ok(read) => {
                        let mut output = lock(&sink);
                        output.parser.process(&buffer[..read]);
                        output.raw.extend_from_slice(&buffer[..read]);
                    }
                }
            }
        });
        Self {
            _turn: turn,
            output,
            master,
            writer,
            child,
            reader: Some(reader),
        }
    }

    /// Sends key bytes to the binary as a terminal would.
    pub fn press(&mut self, keys: &[u8]) {
        self.writer
            .write_all(keys)
            .expect("keys reach the terminal");
        self.writer.flush().expect("keys reach the terminal");
    }

    /// Sends key bytes from another thread, so a binary that stops reading fails the test
    /// by its timeout instead of blocking the write forever; returns when the bytes are
    /// written, or fails after [`TIMEOUT`].
    pub fn press_bounded(&mut self, keys: Vec<u8>) {
        let mut writer = std::mem::replace(&mut self.writer, Box::new(std::io::sink()));
        let (sent, written) = std::sync::mpsc::channel();
        thread::spawn(move || {
            let result = writer.write_all(&keys).and_then(|()| writer.flush());
            let _ = sent.send((writer, result));
        });
        let (writer, result) = written.recv_timeout(TIMEOUT).unwrap_or_else(|_| {
            let screen = lock(&self.output).parser.screen().contents();
            panic!("the binary read no more keys for {TIMEOUT:?}; the screen was:\n{screen}")
        });
        result.expect("keys reach the terminal");
        self.writer = writer;
    }

    /// Waits until the screen contains every one of `needles`, and returns it.
    pub fn wait_for_all(&self, needles: &[&str]) -> String {
        wait_for(
            &self.output,
            &format!("{needles:?}"),
            |screen| needles.iter().all(|needle| screen.contains(needle)),
            TIMEOUT,
        )
    }

    /// Waits until the screen contains `needle`, and returns it.
    pub fn wait_for_text(&self, needle: &str) -> String {
        self.wait_for_all(&[needle])
    }

    /// Waits until the screen has stopped changing (the same text for [`SETTLED`]) and returns
    /// it: a frame is written in pieces, so a needle can show while the rest of the screen is
    /// still the last frame's.
    pub fn wait_settled(&self) -> String {
        let start = Instant::now();
        let mut last = lock(&self.output).parser.screen().contents();
        let mut since = Instant::now();
        loop {
            thread::sleep(POLL);
            let now = lock(&self.output).parser.screen().contents();
            if now != last {
                (last, since) = (now, Instant::now());
            } else if since.elapsed() >= SETTLED {
                return now;
            }
            assert!(
                start.elapsed() < TIMEOUT,
                "timed out after {TIMEOUT:?} waiting for the screen to settle; it was:\n{last}"
            );
        }
    }

    /// Pastes text as a terminal with bracketed paste on sends it: whole, between markers.
    pub fn paste(&mut self, text: &str) {
        self.press(&bracketed(text));
    }

    /// [`Session::paste`] for a paste large enough to fill the terminal's input buffer: written
    /// from another thread, as [`Session::press_bounded`] writes.
    pub fn paste_bounded(&mut self, text: &str) {
        self.press_bounded(bracketed(text));
    }

    /// Waits until the screen contains every one of `needles` and every pane's borders line up
    /// (see [`misalignment`]), and returns the screen.
    ///
    /// A frame may be caught half-drawn, so a misaligned screen is looked at again until the
    /// timeout; only then does the wait fail, saying what was out of line.
    pub fn wait_for_aligned(&self, needles: &[&str]) -> String {
        let start = Instant::now();
        loop {
            let (contents, rows, cols) = {
                let output = lock(&self.output);
                let screen = output.parser.screen();
                let cols = screen.size().1.get();
                (
                    screen.contents(),
                    screen.rows(0, cols).collect::<Vec<_>>(),
                    cols,
                )
            };
            let missing: Vec<&&str> = needles
                .iter()
                .filter(|needle| !contents.contains(**needle))
                .collect();
            let problem = if missing.is_empty() {
                misalignment(&rows, usize::from(cols))
            } else {
                Some(format!("the screen lacks {missing:?}"))
            };
            let Some(problem) = problem else {
                return contents;
            };
            assert!(
                start.elapsed() < TIMEOUT,
                "timed out after {TIMEOUT:?} waiting for {needles:?} on aligned panes: {problem}; \
                 the screen was:\n{contents}"
            );
            thread::sleep(POLL);
        }
    }

    /// Resizes the terminal: the emulator first, so the redraw that follows lands on it whole.
    pub fn resize(&self, rows: u16, cols: u16) {
        lock(&self.output)
            .parser
            .set_size(nonzero(rows), nonzero(cols));
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("the terminal resizes");
    }

    /// Whether the terminal is in raw mode: no line editing and no echo.
    #[cfg(target_os = "linux")]
    pub fn raw_mode(&self) -> bool {
        // Linux's values of ICANON and ECHO, the two flags raw mode clears.
        const ICANON: u32 = 0o2;
        const ECHO: u32 = 0o10;
        let termios = self.master.get_termios().expect("the terminal has termios");
        termios.local_flags.bits() & (ICANON | ECHO) == 0
    }

    /// Waits for the binary to exit and for its last output, and returns its status and bytes.
    pub fn wait_for_exit(&mut self) -> (ExitStatus, Vec<u8>) {
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("the child can be waited for") {
                break status;
            }
            let screen = lock(&self.output).parser.screen().contents();
            assert!(
                start.elapsed() < TIMEOUT,
                "the binary did not exit within {TIMEOUT:?}; the screen was:\n{screen}"
            );
            thread::sleep(POLL);
        };
        let reader = self.reader.take().expect("the reader runs until the exit");
        while !reader.is_finished() {
            assert!(
                start.elapsed() < TIMEOUT,
                "the output did not end within {TIMEOUT:?} of the exit"
            );
            thread::sleep(POLL);
        }
        reader.join().expect("the reader thread does not panic");
        (status, lock(&self.output).raw.clone())
    }

    /// Checks the exit: success, and the terminal left as the binary found it.
    pub fn assert_clean_exit(&mut self) {
        let (status, raw) = self.wait_for_exit();
        let screen = lock(&self.output).parser.screen().contents();
        assert!(
            status.success(),
            "the binary exited with {status}; the screen was:\n{screen}"
        );
        self.assert_restored(&raw);
    }

    /// Checks the terminal was left as the binary found it, given everything the binary wrote.
    pub fn assert_restored(&self, raw: &[u8]) {
        let entered =
            rfind(raw, ENTER_ALTERNATE_SCREEN).expect("the explorer used the alternate screen");
        let left =
            rfind(raw, LEAVE_ALTERNATE_SCREEN).expect("the explorer left the alternate screen");
        assert!(
            left > entered,
            "the alternate screen was entered again after it was left"
        );
        let shown = rfind(raw, SHOW_CURSOR).expect("the cursor was shown");
        assert!(
            rfind(raw, HIDE_CURSOR).is_none_or(|hidden| hidden < shown),
            "the cursor was left hidden"
        );
        let output = lock(&self.output);
        let emulated = output.parser.screen();
        assert!(
            !emulated.alternate_screen(),
            "still on the alternate screen"
        );
        assert!(!emulated.hide_cursor(), "the cursor is still hidden");
        assert!(!emulated.bracketed_paste(), "bracketed paste is still on");
        assert_eq!(
            emulated.mouse_protocol_mode(),
            vt100::MouseProtocolMode::None,
            "the mouse is still reported"
        );
        drop(output);
        #[cfg(target_os = "linux")]
        assert!(!self.raw_mode(), "the terminal was left in raw mode");
    }
}

impl Drop for Session {
    /// A failed test must not leave the binary running.
    fn drop(&mut self) {
        if self.child.try_wait().is_ok_and(|status| status.is_none()) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A terminal dimension for the emulator, which has no room for zero.
pub fn nonzero(cells: u16) -> NonZeroU16 {
    NonZeroU16::new(cells).expect("a terminal is at least one cell wide and high")
}

/// Where `needle` last occurs in `haystack`.
pub fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .rposition(|window| window == needle)
}

/// The screen's line that contains all of `needles`.
pub fn line_with<'a>(screen: &'a str, needles: &[&str]) -> &'a str {
    screen
        .lines()
        .find(|line| needles.iter().all(|needle| line.contains(needle)))
        .unwrap_or_else(|| panic!("no line contains all of {needles:?}; the screen was:\n{screen}"))
}

/// A screen row as columns, each holding what starts there: a wide character fills its
/// column and leaves the next `None`; a zero-width mark (such as a combining accent) joins
/// the character before it. Widths are `unicode-width`'s, as the emulator counts them.
pub fn columns(row: &str) -> Vec<Option<String>> {
    let mut cells: Vec<Option<String>> = Vec::new();
    for c in row.chars() {
        let width = c.width().unwrap_or(0);
        if width == 0 {
            if let Some(Some(cell)) = cells.iter_mut().rev().find(|cell| cell.is_some()) {
                cell.push(c);
            }
            continue;
        }
        cells.push(Some(c.to_string()));
        cells.extend(std::iter::repeat_n(None, width - 1));
    }
    cells
}

/// The character that starts at `column` of a row of [`columns`], if any.
pub fn char_at(row: &[Option<String>], column: usize) -> Option<char> {
    row.get(column)?.as_ref()?.chars().next()
}

/// Whether a character is a pane's left or right side (rounded, or thick when focused).
pub fn is_side(c: Option<char>) -> bool {
    matches!(c, Some('│' | '┃'))
}

/// What is out of line on the screen, if anything: a row wider than the terminal, or a pane
/// whose sides or bottom corners are not in the columns of its top corners.
///
/// Every pane is found by its top-left corner (`╭`, or `┏` when focused) and the first
/// top-right corner after it on the same row; every row below, down to its bottom corner,
/// must have a side in both of those columns.
pub fn misalignment(rows: &[String], cols: usize) -> Option<String> {
    let grid: Vec<Vec<Option<String>>> = rows.iter().map(|row| columns(row)).collect();
    for (index, row) in grid.iter().enumerate() {
        if row.len() > cols {
            return Some(format!(
                "row {index} is {} columns wide in a terminal of {cols}",
                row.len()
            ));
        }
    }
    for (top, row) in grid.iter().enumerate() {
        for left in 0..row.len() {
            if !matches!(char_at(row, left), Some('╭' | '┏')) {
                continue;
            }
            let Some(right) =
                (left + 1..row.len()).find(|&c| matches!(char_at(row, c), Some('╮' | '┓')))
            else {
                return Some(format!(
                    "the pane at row {top}, column {left} has no top-right corner"
                ));
            };
            let pane = format!("the pane at row {top}, columns {left}–{right}");
            let mut bottom = top + 1;
            loop {
                let Some(cells) = grid.get(bottom) else {
                    return Some(format!("{pane} has no bottom border"));
                };
                match char_at(cells, left) {
                    Some('╰' | '┗') => {
                        if !matches!(char_at(cells, right), Some('╯' | '┛')) {
                            return Some(format!(
                                "{pane} has {:?} at row {bottom} where its bottom-right corner \
                                 should be",
                                char_at(cells, right)
                            ));
                        }
                        break;
                    }
                    side if is_side(side) => {
                        if !is_side(char_at(cells, right)) {
                            return Some(format!(
                                "{pane} has {:?} at row {bottom} where its right side should be",
                                char_at(cells, right)
                            ));
                        }
                    }
                    other => {
                        return Some(format!(
                            "{pane} has {other:?} at row {bottom} where its left side should be"
                        ));
                    }
                }
                bottom += 1;
            }
        }
    }
    None
}

/// The rows inside the pane whose top border holds `title`, without the borders.
///
/// Panes sit side by side or stacked depending on the width, so the pane is found by its
/// corners: the `╭` (or a focused `┏`) before the title, the `╮` (`┓`) after it, and the `╰`
/// (`┗`) below. Columns are counted by display width, so wide characters in a row do not
/// shift the borders.
pub fn pane(screen: &str, title: &str) -> Vec<String> {
    let rows: Vec<Vec<Option<String>>> = screen.lines().map(columns).collect();
    let (top, title_column) = screen
        .lines()
        .enumerate()
        .find_map(|(row, line)| {
            line.find(title)
                .map(|byte| (row, columns(&line[..byte]).len()))
        })
        .unwrap_or_else(|| panic!("no pane titled {title:?}; the screen was:\n{screen}"));
    let top_row = &rows[top];
    let left = (0..title_column)
        .rev()
        .find(|&c| matches!(char_at(top_row, c), Some('╭' | '┏')))
        .expect("a pane's title follows its top-left corner");
    let right = (title_column..top_row.len())
        .find(|&c| matches!(char_at(top_row, c), Some('╮' | '┓')))
        .expect("a pane's title precedes its top-right corner");
    rows[top + 1..]
        .iter()
        .take_while(|row| !matches!(char_at(row, left), Some('╰' | '┗')))
        // The emulator trims trailing blanks, so a row may end before the right border.
        .map(|row| {
            row.iter()
                .take(right)
                .skip(left + 1)
                .flatten()
                .map(String::as_str)
                .collect()
        })
        .collect()
}

/// How many rows of the lookups pane put `operator` before a vector: `+` before a position
/// vector, `=` before an input vector, whether on a row of their own or after the token vector.
pub fn operator_rows(screen: &str, operator: &str) -> usize {
    pane(screen, "Lookups")
        .iter()
        .filter(|row| {
            let words: Vec<&str> = row.split_whitespace().collect();
            words
                .windows(2)
                .any(|pair| pair[0] == operator && pair[1].parse::<f32>().is_ok())
        })
        .count()
}

/// The readout's distance between input vectors, the number after `with learned positions`.
pub fn learned_distance(screen: &str) -> f64 {
    let (_, after) = screen
        .split_once("with learned positions")
        .unwrap_or_else(|| panic!("no learned distance in the readout:\n{screen}"));
    let number = after
        .split_whitespace()
        .find(|word| *word != "│")
        .unwrap_or_else(|| panic!("nothing after `with learned positions`:\n{screen}"));
    number
        .parse()
        .unwrap_or_else(|_| panic!("`{number}` is not a distance; the screen was:\n{screen}"))
}
