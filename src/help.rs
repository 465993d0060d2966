//! What the help overlay says, built from the key table, one screen line per entry.
//!
//! The app reads it to know how far the overlay scrolls; the view styles and draws it.

use crate::action::{Action, Scope, bindings, key};

/// The widest the help overlay gets, borders included.
pub const HELP_WIDTH: u16 = 120;
/// Columns of one key and its description in the help overlay.
pub const COLUMN_WIDTH: usize = KEYS_WIDTH + 42;
/// Columns the keys take before the description.
pub const KEYS_WIDTH: usize = 16;

/// One line of the help overlay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HelpLine {
    /// A line of prose.
    Text(String),
    /// An empty line.
    Blank,
    /// A section heading.
    Heading(&'static str),
    /// One or two keys with what they do, side by side.
    Entries(Vec<(String, String)>),
    /// The closing hint.
    Footer(String),
}

/// The overlay's lines for a popup whose inside is `width` columns wide.
#[must_use]
pub fn help_lines(width: usize) -> Vec<HelpLine> {
    let lesson = format!(
        "An embedding layer is a weight matrix: a token's id is the address of a row, and the \
         layer returns that row. The same id returns the same vector wherever it stands, so the \
         two copies of a repeated word look identical to self-attention. Adding position \
         vectors ({}) is what tells them, and word orders, apart.",
        key(&Action::TogglePositions)
    );
    let mut lines: Vec<HelpLine> = wrap(&lesson, width.max(1))
        .into_iter()
        .map(HelpLine::Text)
        .collect();
    // Side by side when there is room, so the whole table fits on a 40-row terminal.
    let per_line = if width >= 2 * COLUMN_WIDTH { 2 } else { 1 };
    for (scope, heading) in [
        (Scope::Input, "While typing"),
        (Scope::Explorer, "While exploring"),
        (Scope::Lesson, "In the lesson"),
        (Scope::Snippet, "In the PyTorch snippet (y)"),
        (Scope::Help, "In this help"),
        (Scope::Anywhere, "Anywhere"),
    ] {
        lines.push(HelpLine::Blank);
        lines.push(HelpLine::Heading(heading));
        let entries: Vec<(String, String)> = bindings()
            .iter()
            .filter(|binding| binding.scope == scope)
            .map(|binding| (binding.keys_label(), binding.help_text()))
            .collect();
        if per_line == 2 {
            for group in entries.chunks(2) {
                lines.push(HelpLine::Entries(group.to_vec()));
            }
            continue;
        }
        // One a line; a description too long for a narrow overlay goes on below its keys.
        for (keys, description) in entries {
            let mut wrapped = wrap(&description, width.saturating_sub(KEYS_WIDTH).max(8));
            let first = wrapped.remove(0);
            lines.push(HelpLine::Entries(vec![(keys, first)]));
            for rest in wrapped {
                lines.push(HelpLine::Entries(vec![(String::new(), rest)]));
            }
        }
    }
    lines.push(HelpLine::Blank);
    lines.push(HelpLine::Heading("The mouse"));
    let mouse = "Click a token or a word of the sentence to step to it (in compare mode a word \
                 of A or B: its twin is marked), a row of the weight matrix to go to it, a lesson's answer to give it, or a key in the bar below to \
                 press it; the wheel scrolls the pane under the pointer. Shift+drag selects text \
                 as the terminal does; --no-mouse leaves the mouse to the terminal.";
    lines.extend(wrap(mouse, width.max(1)).into_iter().map(HelpLine::Text));
    lines.push(HelpLine::Blank);
    lines.push(HelpLine::Footer(format!(
        "{} or {} closes this help; {} quits.",
        crate::action::key_name(&Action::ToggleHelp, Scope::Help),
        crate::action::key_name(&Action::ToggleHelp, Scope::Input),
        crate::action::key_name(&Action::Quit, Scope::Anywhere),
    )));
    lines
}

/// The inside width of the overlay on a terminal `columns` wide.
#[must_use]
pub fn inner_width(columns: u16) -> usize {
    usize::from(columns.min(HELP_WIDTH).saturating_sub(2))
}

/// The rows of help lines the overlay shows on a terminal `rows` tall: all but its borders
/// and the help bar below it.
#[must_use]
pub fn visible_rows(rows: u16, lines: usize) -> usize {
    lines.min(usize::from(rows.saturating_sub(3)))
}

/// The furthest the overlay scrolls on a terminal of `columns` × `rows`.
#[must_use]
pub fn max_scroll(columns: u16, rows: u16) -> usize {
    let lines = help_lines(inner_width(columns)).len();
    lines - visible_rows(rows, lines)
}

/// Words wrapped to lines of at most `width` columns (a longer word gets a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_help_is_longer_and_scrolls_further() {
        let wide = help_lines(110).len();
        let narrow = help_lines(48).len();
        assert!(narrow > wide);
        assert_eq!(max_scroll(200, 200), 0, "everything fits");
        assert!(max_scroll(80, 24) > 0);
    }

    #[test]
    fn the_lessons_next_key_says_what_it_does_on_the_last_step() {
        // The help is read on every step, the last included, where there is no next step.
        let lesson_next = help_lines(78).into_iter().find_map(|line| match line {
            HelpLine::Entries(entries) => entries
                .into_iter()
                .find(|(keys, _)| keys.starts_with("Enter/→")),
            _ => None,
        });
        let (_, description) = lesson_next.expect("the lesson's Enter is in the help");
        assert_eq!(description, "next step; on the last, finish the lesson");
    }

    #[test]
    fn every_key_of_the_table_is_in_the_help() {
        let text = format!("{:?}", help_lines(48));
        for binding in bindings() {
            assert!(
                text.contains(&binding.keys_label()),
                "{}",
                binding.keys_label()
            );
        }
    }
}
