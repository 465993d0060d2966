//! What the attention pane adds for a position scheme: `RoPE`'s rotation of the current token
//! (and of the repeated word's copies), `ALiBi`'s biases, as the derive step computed them
//! (`crate::core::analysis::schemes`); for a model's own layer 0, its findings.

use std::fmt::Write as _;

use ratatui::text::{Line, Span};

use super::{Grid, Input, real_view};
use crate::action::fill_keys;
use crate::core::analysis::attention::Mask;
use crate::core::analysis::schemes::{AlibiRow, TurnedCopies};
use crate::core::tables::positional::{PositionScheme, ROPE_BASE};
use crate::theme::Theme;
use crate::ui::text::{fit, wrap_words, wrapped};
use crate::ui::vector::format_value;

/// The scheme's own lines: `RoPE`'s rotation of the current token, `ALiBi`'s biases.
pub(super) fn extra(input: &Input, grid: &Grid, width: usize) -> Vec<Line<'static>> {
    let theme = input.theme;
    if let Some((_, view)) = real_view(input) {
        return crate::ui::layer0::extra(input.head, view, width, theme);
    }
    let mut lines = crate::ui::layer0::unavailable(input.layer, width, theme);
    lines.extend(match input.scheme {
        PositionScheme::Rope => rope_lines(input, width, theme),
        PositionScheme::Alibi => alibi_lines(input.alibi, input.mask, grid, width, theme),
        PositionScheme::None | PositionScheme::Learned | PositionScheme::Sinusoidal => Vec::new(),
    });
    lines
}

/// How `RoPE` turns the first pairs of the current token's vector, and keeps each pair's length.
///
/// The head's queries come already turned, so the pane shows the turn on the token's input
/// vector: the angles are the same ones the head uses for its query and key.
fn rope_lines(input: &Input, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let muted = |text: String| Line::styled(text, theme.muted());
    let Some(turn) = input.rope else {
        return match input.lookups.get(input.step) {
            Some(lookup) => vec![muted(format!(
                "{} has no row, so nothing to turn at position {}.",
                lookup.token.text, lookup.token.position
            ))],
            None => Vec::new(),
        };
    };
    let (position, dims) = (turn.token.position, turn.dims);
    let caption = format!(
        "Rotation of the first pairs of dimensions at position {position} ({}), shown on its \
         input vector; the head turns its query and key by the same angles, {position} × θᵢ \
         radians, θᵢ = {ROPE_BASE}^(-2i/{dims}):",
        turn.token.text
    );
    let mut lines: Vec<Line<'static>> =
        wrap_words(&caption, width).into_iter().map(muted).collect();
    if dims < 2 {
        lines.push(muted(
            "a vector of one number has no pair to turn".to_owned(),
        ));
        return lines;
    }
    lines.push(muted(format!(
        "{:>4} {:>7} {:>9} {:>16}  {:>16}  length kept",
        "pair", "dims", "angle", "before", "after"
    )));
    for (index, pair) in turn.pairs.iter().enumerate() {
        let (even, odd) = (pair.first_dim, pair.first_dim + 1);
        let mut spans = vec![Span::raw(format!(
            "{index:>4} {:>7} {:>9.4} ",
            format!("d{even} d{odd}"),
            pair.angle
        ))];
        for (side, values) in [pair.before, pair.after].into_iter().enumerate() {
            if side == 1 {
                spans.push(Span::styled(" →", theme.muted()));
            }
            for value in values {
                spans.push(Span::styled(format_value(value), theme.value(value)));
            }
        }
        spans.push(Span::raw(format!(
            "  {:.4} = {:.4}",
            pair.length_before(),
            pair.length_after()
        )));
        lines.push(Line::from(spans));
    }
    if let Some(dim) = turn.lone_dim {
        lines.push(muted(format!("d{dim} has no partner and is left as it is")));
    }
    lines.extend(rope_copies(input.rope_copies, width, theme));
    lines
}

/// For a repeated word: its copy's vector is the same before rotation, but turned by another
/// angle, so the copies' rotated vectors (and so their queries and keys) differ. The lesson's
/// step on position inside attention shows it too: the evidence beside its claim.
pub(in crate::ui) fn rope_copies(
    copies: Option<&TurnedCopies>,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let Some(copies) = copies else {
        return Vec::new();
    };
    let (word, position) = (&copies.token.text, copies.token.position);
    let before = if copies.before.is_identical() {
        "identical".to_owned()
    } else {
        format!("different ({})", copies.before.extent())
    };
    let text = if copies.after.is_identical() {
        format!(
            "'{word}' at {} and {position}: before rotation the vectors are {before}, and they \
             stay identical after it.",
            copies.copy_position
        )
    } else {
        format!(
            "'{word}' at {} and {position}: {before} before rotation; turned by their \
             positions' angles they {}, and so do their queries and keys.",
            copies.copy_position, copies.after
        )
    };
    let style = if copies.after.is_identical() {
        theme.muted()
    } else {
        theme.finding()
    };
    wrapped(&text, width, style)
}

/// The current token's biases and what `ALiBi` can and cannot tell apart under each mask.
fn alibi_lines(
    row: Option<&AlibiRow>,
    mask: Mask,
    grid: &Grid,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some(row) = row {
        let mut text = format!("bias on position {}'s scores, key by key:", row.position);
        for key in grid.keys.clone() {
            match row.biases.get(key).copied().flatten() {
                Some(bias) => {
                    let _ = write!(text, " {bias:>5.2}");
                }
                None => text.push_str("     ·"),
            }
        }
        lines.push(Line::styled(fit(&text, width), theme.muted()));
    }
    let note = match mask {
        Mask::None => {
            "Unmasked, a sentence and its exact reversal keep every distance between words, so \
             ALiBi alone cannot tell a 3-word sentence from its reversal: each word gets the \
             same output in both orders. Press {ToggleCausal} for the causal mask ALiBi was designed for."
        }
        Mask::Causal => {
            "With the causal mask each token sees only itself and the tokens before it, the \
             set-up ALiBi was designed for: the farther back a token, the larger its penalty."
        }
    };
    lines.extend(wrapped(&fill_keys(note), width, theme.muted()));
    lines
}
