//! The last word when the explorer is ended from outside, or a mapped model file is cut short
//! under it.
//!
//! A model's rows are read in place from the mapped file. If another program truncates the
//! file while embedlens has it open, the next read of a row past the new end raises `SIGBUS`,
//! which would kill the process with the terminal still in raw mode on the alternate screen.
//! The handler installed here restores the terminal, says what happened, and exits with 1.
//!
//! `SIGTERM`, `SIGHUP`, `SIGINT` and `SIGQUIT` (sent by `kill`, a closing terminal window or a
//! session manager; the keyboard's Ctrl+C is a key in raw mode) likewise restore the terminal,
//! then end the process as the signal's default action would, so the shell sees 128 + signal.
//!
//! It runs inside a signal handler, so it does only what is safe there: atomic loads, and
//! the `write`, `tcsetattr` and `_exit` system calls.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::stdio::{stderr, stdin, stdout};
use rustix::termios::{OptionalActions, Termios, tcgetattr, tcsetattr};

/// The terminal's settings before the explorer put it in raw mode.
static SAVED_TERMINAL: OnceLock<Termios> = OnceLock::new();
/// Whether the explorer holds the terminal (raw mode, alternate screen) now.
static TERMINAL_HELD: AtomicBool = AtomicBool::new(false);

/// Mouse reports off (SGR form, then presses and the wheel): the terminal's own selection back.
pub const MOUSE_OFF: &[u8] = b"\x1b[?1006l\x1b[?1000l";

/// Mouse reports and bracketed paste off, attributes reset, cursor shown, main screen back:
/// what the explorer and `ratatui::restore` undo on a normal exit.
const RESTORE_SCREEN: &[u8] = b"\x1b[?1006l\x1b[?1000l\x1b[?2004l\x1b[0m\x1b[?25h\x1b[?1049l";

/// What the user reads after the rescue.
const MESSAGE: &[u8] = b"embedlens: the model file was cut short while it was open \
(SIGBUS reading a row it no longer holds); reopen it once it is whole\n";

/// The signals that end the process from outside; each restores the terminal first.
const ENDING_SIGNALS: [std::ffi::c_int; 4] = [
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGQUIT,
];

/// Installs the `SIGBUS` handler and the handlers of the ending signals; call it once, before
/// any model file is mapped.
///
/// # Errors
/// When a handler cannot be registered.
pub fn install() -> std::io::Result<()> {
    #[expect(
        unsafe_code,
        reason = "a signal handler must be registered unsafely; `rescue` and `end` are \
                  async-signal-safe"
    )]
    // SAFETY: `rescue` and `end` only load atomics and make the system calls write, tcsetattr,
    // sigaction, raise and _exit (`emulate_default_handler` is documented async-signal-safe).
    unsafe {
        signal_hook::low_level::register(signal_hook::consts::SIGBUS, rescue)?;
        for signal in ENDING_SIGNALS {
            signal_hook::low_level::register(signal, move || end(signal))?;
        }
    }
    Ok(())
}

/// Records the terminal's settings before the explorer changes them, so a rescue can put them
/// back; call it just before the terminal is taken over.
pub fn hold_terminal() {
    if let Ok(settings) = tcgetattr(stdin()) {
        let _ = SAVED_TERMINAL.set(settings);
        TERMINAL_HELD.store(true, Ordering::SeqCst);
    }
}

/// Says the terminal is restored, so a later rescue leaves it alone.
pub fn release_terminal() {
    TERMINAL_HELD.store(false, Ordering::SeqCst);
}

/// Puts the terminal back as it was, if the explorer holds it.
fn restore_terminal() {
    if TERMINAL_HELD.swap(false, Ordering::SeqCst) {
        let _ = rustix::io::write(stdout(), RESTORE_SCREEN);
        if let Some(settings) = SAVED_TERMINAL.get() {
            let _ = tcsetattr(stdin(), OptionalActions::Now, settings);
        }
    }
}

/// The `SIGBUS` handler: restore the terminal if the explorer holds it, explain, exit.
fn rescue() {
    restore_terminal();
    let _ = rustix::io::write(stderr(), MESSAGE);
    signal_hook::low_level::exit(1);
}

/// An ending signal's handler: restore the terminal, then end as the signal would have.
fn end(signal: std::ffi::c_int) {
    restore_terminal();
    if signal_hook::low_level::emulate_default_handler(signal).is_err() {
        signal_hook::low_level::exit(128 + signal);
    }
}
