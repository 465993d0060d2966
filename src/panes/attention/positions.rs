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
use crate::ui::vector::{VALUE_WIDTH, format_value};

/// The scheme's own lines: `RoPE`'s rotation of the current token, `ALiBi`'s biases.
pub(super) fn extra(input: &Input, grid: &Grid, width: usize) -> Vec<Line<'static>> {
    let theme = input.theme;
    if let Some((_, view)) = real_view(input) {
        return crate::panes::attention::layer0::extra(input.head, view, width, theme);
    }
    let mut lines = crate::panes::attention::layer0::unavailable(input.layer, width, theme);
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
/// step on position inside attention shows it too. The sentence comes with both copies'
/// vectors before and after their turns and the largest difference between them, its
/// evidence; where a line has no room for one number of each, neither is shown.
pub(crate) fn rope_copies(
    copies: Option<&TurnedCopies>,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let Some(copies) = copies else {
        return Vec::new();
    };
    let Some(evidence) = turned_rows(copies, width, theme) else {
        return Vec::new();
    };
    let style = if copies.finding.told_apart() {
        theme.finding()
    } else {
        theme.muted()
    };
    let mut lines = wrapped(&copies.finding.sentence(), width, style);
    lines.extend(evidence);
    lines
}

/// Both copies' vectors before and after their turns, a window of them around the dimension
/// that differs most when they are too wide for the line, and that difference.
fn turned_rows(copies: &TurnedCopies, width: usize, theme: Theme) -> Option<Vec<Line<'static>>> {
    let [first, second] = &copies.rows;
    let dims = first.before.len();
    let label_width = format!("at {}", first.position.max(second.position)).len() + 2;
    let arrow = " →";
    // Each side's numbers, as many as fit: the window is the same on both sides.
    let arrow_width = arrow.chars().count();
    let count = (width.saturating_sub(label_width + arrow_width) / (2 * VALUE_WIDTH)).min(dims);
    if count == 0 {
        return None;
    }
    let largest = copies.largest_difference();
    let centre = largest.map_or(0, |(dim, _)| dim);
    let start = centre
        .saturating_sub(count / 2)
        .min(dims.saturating_sub(count));
    let window = start..start + count;
    let side = count * VALUE_WIDTH;
    let (before, after) = if side > "before rotation".len() {
        ("before rotation", "after rotation")
    } else {
        ("before", "after")
    };
    let mut heading = format!(
        "{:<label_width$}{before:>side$}{:>arrow_width$}{after:>side$}",
        "copy", ""
    );
    let mut lines = Vec::new();
    if count < dims {
        // The window beside the titles, or above them when the line has no room for it.
        let note = format!("d{}–d{} of {dims}", window.start, window.end - 1);
        if heading.chars().count() + 3 + note.chars().count() <= width {
            let _ = write!(heading, " · {note}");
        } else {
            lines.push(Line::styled(fit(&note, width), theme.muted()));
        }
    }
    lines.push(Line::styled(fit(&heading, width), theme.muted()));
    for row in [first, second] {
        let mut spans = vec![Span::styled(
            format!("{:<label_width$}", format!("at {}", row.position)),
            theme.muted(),
        )];
        for (index, vector) in [&row.before, &row.after].into_iter().enumerate() {
            if index == 1 {
                spans.push(Span::styled(arrow, theme.muted()));
            }
            for &value in vector.iter().skip(window.start).take(count) {
                spans.push(Span::styled(format_value(value), theme.value(value)));
            }
        }
        lines.push(Line::from(spans));
    }
    if let Some((dim, difference)) = largest {
        let text = format!(
            "largest difference after rotation: d{dim}, {} against {}, {difference:.4} apart",
            format_value(first.after[dim]).trim_start(),
            format_value(second.after[dim]).trim_start(),
        );
        lines.extend(wrapped(&text, width, theme.muted()));
    }
    Some(lines)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::analysis::schemes::turned_copies;
    use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel};
    use crate::core::text::vocabulary::VocabKind;
    use crate::ui::pane::texts;

    #[test]
    fn the_copies_claim_comes_with_both_copies_turned_and_their_largest_difference() {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let tokens = model.tokenize("fox bites the fox").unwrap();
        let lookups = model.embed(&tokens, PositionScheme::Rope);
        let copies = turned_copies(&tokens, &lookups, 3).unwrap();
        let lines = texts(&rope_copies(Some(&copies), 78, Theme::new(false)));
        insta::assert_snapshot!(lines.join("\n"));
        // Too narrow for one number of each side: neither the claim nor its rows.
        assert!(rope_copies(Some(&copies), 20, Theme::new(false)).is_empty());
        assert!(rope_copies(None, 78, Theme::new(false)).is_empty());
    }

    #[test]
    fn a_wide_vector_shows_the_window_around_its_largest_difference() {
        // Eight numbers a vector, two of each side on a line 40 columns wide.
        let model = EmbeddingModel::builtin(VocabKind::Words, DEFAULT_SEED);
        let tokens = model.tokenize("the fox saw the dog").unwrap();
        let lookups = model.embed(&tokens, PositionScheme::Rope);
        let copies = turned_copies(&tokens, &lookups, 3).unwrap();
        let (dim, largest) = copies.largest_difference().unwrap();
        let lines = texts(&rope_copies(Some(&copies), 40, Theme::new(false)));
        assert!(lines.contains(&"d0–d1 of 8".to_owned()), "{lines:?}");
        let wider = texts(&rope_copies(Some(&copies), 60, Theme::new(false)));
        assert!(wider.contains(&"d0–d2 of 8".to_owned()), "{wider:?}");
        // The difference named is the largest, at the dimension the window is around.
        let all = lines.join(" ");
        assert!(
            all.contains(&format!("d{dim},")) && all.contains(&format!("{largest:.4} apart")),
            "{lines:?}"
        );
    }
}
