//! The last word when a mapped model file is cut short under the explorer.
//!
//! A model's rows are read in place from the mapped file. If another program truncates the
//! file while embedlens has it open, the next read of a row past the new end raises `SIGBUS`,
//! which would kill the process with the terminal still in raw mode on the alternate screen.
//! The handler installed here restores the terminal, says what happened, and exits with 1.
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

/// Bracketed paste off, attributes reset, cursor shown, main screen back: what the explorer
/// and `ratatui::restore` undo on a normal exit.
const RESTORE_SCREEN: &[u8] = b"\x1b[?2004l\x1b[0m\x1b[?25h\x1b[?1049l";

/// What the user reads after the rescue.
const MESSAGE: &[u8] = b"embedlens: the model file was cut short while it was open \
(SIGBUS reading a row it no longer holds); reopen it once it is whole\n";

/// Installs the `SIGBUS` handler; call it once, before any model file is mapped.
///
/// # Errors
/// When the handler cannot be registered.
pub fn install() -> std::io::Result<()> {
    #[expect(
        unsafe_code,
        reason = "a signal handler must be registered unsafely; `rescue` is async-signal-safe"
    )]
    // SAFETY: `rescue` only loads atomics and makes the system calls write, tcsetattr and _exit.
    unsafe {
        signal_hook::low_level::register(signal_hook::consts::SIGBUS, rescue)?;
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

/// The signal handler: restore the terminal if the explorer holds it, explain, exit.
fn rescue() {
    if TERMINAL_HELD.load(Ordering::SeqCst) {
        let _ = rustix::io::write(stdout(), RESTORE_SCREEN);
        if let Some(settings) = SAVED_TERMINAL.get() {
            let _ = tcsetattr(stdin(), OptionalActions::Now, settings);
        }
    }
    let _ = rustix::io::write(stderr(), MESSAGE);
    signal_hook::low_level::exit(1);
}
