//! The `y` overlay through the real key handling: the script for what is on screen, copied,
//! scrolled, written to a file, closed.

mod common;

use common::screen::press;
use common::{draw, run};

use embedlens::action::Action;
use embedlens::app::snippet::Clipboard;
use embedlens::app::{App, Options};
use embedlens::theme::Theme;
use insta::assert_snapshot;
use ratatui::crossterm::event::KeyCode;

/// The default sentence with learned positions and the attention pane open, then `y`.
fn snippet_open(export_dir: &std::path::Path) -> App {
    let mut app = App::new(Options {
        theme: Theme::new(false),
        export_dir: export_dir.to_owned(),
        ..Options::default()
    });
    app.update(Action::Resize(80, 24));
    press(
        &mut app,
        &[
            KeyCode::Enter,
            KeyCode::Char('p'),
            KeyCode::Char('a'),
            KeyCode::Char('y'),
        ],
    );
    app
}

/// A fresh folder under the system's temp folder.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("embedlens-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp folder");
    dir
}

#[test]
fn y_shows_the_script_at_80_by_24_and_says_it_was_copied() {
    let dir = temp_dir("snippet-overlay");
    let mut app = snippet_open(&dir);
    // The run loop writes the script to the terminal after the frame, then says so.
    let script = app.clipboard_request().expect("a copy waits").to_owned();
    assert!(
        script.contains("torch.nn.Linear(3, 3, bias=False)"),
        "{script}"
    );
    app.update(Action::SnippetCopied(Ok(())));
    assert_eq!(app.clipboard_request(), None, "copied once");
    assert_eq!(app.snippet().unwrap().clipboard, Clipboard::Sent);
    assert_snapshot!(draw(&app, 80, 24).backend());
}

#[test]
fn the_overlay_holds_the_script_embedlens_snippet_prints() {
    let dir = temp_dir("snippet-same");
    let app = snippet_open(&dir);
    let output = run(&[
        "snippet",
        "fox bites the fox",
        "--positions",
        "learned",
        "--attention",
    ]);
    assert!(output.status.success());
    let printed = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        app.snippet().unwrap().script.as_deref(),
        Ok(printed.as_str())
    );
}

#[test]
fn w_writes_the_file_never_overwriting_and_esc_closes() {
    let dir = temp_dir("snippet-save");
    let mut app = snippet_open(&dir);
    press(&mut app, &[KeyCode::Char('w')]);
    let written = std::fs::read_to_string(dir.join("embedlens-snippet.py")).expect("written");
    assert_eq!(
        app.snippet().unwrap().script.as_deref(),
        Ok(written.as_str())
    );
    press(&mut app, &[KeyCode::Char('w')]);
    assert!(dir.join("embedlens-snippet-2.py").exists());
    let screen = draw(&app, 80, 24).backend().to_string();
    assert!(screen.contains("Wrote "), "{screen}");
    assert!(screen.contains("embedlens-snippet-2.py"), "{screen}");
    press(&mut app, &[KeyCode::Esc]);
    assert!(app.snippet().is_none());
    assert!(app.is_running(), "Esc never quits");
    // Back in the explorer, with the attention pane still open.
    let screen = draw(&app, 80, 24).backend().to_string();
    assert!(screen.contains("EXPLORE"), "{screen}");
}

#[test]
fn the_script_scrolls_to_its_end_and_back() {
    let dir = temp_dir("snippet-scroll");
    let mut app = snippet_open(&dir);
    press(&mut app, &[KeyCode::End]);
    let lines = app.snippet().unwrap().lines();
    let screen = draw(&app, 80, 24).backend().to_string();
    assert!(screen.contains(&format!("of {lines}")), "{screen}");
    assert!(screen.contains("print(\"attention_outputs\""), "{screen}");
    press(&mut app, &[KeyCode::Home]);
    let screen = draw(&app, 80, 24).backend().to_string();
    assert!(screen.contains("lines 1–"), "{screen}");
    assert!(screen.contains("# What embedlens shows for"), "{screen}");
}

#[test]
fn compare_mode_and_a_word_without_a_row() {
    let dir = temp_dir("snippet-compare");
    let mut app = App::new(Options {
        theme: Theme::new(false),
        sentence: "zorp".to_owned(),
        export_dir: dir,
        ..Options::default()
    });
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('y')]);
    let overlay = app.snippet().unwrap();
    assert!(overlay.script.is_err(), "nothing to reproduce");
    assert_eq!(overlay.clipboard, Clipboard::Nothing);
    assert_eq!(app.clipboard_request(), None);
    let screen = draw(&app, 80, 24).backend().to_string();
    assert!(screen.contains("No script for this view"), "{screen}");
    press(
        &mut app,
        &[KeyCode::Esc, KeyCode::Char('c'), KeyCode::Char('y')],
    );
    let script = app.snippet().unwrap().script.clone().unwrap();
    assert!(
        script.contains("ids_b = torch.tensor([5, 4, 3])"),
        "{script}"
    );
    assert!(script.contains("torch.equal"), "{script}");
}
