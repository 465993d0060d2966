//! `embedlens export` through the real binary: the file it writes is the screen the explorer
//! draws after the same keys, in each format; bad sizes, keys and names are refused.

mod common;

use std::process::{Command, Output};

use common::{TempDir, arg, draw};
use embedlens::app::{App, Options};
use embedlens::export::{to_html, to_svg, to_text};
use embedlens::print::parse_keys;
use embedlens::theme::Theme;
use ratatui::crossterm::event::Event;

/// Runs `embedlens export args…` with colour on (no `NO_COLOR`, an xterm), or off.
fn export(args: &[&str], color: bool) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_embedlens"));
    command
        .arg("export")
        .args(args)
        .env("TERM", "xterm-256color")
        .env_remove("EMBEDLENS_THEME");
    if color {
        command.env_remove("NO_COLOR");
    } else {
        command.env("NO_COLOR", "1");
    }
    command.output().expect("the binary runs")
}

/// Runs an export that must succeed and returns the file it wrote.
fn exported(dir: &TempDir, name: &str, args: &[&str], color: bool) -> String {
    let path = dir.path().join(name);
    let mut all = args.to_vec();
    all.extend(["-o", arg(&path)]);
    let output = export(&all, color);
    assert!(
        output.status.success(),
        "{all:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stdout.is_empty() && output.stderr.is_empty());
    std::fs::read_to_string(path).expect("the file is written")
}

/// The explorer on `sentence` after `keys`, pressed through the real event handling and drawn
/// on a `TestBackend` as the tests of the screens draw it.
fn interactive(
    sentence: &str,
    keys: &str,
    color: bool,
    size: (u16, u16),
) -> ratatui::buffer::Buffer {
    let mut app = App::new(Options {
        sentence: sentence.to_owned(),
        theme: Theme::new(color),
        ..Options::default()
    });
    app.handle_event(&Event::Resize(size.0, size.1));
    for key in parse_keys(keys).unwrap() {
        app.handle_event(&Event::Key(key));
    }
    draw(&app, size.0, size.1).backend().buffer().clone()
}

const KEYS: &str = "Enter → → → p";

#[test]
fn an_export_is_the_interactive_screen_after_the_same_keys() {
    let dir = TempDir::new("export");
    for (columns, rows) in [(80, 24), (120, 40)] {
        let size = format!("{columns}x{rows}");
        let args = ["--size", size.as_str(), "--keys", KEYS, "fox bites the fox"];
        let buffer = interactive("fox bites the fox", KEYS, true, (columns, rows));
        assert_eq!(
            exported(&dir, &format!("{size}.svg"), &args, true),
            to_svg(&buffer)
        );
        assert_eq!(
            exported(&dir, &format!("{size}.html"), &args, true),
            to_html(&buffer, "fox bites the fox")
        );
        let text = exported(&dir, &format!("{size}.txt"), &args, true);
        assert_eq!(text, to_text(&buffer));
        assert_eq!(text.lines().count(), usize::from(rows));
        assert!(text.contains("fox #2"), "{text}");
    }
}

/// The distinct `fill` colours of an SVG.
fn fills(svg: &str) -> std::collections::BTreeSet<&str> {
    svg.split("fill=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap())
        .collect()
}

#[test]
fn no_color_exports_without_colour() {
    let dir = TempDir::new("export-no-color");
    let args = ["--keys", KEYS];
    let coloured = exported(&dir, "colour.svg", &args, true);
    let plain = exported(&dir, "plain.svg", &args, false);
    assert!(fills(&coloured).len() > 2, "{:?}", fills(&coloured));
    // The terminal's own foreground and background only (reversed cells swap the two).
    assert_eq!(fills(&plain).len(), 2, "{:?}", fills(&plain));
    assert!(
        plain.contains("font-weight=\"bold\""),
        "highlights keep their bold"
    );
    let html = exported(&dir, "plain.html", &args, false);
    assert!(!html.contains("color:#cd3131"), "no red without colour");
    // The same characters either way.
    assert_eq!(
        exported(&dir, "colour.txt", &args, true),
        exported(&dir, "plain.txt", &args, false)
    );
}

#[test]
fn the_light_theme_exports_on_white_and_a_bad_theme_is_refused() {
    let dir = TempDir::new("export-theme");
    let dark = exported(&dir, "dark.svg", &["--keys", KEYS], true);
    let light = exported(
        &dir,
        "light.svg",
        &["--keys", KEYS, "--theme", "light"],
        true,
    );
    assert!(!dark.contains("fill=\"#ffffff\""), "dark paints no white");
    assert!(light.contains("fill=\"#ffffff\""), "light paints its white");
    assert_eq!(
        fills(&light)
            .iter()
            .filter(|fill| **fill == "#ffffff")
            .count(),
        1
    );
    // EMBEDLENS_THEME says the same as --theme; `auto` in an export does not ask, and is dark.
    let path = dir.path().join("env.svg");
    let from_env = Command::new(env!("CARGO_BIN_EXE_embedlens"))
        .args(["export", "--keys", KEYS, "-o", arg(&path)])
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .env("EMBEDLENS_THEME", "light")
        .output()
        .unwrap();
    assert!(from_env.status.success());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), light);
    let auto = exported(&dir, "auto.svg", &["--keys", KEYS, "--theme", "auto"], true);
    assert_eq!(auto, dark);
    let refused = Command::new(env!("CARGO_BIN_EXE_embedlens"))
        .args(["export", "-o", arg(&dir.path().join("no.svg"))])
        .env("EMBEDLENS_THEME", "sepia")
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(
        message.contains("invalid value 'sepia' for '--theme")
            && message.contains("[possible values: auto, dark, light]"),
        "{message}"
    );
}

#[test]
fn an_existing_file_is_kept_unless_forced() {
    let dir = TempDir::new("export-force");
    let path = dir.write("view.txt", "mine");
    let output = export(&["-o", arg(&path)], true);
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("exists already") && error.contains("--force"),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
    let output = export(&["--force", "-o", arg(&path)], true);
    assert!(output.status.success());
    assert!(std::fs::read_to_string(&path).unwrap().contains("Sentence"));
}

#[test]
fn bad_sizes_keys_and_names_are_refused_with_a_reason() {
    let dir = TempDir::new("export-bad");
    let out = dir.path().join("view.svg");
    let cases: [(&[&str], &str); 5] = [
        (&["--size", "0x30"], "from 1 to"),
        (&["--size", "wide"], "COLUMNSxROWS"),
        (&["--size", "100x9999"], "rows from 1 to 500"),
        (&["--keys", "Enter Entr →"], "'Entr' is not a key name"),
        (&["-o", "view.png"], "name it .svg, .html or .txt"),
    ];
    for (args, expected) in cases {
        let mut all = args.to_vec();
        if !args.contains(&"-o") {
            all.extend(["-o", arg(&out)]);
        }
        let output = export(&all, true);
        assert!(!output.status.success(), "{all:?}");
        let error = String::from_utf8_lossy(&output.stderr);
        assert!(error.contains(expected), "{all:?}: {error}");
        assert!(!out.exists(), "{all:?} wrote a file");
    }
}

#[test]
fn the_explorers_options_apply() {
    let dir = TempDir::new("export-options");
    let text = exported(
        &dir,
        "words.txt",
        &[
            "--vocab",
            "words",
            "--positions",
            "sinusoidal",
            "--keys",
            "Enter",
            "the cat sat",
        ],
        true,
    );
    assert!(text.contains("Weight matrix · words"), "{text}");
    assert!(text.contains("sinusoidal"), "{text}");
    assert!(text.contains("the cat sat"), "{text}");
}
