//! The one-hot pane: the lookup as a matrix product. A vector of zeros with a 1 at the id, times
//! the weight matrix, is that row: every other row is multiplied by 0.

use ndarray::{Array1, ArrayView1};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use crate::action::{Action, Scope, key, key_name};
use crate::app::App;
use crate::core::tables::weights::EmbeddingModel;
use crate::core::text::vocabulary::Token;
use crate::hit_map::HitMap;
use crate::theme::{CURRENT_MARKER, Theme};
use crate::ui::pane::Pane;
use crate::ui::text::{TOKEN_LABEL_WIDTH, pad, wrapped};
use crate::ui::vector::{
    VALUE_WIDTH, WideStyle, is_wide, values_per_line, vector_lines, wide_legend, wide_line, window,
};

mod derive;
pub use derive::Memo;

/// Rows of the weight matrix shown around the looked-up one.
const ROWS_AROUND: usize = 5;
/// One-hot vectors with more entries than this are abbreviated, however wide the pane.
const FULL_ONE_HOT_LIMIT: usize = 32;
/// Zeros written out on each side of the 1 before the rest become `…`.
const ZEROS_SHOWN: usize = 4;

/// What the one-hot pane reads, made by [`input`].
pub(crate) struct Input<'a> {
    /// The model whose weight matrix the product runs over.
    pub(crate) model: &'a EmbeddingModel,
    /// The current token, if the sentence has one.
    pub(crate) token: Option<&'a Token>,
    /// The product one-hot(id) × W, once computed.
    pub(crate) product: Option<&'a Array1<f32>>,
    /// Whether the product is being computed.
    pub(crate) scanning: bool,
    /// How wide rows are drawn.
    pub(crate) wide_style: WideStyle,
    /// What stands in while the tables are being generated.
    pub(crate) generating: Option<Paragraph<'static>>,
    /// The styles in use.
    pub(crate) theme: Theme,
}

/// What the one-hot pane reads.
pub(crate) fn input(app: &App) -> Input<'_> {
    Input {
        model: app.model(),
        token: app.current_token(),
        product: app.views().one_hot.get(),
        scanning: app.scanning(),
        wide_style: app.wide_style(),
        generating: crate::ui::frame::generating(app),
        theme: app.theme(),
    }
}

/// The one-hot pane at a width: its lines built once, fitted to the rows it gets.
pub(crate) struct OneHot<'a> {
    model: &'a EmbeddingModel,
    generating: Option<Paragraph<'static>>,
    theme: Theme,
    content: Content,
}

/// What the pane shows.
enum Content {
    /// A sentence instead of a product: nothing typed, no row, or the row not read yet.
    Message(Vec<Line<'static>>),
    /// The product, written out.
    Product(Box<Product>),
}

/// The product's parts, in the order they are drawn; the matrix's rows are drawn to the room.
struct Product {
    id: usize,
    intro: Vec<Line<'static>>,
    one_hot: Line<'static>,
    pointer: Vec<Line<'static>>,
    header: Vec<Line<'static>>,
    legend: Vec<Line<'static>>,
    matrix: Matrix,
    result: Vec<Line<'static>>,
    check: Vec<Line<'static>>,
    cost: Vec<Line<'static>>,
}

/// The pane at a width, borders included.
pub(crate) fn build(input: Input<'_>, width: u16) -> OneHot<'_> {
    let content = content(&input, usize::from(width.saturating_sub(2)));
    OneHot {
        model: input.model,
        generating: input.generating,
        theme: input.theme,
        content,
    }
}

impl Pane for OneHot<'_> {
    fn height(&self) -> usize {
        2 + match &self.content {
            Content::Message(lines) => lines.len(),
            Content::Product(product) => product.lines(self.model, self.theme, usize::MAX).len(),
        }
    }

    /// Stacked under a tall matrix, the looked-up row, the product and the check stay whole:
    /// the check says the two are equal, so both are on screen with it.
    fn least_height(&self) -> usize {
        match &self.content {
            Content::Message(_) => 4.min(self.height()),
            Content::Product(product) => (2 + product.least()).min(self.height()),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, _hits: &mut HitMap) {
        let title = crate::ui::text::title_of(
            &["One-hot", "a lookup as a matrix product"],
            usize::from(area.width.saturating_sub(2)),
        );
        let block = crate::ui::frame::pane(title, false, self.theme);
        let inner = block.inner(area);
        block.render(area, buf);
        if let Some(message) = &self.generating {
            message.render(inner, buf);
            return;
        }
        let lines = match &self.content {
            Content::Message(lines) => lines.clone(),
            Content::Product(product) => {
                product.lines(self.model, self.theme, usize::from(inner.height))
            }
        };
        Paragraph::new(lines).render(inner, buf);
    }
}

/// The pane's lines at a width.
fn content(input: &Input, width: usize) -> Content {
    let Input {
        model,
        token,
        product,
        scanning,
        wide_style,
        theme,
        ..
    } = *input;
    let Some(token) = token else {
        return Content::Message(wrapped(
            &format!(
                "Type a sentence, then press {}: each token's lookup is shown as a product.",
                key_name(&Action::FocusExplorer, Scope::Input)
            ),
            width,
            theme.muted(),
        ));
    };
    let Some(id) = token.id else {
        let mut lines = wrapped(
            &format!(
                "'{}' has no row in the {} vocabulary: there is no index to put the 1 at, so no \
                 one-hot vector and nothing to multiply.",
                token.text,
                model.label()
            ),
            width,
            theme.warning(),
        );
        lines.extend(wrapped(
            &format!(
                "Step to another token, or press {} for another vocabulary.",
                key(&Action::CycleVocab)
            ),
            width,
            theme.muted(),
        ));
        return Content::Message(lines);
    };
    let (Some(product), Some(row)) = (product, model.lookup(id)) else {
        let text = if scanning {
            format!(
                "one-hot({id}) × W: computing… (reading all {} rows; keys still work)",
                model.rows()
            )
        } else {
            format!("Row {id} cannot be read yet.")
        };
        return Content::Message(wrapped(&text, width, theme.muted()));
    };
    let rows = model.rows();
    let intro = wrapped(
        &format!(
            "'{}' is id {id}: a one-hot vector of {rows} entries, all 0 but a 1 at index {id}.",
            token.text
        ),
        width,
        theme.muted(),
    );
    let [one_hot, pointer] = one_hot_lines(id, rows, width, theme);
    let pointer = vec![pointer];
    let matrix = Matrix::new(model, wide_style, width);
    let [header, legend] = matrix.header(model, theme);
    let result = matrix.result_lines(product.view(), theme);
    let (check, cost) = check_lines(model, id, product.view(), row.view(), width, theme);
    Content::Product(Box::new(Product {
        id,
        intro,
        one_hot,
        pointer,
        header,
        legend,
        matrix,
        result,
        check,
        cost,
    }))
}

impl Product {
    /// The fewest lines that bear the check out: the looked-up row, the product, the check.
    fn least(&self) -> usize {
        1 + self.result.len() + self.check.len()
    }

    /// The lines that fit in `height` rows.
    fn lines(&self, model: &EmbeddingModel, theme: Theme, height: usize) -> Vec<Line<'static>> {
        let rows = model.rows();
        let id = self.id;
        let matrix = &self.matrix;
        let result = self.result.clone();
        let check = self.check.clone();
        let one_hot = self.one_hot.clone();

        // A small matrix whole; else a few rows around the looked-up one, `⋮` for the rest.
        let natural = if rows <= ROWS_AROUND + 2 {
            rows
        } else {
            ROWS_AROUND
        };
        let natural_lines = if natural == rows { rows } else { natural + 2 };
        // When short of room, the words go first, then the matrix's neighbours: the one-hot
        // vector, the looked-up row, the product and the check stay.
        let mut optional = [
            self.intro.clone(),
            self.cost.clone(),
            self.pointer.clone(),
            self.legend.clone(),
            self.header.clone(),
        ];
        let kept = |optional: &[Vec<Line<'static>>]| optional.iter().map(Vec::len).sum::<usize>();
        let essential = 1 + result.len() + check.len();
        for drop in 0..optional.len() {
            if essential + kept(&optional) + natural_lines <= height {
                break;
            }
            optional[drop].clear();
        }
        let mut room = height.saturating_sub(essential + kept(&optional));
        // Shorter still, the one-hot line gives way to the looked-up row: the product and the
        // check are compared with that row.
        let one_hot = if room == 0 && height >= self.least() {
            room = 1;
            None
        } else {
            Some(one_hot)
        };
        let (shown_rows, gaps) = if room >= natural_lines {
            (natural, natural < rows)
        } else if room >= 3 {
            (room - 2, true)
        } else {
            (1, false)
        };
        let [intro, cost, pointer, legend, header] = optional;
        let mut lines = intro;
        lines.extend(one_hot);
        lines.extend(pointer);
        lines.extend(header);
        lines.extend(legend);
        lines.extend(matrix.row_lines(model, theme, id, shown_rows, gaps));
        lines.extend(result);
        lines.extend(check);
        lines.extend(cost);
        lines
    }
}

/// The one-hot vector, written out or abbreviated, and a pointer to its 1.
fn one_hot_lines(id: usize, rows: usize, width: usize, theme: Theme) -> [Line<'static>; 2] {
    let lead = format!("one-hot({id}) = [");
    let full = rows <= FULL_ONE_HOT_LIMIT && lead.width() + 2 * rows <= width;
    let zeros = |count: usize, before: bool| -> String {
        if full || count <= ZEROS_SHOWN {
            "0 ".repeat(count)
        } else if before {
            "0 0 … 0 ".to_owned()
        } else {
            "0 … 0 0 ".to_owned()
        }
    };
    let after = rows - 1 - id;
    let before_text = format!("{lead}{}", zeros(id, true));
    let after_text = zeros(after, false);
    let one_column = before_text.width();
    let mut spans = vec![Span::raw(before_text), Span::styled("1", theme.current())];
    spans.push(Span::raw(if after == 0 {
        "]".to_owned()
    } else {
        format!(" {}]", after_text.trim_end())
    }));
    let note = format!("↑ index {id}: {id} zeros before it, {after} after");
    let pointer = if one_column + note.width() <= width {
        format!("{}{note}", " ".repeat(one_column))
    } else {
        let note = format!("index {id} ↑");
        " ".repeat((one_column + 1).saturating_sub(note.width())) + &note
    };
    [Line::from(spans), Line::raw(pointer)]
}

/// How the rows of the weight matrix and the result are laid out at a width.
struct Matrix {
    id_width: usize,
    token_width: usize,
    /// Columns for a row's values.
    values: usize,
    wide: Option<WideStyle>,
}

impl Matrix {
    fn new(model: &EmbeddingModel, wide_style: WideStyle, width: usize) -> Self {
        let id_width = model.rows().saturating_sub(1).to_string().len();
        let token_width = if model.tokenizer().is_some() {
            model.widest_token().min(TOKEN_LABEL_WIDTH)
        } else {
            0
        };
        let mut matrix = Self {
            id_width,
            token_width,
            values: 0,
            wide: is_wide(model.dims()).then_some(wide_style),
        };
        matrix.values = width.saturating_sub(matrix.label_width());
        matrix
    }

    /// Marker, id, token and the one-hot entry ` × 0 `.
    fn label_width(&self) -> usize {
        2 + self.id_width
            + 1
            + if self.token_width > 0 {
                self.token_width + 1
            } else {
                0
            }
            + 4
    }

    /// What `× W` means, and the key to wide rows when they are strips or windows.
    fn header(&self, model: &EmbeddingModel, theme: Theme) -> [Vec<Line<'static>>; 2] {
        let header = vec![Line::styled(
            format!(
                "× W, the {}×{} weight matrix: each row times its one-hot entry",
                model.rows(),
                model.dims()
            ),
            theme.muted(),
        )];
        let legend = self
            .wide
            .map(|style| {
                Line::styled(
                    format!(
                        "{}{}",
                        " ".repeat(self.label_width()),
                        wide_legend(model.dims(), self.values, style)
                    ),
                    theme.muted(),
                )
            })
            .into_iter()
            .collect();
        [header, legend]
    }

    /// A vector's values on one line: a strip or window when wide, else as many as fit.
    fn values_line(&self, values: ArrayView1<f32>, theme: Theme) -> Vec<Span<'static>> {
        if let Some(style) = self.wide {
            return wide_line(values, self.values, style, theme);
        }
        let mut spans = vector_lines(values, self.values, theme)
            .into_iter()
            .next()
            .unwrap_or_default();
        if values.len() > values_per_line(self.values) {
            spans.push(Span::raw(" …"));
        }
        spans
    }

    /// `count` rows around row `id`, row `id` marked and multiplied by 1, the others muted;
    /// with `gaps`, a `⋮` line for the rows above and below them.
    fn row_lines(
        &self,
        model: &EmbeddingModel,
        theme: Theme,
        id: usize,
        count: usize,
        gaps: bool,
    ) -> Vec<Line<'static>> {
        let shown = window(model.rows(), count, id);
        let mut lines = Vec::new();
        let gap = |rows: usize| {
            Line::styled(
                format!(
                    "{}⋮ {rows} more {} × 0",
                    " ".repeat(2 + self.id_width.saturating_sub(1)),
                    if rows == 1 { "row" } else { "rows" }
                ),
                theme.muted(),
            )
        };
        if gaps && shown.start > 0 {
            lines.push(gap(shown.start));
        }
        for row in shown.clone() {
            let Some(values) = model.lookup(row) else {
                continue;
            };
            let looked_up = row == id;
            let marker = if looked_up { CURRENT_MARKER } else { " " };
            let mut label = format!("{marker} {row:>w$} ", w = self.id_width);
            if self.token_width > 0 {
                label.push_str(&pad(
                    &model.token_text(row).unwrap_or_default(),
                    self.token_width,
                ));
                label.push(' ');
            }
            label.push_str(if looked_up { "× 1 " } else { "× 0 " });
            let spans = if looked_up {
                let mut spans = vec![Span::styled(label, theme.current())];
                spans.extend(self.values_line(values.view(), theme));
                spans
            } else {
                let mut spans = vec![Span::styled(label, theme.muted())];
                spans.extend(
                    self.values_line(values.view(), theme)
                        .into_iter()
                        .map(|span| span.style(theme.muted())),
                );
                spans
            };
            lines.push(Line::from(spans));
        }
        if gaps && shown.end < model.rows() {
            lines.push(gap(model.rows() - shown.end));
        }
        lines
    }

    /// `=` and the product, under the rows' values; wrapped when it is not wide.
    fn result_lines(&self, product: ArrayView1<f32>, theme: Theme) -> Vec<Line<'static>> {
        let sum = if self.label_width() > "= one-hot × W".width() {
            "= one-hot × W"
        } else {
            "="
        };
        let lead = pad(sum, self.label_width());
        let parts = match self.wide {
            Some(style) => vec![wide_line(product, self.values, style, theme)],
            None => vector_lines(product, self.values.max(VALUE_WIDTH), theme),
        };
        parts
            .into_iter()
            .enumerate()
            .map(|(part, values)| {
                let lead = if part == 0 {
                    Span::styled(lead.clone(), theme.title())
                } else {
                    Span::raw(" ".repeat(lead.width()))
                };
                let mut spans = vec![lead];
                spans.extend(values);
                Line::from(spans)
            })
            .collect()
    }
}

/// Whether the product is row `id` bit for bit, and what the product cost.
fn check_lines(
    model: &EmbeddingModel,
    id: usize,
    product: ArrayView1<f32>,
    row: ArrayView1<f32>,
    width: usize,
    theme: Theme,
) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
    let differing = product
        .iter()
        .zip(row.iter())
        .filter(|(a, b)| a.to_bits() != b.to_bits())
        .count()
        + product.len().abs_diff(row.len());
    let check = if differing == 0 {
        wrapped(
            &format!(
                "✓ one-hot({id}) × W = row {id}, bit for bit: a lookup is this product without \
                 multiplying by all the zeros."
            ),
            width,
            theme.finding(),
        )
    } else {
        wrapped(
            &format!(
                "✗ one-hot({id}) × W differs from row {id} in {differing} of {} dims: another row \
                 holds a NaN or infinity (0 × ∞ is NaN), or row {id} holds −0.0 (0 + −0.0 is \
                 +0.0). The lookup copies the row as it is.",
                row.len()
            ),
            width,
            theme.warning(),
        )
    };
    let (rows, dims) = (model.rows(), model.dims());
    let cost = wrapped(
        &format!(
            "The product takes {} × {} = {} multiplications, {} of them by 0; the lookup copies {} \
             numbers.",
            grouped(rows),
            grouped(dims),
            grouped(rows * dims),
            grouped((rows - 1) * dims),
            grouped(dims)
        ),
        width,
        theme.muted(),
    );
    (check, cost)
}

/// A count with thousands separated by commas: `12,865,792`.
fn grouped(count: usize) -> String {
    let digits = count.to_string();
    let mut text = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::analysis::similarity::one_hot_product;
    use crate::core::tables::weights::DEFAULT_SEED;
    use crate::core::text::vocabulary::VocabKind;
    use crate::ui::pane::screen;

    /// The pane for the token at `step` of `sentence` in the built-in `kind` vocabulary, its
    /// product computed as the explorer computes it.
    fn pane_for(kind: VocabKind, sentence: &str, step: usize, width: u16, height: u16) -> String {
        pane_at(kind, sentence, step, width, |_| height)
    }

    /// As [`pane_for`], at the height `height` chooses for the pane built.
    fn pane_at(
        kind: VocabKind,
        sentence: &str,
        step: usize,
        width: u16,
        height: impl Fn(&OneHot) -> u16,
    ) -> String {
        let model = EmbeddingModel::builtin(kind, DEFAULT_SEED);
        let tokens = model.tokenize(sentence).unwrap();
        let token = tokens.get(step);
        let product = token
            .and_then(|token| token.id)
            .and_then(|id| one_hot_product(model.token_table(), id));
        let input = Input {
            model: &model,
            token,
            product: product.as_ref(),
            scanning: false,
            wide_style: crate::ui::vector::STRIPS,
            generating: None,
            theme: Theme::new(false),
        };
        let pane = build(input, width);
        screen(&pane, width, height(&pane)).join("\n")
    }

    #[test]
    fn the_product_is_the_row_bit_for_bit() {
        let text = pane_for(VocabKind::Seed, "fox bites the fox", 3, 70, 20);
        assert!(text.contains("one-hot(2) = [0 0 1 0 0 0]"), "{text}");
        assert!(
            text.contains("▶ 2 fox   × 1   1.2753 -0.2010 -0.1606"),
            "{text}"
        );
        assert!(
            text.contains("one-hot(2) × W = row 2, bit for bit"),
            "{text}"
        );
        assert!(text.contains("The product takes 6 × 3 = 18"), "{text}");
    }

    #[test]
    fn short_of_rows_the_words_go_before_the_looked_up_row() {
        // Seven rows inside the borders: the intro and the cost give way, the row and the
        // check stay.
        let text = pane_for(VocabKind::Words, "fox bites the fox", 3, 70, 9);
        assert!(!text.contains("a one-hot vector of"), "{text}");
        assert!(!text.contains("The product takes"), "{text}");
        assert!(text.contains("× 1 "), "{text}");
        assert!(text.contains("bit for bit"), "{text}");
    }

    #[test]
    fn at_its_least_the_pane_keeps_the_row_the_product_and_the_check() {
        // Stacked under a tall matrix (GPT-2's lesson at 80×24), the pane gets its least
        // height: the looked-up row, the product and the whole check.
        let text = pane_at(VocabKind::Words, "fox bites the fox", 3, 60, |pane| {
            u16::try_from(pane.least_height()).unwrap()
        });
        assert!(text.contains("× 1"), "{text}");
        assert!(text.contains("= one-hot × W"), "{text}");
        assert!(text.contains("row 706, bit for bit"), "{text}");
        assert!(text.contains("multiplying by all the zeros."), "{text}");
        assert!(
            !text.contains("one-hot(706) = ["),
            "the one-hot line gives way: {text}"
        );
    }

    #[test]
    fn a_word_without_a_row_has_no_one_hot() {
        let text = pane_for(VocabKind::Seed, "the cat bites", 1, 60, 10);
        assert!(text.contains("'cat' has no row in the seed"), "{text}");
        let empty = pane_for(VocabKind::Seed, "", 0, 60, 6);
        assert!(empty.contains("Type a sentence, then press"), "{empty}");
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(grouped(18), "18");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(12_865_792), "12,865,792");
    }

    #[test]
    fn small_one_hots_are_written_out_and_big_ones_abbreviated() {
        let theme = Theme::new(false);
        let small = one_hot_lines(2, 6, 80, theme);
        assert_eq!(small[0].to_string(), "one-hot(2) = [0 0 1 0 0 0]");
        assert_eq!(
            small[1].to_string().find('↑'),
            small[0].to_string().find('1')
        );
        let big = one_hot_lines(1234, 2035, 80, theme);
        assert_eq!(big[0].to_string(), "one-hot(1234) = [0 0 … 0 1 0 … 0 0]");
        assert_eq!(
            one_hot_lines(0, 2035, 80, theme)[0].to_string(),
            "one-hot(0) = [1 0 … 0 0]"
        );
        assert_eq!(
            one_hot_lines(2034, 2035, 80, theme)[0].to_string(),
            "one-hot(2034) = [0 0 … 0 1]"
        );
    }
}
