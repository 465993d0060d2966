//! The explorer through the real binary in a pseudo-terminal: keys go in as bytes, the screen
//! comes back through a terminal emulator, and the terminal must be restored on the way out.
//!
//! Every wait polls the emulated screen until what the test expects is drawn, so nothing here
//! depends on how fast the binary runs; a wait that times out fails with the whole screen.

use std::io::{ErrorKind, Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use embedlens::core::text::vocabulary::{VocabKind, Vocabulary};
use portable_pty::{Child, CommandBuilder, ExitStatus, MasterPty, PtySize, native_pty_system};
use unicode_width::UnicodeWidthChar;

/// Rows of the pseudo-terminal the explorer opens in.
const ROWS: u16 = 40;
/// Columns of the pseudo-terminal the explorer opens in.
const COLS: u16 = 120;
/// How long a wait lasts before it fails: generous, as debug builds on a loaded machine are slow.
const TIMEOUT: Duration = Duration::from_secs(10);
/// How often a wait looks at the screen again.
const POLL: Duration = Duration::from_millis(20);

/// The right arrow key as a terminal sends it.
const RIGHT: &[u8] = b"\x1b[C";
/// The left arrow key as a terminal sends it.
const LEFT: &[u8] = b"\x1b[D";
/// The End key as a terminal sends it.
const END: &[u8] = b"\x1b[F";
/// Ctrl+U as a terminal in raw mode sends it: clears the input.
const CTRL_U: &[u8] = b"\x15";
/// The Enter key as a terminal in raw mode sends it.
const ENTER: &[u8] = b"\r";
/// Ctrl+C as a terminal in raw mode sends it.
const CTRL_C: &[u8] = b"\x03";

/// Switches to the alternate screen (`ratatui::init`).
const ENTER_ALTERNATE_SCREEN: &[u8] = b"\x1b[?1049h";
/// Switches back to the main screen (`ratatui::restore`).
const LEAVE_ALTERNATE_SCREEN: &[u8] = b"\x1b[?1049l";
/// Makes the cursor visible.
const SHOW_CURSOR: &[u8] = b"\x1b[?25h";
/// Hides the cursor.
const HIDE_CURSOR: &[u8] = b"\x1b[?25l";

/// Everything the binary wrote: the emulated screen it drew, and the raw bytes.
struct Output {
    parser: vt100::Parser,
    raw: Vec<u8>,
}

/// Locks the output even if a panicking thread poisoned it, so a failure still shows the screen.
fn lock(output: &Mutex<Output>) -> MutexGuard<'_, Output> {
    output.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Polls the screen's text until `predicate` holds and returns that text.
///
/// Panics after `timeout`, naming `what` it waited for and showing the whole screen as it stood.
fn wait_for(
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

/// How many sessions run at once. Each is a debug build redrawing on every key; on a
/// two-core machine fifteen at once starve each other past [`TIMEOUT`], so the rest wait
/// their turn (the wait is not part of any timeout).
const SESSIONS_AT_ONCE: usize = 3;

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
fn bracketed(text: &str) -> Vec<u8> {
    let mut bytes = b"\x1b[200~".to_vec();
    bytes.extend_from_slice(text.as_bytes());
    bytes.extend_from_slice(b"\x1b[201~");
    bytes
}

/// The binary running in a pseudo-terminal, with a thread copying its output into [`Output`].
struct Session {
    /// Held while the session runs (see [`SESSIONS_AT_ONCE`]).
    _turn: Turn,
    output: Arc<Mutex<Output>>,
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    reader: Option<JoinHandle<()>>,
}

impl Session {
    /// Starts `embedlens args…` in a 120×40 pseudo-terminal with a colour `TERM`.
    fn launch(args: &[&str]) -> Self {
        Self::launch_with_term(args, "xterm-256color")
    }

    /// Starts `embedlens args…` in a 120×40 pseudo-terminal with `TERM` set to `term`.
    fn launch_with_term(args: &[&str], term: &str) -> Self {
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_embedlens"));
        command.args(args);
        Self::spawn(command, term)
    }

    /// Starts `embedlens args…` with at most `kib` KiB of address space (`ulimit -v`), so an
    /// allocation that grows out of bounds fails the test instead of exhausting the machine.
    fn launch_limited(args: &[&str], kib: u64) -> Self {
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
    fn spawn(mut command: CommandBuilder, term: &str) -> Self {
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
    fn press(&mut self, keys: &[u8]) {
        self.writer
            .write_all(keys)
            .expect("keys reach the terminal");
        self.writer.flush().expect("keys reach the terminal");
    }

    /// Sends key bytes from another thread, so a binary that stops reading fails the test
    /// by its timeout instead of blocking the write forever; returns when the bytes are
    /// written, or fails after [`TIMEOUT`].
    fn press_bounded(&mut self, keys: Vec<u8>) {
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
    fn wait_for_all(&self, needles: &[&str]) -> String {
        wait_for(
            &self.output,
            &format!("{needles:?}"),
            |screen| needles.iter().all(|needle| screen.contains(needle)),
            TIMEOUT,
        )
    }

    /// Waits until the screen contains `needle`, and returns it.
    fn wait_for_text(&self, needle: &str) -> String {
        self.wait_for_all(&[needle])
    }

    /// Pastes text as a terminal with bracketed paste on sends it: whole, between markers.
    fn paste(&mut self, text: &str) {
        self.press(&bracketed(text));
    }

    /// [`Session::paste`] for a paste large enough to fill the terminal's input buffer: written
    /// from another thread, as [`Session::press_bounded`] writes.
    fn paste_bounded(&mut self, text: &str) {
        self.press_bounded(bracketed(text));
    }

    /// Waits until the screen contains every one of `needles` and every pane's borders line up
    /// (see [`misalignment`]), and returns the screen.
    ///
    /// A frame may be caught half-drawn, so a misaligned screen is looked at again until the
    /// timeout; only then does the wait fail, saying what was out of line.
    fn wait_for_aligned(&self, needles: &[&str]) -> String {
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
    fn resize(&self, rows: u16, cols: u16) {
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
    fn raw_mode(&self) -> bool {
        // Linux's values of ICANON and ECHO, the two flags raw mode clears.
        const ICANON: u32 = 0o2;
        const ECHO: u32 = 0o10;
        let termios = self.master.get_termios().expect("the terminal has termios");
        termios.local_flags.bits() & (ICANON | ECHO) == 0
    }

    /// Waits for the binary to exit and for its last output, and returns its status and bytes.
    fn wait_for_exit(&mut self) -> (ExitStatus, Vec<u8>) {
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
    fn assert_clean_exit(&mut self) {
        let (status, raw) = self.wait_for_exit();
        let screen = lock(&self.output).parser.screen().contents();
        assert!(
            status.success(),
            "the binary exited with {status}; the screen was:\n{screen}"
        );
        self.assert_restored(&raw);
    }

    /// Checks the terminal was left as the binary found it, given everything the binary wrote.
    fn assert_restored(&self, raw: &[u8]) {
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
fn nonzero(cells: u16) -> NonZeroU16 {
    NonZeroU16::new(cells).expect("a terminal is at least one cell wide and high")
}

/// Where `needle` last occurs in `haystack`.
fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .rposition(|window| window == needle)
}

/// The screen's line that contains all of `needles`.
fn line_with<'a>(screen: &'a str, needles: &[&str]) -> &'a str {
    screen
        .lines()
        .find(|line| needles.iter().all(|needle| line.contains(needle)))
        .unwrap_or_else(|| panic!("no line contains all of {needles:?}; the screen was:\n{screen}"))
}

/// A screen row as columns, each holding what starts there: a wide character fills its
/// column and leaves the next `None`; a zero-width mark (such as a combining accent) joins
/// the character before it. Widths are `unicode-width`'s, as the emulator counts them.
fn columns(row: &str) -> Vec<Option<String>> {
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
fn char_at(row: &[Option<String>], column: usize) -> Option<char> {
    row.get(column)?.as_ref()?.chars().next()
}

/// Whether a character is a pane's left or right side (rounded, or thick when focused).
fn is_side(c: Option<char>) -> bool {
    matches!(c, Some('│' | '┃'))
}

/// What is out of line on the screen, if anything: a row wider than the terminal, or a pane
/// whose sides or bottom corners are not in the columns of its top corners.
///
/// Every pane is found by its top-left corner (`╭`, or `┏` when focused) and the first
/// top-right corner after it on the same row; every row below, down to its bottom corner,
/// must have a side in both of those columns.
fn misalignment(rows: &[String], cols: usize) -> Option<String> {
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
fn pane(screen: &str, title: &str) -> Vec<String> {
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
fn operator_rows(screen: &str, operator: &str) -> usize {
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
fn learned_distance(screen: &str) -> f64 {
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

#[test]
fn a_session_types_steps_adds_positions_survives_a_resize_and_quits_clean() {
    let mut session = Session::launch(&[]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    #[cfg(target_os = "linux")]
    assert!(session.raw_mode(), "the explorer runs in raw mode");

    // Focus starts in the input with the cursor at the end, so typing appends a token.
    session.press(b" quick");
    session.wait_for_all(&["fox bites the fox quick", "4 quick #1"]);

    session.press(ENTER);
    session.wait_for_text("EXPLORE");
    for chip in ["▶1 bites #4", "▶2 the #0", "▶3 fox #2"] {
        session.press(RIGHT);
        session.wait_for_text(chip);
    }
    let screen = session.wait_for_text("fox at 0 and 3: same row 2, Euclidean distance 0.0000");
    let matrix = pane(&screen, "Weight matrix");
    let marked: Vec<&String> = matrix.iter().filter(|row| row.contains('▶')).collect();
    assert!(
        matches!(marked[..], [row] if row.contains("2 fox") && row.contains("1.2753 -0.2010 -0.1606")),
        "the matrix marks row 2, fox, with its values, and only that row: {marked:?}\n{screen}"
    );

    session.press(b"p");
    let screen = wait_for(
        &session.output,
        "learned positions in the readout and the lookups",
        |screen| {
            screen.contains("with learned positions")
                && screen.contains("token + learned position = input vector")
        },
        TIMEOUT,
    );
    for operator in ["+", "="] {
        assert_eq!(
            operator_rows(&screen, operator),
            5,
            "each of the 5 tokens has a `{operator}` row:\n{screen}"
        );
    }
    let distance = learned_distance(&screen);
    assert!(
        distance > 0.0,
        "learned positions pull the two foxes apart, but the distance is {distance}:\n{screen}"
    );

    session.press(b"m");
    session.wait_for_all(&[
        "token + sinusoidal position = input vector",
        "with sinusoidal positions",
    ]);

    session.resize(8, 30);
    session.wait_for_text("too small");
    session.resize(ROWS, COLS);
    // Nothing typed or chosen was lost while the panes could not be drawn.
    session.wait_for_all(&[
        "fox bites the fox quick",
        "Weight matrix",
        "token + sinusoidal position = input vector",
        "▶3 fox #2",
    ]);

    session.press(b"q");
    session.assert_clean_exit();
}

#[test]
fn ctrl_c_in_the_input_quits_clean() {
    let mut session = Session::launch(&[]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(CTRL_C);
    session.assert_clean_exit();
}

/// A thousand arrow keys in one write, as key repeat or a paste produces them.
fn key_burst() -> Vec<u8> {
    RIGHT.repeat(1_000)
}

#[test]
fn a_burst_of_a_thousand_keys_then_ctrl_c_quits_clean() {
    let mut session = Session::launch(&[]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    let mut burst = key_burst();
    burst.extend_from_slice(CTRL_C);
    session.press_bounded(burst);
    session.assert_clean_exit();
}

#[test]
fn a_burst_of_keys_with_a_resize_among_them_is_read_to_the_end() {
    let mut session = Session::launch(&[]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(ENTER);
    session.wait_for_text("EXPLORE");
    // Every key of the burst must be read: the last one steps to the last token.
    session.press_bounded(key_burst());
    session.resize(30, 100);
    session.press_bounded(key_burst());
    session.press_bounded(END.to_vec());
    session.wait_for_text("▶3 fox #2");
    session.press_bounded(CTRL_C.to_vec());
    session.assert_clean_exit();
}

/// Whether the bytes set a foreground or background colour: a Select Graphic Rendition
/// sequence (`ESC [ … m`) with a colour parameter (30–38, 40–48, 90–97 or 100–107).
fn sets_a_colour(raw: &[u8]) -> bool {
    let mut rest = raw;
    while let Some(start) = rest.windows(2).position(|pair| pair == b"\x1b[") {
        rest = &rest[start + 2..];
        let Some(end) = rest.iter().position(|byte| (0x40..=0x7e).contains(byte)) else {
            break;
        };
        let (parameters, last) = (&rest[..end], rest[end]);
        if last == b'm' {
            let colour = parameters
                .split(|&byte| byte == b';')
                .filter_map(|number| std::str::from_utf8(number).ok()?.parse::<u16>().ok())
                .any(|number| matches!(number, 30..=38 | 40..=48 | 90..=97 | 100..=107));
            if colour {
                return true;
            }
        }
        rest = &rest[end..];
    }
    false
}

#[test]
fn a_dumb_terminal_gets_no_colour() {
    for (term, coloured) in [("xterm-256color", true), ("dumb", false)] {
        let mut session = Session::launch_with_term(&[], term);
        session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
        session.press(b"q");
        // q types in the input; Ctrl+C quits.
        session.press(CTRL_C);
        session.assert_clean_exit();
        let raw = lock(&session.output).raw.clone();
        assert_eq!(sets_a_colour(&raw), coloured, "TERM={term}");
    }
}

#[test]
fn auto_theme_asks_a_terminal_that_never_answers_and_still_opens_dark() {
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_embedlens"));
    command.env("EMBEDLENS_THEME", "auto");
    let mut session = Session::spawn(command, "xterm-256color");
    // This terminal answers nothing: the explorer opens after the short wait, in the dark
    // theme, which leaves the background to the terminal.
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    let raw = lock(&session.output).raw.clone();
    assert!(
        rfind(&raw, b"\x1b]11;?").is_some(),
        "asked for the background colour"
    );
    assert!(
        rfind(&raw, b"48;2;255;255;255").is_none(),
        "no white painted"
    );
    session.press(CTRL_C);
    session.assert_clean_exit();
}

/// A left click at a 0-based cell as a terminal in SGR mouse mode reports it: press, release.
fn sgr_click((column, row): (usize, usize)) -> Vec<u8> {
    format!(
        "\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m",
        x = column + 1,
        y = row + 1
    )
    .into_bytes()
}

/// One notch of the wheel, down, at a 0-based cell (SGR button 65).
fn sgr_wheel_down((column, row): (usize, usize)) -> Vec<u8> {
    format!("\x1b[<65;{};{}M", column + 1, row + 1).into_bytes()
}

/// The 0-based cell where `needle` starts on the first row of the screen holding `row_has`.
fn cell_of(screen: &str, row_has: &str, needle: &str) -> (usize, usize) {
    let (row, line) = screen
        .lines()
        .enumerate()
        .find(|(_, line)| line.contains(row_has) && line.contains(needle))
        .unwrap_or_else(|| panic!("no row with '{row_has}' and '{needle}':\n{screen}"));
    let byte = line.find(needle).unwrap();
    (line[..byte].chars().count(), row)
}

#[test]
fn clicks_and_the_wheel_step_go_to_a_row_and_scroll() {
    let mut session = Session::launch(&["--vocab", "words", "the dog bites the man"]);
    let screen = session.wait_for_all(&["the dog bites the man", "Weight matrix"]);
    {
        let raw = &lock(&session.output).raw;
        assert!(
            rfind(raw, b"\x1b[?1000h\x1b[?1006h").is_some(),
            "mouse reports on"
        );
    }
    // A token in the strip, clicked while typing: the explorer steps to it.
    session.press(&sgr_click(cell_of(&screen, "#", "bites #")));
    let screen = session.wait_for_text("▶2 bites");
    // A row of the matrix, a few below the current one: gone to, marked as the cursor.
    let row_line = screen
        .lines()
        .skip_while(|line| !line.contains("Weight matrix"))
        .nth(4)
        .expect("matrix rows")
        .to_owned();
    let words: Vec<&str> = row_line.trim_matches('│').split_whitespace().collect();
    let (id, token) = (words[0].to_owned(), words[1].to_owned());
    session.press(&sgr_click(cell_of(
        &screen,
        &format!(" {id} {token} "),
        &token,
    )));
    let screen = wait_for(
        &session.output,
        "the clicked row marked as the cursor",
        |screen| {
            screen
                .lines()
                .any(|line| line.contains('›') && line.contains(&format!(" {id} {token} ")))
        },
        TIMEOUT,
    );
    // The wheel over the matrix: three rows a notch, the range in its border moves.
    let border = |screen: &str| {
        screen
            .lines()
            .find(|line| line.contains(" rows "))
            .map(str::to_owned)
            .unwrap_or_default()
    };
    let before = border(&screen);
    let matrix = cell_of(&screen, "Weight matrix", "Weight matrix");
    session.press(&sgr_wheel_down((matrix.0, matrix.1 + 3)));
    session.press(&sgr_wheel_down((matrix.0, matrix.1 + 3)));
    wait_for(
        &session.output,
        "the matrix scrolled",
        |screen| border(screen) != before && !border(screen).is_empty(),
        TIMEOUT,
    );
    session.press(CTRL_C);
    session.assert_clean_exit();
}

#[test]
fn no_mouse_leaves_the_mouse_to_the_terminal() {
    let mut session = Session::launch(&["--no-mouse"]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(CTRL_C);
    session.assert_clean_exit();
    let raw = lock(&session.output).raw.clone();
    assert!(
        rfind(&raw, b"\x1b[?1000h").is_none(),
        "no mouse reports asked for"
    );
}

/// Writes a safetensors file of one `rows × dims` float32 table named `embed_tokens.weight`,
/// and returns the length of its header (the eight-byte length and the JSON).
fn write_table_file(path: &std::path::Path, rows: usize, dims: usize) -> u64 {
    let mut header = format!(
        r#"{{"embed_tokens.weight":{{"dtype":"F32","shape":[{rows},{dims}],"data_offsets":[0,{}]}}}}"#,
        rows * dims * 4
    );
    while !header.len().is_multiple_of(8) {
        header.push(' ');
    }
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend(header.as_bytes());
    for index in 0..rows * dims {
        let value = f32::from(u16::try_from(index % 97).expect("small")) / 10.0;
        bytes.extend(value.to_le_bytes());
    }
    std::fs::write(path, bytes).expect("the model file is written");
    8 + header.len() as u64
}

#[test]
fn a_model_file_cut_short_while_open_restores_the_terminal_and_says_so() {
    let folder = std::env::temp_dir().join(format!("embedlens-pty-sigbus-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a temp folder");
    let path = folder.join("model.safetensors");
    let header = write_table_file(&path, 4096, 4);
    let mut session = Session::launch(&["--model", path.to_str().expect("a UTF-8 path")]);
    session.wait_for_all(&["2 4 0 2", "Weight matrix"]);
    // Another program cuts the file to its header; row 4000 lies far past the new end.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .and_then(|file| file.set_len(header))
        .expect("the file is cut short");
    session.press(b" 4000");
    let (status, raw) = session.wait_for_exit();
    let _ = std::fs::remove_dir_all(&folder);
    let screen = lock(&session.output).parser.screen().contents();
    assert_eq!(status.exit_code(), 1, "{status}; the screen was:\n{screen}");
    assert!(
        screen.contains("the model file was cut short while it was open"),
        "the message is on the restored screen:\n{screen}"
    );
    session.assert_restored(&raw);
}

#[test]
fn words_vocabulary_with_learned_positions_from_the_command_line() {
    let mut session = Session::launch(&[
        "--vocab",
        "words",
        "--positions",
        "learned",
        "the cat sat on the mat",
    ]);
    session.wait_for_text("the cat sat on the mat");
    session.press(ENTER);
    let screen = session.wait_for_text("EXPLORE");
    let title = line_with(&screen, &["Weight matrix"]);
    assert!(
        title.contains("words"),
        "the matrix title names the vocabulary: {title:?}"
    );
    assert!(
        screen.contains("token + learned position = input vector"),
        "the lookups start with learned positions added:\n{screen}"
    );
    let added = operator_rows(&screen, "+");
    assert!(
        added > 0 && operator_rows(&screen, "=") == added,
        "every token shown has a `+` and an `=` row:\n{screen}"
    );
    session.press(b"q");
    session.assert_clean_exit();
}

#[test]
fn the_guided_lesson_asks_before_it_shows_and_can_be_left_and_resumed() {
    let mut session = Session::launch(&[]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(b"\r");
    session.wait_for_text("EXPLORE");
    session.press(b"L");
    let question =
        session.wait_for_all(&["step 1 of 7", "What comes out?", "Hidden until you guess"]);
    assert!(
        question.contains("1)") && question.contains("2)"),
        "{question}"
    );
    session.press(b"2");
    session.wait_for_all(&["Right, and the panes above show it", "One-hot"]);
    session.press(b"\r");
    session.wait_for_all(&["step 2 of 7", "The repeated word"]);
    session.press(b"1");
    session.wait_for_text("distance 0.0000");
    // Leave in the middle, then resume at the same step.
    session.press(b"\x1b");
    session.wait_for_text("left the lesson at step 2 of 7");
    session.press(b"L");
    session.wait_for_text("step 2 of 7");
    for answer in [b"2", b"1", b"2", b"2"] {
        session.press(b"\r");
        session.press(answer);
    }
    session.wait_for_all(&["step 6 of 7", "RoPE"]);
    session.press(b"\r");
    session.wait_for_text("step 7 of 7");
    session.press(b"\r");
    session.wait_for_text("lesson finished");
    session.press(b"q");
    session.assert_clean_exit();
}

#[test]
fn compare_mode_from_the_keyboard() {
    let mut session = Session::launch(&[]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(b"\rc");
    session.wait_for_all(&["SAME SET OF TOKEN VECTORS", "Attention outputs: identical"]);
    session.press(b"p");
    session.wait_for_all(&["DIFFERENT INPUT VECTORS", "get a different output"]);
    session.press(b"q");
    session.assert_clean_exit();
}

#[test]
fn compare_mode_takes_a_very_long_sentence_within_bounds_and_says_what_was_left_out() {
    // 1 GiB of address space: the unbounded attention matrix asked for 180 GB here.
    let mut session = Session::launch_limited(&["--vocab", "words"], 1 << 20);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(b"\rc");
    session.wait_for_text("SAME SET OF TOKEN VECTORS");
    session.press(b"i");
    session.wait_for_text("Sentences A and B · typing");
    let long = "the dog bites the man ".repeat(300_000 / 22);
    session.paste_bounded(&long);
    session.wait_for_all(&["A: first 128 of ", "Only the first 128 tokens", "left out"]);
    session.press_bounded(CTRL_C.to_vec());
    session.assert_clean_exit();
}

#[test]
fn typing_after_a_megabyte_paste_stays_bounded_and_says_what_was_left_out() {
    // 1 GiB of address space: looking up every token of the paste held over 1 GB here, and
    // every key typed after it looked them all up again.
    let mut session = Session::launch_limited(&["--vocab", "gpt2"], 1 << 20);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(CTRL_U);
    session.wait_for_text("Tokens · 0 ");
    let long = "the fox bites the man ".repeat(1_000_000 / 22);
    session.paste_bounded(&long);
    let screen = session.wait_for_text("Tokens · first 4096 tokens read, the ");
    let unread = |screen: &str| -> usize {
        let line = line_with(screen, &["Tokens · first 4096 tokens read, the "]);
        let (_, after) = line.split_once("read, the ").expect("the count follows");
        after
            .split_whitespace()
            .next()
            .and_then(|count| count.parse().ok())
            .unwrap_or_else(|| panic!("no count of unread characters in {line:?}"))
    };
    let before = unread(&screen);
    // Each key typed at the end of the paste is one more character left out, and is seen.
    // (The text area measures its whole line on every key: a debug build takes a good part of
    // a second a key here, a release build a few milliseconds.)
    for _ in 0..5 {
        session.press(b"z");
    }
    session.wait_for_text(&format!("the {} characters after them", before + 5));
    session.wait_for_text("man zzzzz");
    session.press_bounded(CTRL_C.to_vec());
    session.assert_clean_exit();
}

/// The number of tokens the token strip's title gives.
fn token_count(screen: &str) -> usize {
    let title = line_with(screen, &["Tokens · "]);
    let (_, after) = title
        .split_once("Tokens · ")
        .expect("the title names the count");
    let count = after
        .split_whitespace()
        .next()
        .expect("a count follows the title");
    count
        .parse()
        .unwrap_or_else(|_| panic!("`{count}` is not a token count; the screen was:\n{screen}"))
}

/// Sentences that trouble terminals: wide emoji, wide CJK, a combining accent, right-to-left
/// text; each typed key by key (`true`) or pasted whole.
const UNICODE_SENTENCES: [(&str, bool); 4] = [
    ("the 🦊 bites the 🦊", true),
    ("東京は大きい 東京", false),
    ("cafe\u{301} and cafe\u{301}", false),
    ("שלום עולם שלום", true),
];

/// Enters each sentence, steps through every token, and checks the panes line up on every
/// frame.
fn step_through_unicode_sentences(session: &mut Session) {
    for (sentence, typed) in UNICODE_SENTENCES {
        session.press(CTRL_U);
        session.wait_for_aligned(&["Tokens · 0 "]);
        if typed {
            session.press(sentence.as_bytes());
        } else {
            session.paste(sentence);
        }
        session.wait_for_aligned(&[sentence]);
        session.press(ENTER);
        let screen = session.wait_for_aligned(&["EXPLORE", "▶0 "]);
        let count = token_count(&screen);
        assert!(count > 0, "{sentence:?} has tokens:\n{screen}");
        for step in 1..count {
            session.press(RIGHT);
            session.wait_for_aligned(&[&format!("▶{step} ")]);
        }
        // Positions on, and a scheme that adds them, change every lookup line.
        session.press(b"p");
        session.wait_for_aligned(&["token + learned position = input vector"]);
        session.press(b"p");
        session.wait_for_aligned(&["the row each id returned"]);
        session.press(b"i");
        session.wait_for_aligned(&["Sentence · type"]);
    }
}

#[test]
fn emoji_wide_cjk_combining_marks_and_right_to_left_text_keep_the_panes_aligned() {
    for args in [
        &[][..],
        &["--vocab", "words"][..],
        &["--vocab", "gpt2", "--dim", "8"][..],
    ] {
        let mut session = Session::launch(args);
        session.wait_for_aligned(&["fox bites the fox", "Weight matrix"]);
        step_through_unicode_sentences(&mut session);
        // A narrower terminal stacks the panes; they must line up there too.
        session.resize(30, 77);
        session.wait_for_aligned(&["Weight matrix", "Lookups"]);
        session.press(ENTER);
        session.wait_for_aligned(&["EXPLORE", "▶0 "]);
        session.press(b"q");
        session.assert_clean_exit();
    }
}

#[test]
fn a_long_line_of_wide_characters_scrolls_sideways_and_keeps_the_current_token_whole() {
    // Wide words with a one-column word between them, so the sideways scroll lands both on
    // and inside wide characters as the current token moves.
    let sentence = "東京は大きい a 🦊 ".repeat(12);
    let sentence = sentence.trim_end();
    let tokens = Vocabulary::builtin(VocabKind::Seed)
        .expect("the seed vocabulary is built in")
        .tokenize(sentence);
    let mut session = Session::launch(&[sentence]);
    session.wait_for_aligned(&["Weight matrix"]);
    session.press(ENTER);
    let screen = session.wait_for_aligned(&["EXPLORE", "▶0 "]);
    let inner_width = columns(&pane(&screen, "Sentence")[0]).len();
    assert_eq!(token_count(&screen), tokens.len());
    for token in &tokens {
        if token.position > 0 {
            session.press(RIGHT);
        }
        let screen = session.wait_for_aligned(&[&format!("▶{} ", token.position)]);
        let shown = pane(&screen, "Sentence").remove(0);
        let end = columns(&sentence[..token.span.end]).len();
        let whole = if end > usize::from(COLS) - 2 {
            shown.trim_end().ends_with(&token.text)
        } else {
            shown.contains(&token.text)
        };
        assert!(
            whole,
            "token {} {:?} (ending at column {end} of a {inner_width}-column pane) is not \
             shown whole at the pane's edge: {shown:?}\n{screen}",
            token.position, token.text
        );
    }
    session.press(b"q");
    session.assert_clean_exit();
}

#[test]
fn a_ten_thousand_word_paste_stays_aligned_and_responsive() {
    use embedlens::core::text::sentence::MAX_SENTENCE_TOKENS;
    let words = [
        "the",
        "fox",
        "🦊",
        "bites",
        "東京",
        "שלום",
        "cafe\u{301}",
        "man",
        "dog",
        "quick",
    ];
    let text = words
        .iter()
        .cycle()
        .take(10_000)
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let mut tokens = Vocabulary::builtin(VocabKind::Seed)
        .expect("the seed vocabulary is built in")
        .tokenize(&text);
    // The explorer reads the first MAX_SENTENCE_TOKENS of them and says how much it left.
    tokens.truncate(MAX_SENTENCE_TOKENS);
    let count = tokens.len();
    let unread = text[tokens[count - 1].span.end..].chars().count();
    let mut session = Session::launch(&[]);
    session.wait_for_aligned(&["fox bites the fox", "Weight matrix"]);
    session.press(CTRL_U);
    session.wait_for_aligned(&["Tokens · 0 "]);
    session.paste(&text);
    session.wait_for_aligned(&[&format!(
        "Tokens · first {count} tokens read, the {unread} characters after them left out"
    )]);
    session.press(ENTER);
    session.wait_for_aligned(&["EXPLORE", "▶0 "]);
    session.press(END);
    let screen = session.wait_for_aligned(&[&format!("▶{} ", count - 1)]);
    let shown = pane(&screen, "Sentence").remove(0);
    let last = &tokens[count - 1];
    assert!(
        shown.trim_end().ends_with(&last.text),
        "the sentence scrolls to its last token {:?}: {shown:?}\n{screen}",
        last.text
    );
    session.press(LEFT);
    session.wait_for_aligned(&[&format!("▶{} ", count - 2)]);
    session.press(b"p");
    session.wait_for_aligned(&["token + learned position = input vector"]);
    session.press(b"q");
    session.assert_clean_exit();
}

#[test]
fn the_whole_lesson_at_80_by_24_and_the_sentence_comes_back() {
    let mut session = Session::launch(&[]);
    session.resize(24, 80);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(b"\x15dog bites man\r");
    session.wait_for_text("EXPLORE");
    session.press(b"L");
    session.wait_for_all(&["step 1 of 7", "ids hidden until you answer"]);
    let answers: [&[u8]; 6] = [b"2", b"1", b"1", b"2", b"1", b"2"];
    for (step, answer) in answers.into_iter().enumerate() {
        session.wait_for_text(&format!("step {} of 7", step + 1));
        session.press(answer);
        session.wait_for_text("✔ Right");
        session.press(b"\r");
    }
    session.wait_for_text("step 7 of 7");
    session.press(b"\r");
    session.wait_for_all(&["lesson finished", "dog bites man"]);
    session.press(b"q");
    session.assert_clean_exit();
}

/// `count` characters of typed text (not a bracketed paste), as a terminal without bracketed
/// paste, a slow paste or a stuck key sends them.
fn typed_flood(count: usize) -> Vec<u8> {
    "the dog bites the man "
        .bytes()
        .cycle()
        .take(count)
        .collect()
}

#[test]
fn a_typed_flood_is_taken_in_whole_and_ctrl_c_in_its_middle_quits_at_once() {
    // Typing mode, then compare mode's second sentence, with GPT-2's tokenizer: each typed
    // key used to re-tokenise and re-derive everything (minutes of work for 10,000 keys).
    for compare in [false, true] {
        let mut session = Session::launch(&["--vocab", "gpt2"]);
        session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
        if compare {
            session.press(ENTER);
            session.wait_for_text("EXPLORE");
            session.press(b"c");
            session.wait_for_text("Compare");
            session.press(b"I");
        }
        session.press(CTRL_U);
        let mut flood = typed_flood(10_000);
        flood.extend_from_slice(b"zebra");
        session.press_bounded(flood);
        // The whole flood is read and tokenised well within the test's timeout.
        session.wait_for_text("zebra");
        session.press_bounded(typed_flood(5_000));
        session.press_bounded(CTRL_C.to_vec());
        session.press_bounded(typed_flood(5_000));
        session.assert_clean_exit();
    }
}

#[test]
fn a_paste_whose_end_never_comes_ends_and_the_keys_after_it_act() {
    // A paste's start with no end (a terminal or multiplexer that lost it): the text that came
    // is the paste, and the keys typed after a quiet moment are keys again, Ctrl+C included.
    let mut session = Session::launch(&[]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(CTRL_U);
    session.press(b"\x1b[200~dog bites man");
    session.wait_for_text("dog bites man");
    session.press(b" zebra");
    session.wait_for_text("dog bites man zebra");
    session.press(CTRL_C);
    session.assert_clean_exit();
}

#[cfg(target_os = "linux")]
#[test]
fn a_signal_from_outside_restores_the_terminal_and_ends_as_the_signal_does() {
    for signal in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT, libc::SIGQUIT] {
        let mut session = Session::launch(&[]);
        session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
        let pid = session
            .child
            .process_id()
            .expect("the child has a process id");
        #[expect(
            unsafe_code,
            reason = "kill(2) sends a signal to the child; no memory is touched"
        )]
        // SAFETY: kill only sends a signal to the process the test started.
        let sent = unsafe { libc::kill(libc::pid_t::try_from(pid).expect("a pid"), signal) };
        assert_eq!(sent, 0, "the signal was sent");
        let (status, raw) = session.wait_for_exit();
        assert!(
            !status.success() && status.signal().is_some(),
            "signal {signal}: ended by the signal, as its default action ends a process: {status}"
        );
        session.assert_restored(&raw);
    }
}

#[test]
fn e_writes_the_screen_in_a_real_terminal_and_never_overwrites() {
    let dir = std::env::temp_dir().join(format!("embedlens-pty-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp folder");
    let dir_arg = dir.to_str().expect("a UTF-8 temp path");
    let mut session = Session::launch(&["--export-dir", dir_arg, "fox bites the fox"]);
    session.wait_for_text("Weight matrix");
    session.press(ENTER);
    for _ in 0..3 {
        session.press(RIGHT);
    }
    session.wait_for_text("▶3 fox #2");
    session.press(b"e");
    let screen = session.wait_for_text("wrote fox");
    assert!(
        screen.contains("fox-bites-the-fox.svg, .html, .txt in"),
        "{screen}"
    );
    let text = std::fs::read_to_string(dir.join("fox-bites-the-fox.txt")).expect("the text file");
    // The file is the screen as it was drawn when `e` was pressed: all but the status line.
    let shown: Vec<&str> = screen.lines().map(str::trim_end).collect();
    let written: Vec<&str> = text.lines().collect();
    assert_eq!(written.len(), usize::from(ROWS));
    assert_eq!(written[..written.len() - 1], shown[..written.len() - 1]);
    let svg = std::fs::read_to_string(dir.join("fox-bites-the-fox.svg")).expect("the picture");
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1200\" height=\"720\"")
    );
    assert!(dir.join("fox-bites-the-fox.html").exists());
    session.press(b"e");
    session.wait_for_text("fox-bites-the-fox-2.svg");
    session.press(b"q");
    session.assert_clean_exit();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Standard base64 (with `=` padding) decoded, as OSC 52 carries the clipboard's text.
fn base64_decode(text: &[u8]) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("{c} is not base64"),
        }
    };
    let mut bytes = Vec::new();
    for chunk in text.chunks(4) {
        let digits: Vec<u8> = chunk.iter().copied().filter(|&c| c != b'=').collect();
        let bits =
            digits.iter().fold(0u32, |bits, &c| (bits << 6) | value(c)) << (6 * (4 - digits.len()));
        let count = digits.len().saturating_sub(1);
        bytes.extend_from_slice(&bits.to_be_bytes()[1..=count]);
    }
    bytes
}

#[test]
fn y_copies_the_snippet_to_the_clipboard_with_osc_52() {
    let mut session = Session::launch(&["fox bites the fox"]);
    session.wait_for_text("Weight matrix");
    session.press(ENTER);
    session.press(b"p");
    session.wait_for_text("with learned positions");
    session.press(b"y");
    session.wait_for_text("Copied to the clipboard (OSC 52)");
    let raw = lock(&session.output).raw.clone();
    let start = rfind(&raw, b"\x1b]52;c;").expect("an OSC 52 sequence was written") + 7;
    let length = raw[start..]
        .windows(2)
        .position(|pair| pair == b"\x1b\\")
        .expect("the sequence ends with ST");
    let copied = base64_decode(&raw[start..start + length]);
    let printed = std::process::Command::new(env!("CARGO_BIN_EXE_embedlens"))
        .args(["snippet", "fox bites the fox", "--positions", "learned"])
        .output()
        .expect("embedlens snippet runs");
    assert_eq!(
        String::from_utf8(copied).unwrap(),
        String::from_utf8(printed.stdout).unwrap(),
        "the clipboard gets the script embedlens snippet prints"
    );
    session.press(b"\x1b");
    session.wait_for_text("EXPLORE");
    session.press(b"q");
    session.assert_clean_exit();
}
