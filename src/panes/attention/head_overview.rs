//! Every head of the model's own layer 0 at once: each head's weights as a small heat map, one
//! cell a weight, its shade (and with colour its background) darker to brighter as the weight
//! grows, so heads that look at the same tokens show the same picture.

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::action::fill_keys;
use crate::core::analysis::layer0::heads::HeadResult;
use crate::core::explain::layer0::SentenceRun;
use crate::core::text::vocabulary::Token;
use crate::theme::{CURRENT_MARKER, Theme};
use crate::ui::heatmap::HeatScale;
use crate::ui::text::{fit, wrapped};
use crate::ui::vector::window;

/// The most tokens a small map shows (the first ones); the single-head view shows more.
const MAP_TOKENS: usize = 16;
/// Columns between two maps: a space, a thin rule, a space.
const GAP: usize = 3;

/// How the maps are laid out at a width.
struct Maps {
    /// Tokens each map shows.
    tokens: usize,
    /// Columns a map takes, its label included.
    map_width: usize,
    /// Maps side by side.
    per_row: usize,
    /// How many heads there are.
    heads: usize,
}

impl Maps {
    fn new(heads: &[HeadResult], width: usize) -> Self {
        let tokens = heads
            .first()
            .map_or(0, |head| head.weights.nrows())
            .min(MAP_TOKENS);
        let label = format!("{} h{}", CURRENT_MARKER, heads.len().saturating_sub(1)).len();
        let map_width = tokens.max(label.min(6));
        let per_row = ((width + GAP) / (map_width + GAP)).max(1);
        Self {
            tokens,
            map_width,
            per_row,
            heads: heads.len(),
        }
    }

    /// Rows of maps.
    fn map_rows(&self) -> usize {
        self.heads.div_ceil(self.per_row)
    }

    /// Lines a row of maps takes: a label line and one line a token.
    fn row_height(&self) -> usize {
        1 + self.tokens
    }
}

/// What the overview reads: the layer's run over the sentence (with the sentence's tokens)
/// when it has run, the head chosen, and the styles.
pub(super) struct Heads<'a> {
    /// The run and the tokens it was made from.
    pub(super) run: Option<(&'a SentenceRun, &'a [Token])>,
    /// The head chosen.
    pub(super) head: usize,
    /// The styles in use.
    pub(super) theme: Theme,
}

/// The lines above the maps: what a map is, the keys, and the tokens in order.
fn caption(
    (view, tokens): (&SentenceRun, &[Token]),
    left_out: usize,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let mut text = fill_keys(
        "Every head's weights: row = query, column = key, · masked (key below). \
         {PreviousHead} {NextHead} head, {ToggleHeadOverview}/{Back} one head.",
    );
    if left_out > 0 {
        let _ = write!(text, " The first {MAP_TOKENS} tokens only.");
    }
    let mut lines: Vec<Line<'static>> = wrapped(&text, width, theme.muted());
    // The cells' key as they are drawn: a ramp of colours, or the glyphs without colour.
    lines.push(HeatScale::Weight.legend(theme));
    let mut listed = String::from("tokens:");
    for (k, &member) in view.members.iter().take(MAP_TOKENS).enumerate() {
        let _ = write!(listed, " {k} {}", tokens[member].text);
    }
    lines.push(Line::styled(fit(&listed, width), theme.muted()));
    lines
}

/// Every head's map at a width (inside the pane's borders): the layout and caption built once,
/// the rows of maps drawn to the room they get.
pub(super) struct Overview<'a> {
    /// The head chosen.
    head: usize,
    theme: Theme,
    /// The heads' runs, when the layer has run over the sentence.
    heads: Option<&'a [HeadResult]>,
    maps: Maps,
    caption: Vec<Line<'static>>,
    width: usize,
}

/// The overview at a width inside the pane's borders.
pub(super) fn build<'a>(shown: &Heads<'a>, width: usize) -> Overview<'a> {
    let Heads { run, head, theme } = *shown;
    let Some((view, tokens)) = run else {
        return Overview {
            head,
            theme,
            heads: None,
            maps: Maps::new(&[], width),
            caption: Vec::new(),
            width,
        };
    };
    let left_out = view.members.len().saturating_sub(MAP_TOKENS);
    Overview {
        head,
        theme,
        heads: Some(&view.run.heads),
        maps: Maps::new(&view.run.heads, width),
        caption: caption((view, tokens), left_out, width, theme),
        width,
    }
}

impl Overview<'_> {
    /// The rows the overview would like, borders included.
    pub(super) fn height(&self) -> usize {
        if self.heads.is_none() {
            return 3;
        }
        2 + self.caption.len() + self.maps.map_rows() * self.maps.row_height()
    }

    /// Draws the maps in the pane's inner area, keeping the current head's row in view.
    pub(super) fn render(&self, area: Rect, buf: &mut Buffer) {
        let Self {
            head,
            theme,
            heads,
            ref maps,
            width,
            ..
        } = *self;
        let Some(heads) = heads else {
            return;
        };
        // Whole rows of maps, and the note that more are above or below, come before the
        // caption: on a short terminal its lines give way from the top (the key's sentence
        // first, the token list last), never a map cut short.
        let height = usize::from(area.height);
        let fits = |caption: usize| {
            let room = height.saturating_sub(caption);
            let whole = room / maps.row_height().max(1);
            if whole >= maps.map_rows() {
                whole
            } else {
                room.saturating_sub(1) / maps.row_height().max(1)
            }
        };
        // The key is one sentence over one or more lines, then the cells' legend, then the
        // token list: each gives way whole, in that order.
        let sentence = self.caption.len().saturating_sub(2);
        let skipped = [0, sentence, sentence + 1, self.caption.len()]
            .into_iter()
            .find(|&skipped| fits(self.caption.len() - skipped) > 0)
            .unwrap_or(self.caption.len());
        let mut lines = self.caption[skipped..].to_vec();
        let fitting = fits(lines.len()).max(1);
        let current_row = head / maps.per_row;
        let shown = window(maps.map_rows(), fitting, current_row);
        if shown.len() < maps.map_rows() {
            let first = shown.start * maps.per_row;
            let last = (shown.end * maps.per_row).min(maps.heads) - 1;
            lines.push(Line::styled(
                fit(
                    &format!(
                        "heads {first}–{last} of {} shown; the rest above or below",
                        maps.heads
                    ),
                    width,
                ),
                theme.muted(),
            ));
        }
        for map_row in shown {
            let first = map_row * maps.per_row;
            let row_heads = first..(first + maps.per_row).min(maps.heads);
            lines.push(label_line(head, maps, row_heads.clone(), theme));
            for query in 0..maps.tokens {
                let mut spans = Vec::new();
                for head in row_heads.clone() {
                    spans.extend(cells(&heads[head], query, maps.tokens, theme));
                    // The rule keeps maps apart where their cells are blank (weights near 0).
                    let pad = maps.map_width - maps.tokens;
                    spans.push(Span::raw(" ".repeat(pad + 1)));
                    spans.push(Span::styled("│ ", theme.muted()));
                }
                lines.push(Line::from(spans));
            }
        }
        Paragraph::new(lines).render(area, buf);
    }
}

/// Each map's label: `h3`, the current head marked and reversed.
fn label_line(
    current: usize,
    maps: &Maps,
    heads: std::ops::Range<usize>,
    theme: Theme,
) -> Line<'static> {
    let mut spans = Vec::new();
    for head in heads {
        let (text, style) = if head == current {
            (format!("{CURRENT_MARKER}h{head}"), theme.current())
        } else {
            (format!(" h{head}"), theme.muted())
        };
        let text = fit(&text, maps.map_width);
        let pad = maps.map_width + GAP - text.chars().count();
        spans.push(Span::styled(text, style));
        spans.push(Span::raw(" ".repeat(pad)));
    }
    Line::from(spans)
}

/// One query's row of a head's map: a heat cell a key, `·` where the mask hides it.
fn cells(head: &HeadResult, query: usize, tokens: usize, theme: Theme) -> Vec<Span<'static>> {
    (0..tokens)
        .map(|key| {
            if head.scores[[query, key]] == f64::NEG_INFINITY {
                Span::styled("·", theme.muted())
            } else {
                HeatScale::Weight.cell(head.weights[[query, key]], 1, 0, false, theme)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::panes::attention::layer0::tests::{bert, token};

    fn screen(overview: &Overview, width: u16, height: u16) -> Vec<String> {
        let area = Rect::new(0, 0, width, height);
        let mut buf = Buffer::empty(area);
        overview.render(area, &mut buf);
        (0..height)
            .map(|y| {
                (0..width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
                    .trim_end()
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn every_head_is_a_small_map_labelled_with_the_current_one_marked() {
        let layer = bert();
        let tokens = [token("x", 5, 0), token("y", 6, 1), token("x", 5, 2)];
        let run = SentenceRun::compute(&layer, &tokens, 16, false).unwrap();
        let heads = run.run.heads.len();
        let shown = Heads {
            run: Some((&run, &tokens)),
            head: heads - 1,
            theme: Theme::new(false),
        };
        let overview = build(&shown, 60);
        let lines = screen(&overview, 60, 30);
        assert!(lines[0].starts_with("Every head's weights"), "{lines:?}");
        assert!(
            lines.iter().any(|line| line == "tokens: 0 x 1 y 2 x"),
            "{lines:?}"
        );
        let current = format!("{CURRENT_MARKER}h{}", heads - 1);
        assert!(
            lines.iter().any(|line| line.contains(&current)),
            "{lines:?}"
        );
        assert!(lines.iter().any(|line| line.contains(" h0")), "{lines:?}");
        // Nothing has run: the overview asks for its borders and a line, and draws nothing.
        let none = build(
            &Heads {
                run: None,
                head: 0,
                theme: Theme::new(false),
            },
            60,
        );
        assert_eq!(none.height(), 3);
        assert!(screen(&none, 60, 3).iter().all(String::is_empty));
    }
}
