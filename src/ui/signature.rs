//! What the embedding layer takes in: ids go in, rows of the weight matrix come out, and
//! position is wired to nothing. The lesson's third step shows it beside the matrix.

use ratatui::text::{Line, Span};
use ratatui::widgets::Wrap;

use super::pane::TextPane;
use super::vector::{fit, format_value};
use crate::app::App;

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
    // Narrow (80 columns, beside the matrix): the arrow to the rows gets its own line above
    // them, and no blank line, so the rows that come out stay in view.
    let narrow = ids_line.width().max(signature.len()) > usize::from(width);
    let mut lines = if narrow {
        let mut ids_line = ids_line;
        ids_line.spans.truncate(4);
        vec![
            ids_line,
            positions_line,
            Line::styled("forward(input): the ids only", theme.muted()),
            Line::raw("──▶ rows out:"),
        ]
    } else {
        vec![
            ids_line,
            positions_line,
            Line::styled(signature, theme.muted()),
            Line::default(),
        ]
    };
    // As wide as the longest `word → row id`, at most 14 columns, so the values get the rest.
    let label_width = lookups
        .iter()
        .take(LISTED)
        .map(|lookup| {
            let id = lookup.token.id.map_or(1, |id| id.to_string().len());
            super::vector::display_width(&lookup.token.text) + " → row ".len() + id
        })
        .max()
        .unwrap_or(0)
        .min(14);
    let room = usize::from(width).saturating_sub(label_width + 1);
    for lookup in lookups.iter().take(LISTED) {
        let id = lookup
            .token
            .id
            .map_or_else(|| "?".to_owned(), |id| id.to_string());
        let label = fit(&format!("{} → row {id}", lookup.token.text), label_width);
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
