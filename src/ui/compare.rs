//! Compare mode: two word orders side by side, and whether the model can tell them apart.

use ndarray::{Array1, ArrayView1};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::vector::{format_value, is_wide, pad, values_per_line, wide_line};
use crate::app::App;
use crate::core::compare::{ComparedSentence, Comparison};
use crate::core::weights::TokenLookup;
use crate::theme::Theme;

/// Columns of a token's label: marker, position, text, id, partner.
const LABEL_WIDTH: usize = 27;
/// Lines of findings below the two columns.
const SUMMARY_LINES: usize = 9;

/// The rows the pane would like: both sentences' tokens, the findings, borders.
pub(super) fn natural_height(app: &App, _width: u16) -> usize {
    let tokens = app
        .compare()
        .and_then(|_| app.comparison().ok())
        .map_or(3, |comparison| {
            comparison
                .sentences
                .iter()
                .map(|sentence| sentence.lookups.len())
                .max()
                .unwrap_or(0)
        });
    tokens + SUMMARY_LINES + 4
}

pub(super) fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = app.theme();
    if app.compare().is_none() {
        return;
    }
    let mask = match app.mask() {
        crate::core::attention::Mask::None => "unmasked attention",
        crate::core::attention::Mask::Causal => "causal attention",
    };
    let title = format!(" Compare · {} · {mask} · c leaves ", positions_name(app));
    let block = super::pane(title, false, theme);
    let inner = block.inner(area);
    block.render(area, buf);
    let comparison = match app.comparison() {
        Ok(comparison) => comparison,
        Err(message) => {
            let message = if message.is_empty() {
                "Type two sentences to compare (i edits A, I edits B)."
            } else {
                message
            };
            Paragraph::new(Line::styled(message.to_owned(), theme.warning()))
                .wrap(Wrap { trim: true })
                .render(inner, buf);
            return;
        }
    };
    let rows = comparison
        .sentences
        .iter()
        .map(|sentence| sentence.lookups.len())
        .max()
        .unwrap_or(0);
    // A long sentence's rows must not push the findings (and what was left out) off screen.
    let summary_room = u16::try_from(SUMMARY_LINES)
        .unwrap_or(u16::MAX)
        .min(inner.height / 2);
    let columns_height = u16::try_from(rows + 1)
        .unwrap_or(u16::MAX)
        .min(inner.height.saturating_sub(summary_room));
    let [columns, summary] = inner.layout(&Layout::vertical([
        Constraint::Length(columns_height),
        Constraint::Fill(1),
    ]));
    let [left, right] = columns.layout(&Layout::horizontal([Constraint::Fill(1); 2]));
    for (index, column) in [left, right].into_iter().enumerate() {
        Paragraph::new(sentence_lines(app, comparison, index, column.width)).render(column, buf);
    }
    Paragraph::new(summary_lines(app, comparison))
        .wrap(Wrap { trim: true })
        .render(summary, buf);
}

fn positions_name(app: &App) -> String {
    match app.active_scheme() {
        crate::core::positional::PositionScheme::None => "no positions".to_owned(),
        scheme => format!("{scheme} positions"),
    }
}

/// One sentence as a column: a header, then each token with its vector and its partner.
fn sentence_lines(
    app: &App,
    comparison: &Comparison,
    index: usize,
    width: u16,
) -> Vec<Line<'static>> {
    let theme = app.theme();
    let sentence = &comparison.sentences[index];
    let name = if index == 0 { "A" } else { "B" };
    let other = if index == 0 { "B" } else { "A" };
    let mut header = vec![Span::styled(format!("{name}: "), theme.title())];
    if sentence.left_out() > 0 {
        header.push(Span::styled(
            format!(
                "first {} of {} tokens · ",
                sentence.lookups.len(),
                sentence.token_count
            ),
            theme.warning(),
        ));
    }
    // The header shows one line of the sentence; a pasted book needs no more than that.
    let shown: String = sentence.text.chars().take(usize::from(width)).collect();
    header.push(Span::styled(shown, theme.title()));
    let mut lines = vec![Line::from(header)];
    let values = usize::from(width).saturating_sub(LABEL_WIDTH + 1);
    for (position, lookup) in sentence.lookups.iter().enumerate() {
        let partner = comparison.links.iter().find_map(|&(a, b)| match index {
            0 if a == position => Some(b),
            1 if b == position => Some(a),
            _ => None,
        });
        let (marker, style) = match partner {
            Some(_) => ("=", theme.used()),
            None => ("≠", theme.warning()),
        };
        let link = partner.map_or_else(|| format!("no {other}"), |p| format!("{other}{p}"));
        let id = lookup
            .token
            .id
            .map_or_else(|| "#?".to_owned(), |id| format!("#{id}"));
        let label = format!(
            "{marker} {:>2} {} {} ",
            lookup.token.position,
            pad(&lookup.token.text, 7),
            pad(&id, 7)
        );
        let mut spans = vec![Span::styled(label, style)];
        spans.push(Span::styled(format!("{} ", pad(&link, 4)), theme.muted()));
        if let Some(vector) = lookup.input_vector.as_ref() {
            spans.extend(vector_spans(app, vector.view(), values, theme));
        }
        lines.push(Line::from(spans));
    }
    lines
}

fn vector_spans(
    app: &App,
    vector: ArrayView1<f32>,
    width: usize,
    theme: Theme,
) -> Vec<Span<'static>> {
    if is_wide(vector.len()) || vector.len() > values_per_line(width) {
        let style = app.wide_style();
        let strip = super::vector::WideStyle {
            view: super::vector::WideView::Strip,
            ..style
        };
        return wide_line(vector, width, strip, theme);
    }
    vector
        .iter()
        .map(|&value| Span::styled(format_value(value), theme.value(value)))
        .collect()
}

/// The findings: same set or not, the mean, attention's outputs, and sub-word surprises.
fn summary_lines(app: &App, comparison: &Comparison) -> Vec<Line<'static>> {
    let theme = app.theme();
    let [a, b] = &comparison.sentences;
    let mut lines = Vec::new();
    if let Some(note) = comparison.left_out_note() {
        lines.push(Line::styled(note, theme.warning()));
    }
    let (badge, verdict) = if comparison.same_token_vectors {
        (
            " = SAME SET OF TOKEN VECTORS ",
            "Every word brings the same vector in both orders: the layer hands the model the same set, only arranged differently.",
        )
    } else {
        (
            " ≠ DIFFERENT TOKEN VECTORS ",
            "The two sentences do not bring the same vectors: some word was looked up under another id.",
        )
    };
    lines.push(Line::from(vec![
        Span::styled(badge, theme.current()),
        Span::raw(" "),
        Span::raw(verdict),
    ]));
    let mean = if comparison.same_mean_vector {
        Span::styled("identical", theme.finding())
    } else {
        Span::styled("different", theme.warning())
    };
    lines.push(Line::from(vec![
        Span::raw("Mean token vector (a summary that ignores order): A and B are "),
        mean,
        Span::raw(format!(" ({})", preview(a.mean_token_vector.view()))),
    ]));
    lines.extend(attention_lines(app, comparison, a, b));
    for difference in &comparison.id_differences {
        lines.push(Line::styled(difference.clone(), theme.warning()));
    }
    lines
}

/// What attention makes of each word in both orders: the same output, or not.
fn attention_lines(
    app: &App,
    comparison: &Comparison,
    a: &ComparedSentence,
    b: &ComparedSentence,
) -> Vec<Line<'static>> {
    let theme = app.theme();
    let mut same = 0;
    let mut differing: Vec<(String, f64)> = Vec::new();
    for &(i, j) in &comparison.links {
        let (Some(left), Some(right)) = (a.attention.outputs.get(i), b.attention.outputs.get(j))
        else {
            continue;
        };
        if bits_equal(left, right) {
            same += 1;
        } else {
            differing.push((word(&a.lookups[i]), max_difference(left, right)));
        }
    }
    let total = comparison.links.len();
    let mut lines = Vec::new();
    if total == 0 {
        return lines;
    }
    if differing.is_empty() {
        lines.push(Line::from(vec![
            Span::styled("Attention: ", theme.title()),
            Span::styled(
                format!("all {same} words get identical outputs in both orders"),
                theme.finding(),
            ),
            Span::raw(
                ": with no position signal, attention cannot tell who bit whom (p adds positions, u the causal mask).",
            ),
        ]));
    } else {
        let examples: Vec<String> = differing
            .iter()
            .take(4)
            .map(|(word, difference)| format!("{word} (by up to {difference:.4})"))
            .collect();
        lines.push(Line::from(vec![
            Span::styled("Attention: ", theme.title()),
            Span::styled(
                format!("{} of {total} words get different outputs", differing.len()),
                theme.warning(),
            ),
            Span::raw(format!(
                " in the two orders: {}. Order now leaves a trace.",
                examples.join(", ")
            )),
        ]));
    }
    lines
}

fn word(lookup: &TokenLookup) -> String {
    format!("'{}'", lookup.token.text)
}

fn bits_equal(left: &Array1<f32>, right: &Array1<f32>) -> bool {
    left.len() == right.len()
        && left
            .iter()
            .zip(right.iter())
            .all(|(x, y)| x.to_bits() == y.to_bits())
}

fn max_difference(left: &Array1<f32>, right: &Array1<f32>) -> f64 {
    left.iter()
        .zip(right.iter())
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).abs())
        .fold(0.0, f64::max)
}

/// The first few values of a vector, for a line of prose.
fn preview(vector: ArrayView1<f32>) -> String {
    let shown: Vec<String> = vector
        .iter()
        .take(4)
        .map(|value| format!("{value:.4}"))
        .collect();
    let more = if vector.len() > 4 { " …" } else { "" };
    format!("{}{more}", shown.join(" "))
}
