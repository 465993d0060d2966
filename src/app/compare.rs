//! Compare mode: a second sentence beside the learner's, to show what two word orders hand
//! the model. The comparison itself is derived (see `derive`).

use ratatui::crossterm::event::KeyEvent;
use ratatui_textarea::TextArea;

use super::App;
use super::editor::Editor;
use crate::action::{Action, key};
use crate::core::analysis::compare::{Reordering, default_pair};

/// Compare mode's own input: the second sentence, and whether typing goes to it.
pub struct CompareMode {
    other: Editor,
    editing_other: bool,
    /// The order the second sentence was last made in (`r` moves to the next).
    reordering: Reordering,
    /// The learner's sentence, when compare mode had to put another in its place (it had
    /// fewer than two words); it comes back when compare mode ends.
    replaced: Option<String>,
}

impl CompareMode {
    /// The second sentence's text area, for drawing.
    #[must_use]
    pub fn other(&self) -> &TextArea<'static> {
        self.other.textarea()
    }

    /// The second sentence.
    #[must_use]
    pub fn other_text(&self) -> String {
        self.other.text()
    }

    /// Whether typing goes to the second sentence.
    #[must_use]
    pub fn editing_other(&self) -> bool {
        self.editing_other
    }

    /// Changes with every change of the second sentence.
    #[must_use]
    pub fn other_revision(&self) -> u64 {
        self.other.revision()
    }

    /// Passes a key to the second sentence.
    pub fn input(&mut self, key: KeyEvent) {
        self.other.input(key);
    }

    /// Inserts pasted (or typed-together) text into the second sentence at its cursor.
    pub fn paste(&mut self, text: &str) {
        self.other.paste(text);
    }

    /// Sends typing to the second sentence, or back to the first.
    pub fn set_editing_other(&mut self, editing_other: bool) {
        self.editing_other = editing_other;
    }

    /// Empties the second sentence (undoable).
    pub fn clear(&mut self) {
        self.other.clear();
    }

    /// Takes back the second sentence's last edit.
    pub fn undo(&mut self) {
        self.other.undo();
    }

    /// The order the second sentence was last made in.
    #[must_use]
    pub fn reordering(&self) -> Reordering {
        self.reordering
    }
}

impl App {
    /// Turns compare mode on or off.
    ///
    /// The second sentence is the learner's own words in another order (reversed first);
    /// only a sentence no order can change (one word) is set aside for the article's pair,
    /// and it comes back when compare mode ends.
    pub(super) fn toggle_compare(&mut self) {
        if let Some(mode) = self.compare.take() {
            if let Some(text) = mode.replaced {
                self.editor.set_text(&text);
            }
            return;
        }
        let text = self.editor.text();
        let (reordering, second, replaced) =
            if let Some((reordering, second)) = Reordering::Reversed.first_change(&text) {
                (reordering, second, None)
            } else {
                let (first, second) = default_pair(self.sources.model());
                self.editor.set_text(first);
                (Reordering::Reversed, second.to_owned(), Some(text))
            };
        self.compare = Some(CompareMode {
            other: Editor::new(&second),
            editing_other: false,
            reordering,
            replaced,
        });
    }

    /// Makes the second sentence the next order of the first's words.
    pub(super) fn reorder(&mut self) {
        let text = self.editor.text();
        let Some(compare) = self.compare.as_mut() else {
            self.status = Some(format!(
                "{} reorders the second sentence in compare mode ({})",
                key(&Action::Reorder),
                key(&Action::ToggleCompare)
            ));
            return;
        };
        match compare.reordering.next().first_change(&text) {
            Some((reordering, second)) => {
                compare.reordering = reordering;
                compare.other.set_text(&second);
                self.status = Some(format!("B is A's words {reordering}"));
            }
            None => {
                self.status = Some("A's words have only one order".to_owned());
            }
        }
    }
}
