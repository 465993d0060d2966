//! The attention pane: one head of self-attention over the input vectors, as a heat map of its
//! weights, each token's output, and a finding that says what the position scheme and the mask
//! did to them.

use std::ops::Range;

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use crate::action::fill_keys;
use crate::app::RealLayer;
use crate::core::analysis::attention::{HeadPattern, MAX_VIEW_TOKENS, Mask};
use crate::core::analysis::layer0::Layer0;
use crate::core::explain::head::HeadFinding;
use crate::core::explain::layer0::SentenceRun;
use crate::core::tables::positional::PositionScheme;
use crate::core::text::vocabulary::{Token, copies_of};
use crate::hit_map::HitMap;
use crate::theme::{CURRENT_MARKER, Theme};
use crate::ui::heatmap::{HeatScale, masked_cell};
use crate::ui::pane::Pane;
use crate::ui::text::{TOKEN_LABEL_WIDTH, fit, pad, pad_left, wrap_words, wrapped};
use crate::ui::vector::{
    WideStyle, is_wide, typical_size, values_per_line, vector_lines, wide_legend, wide_line, window,
};
use budget::{Budget, rows_shown};
use positions::extra;

mod derive;
pub use derive::{AttentionKey, Memo};

/// Columns of a weight cell with its number: a shade and two decimals, `▒0.31`.
const NUMBER_CELL: usize = 5;
/// Heat-map rows the pane asks for at most; longer sentences scroll with the current token.
const HEAT_ROWS_WANTED: usize = 16;
/// Output rows the pane asks for at most.
const OUTPUT_ROWS_WANTED: usize = 8;
/// Lines of the finding the pane keeps however short the body.
const FINDING_LEAST: usize = 2;

mod budget;
mod head_overview;
mod input;
mod layer0;
pub(crate) mod positions;

#[cfg(test)]
pub(crate) use input::bare_input;
pub(crate) use input::{Input, input};

/// How the weight cells are drawn at a width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cells {
    /// A shade and the weight with two decimals.
    Numbers,
    /// Shades alone, as wide as the widest key position above them.
    Shades(usize),
    /// One shade a key; the header gives each key position's last digit.
    Dense,
}

impl Cells {
    /// Columns a cell takes with the gap after it.
    fn pitch(self) -> usize {
        match self {
            Self::Numbers => NUMBER_CELL + 1,
            Self::Shades(width) => width + 1,
            Self::Dense => 1,
        }
    }
}

/// Where the pane's pieces go at a width.
struct Grid {
    /// The sentence index of each attention row: tokens without a row are left out.
    members: Vec<usize>,
    /// The attention row of the current token, if it has one.
    current: Option<usize>,
    position_width: usize,
    token_width: usize,
    cells: Cells,
    /// The key columns in view.
    keys: Range<usize>,
    /// Columns after the row labels.
    room: usize,
}

/// The model's own layer 0 and its run over the sentence, when the pane shows them.
fn real_view<'a>(input: &Input<'a>) -> Option<(&'a Layer0, &'a SentenceRun)> {
    match (input.layer, input.run) {
        (RealLayer::Open(layer), Some(Ok(view))) => Some((layer, view)),
        _ => None,
    }
}

impl Grid {
    fn new(input: &Input, attention: &HeadPattern, width: usize) -> Self {
        let mut members: Vec<usize> = match real_view(input) {
            Some((_, view)) => view.members.clone(),
            None => input
                .lookups
                .iter()
                .enumerate()
                .filter(|(_, lookup)| lookup.input_vector.is_some())
                .map(|(index, _)| index)
                .take(MAX_VIEW_TOKENS)
                .collect(),
        };
        // The head ran over exactly these tokens; never index past its rows.
        members.truncate(attention.weights.nrows());
        let count = members.len();
        let current = members.iter().position(|&index| index == input.step);
        let tokens = input.tokens;
        let last_position = members.last().map_or(0, |&index| tokens[index].position);
        let digits = last_position.to_string().len();
        let position_width = digits.max(3);
        let token_width = members
            .iter()
            .map(|&index| tokens[index].text.width())
            .max()
            .unwrap_or(0)
            .clamp(5, TOKEN_LABEL_WIDTH);
        let room = width.saturating_sub(2 + position_width + 1 + token_width + 1);
        let cells = if count * Cells::Numbers.pitch() <= room {
            Cells::Numbers
        } else if count * Cells::Shades(digits).pitch() <= room {
            Cells::Shades(digits)
        } else {
            Cells::Dense
        };
        let keys = window(count, (room / cells.pitch()).max(1), current.unwrap_or(0));
        Self {
            members,
            current,
            position_width,
            token_width,
            cells,
            keys,
            room,
        }
    }

    fn header_lines(&self) -> usize {
        if self.cells == Cells::Numbers { 2 } else { 1 }
    }

    /// A token's row label: the marker, its position and its text.
    fn label(&self, tokens: &[Token], row: usize, theme: Theme) -> Span<'static> {
        let token = &tokens[self.members[row]];
        let (marker, style) = if Some(row) == self.current {
            (CURRENT_MARKER, theme.current())
        } else {
            (" ", Style::new())
        };
        Span::styled(
            format!(
                "{marker} {:>p$} {} ",
                token.position,
                pad(&token.text, self.token_width),
                p = self.position_width
            ),
            style,
        )
    }

    fn label_width(&self) -> usize {
        2 + self.position_width + 1 + self.token_width + 1
    }

    fn blank_label(&self) -> String {
        " ".repeat(self.label_width())
    }

    /// Whether the map is too narrow for numbers, so the current row's weights are printed
    /// under it.
    fn shows_row_values(&self) -> bool {
        self.cells != Cells::Numbers && self.current.is_some()
    }
}

/// The current row's weights as numbers, on one line cut with `…` when it is longer.
fn row_values(
    tokens: &[Token],
    attention: &HeadPattern,
    grid: &Grid,
    width: usize,
    theme: Theme,
) -> Option<Line<'static>> {
    let row = grid.current?;
    let token = &tokens[grid.members[row]];
    let mut text = format!(
        "{CURRENT_MARKER} {} at {} gives",
        token.text, token.position
    );
    for key in grid.keys.clone() {
        if attention.scores[[row, key]] == f64::NEG_INFINITY {
            text.push_str(" ·");
        } else {
            let _ = write!(text, " {:.2}", attention.weights[[row, key]]);
        }
    }
    Some(Line::styled(fit(&text, width), theme.muted()))
}

/// The attention pane at a width: its title, and the map's layout, finding and the scheme's
/// own lines built once; the heat map and outputs are drawn to the rows it gets.
pub(crate) struct AttentionPane<'a> {
    input: Input<'a>,
    title: String,
    body: Body<'a>,
}

/// What the pane holds below its title.
enum Body<'a> {
    /// Why there is nothing to attend over.
    Message(Vec<Line<'static>>),
    /// Every head's small heat map.
    Overview(Box<head_overview::Overview<'a>>),
    /// One head's heat map, outputs and finding.
    Map(Box<Map<'a>>),
}

/// One head's pane: what is built once a frame.
struct Map<'a> {
    attention: &'a HeadPattern,
    grid: Grid,
    finding: Vec<String>,
    /// The sentence that the current word's copies got identical weights and outputs, and the
    /// rows of those copies: drawn only with the copies' rows beside it.
    copies: Option<Copies>,
    /// Where the finding compares the current word's copies: their rows, which it needs.
    evidence: Option<Evidence>,
    extra: Vec<Line<'static>>,
    /// Lines each token's output takes.
    per_output: usize,
    /// Columns inside the borders.
    width: usize,
}

/// The claim that the current word's copies are treated alike, and where its evidence is.
struct Copies {
    /// The claim, wrapped to the pane.
    lines: Vec<String>,
    /// The copies' rows other than the current one (indices into the grid's members).
    rows: Vec<usize>,
}

/// A finding that compares the current word's copies, and the rows that bear it out: drawn
/// with them, or else replaced by a finding that says where else to look.
struct Evidence {
    /// The copies' rows other than the current one (indices into the grid's members).
    rows: Vec<usize>,
    /// The finding drawn instead when the heat map has no room for those rows, wrapped.
    out_of_sight: Vec<String>,
}

/// The pane at a width, borders included.
pub(crate) fn build(input: Input<'_>, width: u16) -> AttentionPane<'_> {
    let title = title(&input, width);
    let width = usize::from(width.saturating_sub(2));
    let theme = input.theme;
    let body = match input.attention {
        None => Body::Message(wrapped(&nothing_to_attend(&input), width, theme.muted())),
        Some(_) if input.overview => {
            let shown = head_overview::Heads {
                run: match input.run {
                    Some(Ok(view)) => Some((view, input.tokens)),
                    _ => None,
                },
                head: input.head,
                theme,
            };
            Body::Overview(Box::new(head_overview::build(&shown, width)))
        }
        Some(attention) => {
            let grid = Grid::new(&input, attention, width);
            let (finding, evidence) = finding(&input, attention, &grid, width);
            Body::Map(Box::new(Map {
                attention,
                finding,
                evidence,
                copies: copies_claim(&input, &grid, width),
                extra: extra(&input, &grid, width),
                per_output: lines_per_output(attention, &grid),
                grid,
                width,
            }))
        }
    };
    AttentionPane { input, title, body }
}

impl Pane for AttentionPane<'_> {
    fn height(&self) -> usize {
        match &self.body {
            Body::Message(lines) => 2 + lines.len(),
            Body::Overview(overview) => overview.height(),
            Body::Map(map) => {
                let count = map.grid.members.len();
                2 + 1
                    + map.grid.header_lines()
                    + count.min(HEAT_ROWS_WANTED)
                    + usize::from(map.grid.shows_row_values())
                    + 1
                    + count.min(OUTPUT_ROWS_WANTED) * map.per_output
                    + map.finding.len()
                    + map.copies.as_ref().map_or(0, |copies| copies.lines.len())
                    + map.extra.len()
            }
        }
    }

    /// The map's positions, the current row, the finding's first lines and the current
    /// token's output: what its budget gives out first.
    fn least_height(&self) -> usize {
        match &self.body {
            Body::Map(map) => {
                let output = if map.grid.current.is_some() {
                    1 + map.per_output
                } else {
                    0
                };
                let evidence = map
                    .evidence
                    .as_ref()
                    .map_or(0, |evidence| evidence.rows.len());
                (2 + 1 + 1 + map.finding.len().min(FINDING_LEAST) + evidence + output)
                    .min(self.height())
            }
            Body::Message(_) | Body::Overview(_) => self.height().min(4),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, _hits: &mut HitMap) {
        let input = &self.input;
        let theme = input.theme;
        let block = crate::ui::frame::pane(self.title.clone(), false, theme);
        let inner = block.inner(area);
        if let Some(message) = &input.generating {
            block.render(area, buf);
            message.render(inner, buf);
            return;
        }
        match &self.body {
            Body::Message(lines) => {
                block.render(area, buf);
                Paragraph::new(lines.clone()).render(inner, buf);
            }
            Body::Overview(overview) => {
                block.render(area, buf);
                overview.render(inner, buf);
            }
            Body::Map(map) => map.render(input, block, area, buf),
        }
    }
}

/// The pane's title, shortened when the pane is narrow.
fn title(input: &Input, width: u16) -> String {
    if let RealLayer::Open(layer) = input.layer {
        return layer0::title(input, layer, width);
    }
    let mask = match input.mask {
        Mask::None => "unmasked",
        Mask::Causal => "causal mask",
    };
    let positions = match input.scheme {
        PositionScheme::None => "no positions",
        PositionScheme::Learned => "learned positions",
        PositionScheme::Sinusoidal => "sinusoidal positions",
        PositionScheme::Rope => "RoPE",
        PositionScheme::Alibi => "ALiBi",
    };
    // The head is random: however narrow the pane, the title keeps saying so.
    [
        format!(" Attention · one random, untrained head · {mask} · {positions} "),
        format!(" Attention · random head · {mask} · {positions} "),
        format!(" Random head · {mask} · {positions} "),
        format!(" Random head · {positions} "),
    ]
    .into_iter()
    .find(|title| title.width() + 2 <= usize::from(width))
    .unwrap_or_else(|| " Random head ".to_owned())
}

fn nothing_to_attend(input: &Input) -> String {
    if let Some(waiting) = layer0::waiting(input) {
        waiting
    } else if input.tokens.is_empty() {
        "No tokens yet: type a sentence, and the head will relate its words to one another."
            .to_owned()
    } else {
        format!(
            "No vectors to attend over: none of these tokens has a row in the {} vocabulary.",
            input.vocabulary
        )
    }
}

/// What a map draws in the rows it is given.
struct Fitted<'m> {
    budget: Budget,
    /// The finding drawn: the one about the copies, or where else to look for them.
    finding: &'m [String],
    /// The rows kept in the heat map besides the current one.
    heat_pinned: Vec<usize>,
    /// The rows kept among the outputs besides the current one.
    output_pinned: &'m [usize],
}

impl Map<'_> {
    /// What fits in `height` rows inside the borders: a finding about the copies is drawn
    /// with their rows, or says where else to look; the copies' claim with their rows and
    /// outputs, or not at all.
    fn fit(&self, height: usize) -> Fitted<'_> {
        let copies = self
            .copies
            .as_ref()
            .map_or((0, 0), |copies| (copies.rows.len(), copies.lines.len()));
        let share = |finding: usize, evidence: usize| {
            let text = (finding, self.extra.len());
            Budget::share(height, &self.grid, self.per_output, text, copies, evidence)
        };
        let (budget, finding, evidence) = match &self.evidence {
            Some(evidence) => {
                let budget = share(self.finding.len(), evidence.rows.len());
                if budget.evidence {
                    (budget, &self.finding, evidence.rows.as_slice())
                } else {
                    let budget = share(evidence.out_of_sight.len(), 0);
                    (budget, &evidence.out_of_sight, &[][..])
                }
            }
            None => (share(self.finding.len(), 0), &self.finding, &[][..]),
        };
        let output_pinned = match &self.copies {
            Some(copies) if budget.copies => copies.rows.as_slice(),
            _ => &[],
        };
        Fitted {
            heat_pinned: output_pinned.iter().chain(evidence).copied().collect(),
            budget,
            finding,
            output_pinned,
        }
    }

    /// The map, outputs and finding fitted to `area`, in `block`.
    fn render(&self, input: &Input, block: Block<'_>, area: Rect, buf: &mut Buffer) {
        let Self {
            attention,
            ref grid,
            ref copies,
            ref extra,
            width,
            ..
        } = *self;
        let theme = input.theme;
        let tokens = input.tokens;
        let inner = block.inner(area);
        let count = grid.members.len();
        let with_rows = if let Some((layer, _)) = real_view(input) {
            let rows = layer.token_rows();
            tokens
                .iter()
                .filter(|token| token.id.is_some_and(|id| id < rows))
                .count()
        } else {
            input
                .lookups
                .iter()
                .filter(|lookup| lookup.input_vector.is_some())
                .count()
        };
        let block = if with_rows > count {
            let note = format!(" the first {count} of {with_rows} tokens ");
            block.title_bottom(Line::styled(note, theme.muted()).right_aligned())
        } else if with_rows < tokens.len() {
            let note = " tokens without an input vector are left out ";
            block.title_bottom(Line::styled(note, theme.muted()).right_aligned())
        } else {
            block
        };
        block.render(area, buf);

        let Fitted {
            budget,
            finding,
            heat_pinned,
            output_pinned,
        } = self.fit(usize::from(inner.height));

        let mut lines = Vec::new();
        if budget.caption {
            let caption = if grid.cells == Cells::Dense {
                "weights: row = query (who looks), column = key (looked at, by its position's last \
                 digit); each row sums to 1"
            } else {
                "weights: row = query (who looks), column = key (looked at); each row sums to 1"
            };
            lines.push(Line::styled(fit(caption, width), theme.muted()));
        }
        let (positions, texts) = heat_header(tokens, grid, theme);
        lines.push(positions);
        lines.extend(texts.filter(|_| budget.texts));
        let keep = grid.current.unwrap_or(0);
        for row in rows_shown(count, budget.heat_rows, keep, &heat_pinned) {
            lines.push(heat_row(tokens, attention, grid, row, theme));
        }
        if budget.row_values {
            lines.extend(row_values(tokens, attention, grid, width, theme));
        }
        if budget.output_rows > 0 {
            let style = WideStyle {
                scale: output_scale(attention),
                ..input.wide_style
            };
            lines.push(output_header(attention, grid, style, theme));
            for row in rows_shown(count, budget.output_rows, keep, output_pinned) {
                lines.extend(output_lines(tokens, attention, grid, row, style, theme));
            }
        }
        let cut = budget.finding < finding.len();
        for (index, line) in finding.iter().take(budget.finding).enumerate() {
            // A finding cut short says so.
            let line = if cut && index + 1 == budget.finding {
                fit(&format!("{line} …"), width)
            } else {
                line.clone()
            };
            lines.push(Line::styled(line, theme.finding()));
        }
        if let Some(copies) = copies.as_ref().filter(|_| budget.copies) {
            for line in &copies.lines {
                lines.push(Line::styled(line.clone(), theme.finding()));
            }
        }
        if budget.extra {
            lines.extend(extra.iter().cloned());
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

/// The key positions above the map, and the keys' texts when the cells are wide enough.
fn heat_header(
    tokens: &[Token],
    grid: &Grid,
    theme: Theme,
) -> (Line<'static>, Option<Line<'static>>) {
    let mut positions = format!(
        "  {:>p$} {} ",
        "pos",
        pad("token", grid.token_width),
        p = grid.position_width
    );
    for key in grid.keys.clone() {
        let position = tokens[grid.members[key]].position;
        match grid.cells {
            Cells::Numbers => {
                let _ = write!(positions, " {position:>NUMBER_CELL$}");
            }
            Cells::Shades(width) => {
                let _ = write!(positions, " {position:>width$}");
            }
            Cells::Dense => positions.push_str(&(position % 10).to_string()),
        }
    }
    let texts = (grid.cells == Cells::Numbers).then(|| {
        let mut texts = grid.blank_label();
        for key in grid.keys.clone() {
            let text = pad_left(&tokens[grid.members[key]].text, NUMBER_CELL);
            let _ = write!(texts, " {text}");
        }
        Line::styled(texts, theme.muted())
    });
    (Line::styled(positions, theme.muted()), texts)
}

fn heat_row(
    tokens: &[Token],
    attention: &HeadPattern,
    grid: &Grid,
    row: usize,
    theme: Theme,
) -> Line<'static> {
    let is_current = Some(row) == grid.current;
    let mut spans = vec![grid.label(tokens, row, theme)];
    for key in grid.keys.clone() {
        let weight = attention.weights[[row, key]];
        // A hidden key's score is minus infinity: it is masked, not merely small.
        let masked = attention.scores[[row, key]] == f64::NEG_INFINITY;
        let (gap, width) = match grid.cells {
            Cells::Numbers => ("", NUMBER_CELL + 1),
            Cells::Shades(width) => (" ", width),
            Cells::Dense => ("", 1),
        };
        if !gap.is_empty() {
            spans.push(Span::raw(gap));
        }
        spans.push(if masked {
            masked_cell(width, theme)
        } else {
            HeatScale::Weight.cell(weight, width, 2, is_current, theme)
        });
    }
    Line::from(spans)
}

fn lines_per_output(attention: &HeadPattern, grid: &Grid) -> usize {
    let dims = attention.outputs.first().map_or(0, ndarray::ArrayBase::len);
    if is_wide(dims) {
        1
    } else {
        dims.div_ceil(values_per_line(grid.room)).max(1)
    }
}

/// The outputs' typical size (root mean square), which wide strips are drawn relative to: the
/// value projection makes them larger or smaller than the table's numbers.
fn output_scale(attention: &HeadPattern) -> f32 {
    typical_size(
        attention
            .outputs
            .iter()
            .flat_map(|output| output.iter().copied()),
    )
}

/// The outputs' header; `style` is how wide outputs are drawn: the explorer's view and window,
/// relative to the outputs' size.
fn output_header(
    attention: &HeadPattern,
    grid: &Grid,
    style: WideStyle,
    theme: Theme,
) -> Line<'static> {
    let dims = attention.outputs.first().map_or(0, ndarray::ArrayBase::len);
    let mut text = format!(
        "  {:>p$} {} output = Σ weight × value, each token's context vector",
        "pos",
        pad("token", grid.token_width),
        p = grid.position_width
    );
    if is_wide(dims) {
        text.push_str(" · ");
        text.push_str(&wide_legend(dims, grid.room, style));
    }
    Line::styled(fit(&text, grid.label_width() + grid.room), theme.muted())
}

fn output_lines(
    tokens: &[Token],
    attention: &HeadPattern,
    grid: &Grid,
    row: usize,
    style: WideStyle,
    theme: Theme,
) -> Vec<Line<'static>> {
    let output = attention.outputs[row].view();
    let parts = if is_wide(output.len()) {
        vec![wide_line(output, grid.room, style, theme)]
    } else {
        vector_lines(output, grid.room, theme)
    };
    parts
        .into_iter()
        .enumerate()
        .map(|(part, values)| {
            let lead = if part == 0 {
                grid.label(tokens, row, theme)
            } else {
                Span::raw(grid.blank_label())
            };
            let mut spans = vec![lead];
            spans.extend(values);
            Line::from(spans)
        })
        .collect()
}

/// What the learner should see in the heat map and the outputs, wrapped to the width, and,
/// when it compares the current word's copies, the rows it needs.
fn finding(
    input: &Input,
    attention: &HeadPattern,
    grid: &Grid,
    width: usize,
) -> (Vec<String>, Option<Evidence>) {
    if let Some((layer, view)) = real_view(input) {
        return (layer0::finding(input, layer, view, width), None);
    }
    let tokens = input.tokens;
    let first = grid
        .members
        .first()
        .map_or(0, |&index| tokens[index].position);
    let weight = attention.weights.get([0, 0]).copied().unwrap_or(1.0);
    let finding = HeadFinding::of(input.scheme, input.mask, first, weight);
    let wrap = |finding: &HeadFinding| wrap_words(&fill_keys(&finding.sentence()), width);
    let copies = copies_in_view(input, grid);
    let evidence = (copies.len() >= 2)
        .then(|| {
            let positions: Vec<usize> =
                copies.iter().map(|&index| tokens[index].position).collect();
            finding
                .clone()
                .copies_out_of_sight(&tokens[input.step].text, &positions)
        })
        .filter(|out_of_sight| *out_of_sight != finding)
        .map(|out_of_sight| Evidence {
            rows: other_rows(input, grid, &copies),
            out_of_sight: wrap(&out_of_sight),
        });
    (wrap(&finding), evidence)
}

/// The current word's copies (sentence indices) that the head ran over.
fn copies_in_view(input: &Input, grid: &Grid) -> Vec<usize> {
    copies_of(input.tokens, input.step)
        .into_iter()
        .filter(|index| grid.members.contains(index))
        .collect()
}

/// The grid rows of `copies` other than the current token's.
fn other_rows(input: &Input, grid: &Grid, copies: &[usize]) -> Vec<usize> {
    copies
        .iter()
        .filter(|&&index| index != input.step)
        .filter_map(|index| grid.members.iter().position(|member| member == index))
        .collect()
}

/// With no positions and no mask, copies of the current word get the same weights and output:
/// the claim, and the copies' rows that bear it out. On the model's own layer 0, the layer's
/// verdict on the first repeated word's two copies, and their rows.
fn copies_claim(input: &Input, grid: &Grid, width: usize) -> Option<Copies> {
    if let Some((_, view)) = real_view(input) {
        let (claim, copies) = view.copies_claim()?;
        if !copies.iter().all(|index| grid.members.contains(index)) {
            return None;
        }
        return Some(Copies {
            lines: wrap_words(&claim, width),
            rows: other_rows(input, grid, &copies),
        });
    }
    let unmasked_without_positions = real_view(input).is_none()
        && input.scheme == PositionScheme::None
        && input.mask != Mask::Causal;
    if !unmasked_without_positions {
        return None;
    }
    let copies = copies_in_view(input, grid);
    if copies.len() < 2 {
        return None;
    }
    let tokens = input.tokens;
    let positions: Vec<String> = copies
        .iter()
        .map(|&index| tokens[index].position.to_string())
        .collect();
    let (last, rest) = positions.split_last()?;
    let claim = format!(
        "{} at {} and {last}: identical weights and outputs.",
        tokens[input.step].text,
        rest.join(", ")
    );
    Some(Copies {
        lines: wrap_words(&claim, width),
        rows: other_rows(input, grid, &copies),
    })
}

#[cfg(test)]
mod tests;
