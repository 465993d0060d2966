//! `embedlens export`: the explorer driven by named keys through the real event path, drawn
//! at a given size without a terminal, and written as SVG, HTML or text.

use std::time::Duration;

use anyhow::{Context, Result};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{Event, KeyEvent};

use crate::action::{Action, parse_key};
use crate::app::App;
use crate::cli::ExportArgs;
use crate::export::{Format, exists_already, write_new};

/// Draws the explorer the arguments ask for after their keys, and writes it to their file.
///
/// # Errors
/// When a key name is unknown, the file's extension names no format, the file exists (without
/// `--force`), the model cannot be opened, or the file cannot be written.
pub fn export(args: &ExportArgs) -> Result<()> {
    let format = Format::of_path(&args.output)?;
    let keys = parse_keys(&args.keys)?;
    // Before the model is opened: a refusal should not wait for a large model.
    if !args.force && args.output.symlink_metadata().is_ok() {
        return Err(exists_already(&args.output));
    }
    let mut app = App::new(args.explorer.options()?);
    let buffer = draw_after_keys(&mut app, args.size, &keys)?;
    write_new(
        &args.output,
        &format.render(&buffer, &app.text()),
        args.force,
    )
}

/// Key presses from their names as the help writes them, separated by spaces
/// (`"Enter → → → p"`).
///
/// # Errors
/// When a name is not a key's; the message names it.
pub fn parse_keys(names: &str) -> Result<Vec<KeyEvent>> {
    names
        .split_whitespace()
        .map(|name| parse_key(name).map_err(anyhow::Error::msg))
        .collect::<Result<_>>()
        .context("in --keys")
}

/// How often a headless explorer looks again while a table is generated or scanned.
const SETTLE_TICK: Duration = Duration::from_millis(10);

/// Waits until the explorer has nothing left to compute, as a person waits for the screen.
fn settle(app: &mut App) {
    while app.waiting_for_tables() || app.scanning() || app.computing_layer0() {
        std::thread::sleep(SETTLE_TICK);
        app.update(Action::Tick);
    }
}

/// The screen of an explorer `(columns, rows)` in size after `keys`, each pressed once the
/// screen before it is complete, through the same event handling as the terminal.
///
/// # Errors
/// When the screen cannot be drawn.
pub fn draw_after_keys(app: &mut App, size: (u16, u16), keys: &[KeyEvent]) -> Result<Buffer> {
    let (columns, rows) = size;
    app.update(Action::Resize(columns, rows));
    for &key in keys {
        settle(app);
        app.handle_event(&Event::Key(key));
    }
    settle(app);
    let mut terminal = Terminal::new(TestBackend::new(columns, rows))?;
    terminal.draw(|frame| frame.render_widget(&*app, frame.area()))?;
    Ok(terminal.backend().buffer().clone())
}
