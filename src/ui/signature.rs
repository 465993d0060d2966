//! What the embedding layer takes in: ids go in, rows of the weight matrix come out, and
//! position is wired to nothing. The lesson's third step shows it beside the matrix.

use ratatui::text::{Line, Span};
use ratatui::widgets::Wrap;

use super::pane::TextPane;
use super::text::fit;
use super::vector::format_value;
use crate::app::App;
use crate::core::tables::weights::TokenLookup;

/// Tokens the picture lists at the most; the rest are counted.
const LISTED: usize = 6;

/// The pane at a width: what the layer takes in, wrapped as drawn.
pub(super) fn build(app: &App, width: u16) -> TextPane<'static> {
    let block = super::pane(" What the layer takes in ", false, app.theme());
    let lines = lines(app, width.saturating_sub(2));
    TextPane::new(block, lines, Some(Wrap { trim: false }), width)
}

fn lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let theme = app.theme();
    let model = app.model();
    let lookups = app.lookups();
    let ids: Vec<String> = lookups
        .iter()
        .take(LISTED)
        .map(|lookup| {
            lookup
                .token
                .id
                .map_or_else(|| "?".to_owned(), |id| id.to_string())
        })
        .collect();
    let positions: Vec<String> = lookups
        .iter()
        .take(LISTED)
        .map(|lookup| lookup.token.position.to_string())
        .collect();
    let more = if lookups.len() > LISTED { " …" } else { "" };
    let layer = format!("Embedding({}, {})", model.rows(), model.dims());
    let ids_line = Line::from(vec![
        Span::styled("ids       ", theme.muted()),
        Span::styled(format!("{}{more}", ids.join(" ")), theme.key()),
        Span::raw(" ──▶ "),
        Span::styled(format!("[ {layer} ]"), theme.title()),
        Span::raw(" ──▶ rows"),
    ]);
    let positions_line = Line::from(vec![
        Span::styled("positions ", theme.muted()),
        Span::raw(format!("{}{more}", positions.join(" "))),
        Span::styled(" ──╳ wired to nothing", theme.warning()),
    ]);
    let signature = "forward(self, input): its only argument is the ids";
    // Narrow (80 columns, beside the matrix): the layer's name goes below the ids when it
    // does not fit beside them (never a lone `]`), and the signature shares a line with the
    // arrow to the rows.
    let narrow = ids_line.width().max(signature.len()) > usize::from(width);
    if !narrow {
        let mut lines = vec![
            ids_line,
            positions_line,
            Line::styled(signature, theme.muted()),
        ];
        lines.extend(row_lines(app, width));
        return lines;
    }
    let mut ids_line = ids_line;
    ids_line.spans.truncate(4);
    let mut lines = if ids_line.width() > usize::from(width) {
        let layer_line = Line::from(vec![
            Span::raw(" ".repeat("ids       ".len())),
            ids_line.spans.remove(3),
        ]);
        vec![ids_line, layer_line, positions_line]
    } else {
        vec![ids_line, positions_line]
    };
    lines.push(Line::from(vec![
        Span::styled("forward(input): ids only", theme.muted()),
        Span::raw(" ──▶ rows:"),
    ]));
    lines.extend(row_lines(app, width));
    lines
}

/// The rows that come out, each distinct row once with how many tokens read it, so a short
/// pane still shows a repeated word's one row.
fn row_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let lookups: Vec<_> = app.lookups().iter().take(LISTED).collect();
    let mut rows: Vec<(&TokenLookup, usize)> = Vec::new();
    for lookup in &lookups {
        match rows
            .iter_mut()
            .find(|(first, _)| first.token.is_copy_of(&lookup.token))
        {
            Some((_, count)) => *count += 1,
            None => rows.push((lookup, 1)),
        }
    }
    let label = |lookup: &TokenLookup, count: usize| {
        let id = lookup
            .token
            .id
            .map_or_else(|| "?".to_owned(), |id| id.to_string());
        let times = if count > 1 {
            format!(" ×{count}")
        } else {
            String::new()
        };
        format!("{}{times} → row {id}", lookup.token.text)
    };
    // As wide as the longest label, at most 20 columns, so the values get the rest.
    let label_width = rows
        .iter()
        .map(|(lookup, count)| super::text::display_width(&label(lookup, *count)))
        .max()
        .unwrap_or(0)
        .min(20);
    let room = usize::from(width).saturating_sub(label_width + 1);
    let mut lines = Vec::new();
    for (lookup, count) in rows {
        let label = fit(&label(lookup, count), label_width);
        let values = lookup.token_vector.as_ref().map_or_else(
            || "no row".to_owned(),
            |vector| {
                let mut text = String::new();
                for value in vector {
                    let next = format_value(*value);
                    if text.len() + next.len() + 2 > room {
                        text.push_str(" …");
                        break;
                    }
                    text.push_str(&next);
                }
                text
            },
        );
        lines.push(Line::from(vec![
            Span::raw(format!("{label:<label_width$} ")),
            Span::raw(values),
        ]));
    }
    lines
}
