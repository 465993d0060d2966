//! The embedlens binary: the explorer, or a print subcommand.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use anyhow::{Result, bail};
use embedlens::app::App;
use embedlens::cli::{Args, Command};
use embedlens::core::text::printable::printable;
use embedlens::theme::Theme;
use ratatui::crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
use ratatui::crossterm::execute;

fn main() -> ExitCode {
    let args = Args::parse_command_line();
    // Before any model file is mapped: a file cut short under us is then explained, not fatal
    // to the terminal. Without the handler the rest still works, so a failure is ignored.
    #[cfg(unix)]
    let _ = embedlens::terminal_rescue::install();
    let result = match &args.command {
        Some(Command::Lookup(lookup)) => embedlens::print::lookup(lookup, &mut std::io::stdout()),
        Some(Command::Matrix(matrix)) => embedlens::print::matrix(matrix, &mut std::io::stdout()),
        Some(Command::Compare(compare)) => {
            embedlens::print::compare(compare, &mut std::io::stdout())
        }
        Some(Command::Attention(attention)) => {
            embedlens::print::attention(attention, &mut std::io::stdout(), &mut std::io::stderr())
        }
        Some(Command::Nearest(nearest)) => {
            embedlens::print::nearest(nearest, &mut std::io::stdout(), &mut std::io::stderr())
        }
        Some(Command::Inspect(inspect)) => {
            embedlens::print::inspect(inspect, &mut std::io::stdout())
        }
        Some(Command::Export(export)) => embedlens::print::export(export),
        Some(Command::Completions(completions)) => {
            embedlens::print::completions(completions, &mut std::io::stdout())
        }
        Some(Command::Snippet(snippet)) => {
            embedlens::print::snippet(snippet, &mut std::io::stdout())
        }
        None => explore(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // Not `eprintln!`, which panics when stderr cannot be written (a full disk).
            // Messages quote names from files: escaped, so they cannot act on the terminal.
            let message = format!("{error:#}");
            let lines: Vec<_> = message.split('\n').map(printable).collect();
            let _ = writeln!(std::io::stderr(), "embedlens: {}", lines.join("\n"));
            ExitCode::FAILURE
        }
    }
}

/// Asks the terminal for reports of mouse presses, releases and the wheel (mode 1000) as SGR
/// sequences (1006). Not crossterm's `EnableMouseCapture`: it also asks for every motion (1003),
/// a report and so a frame for each cell the pointer crosses, which nothing here needs.
const MOUSE_ON: &[u8] = b"\x1b[?1000h\x1b[?1006h";
/// Gives the mouse back to the terminal (its own selection): the reverse of [`MOUSE_ON`].
const MOUSE_OFF: &[u8] = embedlens::terminal_rescue::MOUSE_OFF;

/// Writes a mouse mode's sequence to the terminal.
fn mouse_reports(sequence: &[u8]) -> std::io::Result<()> {
    let mut stdout = std::io::stdout();
    stdout.write_all(sequence)?;
    stdout.flush()
}

/// Opens the explorer in the terminal and runs it until the user quits.
fn explore(args: &Args) -> Result<()> {
    // Open the model before the terminal changes, so a bad file is reported on a plain screen.
    // The model and its own first attention layer, from one reading of its files; a model
    // without a usable layer 0 says why in the attention pane.
    let mut options = args.explorer.options()?;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        bail!(
            "the explorer needs a terminal to draw in; \
             for text output use `embedlens lookup SENTENCE` or `embedlens matrix`"
        );
    }
    // Before the terminal is taken over: `auto` reads the terminal's answer itself.
    options.theme = Theme::from_env(args.explorer.theme, true);
    let app = App::new(options);
    let mouse = !args.explorer.no_mouse;
    // Installed before ratatui's own hook, so a panic also leaves bracketed paste and the
    // mouse off.
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(std::io::stdout(), DisableBracketedPaste);
        let _ = std::io::stdout().write_all(MOUSE_OFF);
        previous_hook(info);
    }));
    #[cfg(unix)]
    embedlens::terminal_rescue::hold_terminal();
    let outcome = ratatui::run(|terminal| {
        // Pastes arrive whole, so a pasted newline or `q` cannot act as a key.
        execute!(std::io::stdout(), EnableBracketedPaste)?;
        if mouse {
            mouse_reports(MOUSE_ON)?;
        }
        let outcome = app.run(terminal);
        execute!(std::io::stdout(), DisableBracketedPaste)?;
        if mouse {
            mouse_reports(MOUSE_OFF)?;
        }
        outcome
    });
    #[cfg(unix)]
    embedlens::terminal_rescue::release_terminal();
    outcome
}
