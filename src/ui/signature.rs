//! What the embedding layer takes in: ids go in, rows of the weight matrix come out, and
//! position is wired to nothing. The lesson's third step shows it beside the matrix.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::vector::{fit, format_value};
use crate::app::App;

/// Tokens the picture lists at the most; the rest are counted.
const LISTED: usize = 6;

/// The rows the pane would like, borders included.
pub(super) fn natural_height(app: &App) -> usize {
    lines(app, u16::MAX).len() + 2
}

pub(super) fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = app.theme();
    let block = super::pane(" What the layer takes in ", false, theme);
    Paragraph::new(lines(app, area.width.saturating_sub(2)))
        .wrap(Wrap { trim: false })
        .block(block)
        .render(area, buf);
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
    let mut lines = vec![
        Line::from(vec![
            Span::styled("ids       ", theme.muted()),
            Span::styled(format!("{}{more}", ids.join(" ")), theme.key()),
            Span::raw(" ──▶ "),
            Span::styled(format!("[ {layer} ]"), theme.title()),
            Span::raw(" ──▶ rows"),
        ]),
        Line::from(vec![
            Span::styled("positions ", theme.muted()),
            Span::raw(format!("{}{more}", positions.join(" "))),
            Span::styled(" ──╳ wired to nothing", theme.warning()),
        ]),
        Line::styled(
            "forward(self, input): its only argument is the ids",
            theme.muted(),
        ),
        Line::default(),
    ];
    let label_width = 14;
    let room = usize::from(width).saturating_sub(label_width + 4);
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
