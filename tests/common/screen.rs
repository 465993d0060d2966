//! The explorer's screens in the tests: an app on a sentence, keys pressed through the real
//! update path, the screen's text and one pane cut out of it.

use std::ops::RangeInclusive;

use embedlens::app::{App, Options};

use super::draw;
use embedlens::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use unicode_width::UnicodeWidthStr;

/// The explorer on `sentence`, in the dark theme, still typing.
pub fn app_with(sentence: &str) -> App {
    App::new(Options {
        sentence: sentence.to_owned(),
        theme: Theme::new(false),
        ..Options::default()
    })
}

/// Presses each key in turn.
pub fn press(app: &mut App, codes: &[KeyCode]) {
    for &code in codes {
        app.handle_event(&Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }
}

/// Presses Ctrl with `c`.
pub fn press_ctrl(app: &mut App, c: char) {
    app.handle_event(&Event::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::CONTROL,
    )));
}

/// Types `text` a character at a time.
pub fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, &[KeyCode::Char(c)]);
    }
}

/// The screen as insta prints it: a quoted line a row.
pub fn screen_text(terminal: &Terminal<TestBackend>) -> String {
    terminal.backend().to_string()
}

/// The explorer on the default sentence, stepped to the second `fox`.
pub fn at_second_fox() -> App {
    let mut app = app_with("fox bites the fox");
    press(
        &mut app,
        &[
            KeyCode::Enter,
            KeyCode::Right,
            KeyCode::Right,
            KeyCode::Right,
        ],
    );
    app
}

/// The screen's line that holds `needle`.
pub fn screen_line<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|line| line.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{text}"))
}

/// The pane whose top border holds `title`, cut out of the screen as drawn, borders and all,
/// a quoted line a row as insta prints a screen: a pane-sized snapshot that a change to
/// another pane (the help bar, say) leaves alone.
pub fn pane(terminal: &Terminal<TestBackend>, title: &str) -> String {
    let buffer = terminal.backend().buffer();
    let area = buffer.area;
    let symbol = |x: u16, y: u16| buffer[(x, y)].symbol();
    let text = |y: u16, from: u16, to: u16| cells(terminal, y, from..=to);
    for y in 0..area.height {
        for left in 0..area.width {
            if !matches!(symbol(left, y), "╭" | "┏") {
                continue;
            }
            let Some(right) = (left + 1..area.width).find(|&x| matches!(symbol(x, y), "╮" | "┓"))
            else {
                continue;
            };
            if !text(y, left, right).contains(title) {
                continue;
            }
            let bottom = (y + 1..area.height)
                .find(|&row| matches!(symbol(left, row), "╰" | "┗"))
                .unwrap_or(area.height - 1);
            return (y..=bottom)
                .map(|row| format!("\"{}\"", text(row, left, right)))
                .collect::<Vec<_>>()
                .join("\n");
        }
    }
    panic!("no pane titled {title:?} in\n{}", screen_text(terminal))
}

/// The pane titled `title` as prose: its rows inside the borders, trimmed and joined by one
/// space, so a sentence wrapped over rows is found whole.
pub fn pane_prose(terminal: &Terminal<TestBackend>, title: &str) -> String {
    let pane = pane(terminal, title);
    let rows: Vec<&str> = pane.lines().collect();
    let inner = rows.get(1..rows.len().saturating_sub(1)).unwrap_or(&[]);
    inner
        .iter()
        .map(|row| {
            let row = row.trim_matches('"');
            let mut chars = row.chars();
            chars.next();
            chars.next_back();
            chars.as_str().trim().to_owned()
        })
        .filter(|row| !row.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Row `y` of the screen as the terminal shows it: a wide character once, not followed by the
/// blank cell it covers.
pub fn screen_row(terminal: &Terminal<TestBackend>, y: u16) -> String {
    let width = terminal.backend().buffer().area.width;
    cells(terminal, y, 0..=width.saturating_sub(1))
}

/// The cells of row `y` in `columns`, a wide character once.
fn cells(terminal: &Terminal<TestBackend>, y: u16, columns: RangeInclusive<u16>) -> String {
    let buffer = terminal.backend().buffer();
    let mut row = String::new();
    let mut skip = 0;
    for x in columns {
        if skip > 0 {
            skip -= 1;
            continue;
        }
        let symbol = buffer[(x, y)].symbol();
        row.push_str(symbol);
        skip = symbol.width().saturating_sub(1);
    }
    row
}

/// A 2,000 × 384 table without a vocabulary, explored by ids.
pub fn wide_app(sentence: &str) -> App {
    let mut app = App::new(Options {
        sentence: sentence.to_owned(),
        theme: Theme::new(false),
        model: Some(
            embedlens::core::tables::weights::EmbeddingModel::shaped(2000, 384, 16, 123)
                .expect("shape"),
        ),
        ..Options::default()
    });
    press(&mut app, &[KeyCode::Enter]);
    app
}

/// Draws at every size from the smallest the panes take to a large one, and a few below it.
pub fn sweep_sizes(app: &App) {
    for width in [1, 30, 49, 50, 51, 64, 80, 120, 200] {
        for height in [1, 8, 15, 16, 17, 24, 40, 60] {
            draw(app, width, height);
        }
    }
}

/// The sizes: the smallest common terminal and a large one.
pub const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];
