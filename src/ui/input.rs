//! The input pane: the text area while typing, the sentence with the current token marked
//! while exploring.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use crate::app::{App, Focus};
use crate::core::tokenizer::copies_of;

pub(super) fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = app.theme();
    let typing = app.focus() == Focus::Input;
    let title = if typing {
        " Sentence · type, then Enter to step through the lookups "
    } else {
        " Sentence · i to edit "
    };
    let block = super::pane(title, typing, theme);
    let inner = block.inner(area);
    block.render(area, buf);
    if typing {
        app.textarea().render(inner, buf);
        return;
    }
    let text = app.text();
    let copies = copies_of(app.tokens(), app.step());
    let mut spans = Vec::new();
    let mut cursor = 0;
    let mut current_end = 0;
    for (index, token) in app.tokens().iter().enumerate() {
        let style = if index == app.step() {
            theme.current()
        } else if copies.contains(&index) {
            theme.used()
        } else {
            continue;
        };
        spans.push(Span::raw(text[cursor..token.span.start].to_owned()));
        spans.push(Span::styled(text[token.span.clone()].to_owned(), style));
        cursor = token.span.end;
        if index == app.step() {
            current_end = text[..cursor].width();
        }
    }
    spans.push(Span::raw(text[cursor..].to_owned()));
    // Scroll sideways so the current token is in view on long sentences.
    let offset = current_end.saturating_sub(usize::from(inner.width));
    let offset = u16::try_from(offset).unwrap_or(u16::MAX);
    Paragraph::new(Line::from(spans))
        .scroll((0, offset))
        .render(inner, buf);
}
