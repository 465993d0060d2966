//! What the attention pane adds for a position scheme: `RoPE`'s rotation of the current token
//! (and of the repeated word's copies), `ALiBi`'s biases; for a model's own layer 0, its
//! findings.

use std::fmt::Write as _;

use ratatui::text::{Line, Span};

use super::{Grid, ROPE_PAIRS, real_view};
use crate::action::fill_keys;
use crate::app::App;
use crate::core::analysis::attention::{HeadPattern, Mask};
use crate::core::explain::verdict::VectorMatch;
use crate::core::tables::positional::{
    ALIBI_HEADS, PositionScheme, ROPE_BASE, alibi_bias, alibi_slopes, rope_rotate,
};
use crate::core::text::vocabulary::copies_of;
use crate::theme::Theme;
use crate::ui::vector::{fit, format_value, wrap_words};

/// The scheme's own lines: `RoPE`'s rotation of the current token, `ALiBi`'s biases.
pub(super) fn extra(
    app: &App,
    attention: &HeadPattern,
    grid: &Grid,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    if let Some((_, view)) = real_view(app) {
        return crate::ui::layer0::extra(app, view, width, theme);
    }
    let mut lines = crate::ui::layer0::unavailable(app, width, theme);
    lines.extend(match app.active_scheme() {
        PositionScheme::Rope => rope_lines(app, width, theme),
        PositionScheme::Alibi => alibi_lines(app, attention, grid, width, theme),
        PositionScheme::None | PositionScheme::Learned | PositionScheme::Sinusoidal => Vec::new(),
    });
    lines
}

/// How `RoPE` turns the first pairs of the current token's vector, and keeps each pair's length.
///
/// The head's queries come already turned, so the pane shows the turn on the token's input
/// vector: the angles are the same ones the head uses for its query and key.
fn rope_lines(app: &App, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let muted = |text: String| Line::styled(text, theme.muted());
    let Some(lookup) = app.lookups().get(app.step()) else {
        return Vec::new();
    };
    let position = lookup.token.position;
    let Some(input) = &lookup.input_vector else {
        return vec![muted(format!(
            "{} has no row, so nothing to turn at position {position}.",
            lookup.token.text
        ))];
    };
    let dims = input.len();
    let caption = format!(
        "Rotation of the first pairs of dimensions at position {position} ({}), shown on its \
         input vector; the head turns its query and key by the same angles, {position} × θᵢ \
         radians, θᵢ = {ROPE_BASE}^(-2i/{dims}):",
        lookup.token.text
    );
    let mut lines: Vec<Line<'static>> =
        wrap_words(&caption, width).into_iter().map(muted).collect();
    if dims < 2 {
        lines.push(muted(
            "a vector of one number has no pair to turn".to_owned(),
        ));
        return lines;
    }
    let rotated = rope_rotate(input.view(), position, ROPE_BASE);
    lines.push(muted(format!(
        "{:>4} {:>7} {:>9} {:>16}  {:>16}  length kept",
        "pair", "dims", "angle", "before", "after"
    )));
    for pair in 0..(dims / 2).min(ROPE_PAIRS) {
        let (even, odd) = (2 * pair, 2 * pair + 1);
        #[expect(clippy::cast_precision_loss, reason = "positions and widths are small")]
        let angle = position as f64 * ROPE_BASE.powf(-(even as f64) / dims as f64);
        let length = |x: f32, y: f32| f64::from(x).hypot(f64::from(y));
        let mut spans = vec![Span::raw(format!(
            "{pair:>4} {:>7} {angle:>9.4} ",
            format!("d{even} d{odd}")
        ))];
        for (index, vector) in [input, &rotated].into_iter().enumerate() {
            if index == 1 {
                spans.push(Span::styled(" →", theme.muted()));
            }
            for dim in [even, odd] {
                spans.push(Span::styled(
                    format_value(vector[dim]),
                    theme.value(vector[dim]),
                ));
            }
        }
        spans.push(Span::raw(format!(
            "  {:.4} = {:.4}",
            length(input[even], input[odd]),
            length(rotated[even], rotated[odd])
        )));
        lines.push(Line::from(spans));
    }
    if dims % 2 == 1 && dims / 2 < ROPE_PAIRS {
        lines.push(muted(format!(
            "d{} has no partner and is left as it is",
            dims - 1
        )));
    }
    lines.extend(rope_copy_line(app, lookup, &rotated, width, theme));
    lines
}

/// The current word's copies before and after `RoPE`'s rotation, for the lesson's step on
/// position inside attention: the evidence beside its claim.
pub(in crate::ui) fn rope_copies(app: &App, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let Some(lookup) = app.lookups().get(app.step()) else {
        return Vec::new();
    };
    let Some(input) = &lookup.input_vector else {
        return Vec::new();
    };
    let rotated = rope_rotate(input.view(), lookup.token.position, ROPE_BASE);
    rope_copy_line(app, lookup, &rotated, width, theme)
}

/// For a repeated word: its copy's vector is the same before rotation, but turned by another
/// angle, so the copies' rotated vectors (and so their queries and keys) differ.
fn rope_copy_line(
    app: &App,
    lookup: &crate::core::tables::weights::TokenLookup,
    rotated: &ndarray::Array1<f32>,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let lookups = app.lookups();
    let Some(copy) = copies_of(app.tokens(), app.step())
        .into_iter()
        .filter(|&index| index != app.step())
        .find_map(|index| lookups.get(index))
    else {
        return Vec::new();
    };
    let (Some(input), Some(copy_input)) = (&lookup.input_vector, &copy.input_vector) else {
        return Vec::new();
    };
    let before = VectorMatch::of(input.view(), copy_input.view());
    let copy_rotated = rope_rotate(copy_input.view(), copy.token.position, ROPE_BASE);
    let after = VectorMatch::of(rotated.view(), copy_rotated.view());
    let before = if before.is_identical() {
        "identical".to_owned()
    } else {
        format!("different ({})", before.extent())
    };
    let text = if after.is_identical() {
        format!(
            "'{}' at {} and {}: before rotation the vectors are {before}, and they stay \
             identical after it.",
            lookup.token.text, copy.token.position, lookup.token.position
        )
    } else {
        format!(
            "'{}' at {} and {}: {before} before rotation; turned by their positions' angles \
             they {after}, and so do their queries and keys.",
            lookup.token.text, copy.token.position, lookup.token.position
        )
    };
    let style = if after.is_identical() {
        theme.muted()
    } else {
        theme.finding()
    };
    wrap_words(&text, width)
        .into_iter()
        .map(|line| Line::styled(line, style))
        .collect()
}

/// The current token's biases and what `ALiBi` can and cannot tell apart under each mask.
fn alibi_lines(
    app: &App,
    attention: &HeadPattern,
    grid: &Grid,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let tokens = app.tokens();
    if let Some(row) = grid.current {
        let slope = alibi_slopes(ALIBI_HEADS)[0];
        let position = tokens[grid.members[row]].position;
        let mut text = format!("bias on position {position}'s scores, key by key:");
        for key in grid.keys.clone() {
            if attention.scores[[row, key]] == f64::NEG_INFINITY {
                text.push_str("     ·");
            } else {
                let bias = alibi_bias(slope, position, tokens[grid.members[key]].position);
                // Print -0 as 0: the token itself gets no penalty.
                let _ = write!(text, " {:>5.2}", bias + 0.0);
            }
        }
        lines.push(Line::styled(fit(&text, width), theme.muted()));
    }
    let note = match app.mask() {
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
    lines.extend(
        wrap_words(&fill_keys(note), width)
            .into_iter()
            .map(|line| Line::styled(line, theme.muted())),
    );
    lines
}
