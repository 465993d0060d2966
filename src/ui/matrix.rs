//! The weight-matrix pane: one line per row, the looked-up row marked, scrolled to keep it in view.

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use super::pane::Pane;
use super::text::{display_width, fit, pad};
use super::vector::{
    VALUE_WIDTH, WideStyle, dims_per_cell, is_wide, vector_lines, vector_width, wide_legend,
    wide_line, window,
};
use crate::core::tables::block::ModelFamily;
use crate::core::tables::weights::{EmbeddingModel, NAMES_PENDING};
use crate::hit_map::{HitMap, Scrollable, Target};
use crate::theme::{CURRENT_MARKER, CURSOR_MARKER, Theme, USED_MARKER};

/// The widest a token's text may be in the matrix.
const TOKEN_WIDTH_LIMIT: usize = 14;
/// The narrowest the token column gets before values wrap instead.
const TOKEN_WIDTH_MIN: usize = 4;

/// Columns of the id and token in front of the values at a width: the token column gives up
/// room (down to a few letters) before the values would have to wrap.
fn label_widths(model: &EmbeddingModel, width: usize) -> (usize, usize) {
    let id_width = model.rows().saturating_sub(1).to_string().len().max(2);
    if model.tokenizer().is_none() {
        return (id_width, 0);
    }
    let longest = model.widest_token().min(TOKEN_WIDTH_LIMIT);
    let dims = model.dims();
    if is_wide(dims) {
        // A strip: the label widens as long as the strip keeps as many cells as it has with
        // the narrowest label (labels widened before strips are squeezed).
        let values_room = |token: usize| width.saturating_sub(2 + id_width + 1 + token + 1);
        let per_cell = dims_per_cell(dims, values_room(TOKEN_WIDTH_MIN.min(longest)));
        let cells = dims.div_ceil(per_cell);
        let room = width.saturating_sub(2 + id_width + 2 + cells);
        return (
            id_width,
            longest.min(room).max(TOKEN_WIDTH_MIN.min(longest)),
        );
    }
    let room = width.saturating_sub(2 + id_width + 2 + vector_width(dims));
    (
        id_width,
        longest.min(room).max(TOKEN_WIDTH_MIN.min(longest)),
    )
}

/// Columns of a row's label at a width: marker, id and token with their spaces.
fn prefix_width(model: &EmbeddingModel, width: usize) -> usize {
    let (id_width, token_width) = label_widths(model, width);
    2 + id_width + 1 + if token_width > 0 { token_width + 1 } else { 0 }
}

/// The width the pane needs to show each row and its title on one line, borders included.
pub(super) fn natural_width(model: &EmbeddingModel) -> usize {
    let rows = prefix_width(model, usize::MAX) + vector_width(model.dims());
    2 + rows.max(title(model).width())
}

fn title(model: &EmbeddingModel) -> String {
    let shape = format!("{}×{}", model.rows(), model.dims());
    let dtype = model
        .token_table()
        .dtype()
        .map(|dtype| format!(" {dtype}"))
        .unwrap_or_default();
    let family = match model.family() {
        ModelFamily::Generated | ModelFamily::Unknown => String::new(),
        _ => format!(" · {}", model.family_name()),
    };
    if model.label() == format!("{}x{}", model.rows(), model.dims()) {
        format!(" Weight matrix · {shape}{dtype} ")
    } else {
        format!(
            " Weight matrix · {}{family} · {shape}{dtype} ",
            model.label()
        )
    }
}

/// What the matrix pane reads, made in `ui.rs`.
pub(super) struct Input<'a> {
    /// The model whose weight matrix is shown.
    pub(super) model: &'a EmbeddingModel,
    /// How wide rows are drawn.
    pub(super) wide_style: WideStyle,
    /// The row kept in view.
    pub(super) cursor: usize,
    /// The current token's row, marked (none while a lesson question would be answered by it).
    pub(super) current: Option<usize>,
    /// The row the cursor was moved to, marked as such (none until it is moved).
    pub(super) moved_to: Option<usize>,
    /// Whether a row is read by some token of the sentence, marked as a copy's row.
    pub(super) used: Box<dyn Fn(usize) -> bool + 'a>,
    /// What stands in while the tables are being generated.
    pub(super) generating: Option<Paragraph<'static>>,
    /// The styles in use.
    pub(super) theme: Theme,
}

/// The matrix pane at a width: how its rows are laid out there.
pub(super) struct Matrix<'a> {
    input: Input<'a>,
    id_width: usize,
    /// Columns of the token text, 0 when the model has no tokenizer.
    token_width: usize,
    /// Columns for a row's values.
    values_width: usize,
    /// How wide rows are drawn, when the rows are wide.
    wide: Option<WideStyle>,
    /// Lines each row of the matrix takes.
    lines_per_row: usize,
}

/// The pane at a width, borders included.
pub(super) fn build(input: Input<'_>, width: u16) -> Matrix<'_> {
    let model = input.model;
    let width = usize::from(width.saturating_sub(2));
    let (id_width, token_width) = label_widths(model, width);
    let values_width = width.saturating_sub(prefix_width(model, width));
    let wide = is_wide(model.dims()).then_some(input.wide_style);
    let per_line = (values_width / VALUE_WIDTH).max(1);
    let lines_per_row = if wide.is_some() {
        1
    } else {
        model.dims().div_ceil(per_line).max(1)
    };
    Matrix {
        input,
        id_width,
        token_width,
        values_width,
        wide,
        lines_per_row,
    }
}

impl Matrix<'_> {
    /// A header of dimension names, when each row takes one line.
    fn header(&self) -> bool {
        self.lines_per_row == 1
    }
}

impl Pane for Matrix<'_> {
    /// A header and every row of the matrix, borders included.
    fn height(&self) -> usize {
        2 + usize::from(self.header()) + self.input.model.rows() * self.lines_per_row
    }

    fn render(&self, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
        let input = &self.input;
        let theme = input.theme;
        let model = input.model;
        let block = super::frame::pane(title(model), false, theme);
        let inner = block.inner(area);
        let Self {
            id_width,
            token_width,
            values_width,
            wide,
            lines_per_row,
            ..
        } = *self;
        let header = self.header();
        let height = usize::from(inner.height).saturating_sub(usize::from(header));
        let shown = window(model.rows(), height / lines_per_row, input.cursor);
        let current_id = input.current;

        let mut lines = Vec::new();
        if header {
            let mut text = format!("  {:>id_width$} ", "id");
            if token_width > 0 {
                text.push_str(&pad("token", token_width));
                text.push(' ');
            }
            match wide {
                Some(style) => text.push_str(&wide_legend(model.dims(), values_width, style)),
                None => {
                    for dim in 0..model.dims() {
                        let _ = write!(text, "{:>VALUE_WIDTH$}", format!("d{dim}"));
                    }
                }
            }
            // Cut with a marker, never silently, when the strip's legend is longer than a row.
            lines.push(Line::styled(
                fit(&text, usize::from(inner.width)),
                theme.muted(),
            ));
        }
        for id in shown.clone() {
            let (marker, style) = if Some(id) == current_id {
                (CURRENT_MARKER, Some(theme.current()))
            } else if input.moved_to == Some(id) {
                (CURSOR_MARKER, Some(theme.cursor()))
            } else if (input.used)(id) {
                (USED_MARKER, Some(theme.used()))
            } else {
                (" ", None)
            };
            let mut label = format!("{marker} {id:>id_width$} ");
            if token_width > 0 {
                // The names read on the tokenizer's worker are not waited for.
                let name = if model.names_pending() {
                    Some(NAMES_PENDING.to_owned())
                } else {
                    model.token_text(id)
                };
                label.push_str(&pad(&name.unwrap_or_default(), token_width));
                label.push(' ');
            }
            let Some(row) = model.lookup(id) else {
                continue;
            };
            let parts = match wide {
                Some(style) => vec![wide_line(row.view(), values_width, style, theme)],
                None => vector_lines(row.view(), values_width, theme),
            };
            for (part, values) in parts.into_iter().enumerate() {
                let lead = if part == 0 {
                    label.clone()
                } else {
                    " ".repeat(display_width(&label))
                };
                let mut spans = vec![Span::styled(lead, style.unwrap_or_default())];
                match style.filter(|_| Some(id) == current_id) {
                    Some(current) => {
                        spans.extend(values.into_iter().map(|span| span.style(current)));
                    }
                    None => spans.extend(values),
                }
                lines.push(Line::from(spans));
            }
        }
        let block = super::frame::with_range(block, "rows", &shown, model.rows(), theme);
        block.render(area, buf);
        hits.record(area, Target::Pane(Scrollable::Matrix));
        if let Some(message) = &input.generating {
            message.render(inner, buf);
            return;
        }
        Paragraph::new(lines).render(inner, buf);
        // Each row's lines, below the header, as drawn: a click on one goes to that row.
        let lines_per_row = u16::try_from(lines_per_row).unwrap_or(u16::MAX);
        let mut y = inner.y.saturating_add(u16::from(header));
        for id in shown {
            let row_area = Rect {
                y,
                height: lines_per_row,
                ..inner
            }
            .intersection(inner);
            hits.record(row_area, Target::Row(id));
            y = y.saturating_add(lines_per_row);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tables::weights::DEFAULT_SEED;
    use crate::core::text::vocabulary::VocabKind;
    use crate::ui::pane::screen;

    /// The seed matrix with row `current` looked up and `used` read by the sentence.
    fn input<'a>(model: &'a EmbeddingModel, current: usize, used: &'static [usize]) -> Input<'a> {
        Input {
            model,
            wide_style: crate::ui::vector::STRIPS,
            cursor: current,
            current: Some(current),
            moved_to: None,
            used: Box::new(move |id| used.contains(&id)),
            generating: None,
            theme: Theme::new(false),
        }
    }

    #[test]
    fn the_looked_up_row_is_marked_and_the_sentences_other_rows_too() {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let width = u16::try_from(natural_width(&model)).unwrap();
        let matrix = build(input(&model, 2, &[2, 4]), width);
        assert_eq!(matrix.height(), 2 + 1 + 6);
        let lines = screen(&matrix, width, 9);
        assert!(lines[0].contains("Weight matrix · seed · 6×3"), "{lines:?}");
        assert!(
            lines[1].contains("id token       d0      d1      d2"),
            "{lines:?}"
        );
        assert!(lines[4].starts_with("│▶  2 fox     1.2753"), "{lines:?}");
        assert!(
            lines[6].starts_with(&format!("│{USED_MARKER}  4 bites")),
            "{lines:?}"
        );
        // Every row shows: the border claims no range.
        assert!(!lines[8].contains(" of 6"), "{lines:?}");
    }

    #[test]
    fn a_short_pane_keeps_the_looked_up_row_and_says_which_rows_show() {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let width = u16::try_from(natural_width(&model)).unwrap();
        let lines = screen(&build(input(&model, 5, &[]), width), width, 5);
        assert!(lines[3].starts_with("│▶  5 man"), "{lines:?}");
        assert!(lines[4].contains("rows 4–5 of 6"), "{lines:?}");
    }
}
