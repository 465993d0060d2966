//! Compare mode: a second sentence beside the learner's, to show what two word orders hand
//! the model. The comparison itself is derived (see `derive`).

use ratatui::crossterm::event::KeyEvent;
use ratatui_textarea::TextArea;

use super::editor::Editor;
use super::{App, DEFAULT_SENTENCE};
use crate::core::compare::default_pair;

/// Compare mode's own input: the second sentence, and whether typing goes to it.
pub struct CompareMode {
    other: Editor,
    editing_other: bool,
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

    /// Sends typing to the second sentence, or back to the first.
    pub fn set_editing_other(&mut self, editing_other: bool) {
        self.editing_other = editing_other;
    }
}

impl App {
    /// Turns compare mode on (with the default pair unless the learner typed their own
    /// sentence) or off.
    pub(super) fn toggle_compare(&mut self) {
        if self.compare.take().is_some() {
            return;
        }
        let (first, second) = default_pair(self.sources.model());
        // Keep the learner's sentence when it is one of a pair already typed; else the default.
        let text = self.editor.text();
        if text.trim().is_empty() || text == DEFAULT_SENTENCE {
            self.editor.set_text(first);
        }
        self.compare = Some(CompareMode {
            other: Editor::new(second),
            editing_other: false,
        });
    }
}
