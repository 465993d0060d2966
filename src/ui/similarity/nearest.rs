//! The similarity pane's lists of the rows nearest the current token: from its token vector
//! and from its input vector, side by side when they fit, or one compact list.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::{INPUT_HEADING, Input, LIST_GAP, TOKEN_HEADING, TOKEN_LABEL_WIDTH, wrapped};
use crate::core::tables::weights::EmbeddingModel;
use crate::theme::{CURRENT_MARKER, Theme};
use crate::ui::text::{fit, pad};

/// The current token's nearest rows in the whole matrix, from its token vector and from its
/// input vector, side by side when they fit.
pub(super) fn nearest_lines(input: &Input, width: usize) -> Vec<Line<'static>> {
    let theme = input.theme;
    let model = input.model;
    let Some(token) = input.current_token() else {
        return Vec::new();
    };
    let Some(id) = token.id else {
        return wrapped(
            &format!(
                "'{}' has no row, so there is nothing to find the nearest rows of.",
                token.text
            ),
            width,
            theme.muted(),
        );
    };
    let Some((from_token, from_input)) = input.nearest else {
        let text = if input.scanning {
            format!(
                "Nearest rows: computing… (reading all {} rows; keys still work)",
                model.rows()
            )
        } else {
            "The nearest rows appear once the tables are ready.".to_owned()
        };
        return wrapped(&text, width, theme.muted());
    };
    if from_token.is_empty() {
        return wrapped(
            &format!("Row {id} has length zero: it points nowhere, so no row is nearest to it."),
            width,
            theme.muted(),
        );
    }
    let mut lines = wrapped(
        &format!(
            "Nearest rows to '{}' (id {id}) among all {} rows, by cosine over all {} dims, exact:",
            token.text,
            model.rows(),
            model.dims()
        ),
        width,
        theme.title(),
    );
    let kind = model.table_kind();
    let kind_style = if kind.is_trained() {
        theme.finding()
    } else {
        theme.warning()
    };
    lines.extend(wrapped(kind.nearest_rows_note(), width, kind_style));
    let id_width = model.rows().saturating_sub(1).to_string().len();
    let token_width = from_token
        .iter()
        .chain(from_input)
        .map(|&(row, _)| model.token_text(row).map_or(0, |text| text.width()))
        .max()
        .unwrap_or(0)
        .min(TOKEN_LABEL_WIDTH);
    let list = |heading: &str, nearest: &[(usize, f64)]| {
        Nearest {
            heading: heading.to_owned(),
            id,
            id_width,
            token_width,
        }
        .lines(model, theme, nearest)
    };
    let left = list(TOKEN_HEADING, from_token);
    if !input.overlay {
        lines.extend(left.into_iter().map(Line::from));
        lines.push(Line::styled(
            format!("  {INPUT_HEADING}: (positions off: the same list)"),
            theme.muted(),
        ));
        return lines;
    }
    lines.extend(side_by_side(left, list(INPUT_HEADING, from_input), width));
    lines
}

/// The nearest rows in a few lines, for a pane short of room: each list on wrapped lines
/// of `id token cosine`, the table's kind in the heading (and on the border).
pub(super) fn nearest_compact(input: &Input, width: usize) -> Vec<Line<'static>> {
    let theme = input.theme;
    let model = input.model;
    let (Some(token), Some((from_token, from_input))) = (input.current_token(), input.nearest)
    else {
        return nearest_lines(input, width);
    };
    if token.id.is_none() || from_token.is_empty() {
        return nearest_lines(input, width);
    }
    let kind = if model.table_kind().is_trained() {
        "trained table"
    } else {
        "random table: noise"
    };
    let mut lines = wrapped(
        &format!("Nearest rows to '{}' (exact cosine; {kind}):", token.text),
        width,
        theme.title(),
    );
    let list = |name: &str, nearest: &[(usize, f64)]| {
        let entries: Vec<String> = nearest
            .iter()
            .map(|&(row, value)| {
                let text = model.token_text(row).unwrap_or_default();
                format!("{row} {} {value:.4}", fit(&text, TOKEN_LABEL_WIDTH))
            })
            .collect();
        wrapped(
            &format!("{name}: {}", entries.join(" · ")),
            width,
            Style::new(),
        )
    };
    // With positions on, the list they changed comes first.
    if input.overlay {
        lines.extend(list("token + position", from_input));
    }
    lines.extend(list("token vector", from_token));
    lines
}

/// How one nearest-rows list is drawn.
struct Nearest {
    heading: String,
    /// The current token's row, marked where it appears.
    id: usize,
    id_width: usize,
    token_width: usize,
}

impl Nearest {
    /// The heading, then one `id  token  cosine` line per row.
    fn lines(
        &self,
        model: &EmbeddingModel,
        theme: Theme,
        nearest: &[(usize, f64)],
    ) -> Vec<Vec<Span<'static>>> {
        let mut lines = vec![vec![Span::styled(
            format!("  {}", self.heading),
            theme.muted(),
        )]];
        for &(row, value) in nearest {
            let (marker, style) = if row == self.id {
                (CURRENT_MARKER, theme.current())
            } else {
                (" ", Style::new())
            };
            let mut label = format!("{marker} {row:>w$}  ", w = self.id_width);
            if self.token_width > 0 {
                let text = model.token_text(row).unwrap_or_default();
                label.push_str(&pad(&text, self.token_width));
                label.push_str("  ");
            }
            #[expect(clippy::cast_possible_truncation, reason = "a display value")]
            let value_style = theme.value(value as f32);
            lines.push(vec![
                Span::styled(label, style),
                Span::styled(format!("{value:>7.4}"), value_style),
            ]);
        }
        lines
    }
}

/// Two lists side by side when they fit in `width`, else one above the other.
fn side_by_side(
    left: Vec<Vec<Span<'static>>>,
    right: Vec<Vec<Span<'static>>>,
    width: usize,
) -> Vec<Line<'static>> {
    let widest = |list: &[Vec<Span<'static>>]| {
        list.iter()
            .map(|spans| spans.iter().map(Span::width).sum::<usize>())
            .max()
            .unwrap_or(0)
    };
    let left_width = widest(&left);
    if left_width + LIST_GAP + widest(&right) > width {
        return left.into_iter().chain(right).map(Line::from).collect();
    }
    let height = left.len().max(right.len());
    let mut left = left.into_iter();
    let mut right = right.into_iter();
    (0..height)
        .map(|_| {
            let mut spans = left.next().unwrap_or_default();
            let used: usize = spans.iter().map(Span::width).sum();
            spans.push(Span::raw(" ".repeat(left_width + LIST_GAP - used)));
            spans.extend(right.next().unwrap_or_default());
            Line::from(spans)
        })
        .collect()
}
