//! The lookups pane: for each position, the token, its id and the vector that came back; with
//! the overlay on, `+` the position vector `=` the input vector.

use ndarray::ArrayView1;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use crate::action::{Action, live_key};
use crate::app::App;
use crate::core::tables::positional::{PositionScheme, PositionVector};
use crate::core::tables::weights::EmbeddingModel;
use crate::core::tables::weights::TokenLookup;
use crate::core::text::vocabulary::{Token, copies_of};
use crate::hit_map::{HitMap, Scrollable, Target};
use crate::theme::{COPY_MARKER, CURRENT_MARKER, Theme};
use crate::ui::pane::Pane;
use crate::ui::text::{display_width, fit, pad};
use crate::ui::vector::{
    VALUE_WIDTH, WideStyle, WideView, is_wide, vector_lines, vector_width, wide_legend, wide_line,
};

/// The pane derives nothing of its own: it draws what the explorer shares.
pub type Memo = ();

/// Tokens on either side of the current one that the layout looks at: more than fit a screen.
const NEAR_TOKENS: usize = 64;

/// The widest a token's text may be in this pane.
const TOKEN_WIDTH_LIMIT: usize = 12;
/// Columns of ` + ` and ` = ` between vectors on one line.
const OPERATOR_WIDTH: usize = 3;
/// Indent of vectors on lines of their own, below the token's label.
const DETACHED_INDENT: usize = 4;

/// How a token's vectors are placed, from the most compact to the most forgiving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arrangement {
    /// Label and every vector on one line.
    OneLine,
    /// The token vector after the label; `+` and `=` lines below it, aligned.
    Stacked,
    /// The label alone; each vector on its own line below, slightly indented.
    Detached,
    /// Label and every vector on one line as strips, so that a word's copies stay in view
    /// together when their numbers would not.
    Strips,
}

/// How the columns of a lookup are laid out at a width.
struct Columns {
    position: usize,
    token: usize,
    id: usize,
    arrangement: Arrangement,
    /// Lines each token takes.
    lines_per_token: usize,
    /// Columns for the values on a vector's line.
    values: usize,
    /// How wide vectors are drawn, when the vectors are wide.
    wide: Option<WideStyle>,
}

impl Columns {
    fn new(input: &Input, width: usize) -> Self {
        let tokens = input.tokens;
        let position = tokens.len().saturating_sub(1).to_string().len().max(3);
        // The widest text near the current token: all a screen can show, whatever the length.
        let near =
            input.step.saturating_sub(NEAR_TOKENS)..(input.step + NEAR_TOKENS).min(tokens.len());
        let token = tokens[near]
            .iter()
            .map(|t| t.text.width())
            .max()
            .unwrap_or(0)
            .clamp(5, TOKEN_WIDTH_LIMIT);
        let id = input
            .model
            .rows()
            .saturating_sub(1)
            .to_string()
            .len()
            .max(2);
        let label = 2 + position + 1 + token + 1 + id + 1;
        let vectors = if input.overlay { 3 } else { 1 };
        let wide = is_wide(input.model.dims()).then_some(input.wide_style);
        if let Some(style) = wide {
            // A wide vector takes one line whatever the width: a strip or a window of values.
            let stacked = label + 3 * VALUE_WIDTH <= width;
            let (arrangement, values, lead) = if stacked {
                (Arrangement::Stacked, width.saturating_sub(label), 0)
            } else {
                (
                    Arrangement::Detached,
                    width.saturating_sub(DETACHED_INDENT),
                    1,
                )
            };
            return Self {
                position,
                token,
                id,
                arrangement,
                lines_per_token: lead + vectors,
                values,
                wide: Some(style),
            };
        }
        let vector = vector_width(input.model.dims());
        let one_line = label + vectors * vector + (vectors - 1) * OPERATOR_WIDTH;
        let (arrangement, values) = if one_line <= width {
            (Arrangement::OneLine, vector)
        } else if label + vector <= width {
            (Arrangement::Stacked, vector)
        } else {
            (Arrangement::Detached, width.saturating_sub(DETACHED_INDENT))
        };
        let lines_per_vector = input
            .model
            .dims()
            .div_ceil((values / VALUE_WIDTH).max(1))
            .max(1);
        let lines_per_token = match arrangement {
            Arrangement::OneLine | Arrangement::Strips => 1,
            Arrangement::Stacked => vectors * lines_per_vector,
            Arrangement::Detached => 1 + vectors * lines_per_vector,
        };
        Self {
            position,
            token,
            id,
            arrangement,
            lines_per_token,
            values,
            wide: None,
        }
    }

    /// The same columns with every vector a strip on the token's one line.
    fn strips(&self, input: &Input, width: usize) -> Self {
        let vectors = if input.overlay { 3 } else { 1 };
        let room = width.saturating_sub(self.label_width() + (vectors - 1) * OPERATOR_WIDTH);
        let style = input.wide_style;
        Self {
            arrangement: Arrangement::Strips,
            lines_per_token: 1,
            values: (room / vectors).clamp(1, input.model.dims().max(1)),
            wide: Some(WideStyle {
                view: WideView::Strip,
                ..style
            }),
            ..*self
        }
    }

    /// A vector as the lines this layout gives it.
    fn vector_rows(&self, values: ArrayView1<f32>, theme: Theme) -> Vec<Vec<Span<'static>>> {
        match self.wide {
            Some(style) => vec![wide_line(values, self.values, style, theme)],
            None => vector_lines(values, self.values, theme),
        }
    }

    fn label_width(&self) -> usize {
        2 + self.position + 1 + self.token + 1 + self.id + 1
    }

    /// What stands before a vector's first line, and before its continuation lines.
    fn leads(&self, operator: &str) -> (String, String) {
        let indent = match self.arrangement {
            Arrangement::Detached => DETACHED_INDENT,
            Arrangement::OneLine | Arrangement::Stacked | Arrangement::Strips => self.label_width(),
        };
        let first = format!("{}{operator} ", " ".repeat(indent.saturating_sub(2)));
        (first, " ".repeat(indent))
    }
}

/// What the lookups pane reads, made by [`input`].
pub(crate) struct Input<'a> {
    /// The sentence's tokens.
    pub(crate) tokens: &'a [Token],
    /// Each token's lookup.
    pub(crate) lookups: &'a [TokenLookup],
    /// The current token.
    pub(crate) step: usize,
    /// The current token's copies, marked and kept in view together (none while a lesson
    /// question would be answered by them).
    pub(crate) copies: Vec<usize>,
    /// The model the rows come from.
    pub(crate) model: &'a EmbeddingModel,
    /// Whether position vectors are added.
    pub(crate) overlay: bool,
    /// The position scheme chosen.
    pub(crate) scheme: PositionScheme,
    /// How wide vectors are drawn.
    pub(crate) wide_style: WideStyle,
    /// What stands in while the tables are being generated.
    pub(crate) generating: Option<Paragraph<'static>>,
    /// The key that adds positions, where it works (not in the lesson).
    pub(crate) positions_key: Option<String>,
    /// The styles in use.
    pub(crate) theme: Theme,
}

/// What the lookups pane reads.
pub(crate) fn input(app: &App) -> Input<'_> {
    Input {
        tokens: app.tokens(),
        lookups: app.lookups(),
        step: app.step(),
        copies: if crate::ui::lesson::hides_copies(app) {
            Vec::new()
        } else {
            copies_of(app.tokens(), app.step())
        },
        model: app.model(),
        overlay: app.overlay(),
        scheme: app.scheme(),
        wide_style: app.wide_style(),
        generating: crate::ui::frame::generating(app),
        positions_key: live_key(&Action::TogglePositions, crate::ui::lesson::hint_scope(app)),
        theme: app.theme(),
    }
}

/// The lookups pane at a width: its title and how its columns are laid out there.
pub(crate) struct Lookups<'a> {
    input: Input<'a>,
    title: String,
    columns: Columns,
    /// One line a token, for when the current token and its copies do not fit otherwise.
    strips: Columns,
}

/// The pane at a width, borders included.
pub(crate) fn build(input: Input<'_>, width: u16) -> Lookups<'_> {
    let room = usize::from(width).saturating_sub(2);
    let title = if input.overlay {
        // RoPE and ALiBi act inside attention: the title never adds a vector they do not give.
        let [full, short] = if input.scheme.is_additive() {
            [
                format!(
                    " Lookups · token + {} position = input vector ",
                    input.scheme
                ),
                format!(" Lookups · token + {} position ", input.scheme),
            ]
        } else {
            [
                format!(
                    " Lookups · {} adds no vector: token = input vector ",
                    input.scheme
                ),
                format!(" Lookups · {} adds no vector ", input.scheme),
            ]
        };
        if display_width(&full) <= room {
            full
        } else {
            short
        }
    } else {
        let full = input
            .positions_key
            .as_ref()
            .map(|key| format!(" Lookups · the row each id returned ({key} adds positions) "));
        match full {
            Some(full) if display_width(&full) <= room => full,
            _ => " Lookups · the row each id returned ".to_owned(),
        }
    };
    let columns = Columns::new(&input, room);
    Lookups {
        title,
        strips: columns.strips(&input, room),
        columns,
        input,
    }
}

impl Pane for Lookups<'_> {
    /// A header and every token, borders included.
    fn height(&self) -> usize {
        self.input.lookups.len() * self.columns.lines_per_token + 3
    }

    /// A header and the current token with its copies, as strips if need be.
    fn least_height(&self) -> usize {
        let tokens = self.input.copies.len().max(1);
        (self
            .columns
            .lines_per_token
            .min(tokens * self.columns.lines_per_token)
            + 3)
        .min(tokens + 3)
    }

    fn render(&self, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
        let Self {
            ref input,
            ref title,
            ..
        } = *self;
        let copies = &input.copies;
        let theme = input.theme;
        hits.record(area, Target::Pane(Scrollable::Lookups));
        let block = crate::ui::frame::pane(title.clone(), false, theme);
        let inner = block.inner(area);
        let height = usize::from(inner.height).saturating_sub(1);
        let total = input.lookups.len();
        // The current token's copies stay in view together: as strips if their numbers do
        // not fit.
        let columns = if height / self.columns.lines_per_token >= copies.len().max(1) {
            &self.columns
        } else {
            &self.strips
        };
        let slots = (height / columns.lines_per_token).max(1);
        let shown = pinned(total, slots, input.step, copies);
        let block = match shown.as_slice() {
            [first, ..] if shown[shown.len() - 1] - first + 1 == shown.len() => {
                let last = shown[shown.len() - 1];
                crate::ui::frame::with_range(block, "tokens", &(*first..last + 1), total, theme)
            }
            // The whole list, or cut at its end with `…`: cut from the left (as a title too
            // long for its border is), it would read as another list.
            [_, ..] => block.title_bottom(
                Line::styled(
                    fit(
                        &format!(" tokens {} of {total}: the copies kept ", list(&shown)),
                        usize::from(area.width).saturating_sub(2),
                    ),
                    theme.muted(),
                )
                .right_aligned(),
            ),
            [] => block,
        };
        block.render(area, buf);
        if let Some(message) = &input.generating {
            message.render(inner, buf);
            return;
        }
        if total == 0 {
            return;
        }
        let mut lines = vec![header(input, columns, usize::from(inner.width), theme)];
        for index in shown {
            let marker = if index == input.step {
                CURRENT_MARKER
            } else if copies.binary_search(&index).is_ok() {
                COPY_MARKER
            } else {
                " "
            };
            let lookup = &input.lookups[index];
            let mut token_lines = token_lines(input, lookup, marker, columns, theme);
            // Exactly the lines the height counted for it.
            debug_assert!(token_lines.len() <= columns.lines_per_token);
            token_lines.resize(columns.lines_per_token, Line::default());
            lines.extend(token_lines);
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

/// The tokens to show in `slots`: the current one and its copies first (so the copies'
/// vectors are always seen together), then the nearest neighbours; in sentence order.
fn pinned(total: usize, slots: usize, step: usize, copies: &[usize]) -> Vec<usize> {
    if total <= slots {
        return (0..total).collect();
    }
    let mut chosen: Vec<usize> = vec![step.min(total.saturating_sub(1))];
    let mut by_distance: Vec<usize> = copies.iter().copied().filter(|&i| i != step).collect();
    // Copies first, the nearest of them first.
    by_distance.sort_by_key(|&i| i.abs_diff(step));
    chosen.extend(by_distance.into_iter().take(slots.saturating_sub(1)));
    let mut reach = 1;
    while chosen.len() < slots && reach < total {
        for index in [step.checked_sub(reach), step.checked_add(reach)]
            .into_iter()
            .flatten()
        {
            if chosen.len() < slots && index < total && !chosen.contains(&index) {
                chosen.push(index);
            }
        }
        reach += 1;
    }
    chosen.sort_unstable();
    chosen
}

/// Indices as ranges: `0, 2–3`.
fn list(indices: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut start = 0;
    while start < indices.len() {
        let mut end = start;
        while end + 1 < indices.len() && indices[end + 1] == indices[end] + 1 {
            end += 1;
        }
        parts.push(if end == start {
            indices[start].to_string()
        } else {
            format!("{}–{}", indices[start], indices[end])
        });
        start = end + 1;
    }
    parts.join(", ")
}

fn header(input: &Input, columns: &Columns, width: usize, theme: Theme) -> Line<'static> {
    let mut text = format!(
        "  {:>p$} {} {:>i$} ",
        "pos",
        pad("token", columns.token),
        "id",
        p = columns.position,
        i = columns.id
    );
    if let Some(style) = columns.wide {
        let what = if input.overlay {
            "token, + position, = input"
        } else {
            "token vector"
        };
        text.push_str(what);
        if columns.arrangement == Arrangement::Strips && !is_wide(input.model.dims()) {
            text.push_str(" as strips; a taller terminal shows numbers");
        }
        text.push_str(" · ");
        text.push_str(&wide_legend(input.model.dims(), columns.values, style));
        // Cut with a marker, never silently, when the strip's legend is longer than a row.
        return Line::styled(fit(&text, width), theme.muted());
    }
    let vector = vector_width(input.model.dims());
    match (input.overlay, columns.arrangement) {
        (true, Arrangement::OneLine) => {
            text.push_str(&pad("token vector", vector));
            text.push_str(&pad(" + ", OPERATOR_WIDTH));
            text.push_str(&pad("position vector", vector));
            text.push_str(&pad(" = ", OPERATOR_WIDTH));
            text.push_str("input vector");
        }
        (true, _) => {
            let full = "token vector, + position vector, = input vector";
            let room = width.saturating_sub(display_width(&text));
            text.push_str(if display_width(full) <= room {
                full
            } else {
                "token, + position, = input"
            });
        }
        (false, _) => text.push_str("token vector"),
    }
    Line::styled(text, theme.muted())
}

fn token_lines(
    input: &Input,
    lookup: &TokenLookup,
    marker: &str,
    columns: &Columns,
    theme: Theme,
) -> Vec<Line<'static>> {
    let token = &lookup.token;
    let label_style = match marker {
        CURRENT_MARKER => theme.current(),
        COPY_MARKER => theme.used(),
        _ => Style::new(),
    };
    let id = token.id.map_or_else(|| "—".to_owned(), |id| id.to_string());
    let label = Span::styled(
        format!(
            "{marker} {:>p$} {} {:>i$} ",
            token.position,
            pad(&token.text, columns.token),
            id,
            p = columns.position,
            i = columns.id
        ),
        label_style,
    );
    let Some(token_vector) = &lookup.token_vector else {
        let note = format!("no row: not in the {} vocabulary", input.model.label());
        return vec![Line::from(vec![label, Span::styled(note, theme.warning())])];
    };
    let added = match (&lookup.position, &lookup.input_vector) {
        (PositionVector::Added(position), Some(input)) => Some((position, input)),
        _ => None,
    };
    let note = input
        .overlay
        .then(|| position_note(&lookup.position, theme))
        .filter(|_| added.is_none());

    if matches!(
        columns.arrangement,
        Arrangement::OneLine | Arrangement::Strips
    ) {
        let vector = |values: ArrayView1<f32>| match (columns.arrangement, columns.wide) {
            (Arrangement::Strips, Some(style)) => wide_line(values, columns.values, style, theme),
            _ => vector_spans(values, theme),
        };
        let mut spans = vec![label];
        spans.extend(vector(token_vector.view()));
        if let Some((position, input)) = added {
            spans.push(Span::styled(" + ", theme.muted()));
            spans.extend(vector(position.view()));
            spans.push(Span::styled(" = ", theme.muted()));
            spans.extend(vector(input.view()));
        }
        spans.extend(note);
        return vec![Line::from(spans)];
    }

    let mut lines = Vec::new();
    let (token_lead, continuation) = if columns.arrangement == Arrangement::Detached {
        lines.push(Line::from(label));
        let (lead, continuation) = columns.leads(" ");
        (Span::raw(lead), continuation)
    } else {
        (label, " ".repeat(columns.label_width()))
    };
    push_vector(
        &mut lines,
        token_lead,
        &continuation,
        token_vector.view(),
        columns,
        theme,
    );
    if let Some((position, input)) = added {
        for (operator, vector) in [("+", position), ("=", input)] {
            let (lead, continuation) = columns.leads(operator);
            let lead = Span::styled(lead, theme.muted());
            push_vector(
                &mut lines,
                lead,
                &continuation,
                vector.view(),
                columns,
                theme,
            );
        }
    }
    if let Some(note) = note {
        lines.push(Line::from(vec![Span::raw(continuation), note]));
    }
    lines
}

fn vector_spans(values: ArrayView1<f32>, theme: Theme) -> Vec<Span<'static>> {
    vector_lines(values, usize::MAX, theme)
        .into_iter()
        .flatten()
        .collect()
}

fn position_note(position: &PositionVector, theme: Theme) -> Span<'static> {
    let text = position
        .warning()
        .unwrap_or_else(|| "no position vector".to_owned());
    Span::styled(format!("  + {text}"), theme.warning())
}

/// Appends a vector, wrapped to the value columns, after `lead` on its first line.
fn push_vector(
    lines: &mut Vec<Line<'static>>,
    lead: Span<'static>,
    continuation: &str,
    values: ArrayView1<f32>,
    columns: &Columns,
    theme: Theme,
) {
    let mut lead = Some(lead);
    for spans in columns.vector_rows(values, theme) {
        let first = lead
            .take()
            .unwrap_or_else(|| Span::raw(continuation.to_owned()));
        let mut line = vec![first];
        line.extend(spans);
        lines.push(Line::from(line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tables::weights::DEFAULT_SEED;
    use crate::core::text::vocabulary::{VocabKind, copies_of};
    use crate::ui::pane::screen;

    #[test]
    fn copies_stay_on_screen_with_the_current_token() {
        // fox bites the fox, at the second fox, with room for three tokens.
        assert_eq!(pinned(4, 3, 3, &[0, 3]), [0, 2, 3]);
        assert_eq!(list(&[0, 2, 3]), "0, 2–3");
        assert_eq!(pinned(4, 4, 3, &[0, 3]), [0, 1, 2, 3]);
        assert_eq!(pinned(10, 3, 5, &[]), [4, 5, 6]);
        assert_eq!(pinned(10, 1, 9, &[0, 9]), [9]);
    }

    /// The pane over "fox bites the fox" at its second fox, with positions added or not.
    fn pane_lines(overlay: bool, width: u16, height: u16) -> Vec<String> {
        pane_lines_with(PositionScheme::Learned, overlay, width, height)
    }

    /// As [`pane_lines`], with `scheme` when positions are on.
    fn pane_lines_with(
        scheme: PositionScheme,
        overlay: bool,
        width: u16,
        height: u16,
    ) -> Vec<String> {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let tokens = model.tokenize("fox bites the fox").unwrap();
        let lookups = model.embed(
            &tokens,
            if overlay {
                scheme
            } else {
                PositionScheme::None
            },
        );
        let input = Input {
            tokens: &tokens,
            lookups: &lookups,
            step: 3,
            copies: copies_of(&tokens, 3),
            model: &model,
            overlay,
            scheme,
            wide_style: crate::ui::vector::STRIPS,
            generating: None,
            positions_key: Some("p".to_owned()),
            theme: Theme::new(false),
        };
        screen(&build(input, width), width, height)
    }

    #[test]
    fn each_token_shows_the_row_its_id_returned_and_the_copies_are_marked() {
        let lines = pane_lines(false, 60, 7);
        assert!(
            lines[0].contains("Lookups · the row each id returned (p adds positions)"),
            "{lines:?}"
        );
        assert!(lines[1].contains("pos token id token vector"), "{lines:?}");
        assert!(
            lines[2].starts_with(&format!("│{COPY_MARKER}   0 fox")),
            "{lines:?}"
        );
        assert!(lines[5].starts_with("│▶   3 fox"), "{lines:?}");
        assert!(lines[5].contains("1.2753 -0.2010 -0.1606"), "{lines:?}");
    }

    #[test]
    fn the_title_adds_a_vector_only_for_schemes_that_add_one() {
        let title = |scheme, width| pane_lines_with(scheme, true, width, 7)[0].clone();
        assert!(title(PositionScheme::Learned, 60).contains("token + learned position = input"));
        assert!(title(PositionScheme::Rope, 60).contains("RoPE adds no vector: token = input"));
        assert!(title(PositionScheme::Alibi, 40).contains("ALiBi adds no vector"));
    }

    #[test]
    fn a_short_pane_keeps_both_copies_in_view() {
        // Two rows for tokens: the two copies of fox, not the current token's neighbour.
        let lines = pane_lines(true, 60, 5);
        assert!(
            lines[2].starts_with(&format!("│{COPY_MARKER}   0 fox")),
            "{lines:?}"
        );
        assert!(lines[3].starts_with("│▶   3 fox"), "{lines:?}");
        assert!(
            lines[4].contains("tokens 0, 3 of 4: the copies kept"),
            "{lines:?}"
        );
    }
}
