//! The switches that choose what is computed and shown: positions and their scheme, the
//! attention mask, the open pane, how wide vectors look, and how the input is read.

use crate::core::analysis::attention::Mask;
use crate::core::tables::positional::PositionScheme;
use crate::view_state::{Detail, HeadChoice, WideView};

/// Columns from which the picture stands beside the readout.
pub const ROOMY_COLUMNS: u16 = 160;
/// Rows from which the picture stands beside the readout.
pub const ROOMY_ROWS: u16 = 45;

/// The terminal's size assumed until the first is reported.
const DEFAULT_SCREEN: (u16, u16) = (80, 24);

/// How many dimensions `[` and `]` move the exact-values window.
pub const DIMS_STEP: usize = 8;

/// The explorer's switches; each is a plain value the derive step reads.
#[derive(Clone, Copy, Debug)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent switches of the explorer, not a state machine in disguise"
)]
pub struct Settings {
    /// Whether position vectors are added.
    pub overlay: bool,
    /// The scheme `p` adds and `m` cycles.
    pub scheme: PositionScheme,
    /// Whether attention masks future tokens.
    pub mask: Mask,
    /// The head of the model's own layer 0 the attention pane shows.
    pub head: usize,
    /// Whether every head of the model's own layer 0 is shown at once.
    pub head_overview: bool,
    /// Which outputs of the model's own layer 0 compare mode's outputs table shows.
    pub compare_head: HeadChoice,
    /// What the pane beside the matrix shows.
    pub detail: Detail,
    /// Strip or exact values for wide vectors.
    pub wide_view: WideView,
    /// The first dimension of the exact-values window.
    pub first_dim: usize,
    /// Whether a model's tokenizer adds its special tokens.
    pub special_tokens: bool,
    /// Read the input as token ids even when there is a tokenizer.
    pub ids: bool,
    /// Whether the help overlay is open.
    pub help_open: bool,
    /// The first help line shown.
    pub help_scroll: usize,
    /// The page of the explanation shown; the view wraps it around its pages.
    pub explanation_page: usize,
    /// The terminal's size in columns and rows, as last reported.
    pub screen: (u16, u16),
}

impl Settings {
    /// The switches the explorer opens with: positions `overlay`ed under `scheme` or not, the
    /// first pane open, no mask, one head, wide vectors as strips, special tokens added, text
    /// read as text, for an 80×24 terminal until the first size is reported.
    #[must_use]
    pub fn new(overlay: bool, scheme: PositionScheme) -> Self {
        Self {
            overlay,
            scheme,
            mask: Mask::None,
            head: 0,
            head_overview: false,
            compare_head: HeadChoice::AllHeads,
            detail: Detail::HOME,
            wide_view: WideView::Strip,
            first_dim: 0,
            special_tokens: true,
            ids: false,
            help_open: false,
            help_scroll: 0,
            explanation_page: 0,
            screen: DEFAULT_SCREEN,
        }
    }

    /// The scheme in force on a model whose own scheme is `own` (`RoPE` for a rotary model
    /// without a learned position table): the one chosen, except that learned positions, which such a model does not have, mean its own.
    /// The choice itself stays as the learner made it; only what is applied and shown follows
    /// the model.
    #[must_use]
    pub fn scheme_in_force(&self, own: Option<PositionScheme>) -> PositionScheme {
        match own {
            Some(own) if self.scheme == PositionScheme::Learned => own,
            _ => self.scheme,
        }
    }

    /// The scheme applied to the lookups: the one in force with the overlay on, none with it
    /// off.
    #[must_use]
    pub fn active_scheme(&self, own: Option<PositionScheme>) -> PositionScheme {
        if self.overlay {
            self.scheme_in_force(own)
        } else {
            PositionScheme::None
        }
    }

    /// Moves `m` on from the scheme in force to the next, past learned positions when the
    /// model has its own scheme instead (`own`), and turns positions on.
    pub fn cycle_scheme(&mut self, own: Option<PositionScheme>) {
        let next = self.scheme_in_force(own).next();
        self.scheme = if next == PositionScheme::Learned && own.is_some() {
            next.next()
        } else {
            next
        };
        self.overlay = true;
    }

    /// Opens `detail`, or goes back to the first pane (the lookups) if it is open already.
    pub fn show_detail(&mut self, detail: Detail) {
        self.detail = if self.detail == detail {
            Detail::HOME
        } else {
            detail
        };
    }

    /// Opens or closes the help overlay, at its top.
    pub fn toggle_help(&mut self) {
        self.help_open = !self.help_open;
        self.help_scroll = 0;
    }

    /// Scrolls the help overlay by `lines`, within what the terminal leaves to scroll.
    pub fn scroll_help(&mut self, lines: isize) {
        let (columns, rows) = self.screen;
        let last = crate::help::max_scroll(columns, rows);
        self.help_scroll = self.help_scroll.saturating_add_signed(lines).min(last);
    }

    /// Whether the terminal is roomy enough for the picture beside the readout (160×45 and
    /// up), so the picture is kept up to date even while its own pane is closed.
    #[must_use]
    pub fn roomy(&self) -> bool {
        let (columns, rows) = self.screen;
        columns >= ROOMY_COLUMNS && rows >= ROOMY_ROWS
    }

    /// Records the terminal's new size; the help stays within what it leaves to scroll.
    pub fn resize(&mut self, columns: u16, rows: u16) {
        self.screen = (columns, rows);
        self.scroll_help(0);
    }

    /// Moves the exact-values window `DIMS_STEP` dimensions left.
    pub fn dims_left(&mut self) {
        self.first_dim = self.first_dim.saturating_sub(DIMS_STEP);
    }

    /// Moves the exact-values window right, never past the last dimensions of `dims`.
    pub fn dims_right(&mut self, dims: usize) {
        let last = dims.saturating_sub(1);
        self.first_dim = (self.first_dim + DIMS_STEP).min(last / DIMS_STEP * DIMS_STEP);
        self.wide_view = WideView::Values;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rotary_model_applies_its_own_scheme_and_the_choice_stays_as_made() {
        let mut settings = Settings::new(true, PositionScheme::Learned);
        let own = Some(PositionScheme::Rope);
        assert_eq!(settings.scheme_in_force(own), PositionScheme::Rope);
        assert_eq!(settings.active_scheme(own), PositionScheme::Rope);
        assert_eq!(
            settings.scheme,
            PositionScheme::Learned,
            "the choice is kept"
        );
        assert_eq!(settings.scheme_in_force(None), PositionScheme::Learned);
        settings.overlay = false;
        assert_eq!(settings.active_scheme(own), PositionScheme::None);
        // `m` goes on from the scheme shown, past learned positions.
        settings.cycle_scheme(own);
        assert_eq!(settings.scheme, PositionScheme::Alibi);
        settings.cycle_scheme(own);
        assert_eq!(settings.scheme, PositionScheme::Sinusoidal);
    }
}
