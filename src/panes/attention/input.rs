//! What the attention pane reads, and how that is made from the app.

use ratatui::widgets::Paragraph;

use crate::app::{App, RealLayer};
use crate::core::analysis::attention::{HeadPattern, Mask};
use crate::core::analysis::schemes::{AlibiRow, RopeTurn, TurnedCopies};
use crate::core::explain::layer0::SentenceRun;
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::weights::TokenLookup;
use crate::core::text::vocabulary::Token;
use crate::theme::Theme;
use crate::ui::vector::WideStyle;

/// What the attention pane reads, made by [`input`].
pub(crate) struct Input<'a> {
    /// The head's weights and outputs over the sentence, once computed: the seeded head's, or
    /// the chosen head of the model's own layer 0.
    pub(crate) attention: Option<&'a HeadPattern>,
    /// The model's own layer 0, why it cannot be computed, or none (a built-in vocabulary).
    pub(crate) layer: RealLayer<'a>,
    /// Its run over the sentence: `None` while computed, or why it cannot run.
    pub(crate) run: Option<Result<&'a SentenceRun, &'a str>>,
    /// The head of the model's own layer 0 shown.
    pub(crate) head: usize,
    /// Whether every head's small map is shown rather than one head.
    pub(crate) overview: bool,
    /// The sentence's tokens.
    pub(crate) tokens: &'a [Token],
    /// Their lookups: which have an input vector.
    pub(crate) lookups: &'a [TokenLookup],
    /// The current token's index.
    pub(crate) step: usize,
    /// The seeded head's mask.
    pub(crate) mask: Mask,
    /// The position scheme acting now (`None` while positions are off).
    pub(crate) scheme: PositionScheme,
    /// Whether positions are on (layer 0 takes its own).
    pub(crate) overlay: bool,
    /// The vocabulary's name, for a sentence none of whose tokens has a row.
    pub(crate) vocabulary: &'a str,
    /// Under `RoPE`, the current token's input vector turned at its position.
    pub(crate) rope: Option<&'a RopeTurn>,
    /// Under `RoPE`, the current word and its first other copy before and after their turns.
    pub(crate) rope_copies: Option<&'a TurnedCopies>,
    /// Under `ALiBi`, the biases on the current token's scores.
    pub(crate) alibi: Option<&'a AlibiRow>,
    /// How wide outputs are drawn.
    pub(crate) wide_style: WideStyle,
    /// What stands in while the tables are being generated.
    pub(crate) generating: Option<Paragraph<'static>>,
    /// The styles in use.
    pub(crate) theme: Theme,
}

/// What the attention pane reads.
pub(crate) fn input(app: &App) -> Input<'_> {
    let views = app.views();
    Input {
        attention: views.attention.pattern.get(),
        layer: app.real_layer(),
        run: app.layer0_view(),
        head: app.head(),
        overview: app.head_overview(),
        tokens: app.tokens(),
        lookups: app.lookups(),
        step: app.step(),
        mask: app.mask(),
        scheme: app.active_scheme(),
        overlay: app.overlay(),
        vocabulary: app.model().label(),
        rope: views.attention.rope.get(),
        rope_copies: app.rope_copies(),
        alibi: views.attention.alibi.get(),
        wide_style: app.wide_style(),
        generating: crate::ui::frame::generating(app),
        theme: app.theme(),
    }
}

/// An attention pane's input with nothing computed yet: no head, no layer of the model's own,
/// no positions, no mask, the first token current; tests fill in what they show.
#[cfg(test)]
pub(crate) fn bare_input<'a>(tokens: &'a [Token], lookups: &'a [TokenLookup]) -> Input<'a> {
    Input {
        attention: None,
        layer: RealLayer::None,
        run: None,
        head: 0,
        overview: false,
        tokens,
        lookups,
        step: 0,
        mask: Mask::None,
        scheme: PositionScheme::None,
        overlay: false,
        vocabulary: "seed",
        rope: None,
        rope_copies: None,
        alibi: None,
        wide_style: crate::ui::vector::STRIPS,
        generating: None,
        theme: Theme::new(false),
    }
}
