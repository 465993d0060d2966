//! The `y` overlay's state: the script for what was on screen, how far it is scrolled, whether
//! it went to the clipboard, and the file `w` wrote.

use std::path::{Path, PathBuf};

use super::{App, CompareMode, RealLayer};
use crate::action::Action;
use crate::core::snippet::{Head, View, script};
use crate::view_state::Detail;

/// The file name `w` writes (then `embedlens-snippet-2.py`, and so on: never overwriting).
pub const SNIPPET_FILE: (&str, &str) = ("embedlens-snippet", "py");

/// Rows of the screen the overlay does not give to the script: the help bar, the frame's two
/// borders and the two lines that say what happened to the copy and how to save it.
const OVERLAY_CHROME_ROWS: u16 = 5;

/// What became of the copy to the clipboard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Clipboard {
    /// The run loop sends it to the terminal after the next draw.
    Pending,
    /// The OSC 52 sequence was written to the terminal.
    Sent,
    /// Writing it failed.
    Failed(String),
    /// There was no script to copy.
    Nothing,
}

/// The open snippet overlay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnippetOverlay {
    /// The script, or why there is none for this view.
    pub script: Result<String, String>,
    /// The first line shown.
    pub scroll: usize,
    /// What became of the copy to the clipboard.
    pub clipboard: Clipboard,
    /// The file `w` wrote, or why it did not.
    pub saved: Option<Result<PathBuf, String>>,
}

impl SnippetOverlay {
    /// The overlay for a script just made: its copy to the clipboard waits for the run loop.
    #[must_use]
    pub fn new(script: Result<String, String>) -> Self {
        let clipboard = if script.is_ok() {
            Clipboard::Pending
        } else {
            Clipboard::Nothing
        };
        Self {
            script,
            scroll: 0,
            clipboard,
            saved: None,
        }
    }

    /// How many lines the script has (a message counts as one).
    #[must_use]
    pub fn lines(&self) -> usize {
        self.script
            .as_ref()
            .map_or(1, |script| script.lines().count())
    }

    /// Scrolls by `lines` (negative: up), never past the last screenful.
    pub fn scroll(&mut self, lines: isize, screen_rows: u16) {
        let last = self.lines().saturating_sub(visible_rows(screen_rows));
        self.scroll = self.scroll.saturating_add_signed(lines).min(last);
    }

    /// The script to copy, while its copy waits for the run loop.
    #[must_use]
    pub fn clipboard_request(&self) -> Option<&str> {
        match (&self.clipboard, &self.script) {
            (Clipboard::Pending, Ok(script)) => Some(script),
            _ => None,
        }
    }

    /// What writing the copy to the terminal did.
    pub fn copied(&mut self, result: Result<(), String>) {
        self.clipboard = match result {
            Ok(()) => Clipboard::Sent,
            Err(why) => Clipboard::Failed(why),
        };
    }

    /// Writes the script to `dir` as `embedlens-snippet.py`, or the next free numbered name.
    pub fn save(&mut self, dir: &Path) {
        self.saved = Some(match &self.script {
            Ok(script) => crate::export::write_numbered(dir, SNIPPET_FILE, script)
                .map_err(|error| format!("{error:#}")),
            Err(_) => Err("there is no script to write".to_owned()),
        });
    }
}

/// How many lines of the script the overlay shows on a terminal `screen_rows` high.
#[must_use]
pub fn visible_rows(screen_rows: u16) -> usize {
    usize::from(screen_rows.saturating_sub(OVERLAY_CHROME_ROWS).max(1))
}

impl App {
    /// Opens, scrolls, saves or closes the overlay, or takes in what copying it did.
    pub(super) fn snippet_action(&mut self, action: Action) {
        if action == Action::ShowSnippet {
            self.snippet = Some(SnippetOverlay::new(self.snippet_script()));
            return;
        }
        let screen_rows = self.settings.screen.1;
        let Some(overlay) = self.snippet.as_mut() else {
            return;
        };
        match action {
            Action::ScrollSnippet(lines) => overlay.scroll(lines, screen_rows),
            Action::SaveSnippet => overlay.save(&self.export_dir),
            Action::CloseSnippet => self.snippet = None,
            Action::SnippetCopied(result) => overlay.copied(result),
            _ => {}
        }
    }

    /// The script for what is on screen now: the sentence, the table, the positions in force,
    /// and the attention shown (the attention pane, or compare mode's two sentences).
    pub(super) fn snippet_script(&self) -> Result<String, String> {
        let model = self.sources.model();
        let other = self.compare.as_ref().map(CompareMode::other_text);
        let attends = self.settings.detail == Detail::Attention || other.is_some();
        let attention = attends.then(|| match self.sources.layer0() {
            RealLayer::Open(layer) => Head::Layer0 {
                layer,
                head: self.head(),
                with_positions: self.settings.overlay,
            },
            RealLayer::Unavailable(_) | RealLayer::None => Head::Seeded {
                seed: self.sources.seed(),
                mask: self.settings.mask,
            },
        });
        let sentence = self.editor.text();
        let view = View {
            model,
            vocab: self.sources.vocab(),
            sentence: &sentence,
            tokens: self.derived.tokens(),
            by_ids: self.settings.ids,
            special_tokens: self.settings.special_tokens,
            scheme: self.active_scheme(),
            attention,
            other: other.as_deref(),
        };
        script(&view).map_err(|error| format!("{error:#}"))
    }
}
