//! The light theme on screen: a snapshot that carries each cell's colours, not only its text.

mod common;

use std::collections::HashMap;
use std::fmt::Write as _;

use common::draw;
use common::screen::press;
use embedlens::app::{App, Options};
use embedlens::print::parse_keys;
use embedlens::theme::{Mode, Theme};
use insta::assert_snapshot;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{Event, KeyCode};
use ratatui::style::{Color, Modifier, Style};

/// The screen as text, each row followed by a row of letters naming each cell's style, and a
/// legend of the letters: a change of any colour shows in the snapshot.
fn styled_screen(buffer: &Buffer) -> String {
    let mut letters: HashMap<Style, char> = HashMap::new();
    let mut legend = Vec::new();
    let mut screen = String::new();
    for y in buffer.area.top()..buffer.area.bottom() {
        let mut text = String::new();
        let mut marks = String::new();
        for x in buffer.area.left()..buffer.area.right() {
            let cell = &buffer[(x, y)];
            let style = Style::new()
                .fg(cell.fg)
                .bg(cell.bg)
                .add_modifier(cell.modifier);
            let next = letters.len();
            let letter = *letters.entry(style).or_insert_with(|| {
                let letter = char::from_u32(u32::from('a') + u32::try_from(next).unwrap())
                    .filter(char::is_ascii_lowercase)
                    .or_else(|| char::from_u32(u32::from('A') + u32::try_from(next - 26).ok()?))
                    .expect("at most 52 styles on a screen");
                legend.push((letter, style));
                letter
            });
            text.push_str(cell.symbol());
            // A wide character's second cell holds nothing: its letter is the first's.
            for _ in 0..unicode_width::UnicodeWidthStr::width(cell.symbol()) {
                marks.push(letter);
            }
        }
        let _ = writeln!(screen, "{}", text.trim_end());
        let _ = writeln!(screen, "{}", marks.trim_end());
    }
    screen.push_str("\nstyles:\n");
    for (letter, style) in legend {
        let _ = writeln!(
            screen,
            "{letter}: fg {} on {}{}",
            color_name(style.fg),
            color_name(style.bg),
            modifier_names(style.add_modifier)
        );
    }
    screen
}

fn color_name(color: Option<Color>) -> String {
    match color {
        Some(Color::Rgb(r, g, b)) => format!("#{r:02x}{g:02x}{b:02x}"),
        Some(Color::Reset) | None => "the terminal's".to_owned(),
        Some(other) => format!("{other:?}"),
    }
}

fn modifier_names(modifier: Modifier) -> String {
    if modifier.is_empty() {
        String::new()
    } else {
        format!(", {modifier:?}")
    }
}

/// The explorer in the light theme, stepped to the second `fox` with learned positions on.
fn light_explorer() -> App {
    let mut app = App::new(Options {
        sentence: "fox bites the fox".to_owned(),
        theme: Theme::of(Mode::Light, true),
        ..Options::default()
    });
    for key in parse_keys("Enter → → → p").unwrap() {
        app.handle_event(&Event::Key(key));
    }
    app
}

#[test]
fn the_light_theme_at_80_by_24() {
    let terminal = draw(&light_explorer(), 80, 24);
    assert_snapshot!(styled_screen(terminal.backend().buffer()));
}

#[test]
fn the_light_theme_paints_every_cell_white_and_the_help_overlay_too() {
    let mut app = light_explorer();
    for (size, keys) in [((120, 40), vec![]), ((80, 24), vec![KeyCode::Char('?')])] {
        press(&mut app, &keys);
        let terminal = draw(&app, size.0, size.1);
        let buffer = terminal.backend().buffer();
        for cell in &buffer.content {
            assert!(
                matches!(cell.bg, Color::Rgb(..)),
                "{size:?}: a cell left to the terminal: {cell:?}"
            );
            assert_ne!(cell.fg, Color::Reset, "{size:?}: text left to the terminal");
        }
    }
}
