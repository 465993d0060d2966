//! The token strip: each token's position, text and id, the current one marked.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};
use unicode_width::UnicodeWidthStr;

use super::text::fit;
use super::vector::window;
use crate::app::App;
use crate::core::text::vocabulary::{Token, copies_of};
use crate::hit_map::{HitMap, Target};
use crate::theme::{COPY_MARKER, CURRENT_MARKER, Theme};

/// The longest a token's text may be in its chip.
const CHIP_TEXT_WIDTH: usize = 16;

pub(super) fn render(app: &App, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
    let theme = app.theme();
    let count = match app.unread() {
        Some(unread) => unread.note(),
        None => app.tokens().len().to_string(),
    };
    let unknown = app.tokens().iter().any(|token| token.id.is_none());
    let hidden = super::lesson::hides_answers(app);
    // Before the repeated-word step is answered, two equal ids would answer it: only the
    // current token's id shows.
    let others_hidden = !hidden && super::lesson::hides_copies(app);
    // Positions count from 0, the article from one: the title says which word 0 is, where
    // there is room for it.
    let bridged = format!(" Tokens · {count} · position (0 = first word) text #id ");
    let title = if hidden {
        format!(" Tokens · {count} · position text · ids hidden until you answer ")
    } else if others_hidden {
        format!(
            " Tokens · {count} · position text #id · other ids after step {} ",
            crate::lesson::repeated_word_step() + 1
        )
    } else if unknown {
        format!(
            " Tokens · {count} · position text #id · #? = not in the {} vocabulary ",
            app.model().label()
        )
    } else if bridged.width() + 2 <= usize::from(area.width) {
        bridged
    } else {
        format!(" Tokens · {count} · position text #id ")
    };
    let block = super::pane(title, false, theme);
    let inner = block.inner(area);
    block.render(area, buf);
    let inner = below_note(app, inner, buf);
    if app.tokens().is_empty() {
        Paragraph::new(Span::styled(no_tokens(app), theme.muted())).render(inner, buf);
        return;
    }
    let copies = if hidden || super::lesson::hides_copies(app) {
        Vec::new()
    } else {
        copies_of(app.tokens(), app.step())
    };
    let width = usize::from(inner.width);
    // Only the chips that could be on screen are laid out: at most one per three cells on
    // either side of the current token, so a frame costs the same for 10 tokens or 10,000.
    let reach = width * usize::from(inner.height) / 3 + 1;
    let first = app.step().saturating_sub(reach);
    let last = (app.step() + reach).min(app.tokens().len());
    let mut lines: Vec<Vec<Span>> = vec![Vec::new()];
    let mut line_width = 0;
    let mut current_line = 0;
    // Each chip's token, line, column and width, for the mouse.
    let mut placed = Vec::new();
    for (index, token) in app.tokens()[first..last]
        .iter()
        .enumerate()
        .map(|(offset, token)| (first + offset, token))
    {
        let current = index == app.step();
        let marker = if current {
            CURRENT_MARKER
        } else if copies.binary_search(&index).is_ok() {
            COPY_MARKER
        } else {
            " "
        };
        let chip = chip(
            token,
            marker,
            current,
            hidden || (others_hidden && !current),
            theme,
        );
        let chip_width: usize = chip.iter().map(Span::width).sum();
        if line_width > 0 && line_width + chip_width > width {
            lines.push(Vec::new());
            line_width = 0;
        }
        if current {
            current_line = lines.len() - 1;
        }
        placed.push((index, lines.len() - 1, line_width, chip_width));
        line_width += chip_width + 1;
        let line = lines.last_mut().expect("there is always a line");
        line.extend(chip);
        line.push(Span::raw(" "));
    }
    let shown = window(lines.len(), usize::from(inner.height), current_line);
    let text: Vec<Line> = lines
        .into_iter()
        .skip(shown.start)
        .take(shown.len())
        .map(Line::from)
        .collect();
    Paragraph::new(text).render(inner, buf);
    record_chips(&placed, &shown, inner, hits);
}

/// What the strip says without tokens: that the tokenizer is still being read, or to type.
fn no_tokens(app: &App) -> String {
    match app.model().tokenizer().filter(|_| app.reading_tokenizer()) {
        Some(tokenizer) => format!(
            "reading the tokenizer… ({} ids): the tokens appear when it is ready",
            tokenizer.vocab_size()
        ),
        None => "no tokens yet: type a sentence in the input".to_owned(),
    }
}

/// Why typed text is read as token ids, above the tokens, when the model's own tokenizer
/// cannot read it.
fn note(app: &App) -> Option<Paragraph<'static>> {
    let note = app.ids_only_note()?;
    let line = Line::styled(note, app.theme().warning());
    Some(Paragraph::new(line).wrap(Wrap { trim: true }))
}

/// Draws the note at the top of `inner`, if there is one; the rows below it are the tokens'.
fn below_note(app: &App, inner: Rect, buf: &mut Buffer) -> Rect {
    let Some(note) = note(app) else {
        return inner;
    };
    let rows = u16::try_from(note.line_count(inner.width))
        .unwrap_or(u16::MAX)
        .min(inner.height);
    note.render(
        Rect {
            height: rows,
            ..inner
        },
        buf,
    );
    Rect {
        y: inner.y + rows,
        height: inner.height - rows,
        ..inner
    }
}

/// The rows the note above the tokens takes in a pane `width` wide.
pub(super) fn note_height(app: &App, width: u16) -> u16 {
    note(app).map_or(0, |note| {
        u16::try_from(note.line_count(width.saturating_sub(2))).unwrap_or(u16::MAX)
    })
}

/// Records where each chip on screen was drawn, so a click on one steps to its token.
///
/// `placed` holds each chip's token, line, column and width; `shown` the lines on screen.
fn record_chips(
    placed: &[(usize, usize, usize, usize)],
    shown: &std::ops::Range<usize>,
    inner: Rect,
    hits: &mut HitMap,
) {
    for &(index, line, column, width) in placed {
        let Some(row) = line
            .checked_sub(shown.start)
            .filter(|row| *row < shown.len())
        else {
            continue;
        };
        let spot = Rect {
            x: inner
                .x
                .saturating_add(u16::try_from(column).unwrap_or(u16::MAX)),
            y: inner
                .y
                .saturating_add(u16::try_from(row).unwrap_or(u16::MAX)),
            width: u16::try_from(width).unwrap_or(u16::MAX),
            height: 1,
        };
        hits.record(spot.intersection(inner), Target::Token(index));
    }
}

fn chip(
    token: &Token,
    marker: &'static str,
    current: bool,
    hidden: bool,
    theme: Theme,
) -> Vec<Span<'static>> {
    let id = match token.id {
        _ if hidden => "#…".to_owned(),
        Some(id) => format!("#{id}"),
        None => "#?".to_owned(),
    };
    let text = fit(&token.text, CHIP_TEXT_WIDTH);
    if current {
        let style = theme.current();
        return vec![Span::styled(
            format!("{marker}{} {text} {id}", token.position),
            style,
        )];
    }
    let id_style = if token.id.is_some() {
        theme.key()
    } else {
        theme.warning()
    };
    let text_style = if marker == COPY_MARKER {
        theme.used()
    } else {
        ratatui::style::Style::new()
    };
    vec![
        Span::styled(format!("{marker}{}", token.position), theme.muted()),
        Span::styled(format!(" {text} "), text_style),
        Span::styled(id, id_style),
    ]
}
