//! Compare mode's outputs table: each word's attention output in A and in B on one line, and
//! Δ, the largest difference between their numbers, so the verdict below the table can be
//! checked number by number. The seeded head's outputs, or a model's own layer 0 (all heads
//! side by side, or one head).

use ndarray::ArrayView1;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::text::{display_width, fit, pad, pad_left};
use super::vector::{VALUE_WIDTH, WideStyle, WideView, format_value, typical_size, wide_line};
use crate::core::analysis::attention::Mask;
use crate::core::analysis::compare::{Comparison, OutputRow, output_rows};
use crate::core::explain::layer0::SentencePair;
use crate::core::explain::verdict::VectorMatch;
use crate::theme::Theme;
use crate::view_state::HeadChoice;

/// Columns of a value with two decimals and the space before it: ` -0.12`.
const SHORT_VALUE_WIDTH: usize = 6;
/// Columns of the Δ column with its words: `0 bit for bit`.
const DELTA_WIDTH: usize = 13;
/// Columns of the Δ column with the number alone: `0.000042`.
const SHORT_DELTA_WIDTH: usize = 8;
/// The widest a token's text may be in the table.
const TEXT_WIDTH_LIMIT: usize = 7;

/// What the outputs table reads, made in `ui.rs`.
pub(super) struct Input<'a> {
    /// The model's own layer 0, when the model has one: it stands in for the seeded head.
    pub(super) layer0: Option<Layer0Outputs<'a>>,
    /// The seeded head's mask.
    pub(super) mask: Mask,
    /// The seeded head's comparison of both sentences, or why there is none.
    pub(super) comparison: Result<&'a Comparison, &'a str>,
    /// How wide vectors are drawn: a strip, or a window of values.
    pub(super) wide_style: WideStyle,
    /// The styles in use.
    pub(super) theme: Theme,
}

/// The model's own layer 0 on both sentences.
pub(super) struct Layer0Outputs<'a> {
    /// Its heads.
    pub(super) heads: usize,
    /// All heads' outputs, or one head's.
    pub(super) choice: HeadChoice,
    /// Its run on both sentences: `None` while it is computed, or why it cannot run.
    pub(super) pair: Option<Result<&'a SentencePair, &'a str>>,
}

/// The outputs table, built once a frame: what it shows, and its rows or why there are none.
pub(super) struct OutputsTable<'a> {
    /// Whose outputs these are, for the pane's title: `seeded head`, `layer 0, head 1 of 4`.
    pub(super) source: String,
    body: Result<Table<'a>, Line<'static>>,
    wide_style: WideStyle,
    theme: Theme,
}

/// Both sentences' outputs and the rows that pair them.
struct Table<'a> {
    texts: [Vec<String>; 2],
    outputs: [Vec<ArrayView1<'a, f32>>; 2],
    rows: Vec<OutputRow>,
    /// The words the verdict below the table names, by their index in A, first named first:
    /// when not every row fits, theirs stay.
    named: Vec<usize>,
    /// The outputs' typical magnitude, for strips.
    scale: f32,
}

/// How the numbers fit a width: exact values, fewer digits, a window, or a strip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Values {
    /// `count` values from dimension `first`, each with `decimals` decimals.
    Exact {
        decimals: usize,
        first: usize,
        count: usize,
    },
    /// One cell a dimension, or the mean of a group of dimensions a cell.
    Strip { cells: usize },
}

/// Where the columns go at a width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    text: usize,
    position: usize,
    /// Columns a vector takes.
    vector: usize,
    values: Values,
    /// Whether the Δ column has room for its words (`0 bit for bit`).
    long_delta: bool,
}

/// The outputs table for the comparison compare mode shows.
pub(super) fn build<'a>(input: &Input<'a>) -> OutputsTable<'a> {
    let Input {
        ref layer0,
        mask,
        comparison,
        wide_style,
        theme,
    } = *input;
    let table = |source, body| OutputsTable {
        source,
        body,
        wide_style,
        theme,
    };
    if let Some(Layer0Outputs {
        heads,
        choice,
        pair,
    }) = *layer0
    {
        let source = match choice {
            HeadChoice::AllHeads => format!("layer 0, all {heads} heads"),
            HeadChoice::Head(head) => format!("layer 0, head {head} of {heads}"),
        };
        let body = match pair {
            None => Err(Line::styled(
                "The model's own layer 0: computing both sentences…",
                theme.muted(),
            )),
            Some(Err(why)) => Err(Line::styled(
                format!("The model's own layer 0 cannot run on these sentences: {why}."),
                theme.warning(),
            )),
            Some(Ok(real)) => {
                let outputs = real.runs.each_ref().map(|run| match choice {
                    HeadChoice::AllHeads => run.outputs.rows().into_iter().collect(),
                    HeadChoice::Head(head) => run.heads[head].context.rows().into_iter().collect(),
                });
                Ok(Table::new(
                    real.words.clone(),
                    outputs,
                    &real.judgement.pairs,
                    real.judgement.named_word().into_iter().collect(),
                ))
            }
        };
        return table(source, body);
    }
    let source = match mask {
        Mask::None => "seeded head",
        Mask::Causal => "causal seeded head",
    }
    .to_owned();
    let body = match comparison {
        Ok(comparison) => {
            let texts = comparison.sentences.each_ref().map(|sentence| {
                sentence
                    .lookups
                    .iter()
                    .map(|lookup| lookup.token.text.clone())
                    .collect()
            });
            let outputs = comparison.sentences.each_ref().map(|sentence| {
                sentence
                    .attention
                    .outputs
                    .iter()
                    .map(|o| o.view())
                    .collect()
            });
            Ok(Table::new(
                texts,
                outputs,
                &comparison.links,
                comparison.verdicts.named_words(),
            ))
        }
        Err(why) => Err(Line::styled(why.to_owned(), theme.warning())),
    };
    table(source, body)
}

impl<'a> Table<'a> {
    fn new(
        texts: [Vec<String>; 2],
        outputs: [Vec<ArrayView1<'a, f32>>; 2],
        pairs: &[(usize, usize)],
        named: Vec<usize>,
    ) -> Self {
        let rows = output_rows([&texts[0], &texts[1]], [&outputs[0], &outputs[1]], pairs);
        let scale = typical_size(
            outputs
                .iter()
                .flatten()
                .flat_map(|output| output.iter().copied()),
        );
        Self {
            texts,
            outputs,
            rows,
            named,
            scale,
        }
    }

    /// The `count` rows drawn when not all fit, in table order: those of the words the
    /// verdict names first (a sentence never names a row left out), then the earliest.
    fn kept_rows(&self, count: usize) -> impl Iterator<Item = &OutputRow> {
        let named = self
            .named
            .iter()
            .filter_map(|&word| self.rows.iter().position(|row| row.a == Some(word)));
        let mut kept: Vec<usize> = named.take(count).collect();
        for index in 0..self.rows.len() {
            if kept.len() >= count {
                break;
            }
            if !kept.contains(&index) {
                kept.push(index);
            }
        }
        kept.sort_unstable();
        kept.into_iter().map(|index| &self.rows[index])
    }

    fn dims(&self) -> usize {
        self.outputs
            .iter()
            .flatten()
            .map(ndarray::ArrayBase::len)
            .max()
            .unwrap_or(0)
    }

    fn layout(&self, width: usize, view: WideView, first_dim: usize) -> Layout {
        let text = self
            .texts
            .iter()
            .flatten()
            .map(|text| display_width(text))
            .max()
            .unwrap_or(0)
            .clamp(3, TEXT_WIDTH_LIMIT);
        let longest = self.texts.iter().map(Vec::len).max().unwrap_or(1);
        let position = longest.saturating_sub(1).to_string().len();
        layout(width, self.dims(), text, position, view, first_dim)
    }
}

/// Columns of a row besides its two vectors and Δ: marker and space, text and space, each
/// sentence's position, and two spaces before B and before Δ.
fn fixed_columns(text: usize, position: usize) -> usize {
    2 + text + 1 + position + 2 + position + 2
}

/// How the table's columns fit `width`: every value with four decimals when they fit (Δ with
/// its words if there is room); else every value with two; else, for vectors this wide, a
/// window of exact values (`view` values) or a strip of the whole vector.
fn layout(
    width: usize,
    dims: usize,
    text: usize,
    position: usize,
    view: WideView,
    first_dim: usize,
) -> Layout {
    let fixed = fixed_columns(text, position);
    let room = width.saturating_sub(fixed + SHORT_DELTA_WIDTH) / 2;
    let make = |vector, values, long_delta| Layout {
        text,
        position,
        vector,
        values,
        long_delta,
    };
    let all = |decimals| Values::Exact {
        decimals,
        first: 0,
        count: dims,
    };
    let exact = dims * VALUE_WIDTH;
    let values = if exact <= room {
        all(4)
    } else if dims * SHORT_VALUE_WIDTH <= room {
        all(2)
    } else {
        match view {
            WideView::Values => {
                let count = (room / VALUE_WIDTH).max(1);
                let first = first_dim.min(dims.saturating_sub(count));
                Values::Exact {
                    decimals: 4,
                    first,
                    count,
                }
            }
            // The strip's cells follow a space.
            WideView::Strip => Values::Strip {
                cells: dims.min(room.saturating_sub(1)).max(1),
            },
        }
    };
    let needed = match values {
        Values::Exact {
            decimals, count, ..
        } => {
            count
                * if decimals == 4 {
                    VALUE_WIDTH
                } else {
                    SHORT_VALUE_WIDTH
                }
        }
        Values::Strip { cells } => cells + 1,
    };
    // As wide as its header where there is room, so the header is never cut.
    let vector = needed.max(display_width(&column_title("A", values, dims)).min(room));
    let long_delta = fixed + 2 * vector + DELTA_WIDTH <= width;
    make(vector, values, long_delta)
}

/// A vector column's header: ` output in A`, and how its numbers are shown when not all are
/// there with four decimals.
fn column_title(name: &str, values: Values, dims: usize) -> String {
    let how = match values {
        Values::Exact {
            decimals: 4, count, ..
        } if count == dims => String::new(),
        Values::Exact { decimals: 2, .. } => " (2 decimals)".to_owned(),
        Values::Exact { first, count, .. } => {
            format!(" d{first}–d{} of {dims}", first + count - 1)
        }
        Values::Strip { .. } => " (strip)".to_owned(),
    };
    format!(" output in {name}{how}")
}

impl OutputsTable<'_> {
    /// The table's lines at `width`: a header, then one line a word. Rows past `room` lines
    /// give way to a last line that says how many are left out.
    pub(super) fn lines(&self, width: u16, room: usize) -> Vec<Line<'static>> {
        let theme = self.theme;
        let table = match &self.body {
            Ok(table) => table,
            Err(message) => return vec![message.clone()],
        };
        let width = usize::from(width);
        let style = self.wide_style;
        let layout = table.layout(width, style.view, style.first_dim);
        let mut lines = vec![header(&layout, table.dims(), width, theme)];
        let room = room.max(2);
        let fits = table.rows.len() < room;
        let shown = if fits { table.rows.len() } else { room - 2 };
        for row in table.kept_rows(shown) {
            lines.push(row_line(table, row, &layout, theme));
        }
        if !fits {
            let left_out = table.rows.len() - shown;
            lines.push(Line::styled(
                fit(
                    &format!("▼ {left_out} more words: a taller terminal shows them"),
                    width,
                ),
                theme.muted(),
            ));
        }
        lines
    }

    /// Lines the table would like: a header and a line a word, or the message.
    pub(super) fn height(&self) -> usize {
        match &self.body {
            Ok(table) => table.rows.len() + 1,
            Err(_) => 1,
        }
    }

    /// What Δ and its 0 mean, for the findings.
    pub(super) fn legend() -> &'static str {
        "Δ: the largest difference between a word's numbers in A and in B; 0 bit for bit: \
         every number the same."
    }
}

fn header(layout: &Layout, dims: usize, width: usize, theme: Theme) -> Line<'static> {
    let column = |name: &str| pad(&column_title(name, layout.values, dims), layout.vector);
    let text = format!(
        "  {} {}{}  {}{}  Δ",
        pad("token", layout.text),
        pad_left("A", layout.position),
        column("A"),
        pad_left("B", layout.position),
        column("B"),
    );
    Line::styled(fit(&text, width), theme.muted())
}

fn row_line(table: &Table, row: &OutputRow, layout: &Layout, theme: Theme) -> Line<'static> {
    let (marker, style) = match row.difference {
        Some(VectorMatch::Identical) => ("=", Style::new()),
        _ => ("≠", theme.used()),
    };
    let mut spans = vec![Span::styled(
        format!("{marker} {} ", pad(&row.text, layout.text)),
        style,
    )];
    for (side, index) in [row.a, row.b].into_iter().enumerate() {
        if side == 1 {
            spans.push(Span::raw("  "));
        }
        let (position, vector) = match index {
            Some(index) => (
                index.to_string(),
                vector_spans(table.outputs[side][index], layout, table.scale, theme),
            ),
            None => (
                String::new(),
                vec![Span::styled(
                    pad(
                        if side == 0 { " not in A" } else { " not in B" },
                        layout.vector,
                    ),
                    theme.muted(),
                )],
            ),
        };
        spans.push(Span::styled(
            pad_left(&position, layout.position),
            theme.muted(),
        ));
        let used: usize = vector.iter().map(Span::width).sum();
        spans.extend(vector);
        spans.push(Span::raw(" ".repeat(layout.vector.saturating_sub(used))));
    }
    spans.push(Span::raw("  "));
    if let Some(difference) = row.difference {
        let delta_style = if difference.is_identical() {
            Style::new()
        } else {
            theme.used()
        };
        spans.push(Span::styled(
            difference.delta(!layout.long_delta),
            delta_style,
        ));
    }
    Line::from(spans)
}

fn vector_spans(
    vector: ArrayView1<f32>,
    layout: &Layout,
    scale: f32,
    theme: Theme,
) -> Vec<Span<'static>> {
    match layout.values {
        Values::Exact {
            decimals,
            first,
            count,
        } => vector
            .iter()
            .skip(first)
            .take(count)
            .map(|&value| {
                let text = if decimals == 4 {
                    format_value(value)
                } else {
                    format!("{value:>SHORT_VALUE_WIDTH$.2}")
                };
                Span::styled(text, theme.value(value / scale))
            })
            .collect(),
        Values::Strip { cells } => {
            let style = WideStyle {
                view: WideView::Strip,
                first_dim: 0,
                scale,
            };
            let mut spans = vec![Span::raw(" ")];
            spans.extend(wide_line(vector, cells, style, theme));
            spans
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::analysis::compare::{DEFAULT_PAIR_SEED, compare};
    use crate::core::tables::positional::PositionScheme;
    use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel};
    use crate::core::text::vocabulary::VocabKind;
    use crate::ui::pane::texts;

    fn input<'a>(comparison: Result<&'a Comparison, &'a str>) -> Input<'a> {
        Input {
            layer0: None,
            mask: Mask::None,
            comparison,
            wide_style: crate::ui::vector::STRIPS,
            theme: Theme::new(false),
        }
    }

    /// The article's pair on the seed vocabulary, compared with `scheme` by the seeded head.
    fn seeded(scheme: PositionScheme) -> Comparison {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let (a, b) = DEFAULT_PAIR_SEED;
        compare(&model, a, b, scheme, Mask::None, DEFAULT_SEED).unwrap()
    }

    #[test]
    fn each_word_of_a_beside_its_twin_in_b_with_their_difference() {
        let comparison = seeded(PositionScheme::Sinusoidal);
        let table = build(&input(Ok(&comparison)));
        assert_eq!(table.source, "seeded head");
        assert_eq!(table.height(), 4);
        insta::assert_snapshot!(texts(&table.lines(78, 10)).join("\n"));
        // Two rows of room: the header and a line that counts the words left out.
        let short = texts(&table.lines(78, 2));
        assert_eq!(short.len(), 2, "{short:?}");
        assert_eq!(short[1], "▼ 3 more words: a taller terminal shows them");
    }

    #[test]
    fn a_short_table_keeps_the_row_its_verdict_names() {
        let comparison = seeded(PositionScheme::Learned);
        let named = comparison.verdicts.named_words();
        let word = &comparison.sentences[0].lookups[named[0]].token.text;
        assert!(
            comparison
                .verdicts
                .attention_sentence()
                .contains(&format!("'{word}'")),
            "{word}"
        );
        // 'man', A's last word, differs most: with room for one word it is the one shown.
        assert_eq!(word, "man");
        let short = texts(&build(&input(Ok(&comparison))).lines(78, 3));
        assert_eq!(short.len(), 3, "{short:?}");
        assert!(short[1].starts_with(&format!("≠ {word}")), "{short:?}");
        assert_eq!(short[2], "▼ 2 more words: a taller terminal shows them");
    }

    #[test]
    fn the_model_s_own_layer_says_it_is_computing_or_why_it_cannot_run() {
        let computing = Input {
            layer0: Some(Layer0Outputs {
                heads: 4,
                choice: HeadChoice::Head(1),
                pair: None,
            }),
            ..input(Err(""))
        };
        let table = build(&computing);
        assert_eq!(table.source, "layer 0, head 1 of 4");
        assert_eq!(
            texts(&table.lines(78, 10)),
            ["The model's own layer 0: computing both sentences…"]
        );
        let refused = Input {
            layer0: Some(Layer0Outputs {
                heads: 4,
                choice: HeadChoice::AllHeads,
                pair: Some(Err("a token has no row")),
            }),
            ..input(Err(""))
        };
        let table = build(&refused);
        assert_eq!(table.source, "layer 0, all 4 heads");
        assert_eq!(
            texts(&table.lines(78, 10)),
            ["The model's own layer 0 cannot run on these sentences: a token has no row."]
        );
    }

    #[test]
    fn three_numbers_fit_with_four_decimals_and_delta_in_words_at_80_columns() {
        // The seed vocabulary at 80×24: 78 columns inside the pane, 'bites' the longest word.
        let found = layout(78, 3, 5, 1, WideView::Strip, 0);
        assert_eq!(
            found.values,
            Values::Exact {
                decimals: 4,
                first: 0,
                count: 3
            }
        );
        assert!(found.long_delta);
        let total = fixed_columns(5, 1) + 2 * found.vector + DELTA_WIDTH;
        assert!(total <= 78, "{total}");
    }

    #[test]
    fn fewer_digits_then_a_strip_or_a_window_when_numbers_do_not_fit() {
        // A model head of four numbers at 80 columns: two decimals.
        let head = layout(78, 4, 5, 1, WideView::Strip, 0);
        assert_eq!(
            head.values,
            Values::Exact {
                decimals: 2,
                first: 0,
                count: 4
            }
        );
        // Its header is the widest thing in its column; Δ still has room for its words.
        assert_eq!(head.vector, " output in A (2 decimals)".len());
        assert!(head.long_delta);
        // Sixteen numbers: a strip of one cell each, or a window of exact values.
        let strip = layout(78, 16, 5, 1, WideView::Strip, 0);
        assert_eq!(strip.values, Values::Strip { cells: 16 });
        assert!(strip.vector > 16 && strip.long_delta, "{strip:?}");
        let window = layout(78, 16, 5, 1, WideView::Values, 8);
        assert_eq!(
            window.values,
            Values::Exact {
                decimals: 4,
                first: 8,
                count: 3
            }
        );
        // The window never runs past the last dimension.
        let end = layout(78, 16, 5, 1, WideView::Values, 15);
        assert_eq!(
            end.values,
            Values::Exact {
                decimals: 4,
                first: 13,
                count: 3
            }
        );
        // 768 numbers in the room there is: one cell a group of dimensions.
        assert!(matches!(
            layout(78, 768, 5, 1, WideView::Strip, 0).values,
            Values::Strip { cells } if cells < 768
        ));
    }
}
