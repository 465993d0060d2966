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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tables::positional::PositionScheme;
    use crate::panes::similarity::tests::Sentence;
    use crate::ui::pane::texts;

    /// How many rows the fixture's lists hold.
    const LISTED: usize = 5;

    /// The nearest lines for the fixture sentence under `scheme` at `width`, and them joined.
    fn nearest_at(scheme: PositionScheme, width: usize) -> (Vec<String>, String) {
        let lines = texts(&nearest_lines(&Sentence::new(scheme).input(), width));
        let all = lines.join("\n");
        (lines, all)
    }

    /// The index of the first line holding `needle`.
    fn line_with(lines: &[String], needle: &str) -> usize {
        lines
            .iter()
            .position(|line| line.contains(needle))
            .unwrap_or_else(|| panic!("no line holds {needle:?}:\n{}", lines.join("\n")))
    }

    #[test]
    fn with_positions_the_two_lists_stand_side_by_side_and_mark_the_current_row() {
        let (lines, all) = nearest_at(PositionScheme::Learned, 80);
        assert!(
            lines[0].starts_with("Nearest rows to 'the' (id 0) among all 6 rows, by cosine"),
            "{all}"
        );
        let headings = line_with(&lines, TOKEN_HEADING);
        assert!(lines[headings].contains(INPUT_HEADING), "{all}");
        // Row 0 is the current token's own: first in the token vector's list, and marked.
        assert!(
            lines[headings + 1].starts_with(&format!("{CURRENT_MARKER} 0  the")),
            "{all}"
        );
        assert!(lines[headings + 1].contains("1.0000"), "{all}");
        assert_eq!(lines.len(), headings + 1 + LISTED, "{all}");
    }

    #[test]
    fn a_narrow_pane_puts_the_input_vectors_list_under_the_token_vectors() {
        let (lines, all) = nearest_at(PositionScheme::Learned, 30);
        let token = line_with(&lines, TOKEN_HEADING);
        let input = line_with(&lines, INPUT_HEADING);
        assert_eq!(input, token + 1 + LISTED, "{all}");
        assert!(lines.iter().all(|line| line.width() <= 30), "{all}");
    }

    #[test]
    fn with_positions_off_one_list_stands_for_both() {
        let (lines, all) = nearest_at(PositionScheme::None, 80);
        assert_eq!(
            lines.last().map(String::as_str),
            Some("  nearest to token + position: (positions off: the same list)"),
            "{all}"
        );
        assert_eq!(
            lines.iter().filter(|l| l.contains(TOKEN_HEADING)).count(),
            1
        );
    }

    #[test]
    fn a_token_without_a_row_or_a_row_of_length_zero_says_why_there_is_no_list() {
        let mut sentence = Sentence::new(PositionScheme::Learned);
        sentence.from_token.clear();
        let lines = texts(&nearest_lines(&sentence.input(), 80));
        assert_eq!(
            lines,
            ["Row 0 has length zero: it points nowhere, so no row is nearest to it."]
        );
        sentence.tokens[3].id = None;
        let lines = texts(&nearest_lines(&sentence.input(), 80));
        assert_eq!(
            lines,
            ["'the' has no row, so there is nothing to find the nearest rows of."]
        );
        assert_eq!(texts(&nearest_compact(&sentence.input(), 80)), lines);
    }

    #[test]
    fn before_the_scan_answers_the_lists_say_what_they_wait_for() {
        let sentence = Sentence::new(PositionScheme::Learned);
        let waiting = Input {
            nearest: None,
            ..sentence.input()
        };
        assert_eq!(
            texts(&nearest_lines(&waiting, 80)),
            ["The nearest rows appear once the tables are ready."]
        );
        let scanning = Input {
            scanning: true,
            ..waiting
        };
        assert_eq!(
            texts(&nearest_compact(&scanning, 80)),
            ["Nearest rows: computing… (reading all 6 rows; keys still work)"]
        );
    }

    #[test]
    fn the_compact_lists_put_the_one_positions_changed_first() {
        let sentence = Sentence::new(PositionScheme::Learned);
        let lines = texts(&nearest_compact(&sentence.input(), 80));
        let all = lines.join("\n");
        assert_eq!(
            lines[0],
            "Nearest rows to 'the' (exact cosine; random table: noise):"
        );
        assert!(
            line_with(&lines, "token + position: ")
                < line_with(&lines, "token vector: 0 the 1.0000"),
            "{all}"
        );
        let off = Sentence::new(PositionScheme::None);
        let lines = texts(&nearest_compact(&off.input(), 80));
        assert!(
            lines.iter().all(|line| !line.contains("token + position")),
            "{lines:?}"
        );
        assert!(
            lines[1].starts_with("token vector: 0 the 1.0000"),
            "{lines:?}"
        );
    }
}
