//! The input pane: the text area while typing, the sentence with the current token marked
//! while exploring.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use crate::app::{App, Focus};
use crate::core::tokenizer::copies_of;

pub(super) fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = app.theme();
    let typing = app.focus() == Focus::Input;
    let title = match (app.compare().is_some(), typing) {
        (false, true) => " Sentence · type, then Enter to step through the lookups ",
        (false, false) => " Sentence · i to edit ",
        (true, true) => " Sentences A and B · type, then Enter to compare ",
        (true, false) => " Sentences A and B · i edits A, I edits B ",
    };
    let block = super::pane(title, typing, theme);
    let inner = block.inner(area);
    block.render(area, buf);
    let Some(compare) = app.compare() else {
        render_sentence(app, inner, buf, typing);
        return;
    };
    let [first, second] = inner.layout(&Layout::vertical([Constraint::Length(1); 2]));
    for (row, label, editing) in [
        (first, "A ", typing && !compare.editing_other()),
        (second, "B ", typing && compare.editing_other()),
    ] {
        let [label_area, text_area] = row.layout(&Layout::horizontal([
            Constraint::Length(2),
            Constraint::Fill(1),
        ]));
        Span::styled(label, theme.title()).render(label_area, buf);
        match (editing, label) {
            (true, "A ") => app.textarea().render(text_area, buf),
            (true, _) => compare.other().render(text_area, buf),
            (false, "A ") => render_sentence(app, text_area, buf, false),
            (false, _) => Line::raw(compare.other_text()).render(text_area, buf),
        }
    }
}

/// The sentence: the text area while typing, else the text with the current token marked.
fn render_sentence(app: &App, inner: Rect, buf: &mut Buffer, typing: bool) {
    let theme = app.theme();
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
