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
use crate::app::App;
use crate::core::tables::block::ModelFamily;
use crate::hit_map::{HitMap, Scrollable, Target};
use crate::theme::{CURRENT_MARKER, CURSOR_MARKER, USED_MARKER};

/// The widest a token's text may be in the matrix.
const TOKEN_WIDTH_LIMIT: usize = 14;
/// The narrowest the token column gets before values wrap instead.
const TOKEN_WIDTH_MIN: usize = 4;

/// Columns of the id and token in front of the values at a width: the token column gives up
/// room (down to a few letters) before the values would have to wrap.
fn label_widths(app: &App, width: usize) -> (usize, usize) {
    let model = app.model();
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
fn prefix_width(app: &App, width: usize) -> usize {
    let (id_width, token_width) = label_widths(app, width);
    2 + id_width + 1 + if token_width > 0 { token_width + 1 } else { 0 }
}

/// The width the pane needs to show each row and its title on one line, borders included.
pub(super) fn natural_width(app: &App) -> usize {
    let rows = prefix_width(app, usize::MAX) + vector_width(app.model().dims());
    2 + rows.max(title(app).width())
}

fn title(app: &App) -> String {
    let model = app.model();
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

/// The matrix pane at a width: how its rows are laid out there.
pub(super) struct Matrix<'a> {
    app: &'a App,
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
pub(super) fn build(app: &App, width: u16) -> Matrix<'_> {
    let model = app.model();
    let width = usize::from(width.saturating_sub(2));
    let (id_width, token_width) = label_widths(app, width);
    let values_width = width.saturating_sub(prefix_width(app, width));
    let wide = is_wide(model.dims()).then(|| app.wide_style());
    let per_line = (values_width / VALUE_WIDTH).max(1);
    let lines_per_row = if wide.is_some() {
        1
    } else {
        model.dims().div_ceil(per_line).max(1)
    };
    Matrix {
        app,
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
        2 + usize::from(self.header()) + self.app.model().rows() * self.lines_per_row
    }

    fn render(&self, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
        let app = self.app;
        let theme = app.theme();
        let model = app.model();
        let block = super::pane(title(app), false, theme);
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
        let shown = window(model.rows(), height / lines_per_row, app.matrix_cursor());
        // During a lesson question the marks would answer it (two copies, one marked row).
        let hidden = super::lesson::hides_answers(app);
        let current_id = app
            .current_token()
            .and_then(|token| token.id)
            .filter(|_| !hidden);

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
            } else if !hidden && app.matrix_cursor_moved() && id == app.matrix_cursor() {
                (CURSOR_MARKER, Some(theme.cursor()))
            } else if !hidden && !super::lesson::hides_copies(app) && app.uses_row(id) {
                (USED_MARKER, Some(theme.used()))
            } else {
                (" ", None)
            };
            let mut label = format!("{marker} {id:>id_width$} ");
            if token_width > 0 {
                label.push_str(&pad(&model.token_text(id).unwrap_or_default(), token_width));
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
        let block = super::with_range(block, "rows", &shown, model.rows(), theme);
        block.render(area, buf);
        hits.record(area, Target::Pane(Scrollable::Matrix));
        if let Some(message) = super::generating(app) {
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
