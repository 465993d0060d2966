//! The similarity pane: how alike the sentence's vectors are (their cosines, as a heat map), and
//! which rows of the whole matrix point most nearly the way the current token's vectors do.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use crate::action::{Action, Scope, fill_keys, key, key_name};
use crate::app::App;
use crate::core::analysis::attention::MAX_VIEW_TOKENS;
use crate::core::explain::cosine::{CopiesCosine, CopyPair, NotInHeatMap};
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::weights::{EmbeddingModel, TokenLookup};
use crate::core::text::vocabulary::{Token, copies_of};
use crate::hit_map::HitMap;
use crate::theme::{COPY_MARKER, CURRENT_MARKER, Theme};
use crate::ui::heatmap::HeatScale;
use crate::ui::pane::Pane;
use crate::ui::room::Room;
use crate::ui::text::{TOKEN_LABEL_WIDTH, display_width, fit, pad, wrapped};
use crate::ui::vector::window;
use nearest::{nearest_compact, nearest_lines};

mod derive;
pub use derive::Memo;

/// Columns of a cell with a shade and two decimals: ` █  1.00`.
const SHADED_CELL: usize = 8;
/// The widest a shaded cell grows to fit its column's label.
const SHADED_CELL_LIMIT: usize = 12;
/// Columns of a cell with two decimals alone: `  1.00`.
const NUMBER_CELL: usize = 6;
/// Rows of the heat map kept however short the pane, when the sentence has them.
const MATRIX_MIN_ROWS: usize = 3;
/// Columns between the two nearest-rows lists when they stand side by side.
const LIST_GAP: usize = 4;
/// The heading of the rows nearest the token vector.
const TOKEN_HEADING: &str = "nearest to the token vector";
/// The heading of the rows nearest the input vector.
const INPUT_HEADING: &str = "nearest to token + position";

mod nearest;

/// Rows of the matrix with their cosine similarity to a vector, nearest first.
type Neighbours<'a> = &'a [(usize, f64)];

/// What the similarity pane reads, made by [`input`].
pub(crate) struct Input<'a> {
    /// The model, for its vocabulary's name, its table's kind, its rows' texts and its shape.
    pub(crate) model: &'a EmbeddingModel,
    /// The sentence's tokens.
    pub(crate) tokens: &'a [Token],
    /// Their lookups: which have a row.
    pub(crate) lookups: &'a [TokenLookup],
    /// The current token's index.
    pub(crate) step: usize,
    /// Cosine similarities between the sentence's vectors, once computed.
    pub(crate) cosine: Option<&'a ndarray::Array2<f64>>,
    /// The current token's nearest rows from its token vector and from its input vector, once
    /// found.
    pub(crate) nearest: Option<(Neighbours<'a>, Neighbours<'a>)>,
    /// Whether the whole matrix is being read for them.
    pub(crate) scanning: bool,
    /// The position scheme chosen.
    pub(crate) scheme: PositionScheme,
    /// Whether positions are added.
    pub(crate) overlay: bool,
    /// What stands in while the tables are being generated.
    pub(crate) generating: Option<Paragraph<'static>>,
    /// The styles in use.
    pub(crate) theme: Theme,
}

/// What the similarity pane reads.
pub(crate) fn input(app: &App) -> Input<'_> {
    let views = app.views();
    Input {
        model: app.model(),
        tokens: app.tokens(),
        lookups: app.lookups(),
        step: app.step(),
        cosine: views.similarity.cosine.get(),
        nearest: views
            .similarity
            .nearest
            .get()
            .map(|(token, input)| (token.as_slice(), input.as_slice())),
        scanning: app.scanning(),
        scheme: app.scheme(),
        overlay: app.overlay(),
        generating: crate::ui::frame::generating(app),
        theme: app.theme(),
    }
}

impl<'a> Input<'a> {
    /// The current token, if the sentence has one.
    fn current_token(&self) -> Option<&'a Token> {
        self.tokens.get(self.step)
    }
}

/// The similarity pane at a width: its lines built once, the heat map's rows fitted to the
/// room it gets.
pub(crate) struct Similarity<'a> {
    input: Input<'a>,
    content: Content<'a>,
}

/// The pane at a width, borders included.
pub(crate) fn build(input: Input<'_>, width: u16) -> Similarity<'_> {
    Similarity {
        content: content(&input, usize::from(width.saturating_sub(2))),
        input,
    }
}

impl Pane for Similarity<'_> {
    fn height(&self) -> usize {
        2 + match &self.content {
            Content::Message(lines) => lines.len(),
            Content::Map(map) => 1 + map.members.indices.len() + map.legend.len() + map.tail_len(),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, _hits: &mut HitMap) {
        let input = &self.input;
        let theme = input.theme;
        let block = crate::ui::frame::pane(title(input, area.width), false, theme);
        let inner = block.inner(area);
        if let Some(message) = &input.generating {
            block.render(area, buf);
            message.render(inner, buf);
            return;
        }
        let (lines, range) = match &self.content {
            Content::Message(lines) => (lines.clone(), None),
            Content::Map(map) => map.lines(input, usize::from(inner.height)),
        };
        // Said on the border, so a cut-off pane never shows a random table's similarities
        // bare; with the rows shown, in one title fitted to the border.
        let room = usize::from(area.width).saturating_sub(4);
        let kind = input.model.table_kind().short_note();
        // "untrained random table: nearness is chance" loses its second half before anything.
        let kind = if display_width(kind) > room {
            kind.split(':').next().unwrap_or(kind)
        } else {
            kind
        };
        let note = match range {
            Some(range) => format!("{kind} · {}", range.trim()),
            None => kind.to_owned(),
        };
        let note = fit(&note, room);
        let block =
            block.title_bottom(Line::styled(format!(" {note} "), theme.muted()).right_aligned());
        block.render(area, buf);
        Paragraph::new(lines).render(inner, buf);
    }
}

/// The pane's title, shortened when the pane is narrow.
fn title(input: &Input, width: u16) -> String {
    let full = long_title(input);
    if display_width(&full) + 2 <= usize::from(width) {
        return full;
    }
    if input.overlay {
        format!(" Cosine · token + {} position ", input.scheme)
    } else {
        " Cosine · token vectors ".to_owned()
    }
}

fn long_title(input: &Input) -> String {
    if input.overlay {
        format!(
            " Cosine similarity · input vectors: token + {} position ",
            input.scheme
        )
    } else {
        format!(
            " Cosine similarity · token vectors ({} adds positions) ",
            key(&Action::TogglePositions)
        )
    }
}

/// What the pane shows.
enum Content<'a> {
    /// A sentence instead of a heat map: nothing typed, or no vectors to compare.
    Message(Vec<Line<'static>>),
    /// The heat map, its legend, and the finding and nearest rows below it.
    Map(Box<Map<'a>>),
}

/// The heat map's parts: its rows are drawn to the room there is.
struct Map<'a> {
    members: Members,
    cosine: &'a ndarray::Array2<f64>,
    heat: HeatMap,
    legend: Vec<Line<'static>>,
    /// The finding about the copies.
    finding: Vec<Line<'static>>,
    /// Why the finding holds: the first to give way on a short pane.
    explanation: Vec<Line<'static>>,
    /// The nearest rows, with what kind of table they come from.
    nearest: Vec<Line<'static>>,
    /// The same in a few lines, for a pane short of room.
    nearest_compact: Vec<Line<'static>>,
    /// What the table's kind means for its nearest rows, said in full when there is room.
    nearest_note: Vec<Line<'static>>,
}

impl Map<'_> {
    /// Rows below the heat map when everything is shown.
    fn tail_len(&self) -> usize {
        self.finding.len() + self.explanation.len() + 1 + self.nearest.len()
    }
}

impl Map<'_> {
    /// The lines that fit in `height` rows, and which rows of the heat map those are when
    /// not all of them.
    fn lines(&self, input: &Input, height: usize) -> (Vec<Line<'static>>, Option<String>) {
        let count = self.members.indices.len();
        let least = MATRIX_MIN_ROWS.min(count);
        let above = 1 + self.legend.len();
        let compact = self.finding.len() + self.nearest_compact.len();
        // Everything when the heat map keeps its few rows beside it; else the nearest rows in
        // a few lines (the explanation gives way first); else what fits and a row saying so.
        let (tail, marker) = if above + least + self.tail_len() <= height {
            let mut tail = self.finding.clone();
            tail.extend(self.explanation.iter().cloned());
            tail.push(Line::default());
            tail.extend(self.nearest.iter().cloned());
            (tail, false)
        } else {
            // The note on the table's kind, then the explanation, as room allows.
            let mut room = Room::new(height.saturating_sub(above + least + compact));
            let note = room.all(self.nearest_note.len());
            let explanation = room.all(self.explanation.len());
            let mut tail = self.finding.clone();
            if explanation {
                tail.extend(self.explanation.iter().cloned());
            }
            if note {
                tail.extend(self.nearest_note.iter().cloned());
            }
            tail.extend(self.nearest_compact.iter().cloned());
            let fits = above + least + compact <= height;
            if !fits {
                tail.truncate(height.saturating_sub(above + least + 1));
            }
            (tail, !fits)
        };
        let fixed = above + tail.len() + usize::from(marker);
        // A few rows however short the pane, but never more than fit below the header, so the
        // current token's row (which the window keeps) is always drawn.
        let rows_room = height
            .saturating_sub(fixed)
            .max(least)
            .min(height.saturating_sub(1))
            .max(1);
        let (mut lines, range) = self
            .heat
            .lines(input, &self.members, self.cosine, rows_room);
        lines.extend(self.legend.iter().cloned());
        lines.extend(tail);
        if marker {
            lines.push(Line::styled(
                "▼ more below: a taller terminal shows it",
                input.theme.muted(),
            ));
        }
        (lines, range)
    }
}

/// The tokens the heat map compares: those with a row, the first [`MAX_VIEW_TOKENS`] of them,
/// as the app computed the cosines.
struct Members {
    /// Each member's index in the sentence.
    indices: Vec<usize>,
    /// The current token's place among them, if it is one.
    current: Option<usize>,
}

impl Members {
    fn new(input: &Input, computed: usize) -> Self {
        let indices: Vec<usize> = input
            .lookups
            .iter()
            .enumerate()
            .filter(|(_, lookup)| lookup.input_vector.is_some())
            .map(|(index, _)| index)
            .take(MAX_VIEW_TOKENS.min(computed))
            .collect();
        let current = indices.iter().position(|&index| index == input.step);
        Self { indices, current }
    }
}

/// The pane's content at a width.
fn content<'a>(input: &Input<'a>, width: usize) -> Content<'a> {
    let theme = input.theme;
    let muted = |text: &str| wrapped(text, width, theme.muted());
    if input.tokens.is_empty() {
        return Content::Message(muted(&format!(
            "Type a sentence, then press {} to compare its vectors.",
            key_name(&Action::FocusExplorer, Scope::Input)
        )));
    }
    let cosine = input.cosine;
    let members = Members::new(input, cosine.map_or(0, ndarray::Array2::nrows));
    let Some(cosine) = cosine.filter(|_| !members.indices.is_empty()) else {
        return Content::Message(muted(&format!(
            "No token of this sentence has a row in the {} vocabulary: there are no vectors \
             to compare.",
            input.model.label()
        )));
    };
    let (finding, explanation) = finding_lines(input, &members, cosine, width);
    let nearest = nearest_lines(input, width);
    let nearest_compact = nearest_compact(input, width);
    let kind = input.model.table_kind();
    let nearest_note = if input.nearest.is_some() {
        let style = if kind.is_trained() {
            theme.finding()
        } else {
            theme.warning()
        };
        wrapped(kind.nearest_rows_note(), width, style)
    } else {
        Vec::new()
    };
    let heat = HeatMap::new(input.tokens, &members, width);
    let legend = heat.legend(width, theme);
    Content::Map(Box::new(Map {
        members,
        cosine,
        heat,
        legend,
        finding,
        explanation,
        nearest,
        nearest_compact,
        nearest_note,
    }))
}

/// How a cell of the heat map is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cells {
    /// A shade and the cosine with two decimals, in a cell of this many columns (at least
    /// [`SHADED_CELL`]; wider when the column labels need it and there is room).
    Shaded(usize),
    /// The cosine with two decimals.
    Numbers,
    /// A shade alone, repeated to the cell's width (1 to 3 columns, the first a space when
    /// there are two or more).
    Glyphs(usize),
}

impl Cells {
    fn width(self) -> usize {
        match self {
            Self::Shaded(width) | Self::Glyphs(width) => width,
            Self::Numbers => NUMBER_CELL,
        }
    }
}

/// The heat map's layout at a width.
struct HeatMap {
    position_width: usize,
    token_width: usize,
    cells: Cells,
    /// The members whose columns are shown (all, unless even one column each does not fit).
    columns: std::ops::Range<usize>,
}

impl HeatMap {
    fn new(tokens: &[Token], members: &Members, width: usize) -> Self {
        let position_width = members
            .indices
            .iter()
            .map(|&index| tokens[index].position.to_string().len())
            .max()
            .unwrap_or(1);
        let token_width = members
            .indices
            .iter()
            .map(|&index| tokens[index].text.width())
            .max()
            .unwrap_or(0)
            .clamp(3, TOKEN_LABEL_WIDTH);
        let mut heat = Self {
            position_width,
            token_width,
            cells: Cells::Glyphs(1),
            columns: 0..members.indices.len(),
        };
        let room = width.saturating_sub(heat.label_width());
        let count = members.indices.len();
        let longest_label = members
            .indices
            .iter()
            .map(|&index| format!("{} {}", tokens[index].position, tokens[index].text).width())
            .max()
            .unwrap_or(0);
        let roomy = (longest_label + 2).clamp(SHADED_CELL, SHADED_CELL_LIMIT);
        heat.cells = [
            Cells::Shaded(roomy),
            Cells::Shaded(SHADED_CELL),
            Cells::Numbers,
            Cells::Glyphs(3),
            Cells::Glyphs(2),
        ]
        .into_iter()
        .find(|cells| count * cells.width() <= room)
        .unwrap_or(Cells::Glyphs(1));
        heat.columns = window(count, room.max(1), members.current.unwrap_or(0));
        heat
    }

    fn label_width(&self) -> usize {
        2 + self.position_width + 1 + self.token_width + 1
    }

    /// The key to the shades, when the cells have them.
    fn legend(&self, width: usize, theme: Theme) -> Vec<Line<'static>> {
        // Cells with their numbers need no key; with colour, shaded cells carry them too.
        let numbers = match self.cells {
            Cells::Numbers => true,
            Cells::Shaded(_) => theme.has_color(),
            Cells::Glyphs(_) => false,
        };
        if numbers {
            return Vec::new();
        }
        let legend = HeatScale::Cosine.legend(theme);
        if legend.width() <= width {
            vec![legend]
        } else {
            let text: String = legend
                .spans
                .iter()
                .map(|span| span.content.as_ref())
                .collect();
            vec![Line::styled(fit(&text, width), theme.muted())]
        }
    }

    /// The header and the rows that fit in `rows_room` lines, and which rows those are when
    /// not all of them.
    fn lines(
        &self,
        input: &Input,
        members: &Members,
        cosine: &ndarray::Array2<f64>,
        rows_room: usize,
    ) -> (Vec<Line<'static>>, Option<String>) {
        let theme = input.theme;
        let tokens = input.tokens;
        let count = members.indices.len().min(cosine.nrows());
        let copies = copies_of(tokens, input.step);
        let mut lines = vec![self.header(tokens, members, theme)];
        let rows = window(count, rows_room, members.current.unwrap_or(0));
        for row in rows.clone() {
            let index = members.indices[row];
            let token = &tokens[index];
            let (marker, style) = if Some(row) == members.current {
                (CURRENT_MARKER, theme.current())
            } else if copies.binary_search(&index).is_ok() {
                (COPY_MARKER, theme.used())
            } else {
                (" ", Style::new())
            };
            let label = format!(
                "{marker} {:>p$} {} ",
                token.position,
                pad(&token.text, self.token_width),
                p = self.position_width
            );
            let mut spans = vec![Span::styled(label, style)];
            for column in self.columns.clone().take_while(|&column| column < count) {
                let value = cosine[[row, column]];
                let same_row = row != column && tokens[members.indices[column]].id == token.id;
                spans.extend(self.cell(value, same_row, theme));
            }
            lines.push(Line::from(spans));
        }
        let mut hidden = Vec::new();
        if rows.len() < count {
            hidden.push(format!(
                "rows {}–{} of {count}",
                rows.start,
                rows.end.saturating_sub(1)
            ));
        }
        if self.columns.len() < count {
            hidden.push(format!(
                "columns {}–{}",
                self.columns.start,
                self.columns.end.saturating_sub(1)
            ));
        }
        let with_rows = input
            .lookups
            .iter()
            .filter(|lookup| lookup.input_vector.is_some())
            .count();
        if with_rows > count {
            hidden.push(format!("the first {count} tokens with rows"));
        }
        let range = (!hidden.is_empty()).then(|| format!(" {} ", hidden.join(" · ")));
        (lines, range)
    }

    /// One cosine, coloured by its value; copies of a word in bold.
    fn cell(&self, value: f64, emphasis: bool, theme: Theme) -> Vec<Span<'static>> {
        let heat = HeatScale::Cosine;
        match self.cells {
            Cells::Shaded(width) => vec![heat.cell(value, width, 2, emphasis, theme)],
            Cells::Numbers => vec![heat.cell(value, NUMBER_CELL, 2, emphasis, theme)],
            Cells::Glyphs(1) => vec![heat.cell(value, 1, 2, emphasis, theme)],
            Cells::Glyphs(width) => vec![
                Span::raw(" "),
                heat.cell(value, width - 1, 2, emphasis, theme),
            ],
        }
    }

    /// Column labels: `pos text` above numbers; a ruler of positions above shades alone.
    fn header(&self, tokens: &[Token], members: &Members, theme: Theme) -> Line<'static> {
        let mut spans = vec![Span::styled(
            pad("  cosine", self.label_width()),
            theme.muted(),
        )];
        let cell = self.cells.width();
        match self.cells {
            Cells::Shaded(_) | Cells::Numbers => {
                for column in self.columns.clone() {
                    let token = &tokens[members.indices[column]];
                    let label = fit(&format!("{} {}", token.position, token.text), cell - 1);
                    let style = if Some(column) == members.current {
                        theme.current()
                    } else {
                        theme.muted()
                    };
                    spans.push(Span::raw(
                        " ".repeat(cell.saturating_sub(display_width(&label))),
                    ));
                    spans.push(Span::styled(label, style));
                }
            }
            Cells::Glyphs(_) => {
                let offset = usize::from(cell > 1);
                let widest = self
                    .columns
                    .clone()
                    .map(|column| tokens[members.indices[column]].position.to_string().len())
                    .max()
                    .unwrap_or(1);
                // Label every `every`-th column, so labels never touch.
                let every = [1, 2, 5, 10, 20]
                    .into_iter()
                    .find(|every| every * cell > widest)
                    .unwrap_or(50);
                let mut ruler = String::new();
                for (slot, column) in self.columns.clone().enumerate() {
                    if slot % every == 0 {
                        let start = slot * cell + offset;
                        let position = tokens[members.indices[column]].position;
                        ruler.push_str(&" ".repeat(start.saturating_sub(ruler.width())));
                        ruler.push_str(&position.to_string());
                    }
                }
                spans.push(Span::styled(ruler, theme.muted()));
            }
        }
        Line::from(spans)
    }
}

/// What the heat map shows about copies of a word: the same vector without positions, and how
/// far apart they are with them.
fn finding_lines(
    input: &Input,
    members: &Members,
    cosine: &ndarray::Array2<f64>,
    width: usize,
) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
    let theme = input.theme;
    let tokens = input.tokens;
    let lookups = input.lookups;
    let count = members.indices.len().min(cosine.nrows());
    // Copies of one word (different unknown words share a row, but are not copies).
    let same_id = |a: usize, b: usize| {
        tokens[members.indices[a]].id.is_some()
            && tokens[members.indices[a]].is_copy_of(&tokens[members.indices[b]])
    };
    // The current token and a copy of it if it has one; else the sentence's first pair.
    let pair = members
        .current
        .and_then(|current| {
            (0..count)
                .find(|&other| other != current && same_id(current, other))
                .map(|other| (current.min(other), current.max(other)))
        })
        .or_else(|| {
            (0..count).find_map(|a| ((a + 1)..count).find(|&b| same_id(a, b)).map(|b| (a, b)))
        });
    let mut lines = Vec::new();
    if members.current.is_none() {
        let note = match input.current_token() {
            Some(token) if token.id.is_none() => NotInHeatMap::NoRow {
                word: token.text.clone(),
                vocabulary: input.model.label().to_owned(),
            },
            _ => NotInHeatMap::Beyond(MAX_VIEW_TOKENS),
        };
        lines.extend(wrapped(&note.sentence(), width, theme.warning()));
    }
    let pair = pair.map(|(a, b)| (members.indices[a], members.indices[b], cosine[[a, b]]));
    let finding = CopiesCosine::of(
        pair.map(|(first, second, _)| CopyPair {
            word: tokens[first].text.clone(),
            first: tokens[first].position,
            second: tokens[second].position,
        }),
        pair.map_or(f64::NAN, |(.., value)| value),
        input.scheme,
        input.overlay,
        pair.is_some_and(|(first, second, _)| {
            lookups[first].input_vector == lookups[second].input_vector
        }),
    );
    let style = if finding == CopiesCosine::NoRepeat {
        theme.muted()
    } else {
        theme.finding()
    };
    lines.extend(wrapped(&fill_keys(&finding.sentence()), width, style));
    let explanation = finding
        .explanation()
        .map(|why| wrapped(&fill_keys(&why), width, theme.muted()))
        .unwrap_or_default();
    (lines, explanation)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::core::analysis::similarity::{cosine_matrix, nearest_rows};
    use crate::core::tables::weights::DEFAULT_SEED;
    use crate::core::text::vocabulary::VocabKind;
    use crate::ui::pane::screen;

    /// "the dog bites the man" in the seed vocabulary, at the second 'the', with `scheme`'s
    /// positions added: its lookups, cosines and nearest rows, as the derive step makes them.
    /// The nearest lists' tests use it too.
    pub(crate) struct Sentence {
        model: EmbeddingModel,
        pub(crate) tokens: Vec<Token>,
        lookups: Vec<TokenLookup>,
        cosine: ndarray::Array2<f64>,
        pub(crate) from_token: Vec<(usize, f64)>,
        from_input: Vec<(usize, f64)>,
        scheme: PositionScheme,
    }

    impl Sentence {
        pub(crate) fn new(scheme: PositionScheme) -> Self {
            let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
            let tokens = model.tokenize("the dog bites the man").unwrap();
            let lookups = model.embed(&tokens, scheme);
            let vectors: Vec<_> = lookups
                .iter()
                .filter_map(|lookup| lookup.input_vector.clone())
                .collect();
            let cosine = cosine_matrix(&vectors);
            let current = &lookups[3];
            let table = model.token_table();
            let from_token = nearest_rows(table, current.token_vector.as_ref().unwrap().view(), 5);
            let from_input = nearest_rows(table, current.input_vector.as_ref().unwrap().view(), 5);
            Self {
                model,
                tokens,
                lookups,
                cosine,
                from_token,
                from_input,
                scheme,
            }
        }

        pub(crate) fn input(&self) -> Input<'_> {
            Input {
                model: &self.model,
                tokens: &self.tokens,
                lookups: &self.lookups,
                step: 3,
                cosine: Some(&self.cosine),
                nearest: Some((&self.from_token, &self.from_input)),
                scanning: false,
                scheme: self.scheme,
                overlay: self.scheme != PositionScheme::None,
                generating: None,
                theme: Theme::new(false),
            }
        }
    }

    #[test]
    fn the_copies_cosine_and_the_nearest_rows_with_positions_added() {
        let sentence = Sentence::new(PositionScheme::Learned);
        let pane = build(sentence.input(), 80);
        let height = u16::try_from(pane.height()).unwrap();
        insta::assert_snapshot!(screen(&pane, 80, height).join("\n"));
    }

    #[test]
    fn a_short_pane_lists_the_nearest_rows_in_a_few_lines() {
        let sentence = Sentence::new(PositionScheme::None);
        let pane = build(sentence.input(), 80);
        let lines = screen(&pane, 80, 14);
        let text = lines.join("\n");
        // The heat map keeps the current row (marked) and the finding about its copies.
        assert!(
            lines.iter().any(|line| line.starts_with("│▶ 3 the")),
            "{text}"
        );
        assert!(text.contains("same vector ('the' at 0"), "{text}");
        assert!(
            text.contains("Nearest rows to 'the' (exact cosine; random table: noise):"),
            "{text}"
        );
        assert!(text.contains("token vector: 0 the 1.0000"), "{text}");
    }

    #[test]
    fn before_the_vectors_the_pane_says_what_it_waits_for() {
        let sentence = Sentence::new(PositionScheme::None);
        let empty = Input {
            tokens: &[],
            lookups: &[],
            cosine: None,
            nearest: None,
            ..sentence.input()
        };
        let text = screen(&build(empty, 80), 80, 5).join("\n");
        assert!(text.contains("Type a sentence, then press"), "{text}");
        let scanning = Input {
            nearest: None,
            scanning: true,
            ..sentence.input()
        };
        let text = screen(&build(scanning, 80), 80, 30).join("\n");
        assert!(
            text.contains("Nearest rows: computing… (reading all 6 rows; keys still work)"),
            "{text}"
        );
    }
}
