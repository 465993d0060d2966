//! The prompt mode: a one-line question in the help bar (find a token, go to an id), and the
//! rows the last search found.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::navigation::Navigation;
use crate::action::{Action, key};
use crate::core::tables::weights::EmbeddingModel;

/// How many rows a search remembers for `n`.
const SEARCH_LIMIT: usize = 100;

/// What an open prompt asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptKind {
    /// A token's text, to find its row.
    Search,
    /// An id, to go to its row.
    GoTo,
}

/// A one-line question in the help bar: find a token or go to an id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    /// What is asked.
    pub kind: PromptKind,
    /// What has been typed so far.
    pub text: String,
}

/// The open prompt, if any, and the rows the last search found.
#[derive(Debug, Default)]
pub struct Prompts {
    open: Option<Prompt>,
    matches: Vec<usize>,
}

impl Prompts {
    /// The open prompt.
    #[must_use]
    pub fn open(&self) -> Option<&Prompt> {
        self.open.as_ref()
    }

    /// Opens an empty prompt.
    pub fn start(&mut self, kind: PromptKind) {
        self.open = Some(Prompt {
            kind,
            text: String::new(),
        });
    }

    /// Closes the prompt without doing anything.
    pub fn cancel(&mut self) {
        self.open = None;
    }

    /// Types a key into the open prompt: an id takes digits only.
    pub fn key(&mut self, key: KeyEvent) {
        let Some(prompt) = self.open.as_mut() else {
            return;
        };
        match key.code {
            KeyCode::Backspace => {
                prompt.text.pop();
            }
            KeyCode::Char(c)
                if !key.modifiers.contains(KeyModifiers::CONTROL)
                    && (prompt.kind == PromptKind::Search || c.is_ascii_digit()) =>
            {
                prompt.text.push(c);
            }
            _ => {}
        }
    }

    /// Carries out the open prompt and closes it; the answer for the status line, if any.
    pub fn submit(&mut self, model: &EmbeddingModel, nav: &mut Navigation) -> Option<String> {
        let prompt = self.open.take()?;
        // A leading space is part of a byte-pair token (` man` is not `man`), so keep it.
        let query = prompt.text.trim_end();
        if query.trim().is_empty() {
            return None;
        }
        Some(match prompt.kind {
            PromptKind::GoTo => match query.parse::<usize>() {
                Ok(id) if id < model.rows() => {
                    nav.show_row(id);
                    format!("row {id}{}", row_name(model, id))
                }
                _ => format!(
                    "no row {query}: ids run from 0 to {}",
                    model.rows().saturating_sub(1)
                ),
            },
            PromptKind::Search => {
                self.matches = search_rows(model, query, SEARCH_LIMIT);
                match self.matches.first() {
                    Some(&id) => {
                        nav.show_row(id);
                        let more = if self.matches.len() > 1 {
                            format!(
                                " (1 of {}; {} for the next)",
                                self.matches.len(),
                                key(&Action::NextMatch)
                            )
                        } else {
                            String::new()
                        };
                        format!("'{query}' is row {id}{more}")
                    }
                    None => format!("no token matches '{query}'"),
                }
            }
        })
    }

    /// Goes to the next row the last search found; the answer for the status line.
    pub fn next_match(&self, model: &EmbeddingModel, nav: &mut Navigation) -> String {
        if self.matches.is_empty() {
            return format!("no search yet: {} finds a token", key(&Action::StartSearch));
        }
        let index = self
            .matches
            .iter()
            .position(|&id| id == nav.matrix_cursor())
            .map_or(0, |i| (i + 1) % self.matches.len());
        let id = self.matches[index];
        nav.show_row(id);
        format!(
            "row {id}{} ({} of {})",
            row_name(model, id),
            index + 1,
            self.matches.len()
        )
    }
}

/// ` 'text'` for a row with a token, else nothing.
fn row_name(model: &EmbeddingModel, id: usize) -> String {
    model
        .token_text(id)
        .map(|text| format!(" '{text}'"))
        .unwrap_or_default()
}

/// Rows whose token is the query, then starts with it, then contains it (ignoring case).
fn search_rows(model: &EmbeddingModel, query: &str, limit: usize) -> Vec<usize> {
    match model.tokenizer() {
        Some(tokenizer) => tokenizer.search(query, limit),
        None => query
            .parse::<usize>()
            .ok()
            .filter(|&id| id < model.rows())
            .into_iter()
            .collect(),
    }
}
