//! The sentence being edited: a one-line text area and a revision that changes with its text.

use ratatui::crossterm::event::KeyEvent;
use ratatui::style::Style;
use ratatui_textarea::{CursorMove, TextArea};

/// A one-line text input whose revision counts the changes to its text, so what is derived
/// from the text is recomputed exactly when the text changed.
pub struct Editor {
    textarea: TextArea<'static>,
    revision: u64,
}

impl Editor {
    /// An input holding `text` (newlines become spaces), cursor at the end.
    #[must_use]
    pub fn new(text: &str) -> Self {
        Self {
            textarea: text_area(text),
            revision: 0,
        }
    }

    /// The text, lines joined by spaces.
    #[must_use]
    pub fn text(&self) -> String {
        self.textarea.lines().join(" ")
    }

    /// The text area, for drawing.
    #[must_use]
    pub fn textarea(&self) -> &TextArea<'static> {
        &self.textarea
    }

    /// Changes with every change of the text.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Replaces the text (the undo history starts afresh).
    pub fn set_text(&mut self, text: &str) {
        self.textarea = text_area(text);
        self.revision += 1;
    }

    /// Passes a key to the text area.
    pub fn input(&mut self, key: KeyEvent) {
        let changed = self.textarea.input(key);
        self.bump_if(changed);
    }

    /// Empties the text (undoable).
    pub fn clear(&mut self) {
        let changed = self.textarea.clear();
        self.bump_if(changed);
    }

    /// Takes back the last edit.
    pub fn undo(&mut self) {
        let changed = self.textarea.undo();
        self.bump_if(changed);
    }

    /// Inserts pasted text at the cursor, line breaks as spaces.
    pub fn paste(&mut self, text: &str) {
        self.textarea
            .insert_str(text.replace("\r\n", " ").replace(['\r', '\n'], " "));
        self.revision += 1;
    }

    fn bump_if(&mut self, changed: bool) {
        if changed {
            self.revision += 1;
        }
    }
}

/// A one-line text area holding `text` (newlines become spaces), cursor at the end.
fn text_area(text: &str) -> TextArea<'static> {
    let mut textarea = TextArea::new(vec![text.replace(['\r', '\n'], " ")]);
    textarea.move_cursor(CursorMove::End);
    textarea.set_cursor_line_style(Style::new());
    textarea.set_placeholder_text("type a sentence, e.g. the dog bites the man");
    textarea
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};

    #[test]
    fn the_revision_moves_only_when_the_text_changes() {
        let mut editor = Editor::new("fox\nbites");
        assert_eq!(editor.text(), "fox bites");
        editor.input(KeyEvent::new(KeyCode::Left, KeyModifiers::NONE));
        assert_eq!(editor.revision(), 0, "moving the cursor changes no text");
        editor.input(KeyEvent::new(KeyCode::Char('!'), KeyModifiers::NONE));
        assert_eq!(
            (editor.text().as_str(), editor.revision()),
            ("fox bite!s", 1)
        );
        editor.undo();
        editor.undo();
        assert_eq!(
            (editor.text().as_str(), editor.revision()),
            ("fox bites", 2)
        );
    }
}
