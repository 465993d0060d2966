//! Where the learner is: which pane has the keyboard, the current token, and the matrix row
//! kept in sight.

use crate::core::text::vocabulary::Token;

/// How many rows PgUp and PgDn move the matrix.
pub const PAGE_ROWS: usize = 10;

/// Which pane has the keyboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    /// Typing edits the sentence.
    Input,
    /// Keys step through the lookups.
    Explorer,
}

/// A move to a token asked for before the tokens it needs are known (the sentence was just
/// replaced); the derive step makes it once the new tokens are there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jump {
    /// To the first token.
    First,
    /// To the second copy of the first repeated token, or the first token.
    FirstRepeat,
}

/// The keyboard focus, the current token and the matrix row in sight.
#[derive(Debug)]
pub struct Navigation {
    /// Which pane has the keyboard.
    pub focus: Focus,
    step: usize,
    matrix_cursor: usize,
    /// Whether the learner moved the matrix away from the current token's row (a search, a
    /// go-to, scrolling), so the row in sight is worth a mark of its own.
    cursor_moved: bool,
    jump: Option<Jump>,
}

impl Navigation {
    /// Focus in the input, at the first token.
    #[must_use]
    pub fn new() -> Self {
        Self {
            focus: Focus::Input,
            step: 0,
            matrix_cursor: 0,
            cursor_moved: false,
            jump: None,
        }
    }

    /// The index of the current token.
    #[must_use]
    pub fn step(&self) -> usize {
        self.step
    }

    /// The matrix row kept in sight.
    #[must_use]
    pub fn matrix_cursor(&self) -> usize {
        self.matrix_cursor
    }

    /// Whether the learner moved the matrix to the row in sight (not a token's lookup).
    #[must_use]
    pub fn cursor_moved(&self) -> bool {
        self.cursor_moved
    }

    /// Makes token `index` (clamped to the tokens) current and brings its row into view.
    pub fn go_to(&mut self, index: usize, tokens: &[Token], rows: usize) {
        self.cursor_moved = false;
        self.step = index.min(tokens.len().saturating_sub(1));
        if let Some(id) = tokens.get(self.step).and_then(|token| token.id) {
            self.matrix_cursor = id;
        }
        self.matrix_cursor = self.matrix_cursor.min(rows.saturating_sub(1));
    }

    /// Moves the matrix by `rows` rows, staying inside a table of `total` rows.
    pub fn scroll(&mut self, rows: isize, total: usize) {
        let last = total.saturating_sub(1);
        self.matrix_cursor = self.matrix_cursor.saturating_add_signed(rows).min(last);
        self.cursor_moved = true;
    }

    /// Puts the matrix at row `id` (already checked to exist).
    pub fn show_row(&mut self, id: usize) {
        self.matrix_cursor = id;
        self.cursor_moved = true;
    }

    /// Asks for a jump once the sentence's new tokens are known.
    pub fn jump_after_tokenizing(&mut self, jump: Jump) {
        self.jump = Some(jump);
    }

    /// After the tokens changed: makes the jump asked for, or keeps the current token (clamped).
    pub fn follow_tokens(&mut self, tokens: &[Token], rows: usize) {
        let index = match self.jump.take() {
            Some(Jump::First) => 0,
            Some(Jump::FirstRepeat) => {
                crate::core::text::vocabulary::first_repeat(tokens).unwrap_or(0)
            }
            None => self.step,
        };
        self.go_to(index, tokens, rows);
    }

    /// Whether a jump waits for new tokens.
    #[must_use]
    pub fn jump_pending(&self) -> bool {
        self.jump.is_some()
    }
}

impl Default for Navigation {
    fn default() -> Self {
        Self::new()
    }
}
