//! The input pane: the text area while typing, the sentence with the current token marked
//! while exploring.

use ratatui::buffer::{Buffer, CellWidth};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use ratatui_textarea::TextArea;
use unicode_width::UnicodeWidthChar;

use super::text::display_width;
use crate::action::{Action, Scope, key_name, live_key};
use crate::app::CompareMode;
use crate::core::text::vocabulary::{Token, copies_of};
use crate::hit_map::{HitMap, Target};
use crate::theme::{CURRENT_MARKER, Theme};

/// What the input pane reads, made in `ui.rs`.
pub(super) struct Input<'a> {
    /// Whether the keys go to the text (else to the explorer).
    pub(super) typing: bool,
    /// The sentence's text area.
    pub(super) textarea: &'a TextArea<'static>,
    /// The sentence as typed, when it is drawn as text rather than in the text area being
    /// typed into (a pasted megabyte is not copied for every frame typed).
    pub(super) text: Option<String>,
    /// The sentence's tokens.
    pub(super) tokens: &'a [Token],
    /// The current token.
    pub(super) step: usize,
    /// Compare mode's second sentence, when it is on.
    pub(super) compare: Option<&'a CompareMode>,
    /// Where the keys the title names must work (the lesson edits nothing).
    pub(super) hints: Scope,
    /// The styles in use.
    pub(super) theme: Theme,
}

pub(super) fn render(input: &Input, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
    let Input {
        typing,
        textarea,
        compare,
        theme,
        ..
    } = *input;
    let title = match (compare.is_some(), typing) {
        (false, true) => format!(
            " Sentence · type, then {} to step through the lookups ",
            key_name(&Action::FocusExplorer, Scope::Input)
        ),
        (false, false) => live_key(&Action::FocusInput, input.hints).map_or_else(
            || " Sentence ".to_owned(),
            |edit| format!(" Sentence · {edit} to edit "),
        ),
        (true, true) => format!(
            " Sentences A and B · typing into the one marked ▶ · {} to compare ",
            key_name(&Action::FocusExplorer, Scope::Input)
        ),
        (true, false) => match (
            live_key(&Action::FocusInput, input.hints),
            live_key(&Action::FocusOther, input.hints),
        ) {
            (Some(first), Some(other)) => {
                format!(" Sentences A and B · {first} edits A, {other} edits B ")
            }
            _ => " Sentences A and B ".to_owned(),
        },
    };
    let block = super::frame::pane(title, typing, theme);
    let inner = block.inner(area);
    block.render(area, buf);
    let Some(compare) = compare else {
        render_sentence(input, inner, buf, typing, hits);
        return;
    };
    let [first, second] = inner.layout(&Layout::vertical([Constraint::Length(1); 2]));
    for (row, is_first, editing) in [
        (first, true, typing && !compare.editing_other()),
        (second, false, typing && compare.editing_other()),
    ] {
        let [label_area, text_area] = row.layout(&Layout::horizontal([
            Constraint::Length(3),
            Constraint::Fill(1),
        ]));
        let name = if is_first { "A" } else { "B" };
        // The sentence that takes the keys (and Ctrl+U, Ctrl+Z) is marked.
        let (label, style) = if editing {
            (format!("{CURRENT_MARKER}{name} "), theme.current())
        } else {
            (format!(" {name} "), theme.title())
        };
        Span::styled(label, style).render(label_area, buf);
        match (editing, is_first) {
            (true, true) => render_text_area(textarea, text_area, buf, theme),
            (true, false) => render_text_area(compare.other(), text_area, buf, theme),
            (false, true) => render_sentence(input, text_area, buf, false, hits),
            (false, false) => Line::raw(compare.other_text()).render(text_area, buf),
        }
    }
}

/// The sentence: the text area while typing, else the text with the current token marked.
fn render_sentence(input: &Input, inner: Rect, buf: &mut Buffer, typing: bool, hits: &mut HitMap) {
    let Input {
        textarea,
        ref text,
        tokens,
        step,
        theme,
        ..
    } = *input;
    if typing {
        render_text_area(textarea, inner, buf, theme);
        return;
    }
    let text = text.as_deref().unwrap_or_default();
    let copies = copies_of(tokens, step);
    let mut pieces: Vec<(&str, Style)> = Vec::new();
    // Only the text near the current token can be on screen: every token takes at least a
    // column and a space, so `width` tokens back is already off the left edge.
    let first = step.saturating_sub(usize::from(inner.width));
    let last = (step + usize::from(inner.width)).min(tokens.len());
    let mut cursor = tokens
        .get(first)
        .filter(|_| first > 0)
        .map_or(0, |token| grapheme_end(text, token.span.start));
    let stop = tokens.get(last).map_or(text.len(), |token| {
        grapheme_end(text, token.span.start).max(cursor)
    });
    let base = cursor;
    let mut columns = 0;
    let mut current_end = 0;
    for (index, token) in tokens[first..last]
        .iter()
        .enumerate()
        .map(|(offset, token)| (first + offset, token))
    {
        let style = if index == step {
            theme.current()
        } else if copies.binary_search(&index).is_ok() {
            theme.used()
        } else {
            continue;
        };
        // Cut between graphemes, so an accent typed after its letter is drawn on it even when
        // a tokenizer puts the two in different tokens.
        let start = grapheme_end(text, token.span.start).max(cursor);
        let end = grapheme_end(text, token.span.end).max(start);
        for piece in [
            (&text[cursor..start], Style::new()),
            (&text[start..end], style),
        ] {
            columns += display_width(piece.0);
            pieces.push(piece);
        }
        cursor = end;
        if index == step {
            current_end = columns;
        }
    }
    pieces.push((&text[cursor..stop.max(cursor)], Style::new()));
    // Scroll sideways so the current token is in view on long sentences.
    let hidden = current_end.saturating_sub(usize::from(inner.width));
    Paragraph::new(scrolled(&pieces, hidden)).render(inner, buf);
    // Each token's columns as drawn (the same cuts between graphemes), for the mouse.
    let mut at = base;
    let mut column = 0;
    for (index, token) in tokens[first..last]
        .iter()
        .enumerate()
        .map(|(offset, token)| (first + offset, token))
    {
        let start = grapheme_end(text, token.span.start).max(at);
        let end = grapheme_end(text, token.span.end).max(start);
        column += display_width(&text[at..start]);
        let (left, right) = (
            column.max(hidden),
            column + display_width(&text[start..end]),
        );
        if right > left {
            let spot = Rect {
                x: inner
                    .x
                    .saturating_add(u16::try_from(left - hidden).unwrap_or(u16::MAX)),
                width: u16::try_from(right - left).unwrap_or(u16::MAX),
                height: 1,
                ..inner
            };
            hits.record(spot.intersection(inner), Target::Token(index));
        }
        column = right;
        at = end;
    }
}

/// Lines longer than this many bytes are drawn by the pane itself while typing. The text area
/// scrolls sideways by a 16-bit column, so it cannot follow a cursor past column 65,535 (a
/// pasted megabyte); a line of this many bytes is at most half that wide.
const LONG_LINE_BYTES: usize = 16_000;

/// A text area being typed into: drawn by itself, or for a very long line, by
/// [`render_long_line`]; empty, its placeholder in the theme's muted style after the cursor.
fn render_text_area(textarea: &TextArea, area: Rect, buf: &mut Buffer, theme: Theme) {
    let ratatui_textarea::DataCursor(row, col) = textarea.cursor();
    if textarea.is_empty() && !textarea.placeholder_text().is_empty() {
        let line = Line::from(vec![
            Span::styled(" ", textarea.cursor_style()),
            Span::styled(textarea.placeholder_text().to_owned(), theme.muted()),
        ]);
        Paragraph::new(line).render(area, buf);
        return;
    }
    match textarea.lines().get(row) {
        Some(line) if line.len() > LONG_LINE_BYTES => render_long_line(line, col, area, buf),
        _ => textarea.render(area, buf),
    }
}

/// The cursor's line, scrolled so that the text just typed ends at the cursor at the pane's
/// right edge (or wherever the cursor stands in a line that starts on screen), the cursor
/// drawn as the text area draws it (reversed).
///
/// Only the bytes that can be on screen are laid out, so a frame costs the same for any length.
fn render_long_line(line: &str, col: usize, area: Rect, buf: &mut Buffer) {
    let at = line
        .char_indices()
        .nth(col)
        .map_or(line.len(), |(at, _)| at);
    let width = usize::from(area.width);
    // Each column holds at most a few bytes (a character and its combining marks).
    let mut start = at.saturating_sub(width * 16);
    while !line.is_char_boundary(start) {
        start -= 1;
    }
    let under = line[at..].chars().next().map_or(0, char::len_utf8);
    let mut end = (at + under + width * 16).min(line.len());
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    let before = &line[start..at];
    let cursor = if under == 0 {
        " "
    } else {
        &line[at..at + under]
    };
    let hidden = display_width(before).saturating_sub(width.saturating_sub(1));
    let pieces = [
        (before, Style::new()),
        (cursor, Style::new().add_modifier(Modifier::REVERSED)),
        (&line[at + under..end], Style::new()),
    ];
    Paragraph::new(scrolled(&pieces, hidden)).render(area, buf);
}

/// The end of the grapheme at byte `index` of `text`: past any zero-width marks that follow.
fn grapheme_end(text: &str, index: usize) -> usize {
    text[index..]
        .char_indices()
        .find(|&(_, c)| c.is_control() || c.width() != Some(0))
        .map_or(text.len(), |(offset, _)| index + offset)
}

/// The pieces of a line with at least `hidden` columns left out at the start.
///
/// Whole graphemes are left out: a line scrolled into the middle of a wide character would
/// draw it whole and push the rest a column right, cutting off the current token at the edge.
/// Cutting the text rather than scrolling the paragraph also has no limit of 65,535 columns.
fn scrolled(pieces: &[(&str, Style)], hidden: usize) -> Line<'static> {
    let mut skipped = 0;
    let mut spans = Vec::with_capacity(pieces.len());
    for &(piece, style) in pieces {
        if skipped >= hidden {
            spans.push(Span::styled(piece.to_owned(), style));
            continue;
        }
        let mut kept = String::new();
        for grapheme in Span::raw(piece).styled_graphemes(Style::new()) {
            if skipped < hidden {
                skipped += usize::from(grapheme.symbol.cell_width());
            } else {
                kept.push_str(grapheme.symbol);
            }
        }
        spans.push(Span::styled(kept, style));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::editor::Editor;
    use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel};
    use crate::core::text::vocabulary::VocabKind;
    use crate::hit_map::Target;
    use crate::theme::Mode;

    fn sentence<'a>(
        editor: &'a Editor,
        tokens: &'a [Token],
        typing: bool,
        theme: Theme,
    ) -> Input<'a> {
        Input {
            typing,
            textarea: editor.textarea(),
            text: Some(editor.text()),
            tokens,
            step: 3,
            compare: None,
            hints: Scope::Explorer,
            theme,
        }
    }

    #[test]
    fn exploring_marks_the_current_token_and_its_copies_where_a_click_finds_them() {
        let editor = Editor::new("fox bites the fox");
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let tokens = model.tokenize(&editor.text()).unwrap();
        let theme = Theme::new(true);
        let area = Rect::new(0, 0, 40, 3);
        let mut buf = Buffer::empty(area);
        let mut hits = HitMap::default();
        render(
            &sentence(&editor, &tokens, false, theme),
            area,
            &mut buf,
            &mut hits,
        );
        let row: String = (0..40).map(|x| buf[(x, 1)].symbol()).collect();
        assert!(row.starts_with("│fox bites the fox"), "{row}");
        assert_eq!(buf[(15, 1)].style().fg, theme.current().fg);
        assert_eq!(buf[(1, 1)].style().fg, theme.used().fg);
        assert_eq!(hits.click_at(15, 1), Some(&Target::Token(3)));
    }

    #[test]
    fn the_placeholder_is_in_the_themes_muted_colour() {
        let editor = Editor::new("");
        let theme = Theme::of(Mode::Light, true);
        let area = Rect::new(0, 0, 60, 3);
        let mut buf = Buffer::empty(area);
        render(
            &sentence(&editor, &[], true, theme),
            area,
            &mut buf,
            &mut HitMap::default(),
        );
        let row: String = (0..60).map(|x| buf[(x, 1)].symbol()).collect();
        assert!(
            row.contains(" type a sentence, e.g. the dog bites the man"),
            "{row}"
        );
        assert_eq!(buf[(3, 1)].style().fg, theme.muted().fg);
        assert_ne!(theme.muted().fg, Some(ratatui::style::Color::DarkGray));
    }

    fn drawn(line: &str, col: usize, width: u16) -> (String, Option<u16>) {
        let area = Rect::new(0, 0, width, 1);
        let mut buf = Buffer::empty(area);
        render_long_line(line, col, area, &mut buf);
        let text = (0..width).map(|x| buf[(x, 0)].symbol()).collect();
        let cursor = (0..width).find(|&x| buf[(x, 0)].modifier.contains(Modifier::REVERSED));
        (text, cursor)
    }

    #[test]
    fn a_megabyte_line_shows_what_was_just_typed_at_the_cursor() {
        let line = format!("{}typed", "the fox ".repeat(125_000));
        let (text, cursor) = drawn(&line, line.chars().count(), 20);
        assert_eq!(text, "e fox the fox typed ");
        assert_eq!(cursor, Some(19));
    }

    #[test]
    fn the_cursor_inside_a_long_line_stands_on_its_character() {
        let line = "🦊ab".repeat(10_000);
        let col = 3 * 5_000 + 1;
        let (text, cursor) = drawn(&line, col, 10);
        let x = cursor.expect("a cursor is drawn");
        assert_eq!(&text.chars().nth(usize::from(x)), &Some('a'), "{text:?}");
    }
}
