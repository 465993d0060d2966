//! The token strip: each token's position, text and id, the current one marked.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use super::text::{fit, wrap_words, wrapped};
use super::vector::window;
use crate::core::text::vocabulary::{Token, copies_of};
use crate::hit_map::{HitMap, Target};
use crate::theme::{COPY_MARKER, CURRENT_MARKER, Theme};

/// The longest a token's text may be in its chip.
const CHIP_TEXT_WIDTH: usize = 16;

/// What ends a note cut to its rows: the readout holds it whole, among the model's warnings.
const NOTE_CUT: &str = " … (in full in the readout)";

/// Which ids the chips show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ids {
    /// Every token's id, and the current token's copies marked.
    Shown,
    /// Only the current token's id: two equal ids would answer the lesson's repeated-word
    /// step before it is answered.
    CurrentOnly,
    /// No id at all: a lesson question waits for its answer.
    Hidden,
}

/// What of the model's tokenizer the strip waits for.
#[derive(Clone, Copy, Debug)]
pub(super) enum Reading {
    /// Its reader of text, for this many ids.
    Reader(usize),
    /// The names of its ids (their count known only once they are read), then its reader.
    Names,
}

/// What the token strip reads, made in `ui.rs`.
pub(super) struct Input<'a> {
    /// The sentence's tokens.
    pub(super) tokens: &'a [Token],
    /// The current token.
    pub(super) step: usize,
    /// How many tokens there are, as the title says it (a long sentence says how much is read).
    pub(super) count: String,
    /// The vocabulary's name, for tokens it has no row for.
    pub(super) vocabulary: &'a str,
    /// Which ids show.
    pub(super) ids: Ids,
    /// Why typed text is read as token ids, when it is.
    pub(super) note: Option<String>,
    /// What of the model's tokenizer is still being read, if anything.
    pub(super) reading: Option<Reading>,
    /// The styles in use.
    pub(super) theme: Theme,
}

/// The token strip at a width: the note above the chips wrapped (and cut to its rows) once.
pub(super) struct Tokens<'a> {
    input: Input<'a>,
    note: Vec<Line<'static>>,
}

/// The strip at a width, borders included, its note kept to `note_rows` rows.
pub(super) fn build(input: Input<'_>, width: u16, note_rows: usize) -> Tokens<'_> {
    let inner = usize::from(width.saturating_sub(2));
    let note = input.note.as_deref().map_or_else(Vec::new, |note| {
        wrapped(
            &cut_note(note, inner, note_rows),
            inner,
            input.theme.warning(),
        )
    });
    Tokens { input, note }
}

/// The note whole when it fits in `rows` rows of `width`, else the words that fit before
/// [`NOTE_CUT`].
fn cut_note(note: &str, width: usize, rows: usize) -> String {
    if wrap_words(note, width).len() <= rows {
        return note.to_owned();
    }
    let words: Vec<&str> = note.split_whitespace().collect();
    (1..words.len())
        .rev()
        .map(|kept| format!("{}{NOTE_CUT}", words[..kept].join(" ")))
        .find(|cut| wrap_words(cut, width).len() <= rows)
        .unwrap_or_else(|| NOTE_CUT.trim_start().to_owned())
}

impl Tokens<'_> {
    /// The rows the note above the chips takes.
    pub(super) fn note_height(&self) -> u16 {
        u16::try_from(self.note.len()).unwrap_or(u16::MAX)
    }

    pub(super) fn render(&self, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
        let Input {
            tokens,
            step,
            ref count,
            vocabulary,
            ids,
            theme,
            ..
        } = self.input;
        let unknown = tokens.iter().any(|token| token.id.is_none());
        let hidden = ids == Ids::Hidden;
        // Positions count from 0, the article from one: the title says which word 0 is, where
        // there is room for it.
        let bridged = format!(" Tokens · {count} · position (0 = first word) text #id ");
        let title = if hidden {
            format!(" Tokens · {count} · position text · ids hidden until you answer ")
        } else if ids == Ids::CurrentOnly {
            format!(
                " Tokens · {count} · position text #id · other ids after step {} ",
                crate::lesson::repeated_word_step() + 1
            )
        } else if unknown {
            format!(
                " Tokens · {count} · position text #id · #? = not in the {vocabulary} vocabulary "
            )
        } else if bridged.width() + 2 <= usize::from(area.width) {
            bridged
        } else {
            format!(" Tokens · {count} · position text #id ")
        };
        let block = super::frame::pane(title, false, theme);
        let inner = block.inner(area);
        block.render(area, buf);
        let note_rows = self.note_height().min(inner.height);
        Paragraph::new(self.note.clone()).render(
            Rect {
                height: note_rows,
                ..inner
            },
            buf,
        );
        let inner = Rect {
            y: inner.y + note_rows,
            height: inner.height - note_rows,
            ..inner
        };
        if tokens.is_empty() {
            Paragraph::new(Span::styled(self.no_tokens(), theme.muted())).render(inner, buf);
            return;
        }
        let copies = if ids == Ids::Shown {
            copies_of(tokens, step)
        } else {
            Vec::new()
        };
        let width = usize::from(inner.width);
        // Only the chips that could be on screen are laid out: at most one per three cells on
        // either side of the current token, so a frame costs the same for 10 tokens or 10,000.
        let reach = width * usize::from(inner.height) / 3 + 1;
        let first = step.saturating_sub(reach);
        let last = (step + reach).min(tokens.len());
        let mut lines: Vec<Vec<Span>> = vec![Vec::new()];
        let mut line_width = 0;
        let mut current_line = 0;
        // Each chip's token, line, column and width, for the mouse.
        let mut placed = Vec::new();
        for (index, token) in tokens[first..last]
            .iter()
            .enumerate()
            .map(|(offset, token)| (first + offset, token))
        {
            let current = index == step;
            let marker = if current {
                CURRENT_MARKER
            } else if copies.binary_search(&index).is_ok() {
                COPY_MARKER
            } else {
                " "
            };
            let id_hidden = hidden || (ids == Ids::CurrentOnly && !current);
            let chip = chip(token, marker, current, id_hidden, theme);
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
    fn no_tokens(&self) -> String {
        match self.input.reading {
            Some(Reading::Reader(ids)) => {
                format!("reading the tokenizer… ({ids} ids): the tokens appear when it is ready")
            }
            Some(Reading::Names) => {
                "reading the tokenizer and the names of its ids…: the tokens appear \
                           when it is ready"
                    .to_owned()
            }
            None => "no tokens yet: type a sentence in the input".to_owned(),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel};
    use crate::core::text::vocabulary::VocabKind;
    use crate::ui::pane::drawn;

    fn strip<'a>(tokens: &'a [Token], step: usize, ids: Ids, note: Option<&str>) -> Input<'a> {
        Input {
            tokens,
            step,
            count: tokens.len().to_string(),
            vocabulary: "seed",
            ids,
            note: note.map(str::to_owned),
            reading: None,
            theme: Theme::new(false),
        }
    }

    fn screen(tokens: &Tokens, width: u16, height: u16) -> Vec<String> {
        drawn(width, height, |area, buf, hits| {
            tokens.render(area, buf, hits);
        })
    }

    fn fox_bites_the_fox() -> Vec<Token> {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        model.tokenize("fox bites the fox").unwrap()
    }

    #[test]
    fn each_chip_shows_position_text_and_id_and_the_copies_are_marked() {
        let tokens = fox_bites_the_fox();
        let lines = screen(&build(strip(&tokens, 3, Ids::Shown, None), 60, 0), 60, 3);
        assert!(
            lines[0].contains("Tokens · 4 · position (0 = first word) text #id"),
            "{lines:?}"
        );
        assert!(
            lines[1].starts_with(&format!(
                "│{COPY_MARKER}0 fox #2  1 bites #4  2 the #0 ▶3 fox #2"
            )),
            "{lines:?}"
        );
    }

    #[test]
    fn a_lesson_question_hides_the_ids_that_would_answer_it() {
        let tokens = fox_bites_the_fox();
        let hidden = screen(&build(strip(&tokens, 3, Ids::Hidden, None), 80, 0), 80, 3);
        assert!(
            hidden[0].contains("ids hidden until you answer"),
            "{hidden:?}"
        );
        assert!(hidden[1].contains(" 0 fox #…"), "{hidden:?}");
        let current = screen(
            &build(strip(&tokens, 3, Ids::CurrentOnly, None), 80, 0),
            80,
            3,
        );
        assert!(current[1].contains(" 0 fox #…"), "{current:?}");
        assert!(current[1].contains("▶3 fox #2"), "{current:?}");
    }

    #[test]
    fn the_note_above_the_chips_is_cut_to_its_rows_and_says_where_it_is_whole() {
        let tokens = fox_bites_the_fox();
        let note = "Read as token ids: the file's tokenizer could not be rebuilt, for a reason \
                    that takes a good many words to tell in full.";
        let whole = build(strip(&tokens, 0, Ids::Shown, Some(note)), 40, usize::MAX);
        assert_eq!(whole.note_height(), 4);
        let cut = build(strip(&tokens, 0, Ids::Shown, Some(note)), 40, 2);
        assert_eq!(cut.note_height(), 2);
        let lines = screen(&cut, 40, 5);
        assert_eq!(lines[1], "│Read as token ids: the file's         │");
        assert_eq!(lines[2], "│tokenizer … (in full in the readout)  │");
        assert!(lines[3].starts_with("│▶0 fox #2"), "{lines:?}");
    }
}
