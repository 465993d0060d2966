//! The help bar and the help overlay, both drawn from the key table.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

use super::vector::pad;
use crate::action::{Scope, bar_entries, bindings};
use crate::app::{App, PromptKind};

/// The widest the help overlay gets.
const HELP_WIDTH: u16 = 112;
/// Columns of one key and its description in the help overlay.
const COLUMN_WIDTH: usize = 54;

/// The lesson in a few lines, at the top of the help overlay.
const LESSON: [&str; 4] = [
    "An embedding layer is a weight matrix: a token's id is the address of a row, and the",
    "layer returns that row. The same id returns the same vector wherever it stands, so the",
    "two copies of a repeated word look identical to self-attention. Adding position vectors",
    "(p) is what tells them, and word orders, apart.",
];

pub(super) fn render_bar(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = app.theme();
    let mode = match app.scope() {
        Scope::Input => " TYPE ",
        Scope::Help => " HELP ",
        Scope::Prompt => " FIND ",
        Scope::Lesson => " LESSON ",
        Scope::Explorer | Scope::Anywhere => " EXPLORE ",
    };
    let mut spans = vec![Span::styled(mode, theme.current()), Span::raw(" ")];
    if let Some(prompt) = app.prompt() {
        let question = match prompt.kind {
            PromptKind::Search => "find token: ",
            PromptKind::GoTo => "go to id: ",
        };
        spans.push(Span::styled(question, theme.title()));
        spans.push(Span::raw(prompt.text.clone()));
        spans.push(Span::styled("█", theme.key()));
        spans.push(Span::raw("  "));
    } else if let Some(status) = app.status() {
        spans.push(Span::styled(status.to_owned(), theme.finding()));
        spans.push(Span::raw("  "));
    }
    for (keys, description) in bar_entries(app.scope()) {
        spans.push(Span::styled(keys, theme.key()));
        spans.push(Span::raw(format!(" {description}  ")));
    }
    Line::from(spans).render(area, buf);
}

pub(super) fn render_overlay(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = app.theme();
    let popup_width = area.width.min(HELP_WIDTH);
    // Side by side when there is room, so the whole table fits on a 40-row terminal.
    let two_columns = usize::from(popup_width.saturating_sub(2)) >= 2 * COLUMN_WIDTH;
    let mut lines: Vec<Line> = LESSON.iter().map(|line| Line::raw(*line)).collect();
    for (scope, heading) in [
        (Scope::Input, "While typing"),
        (Scope::Explorer, "While exploring"),
        (Scope::Anywhere, "Anywhere"),
    ] {
        lines.push(Line::default());
        lines.push(Line::styled(heading, theme.title()));
        let entries: Vec<Vec<Span>> = bindings()
            .iter()
            .filter(|b| b.scope == scope)
            .map(|binding| {
                vec![
                    Span::styled(format!("  {:<10}", binding.keys_label), theme.key()),
                    Span::raw(pad(binding.description, COLUMN_WIDTH - 12)),
                ]
            })
            .collect();
        if two_columns {
            for pair in entries.chunks(2) {
                lines.push(Line::from(pair.concat()));
            }
        } else {
            lines.extend(entries.into_iter().map(Line::from));
        }
    }
    lines.push(Line::default());
    lines.push(Line::styled("? or Esc closes this help.", theme.muted()));
    let height = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
    let popup = area.centered(Constraint::Length(popup_width), Constraint::Length(height));
    Clear.render(popup, buf);
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(super::pane(" Help · what the explorer shows ", true, theme))
        .render(popup, buf);
}
