//! Compare mode: two word orders side by side, and whether the model can tell them apart.

use ndarray::ArrayView1;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

mod findings;

use findings::{Evidence, Priority, fitted, prioritised_summary};

use super::compare_outputs::{self, OutputsTable};
use super::pane::Pane;
use super::text::{display_width, pad};
use super::vector::{VALUE_WIDTH, format_value, is_wide, values_per_line, wide_line};
use crate::action::{Action, key};
use crate::core::analysis::attention::Mask;
use crate::core::analysis::compare::Comparison;
use crate::core::analysis::layer0::Layer0;
use crate::core::explain::findings::CompareTables;
use crate::core::explain::layer0::SentencePair;
use crate::core::tables::positional::PositionScheme;
use crate::hit_map::{HitMap, Target};
use crate::theme::Theme;
use crate::view_state::{Detail, WideStyle};

/// Columns of a token's label: marker, position, text, id, partner.
const LABEL_WIDTH: usize = 27;

/// What compare mode's pane reads, made in `ui.rs`.
pub(super) struct Input<'a> {
    /// Both sentences compared with the seeded head, or why they are not.
    pub(super) comparison: Result<&'a Comparison, &'a str>,
    /// The model's own layer 0, when the model has one, and its run on both sentences:
    /// `None` while it is computed, or why it cannot run.
    pub(super) layer0: Option<(&'a Layer0, Option<Result<&'a SentencePair, &'a str>>)>,
    /// The seeded head's mask.
    pub(super) mask: Mask,
    /// The outputs table's input, when each word's attention output is shown instead of the
    /// vectors.
    pub(super) outputs: Option<compare_outputs::Input<'a>>,
    /// Whether the title says the keys (a lesson says them in its own bar).
    pub(super) keys: bool,
    /// Whether the vectors stay when both tables do not fit (the lesson, whose word-order
    /// answers rest on them and which has no key to switch tables); else the outputs asked
    /// for stay.
    pub(super) keep_vectors: bool,
    /// The position scheme acting now (`None` while positions are off).
    pub(super) scheme: PositionScheme,
    /// Whether positions are on.
    pub(super) overlay: bool,
    /// The explorer's current word in A.
    pub(super) step: usize,
    /// How wide vectors are drawn.
    pub(super) wide_style: WideStyle,
    /// The styles in use.
    pub(super) theme: Theme,
}

/// Compare mode's pane at a width: its title, and the findings or what stands in for them,
/// built once; the sentences' rows are drawn to the room they get.
pub(super) struct Compare<'a> {
    step: usize,
    keep_vectors: bool,
    wide_style: WideStyle,
    theme: Theme,
    title: String,
    /// The title while the outputs asked for have no room (the lesson keeps the vectors): it
    /// names what the pane shows instead.
    vectors_title: String,
    body: Body<'a>,
    /// Each word's attention output in A and B, when they are shown: below the vectors when
    /// both fit, else in their place.
    outputs: Option<OutputsTable<'a>>,
}

/// What the pane holds below its title.
enum Body<'a> {
    /// Why there is nothing to compare yet.
    Message(Box<Paragraph<'static>>),
    /// Both sentences, and the findings with their priority, the rows each takes when
    /// wrapped, and which table holds its numbers.
    Comparison {
        comparison: &'a Comparison,
        findings: Vec<(Priority, Line<'static>, usize, Evidence)>,
    },
}

/// The pane at a width, borders included.
pub(super) fn build(input: Input<'_>, width: u16) -> Compare<'_> {
    let theme = input.theme;
    let mask = match (input.layer0, input.mask) {
        (Some(_), _) => "the model's own layer 0",
        (None, Mask::None) => "unmasked attention",
        (None, Mask::Causal) => "causal attention",
    };
    let outputs = input.outputs.as_ref().map(compare_outputs::build);
    let shown = match &outputs {
        Some(table) => format!("outputs, {}", table.source),
        None => mask.to_owned(),
    };
    let switch = format!(
        "{} {}",
        key(&Action::ShowDetail(Detail::Attention)),
        if outputs.is_some() {
            "vectors only"
        } else {
            "outputs"
        }
    );
    let leave = format!("{} leaves", key(&Action::ToggleCompare));
    let inner = width.saturating_sub(2).max(1);
    // The lesson arranges the panes itself: its keys are in its own bar.
    let keys: &[&str] = if input.keys { &[&switch, &leave] } else { &[] };
    let positions = positions_name(input.scheme);
    let parts: Vec<&str> = ["Compare", &positions, &shown]
        .into_iter()
        .chain(keys.iter().copied())
        .collect();
    let title = super::text::title_of(&parts, usize::from(inner));
    let vectors_title = super::text::title_of(&["Compare", &positions, mask], usize::from(inner));
    let body = match input.comparison {
        Ok(comparison) => Body::Comparison {
            comparison,
            findings: prioritised_summary(&input, comparison)
                .into_iter()
                .map(|(priority, line, evidence)| {
                    let rows = wrapped_rows(&line, inner);
                    (priority, line, rows, evidence)
                })
                .collect(),
        },
        Err(message) => {
            let message = if message.is_empty() {
                format!(
                    "Type two sentences to compare ({} edits A, {} edits B).",
                    key(&Action::FocusInput),
                    key(&Action::FocusOther)
                )
            } else {
                message.to_owned()
            };
            Body::Message(Box::new(
                Paragraph::new(Line::styled(message, theme.warning())).wrap(Wrap { trim: true }),
            ))
        }
    };
    Compare {
        step: input.step,
        keep_vectors: input.keep_vectors,
        wide_style: input.wide_style,
        theme,
        title,
        vectors_title,
        body,
        outputs,
    }
}

/// The rows a line takes wrapped as the findings are drawn.
fn wrapped_rows(line: &Line<'static>, width: u16) -> usize {
    Paragraph::new(line.clone())
        .wrap(Wrap { trim: true })
        .line_count(width)
        .max(1)
}

impl Pane for Compare<'_> {
    /// Both sentences' tokens and a header, each word's outputs when they are shown, the
    /// findings as wrapped, borders; three lines for what stands in for them.
    fn height(&self) -> usize {
        match &self.body {
            Body::Message(_) => 3 + 2,
            Body::Comparison {
                comparison,
                findings,
            } => {
                let tables = CompareTables {
                    vectors: true,
                    outputs: self.outputs.is_some(),
                };
                let rows: usize = said(findings, tables).iter().map(|(_, _, rows)| rows).sum();
                self.tables_height(comparison, tables) + rows + 2
            }
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
        let theme = self.theme;
        let (comparison, findings) = match &self.body {
            Body::Comparison {
                comparison,
                findings,
            } => (*comparison, findings),
            Body::Message(message) => {
                let block = super::frame::pane(self.title.clone(), false, theme);
                let inner = block.inner(area);
                block.render(area, buf);
                message.as_ref().render(inner, buf);
                return;
            }
        };
        let (tables, columns_height) =
            self.arrangement(comparison, findings, area.height.saturating_sub(2));
        // The title names the table shown: the outputs asked for, or the vectors kept instead.
        let title = if self.outputs.is_some() && !tables.outputs {
            &self.vectors_title
        } else {
            &self.title
        };
        let block = super::frame::pane(title.clone(), false, theme);
        let inner = block.inner(area);
        block.render(area, buf);
        let findings = said(findings, tables);
        let [columns, summary] = inner.layout(&Layout::vertical([
            Constraint::Length(columns_height),
            Constraint::Fill(1),
        ]));
        let [vectors, outputs] = if tables.vectors && tables.outputs {
            let vectors_height = u16::try_from(rows(comparison) + 1).unwrap_or(u16::MAX);
            columns.layout(&Layout::vertical([
                Constraint::Length(vectors_height),
                Constraint::Fill(1),
            ]))
        } else {
            [columns; 2]
        };
        if let (Some(table), true) = (&self.outputs, tables.outputs) {
            let room = usize::from(outputs.height);
            Paragraph::new(table.lines(outputs.width, room)).render(outputs, buf);
        }
        if tables.vectors {
            self.render_vectors(comparison, vectors, buf, hits);
        }
        let findings = fitted(&findings, summary, theme.muted());
        Paragraph::new(findings)
            .wrap(Wrap { trim: true })
            .render(summary, buf);
    }
}

/// The findings said while `tables` are drawn, with their priorities and rows (borrowed:
/// only those that fit are copied into the frame).
fn said<'a>(
    findings: &'a [(Priority, Line<'static>, usize, Evidence)],
    tables: CompareTables,
) -> Vec<(Priority, &'a Line<'static>, usize)> {
    findings
        .iter()
        .filter(|(_, _, _, evidence)| evidence.shown(tables))
        .map(|(priority, line, rows, _)| (*priority, line, *rows))
        .collect()
}

impl Compare<'_> {
    /// Which tables the pane draws whole at `height` rows, borders included (a table cut
    /// short under "▼ more" does not count); `None` while it has nothing to compare.
    pub(super) fn tables_drawn(&self, height: u16) -> Option<CompareTables> {
        let Body::Comparison {
            comparison,
            findings,
        } = &self.body
        else {
            return None;
        };
        let (tables, columns_height) =
            self.arrangement(comparison, findings, height.saturating_sub(2));
        let whole = usize::from(columns_height) >= self.tables_height(comparison, tables);
        Some(CompareTables {
            vectors: tables.vectors && whole,
            outputs: tables.outputs && whole,
        })
    }

    /// The tables drawn in `height` rows inside the borders, and the rows they take.
    fn arrangement(
        &self,
        comparison: &Comparison,
        findings: &[(Priority, Line<'static>, usize, Evidence)],
        height: u16,
    ) -> (CompareTables, u16) {
        let tables = self.tables(comparison, height);
        // A long sentence's rows must not push the findings (and what was left out) off
        // screen; in the lesson, whose sentences speak of every word's vector, the vectors
        // stay whole when they leave two rows (a finding and the count of those left out).
        let finding_rows: usize = findings
            .iter()
            .filter(|(_, _, _, evidence)| evidence.shown(tables))
            .map(|(_, _, rows, _)| rows)
            .sum();
        let summary_room = u16::try_from(finding_rows)
            .unwrap_or(u16::MAX)
            .min(height / 2);
        let table_height =
            u16::try_from(self.tables_height(comparison, tables)).unwrap_or(u16::MAX);
        let whole = self.keep_vectors && table_height.saturating_add(2) <= height;
        // Both tables are drawn only when both fit whole (`tables`); one alone gives way.
        let columns_height = if (tables.vectors && tables.outputs) || whole {
            table_height
        } else {
            table_height.min(height.saturating_sub(summary_room))
        };
        (tables, columns_height)
    }

    /// Which tables a pane of `height` rows inside its borders draws: the vectors alone; or,
    /// with the outputs asked for, both when both fit whole with two rows left (a finding and
    /// the count of those left out), else the outputs alone (the vectors alone when it keeps
    /// them).
    fn tables(&self, comparison: &Comparison, height: u16) -> CompareTables {
        let Some(table) = &self.outputs else {
            return CompareTables {
                vectors: true,
                outputs: false,
            };
        };
        let both = rows(comparison) + 1 + table.height() + 2 <= usize::from(height);
        CompareTables {
            vectors: both || self.keep_vectors,
            outputs: both || !self.keep_vectors,
        }
    }

    /// The rows `tables` take.
    fn tables_height(&self, comparison: &Comparison, tables: CompareTables) -> usize {
        let vectors = if tables.vectors {
            rows(comparison) + 1
        } else {
            0
        };
        let outputs = match (&self.outputs, tables.outputs) {
            (Some(table), true) => table.height(),
            _ => 0,
        };
        vectors + outputs
    }

    /// Both sentences' vectors side by side in `columns`, the words a click steps to recorded.
    fn render_vectors(
        &self,
        comparison: &Comparison,
        columns: Rect,
        buf: &mut Buffer,
        hits: &mut HitMap,
    ) {
        let theme = self.theme;
        let [left, right] = columns.layout(&Layout::horizontal([Constraint::Fill(1); 2]));
        let room = usize::from(columns.height);
        for (index, column) in [left, right].into_iter().enumerate() {
            let mut lines = self.sentence_lines(comparison, index, column.width);
            // Tokens that do not fit are counted, never cut silently.
            if lines.len() > room && room >= 2 {
                let left_out = lines.len() - (room - 1);
                lines.truncate(room - 1);
                lines.push(Line::styled(
                    super::text::fit(
                        &format!("▼ {left_out} more: a taller terminal shows them"),
                        usize::from(column.width),
                    ),
                    theme.muted(),
                ));
            }
            Paragraph::new(lines).render(column, buf);
            record_words(comparison, index, column, room, hits);
        }
    }
}

/// Records each word's row of sentence `index` drawn in `column` (below its header, within
/// `room` rows, the last kept for "more" when they do not all fit): a click on a word of A
/// steps to it, on a word of B to its twin in A; a word of B without a twin takes no click.
fn record_words(
    comparison: &Comparison,
    index: usize,
    column: Rect,
    room: usize,
    hits: &mut HitMap,
) {
    let words = comparison.sentences[index].lookups.len();
    let shown = if words + 1 > room {
        room.saturating_sub(2)
    } else {
        words
    };
    for position in 0..shown {
        let in_a = match index {
            0 => Some(position),
            _ => twin(comparison, 1, position),
        };
        let (Some(token), Ok(row)) = (in_a, u16::try_from(position + 1)) else {
            continue;
        };
        let spot = Rect {
            y: column.y.saturating_add(row),
            height: 1,
            ..column
        };
        hits.record(spot.intersection(column), Target::Token(token));
    }
}

/// The twin in the other sentence of word `position` of sentence `index`: the same token.
fn twin(comparison: &Comparison, index: usize, position: usize) -> Option<usize> {
    let word = comparison.verdicts.words.iter().find(|word| match index {
        0 => word.a == position,
        _ => word.b == position,
    })?;
    Some(if index == 0 { word.b } else { word.a })
}

/// Rows of the longer sentence.
fn rows(comparison: &Comparison) -> usize {
    comparison
        .sentences
        .iter()
        .map(|sentence| sentence.lookups.len())
        .max()
        .unwrap_or(0)
}

fn positions_name(scheme: PositionScheme) -> String {
    match scheme {
        PositionScheme::None => "no positions".to_owned(),
        scheme => format!("{scheme} positions"),
    }
}

impl Compare<'_> {
    /// One sentence as a column: a header, then each token with its vector and its partner.
    fn sentence_lines(
        &self,
        comparison: &Comparison,
        index: usize,
        width: u16,
    ) -> Vec<Line<'static>> {
        let theme = self.theme;
        let sentence = &comparison.sentences[index];
        let name = if index == 0 { "A" } else { "B" };
        let other = if index == 0 { "B" } else { "A" };
        let mut header = vec![Span::styled(format!("{name}: "), theme.title())];
        if sentence.left_out() > 0 {
            header.push(Span::styled(
                format!(
                    "first {} of {} tokens · ",
                    sentence.lookups.len(),
                    sentence.count_words()
                ),
                theme.warning(),
            ));
        }
        // The header shows one line of the sentence, ending in … when there is more; a pasted
        // book needs no more than that. The column's last cell stays blank, apart from B's.
        let used: usize = header.iter().map(Span::width).sum();
        let room = usize::from(width).saturating_sub(used + 1);
        let first_line: String = sentence.text.chars().take(room + 1).collect();
        let shown = super::text::fit(&first_line, room);
        header.push(Span::styled(shown, theme.title()));
        let mut lines = vec![Line::from(header)];
        // Numbers rather than strips whenever they fit: the ids (also in the token strip) and
        // padding give way first.
        let dims = sentence
            .lookups
            .iter()
            .find_map(|lookup| lookup.input_vector.as_ref().map(ndarray::ArrayBase::len))
            .unwrap_or(0);
        let text_width = comparison
            .sentences
            .iter()
            .flat_map(|sentence| &sentence.lookups)
            .map(|lookup| display_width(&lookup.token.text))
            .max()
            .unwrap_or(0)
            .clamp(3, 7);
        let compact_label = 1 + 3 + text_width + 1 + 4;
        let show_id = usize::from(width).saturating_sub(LABEL_WIDTH + 1) >= dims * VALUE_WIDTH
            || usize::from(width).saturating_sub(compact_label) < dims * VALUE_WIDTH;
        let values = if show_id {
            usize::from(width).saturating_sub(LABEL_WIDTH + 1)
        } else {
            usize::from(width).saturating_sub(compact_label)
        };
        for (position, lookup) in sentence.lookups.iter().enumerate() {
            let word = comparison.verdicts.words.iter().find(|word| match index {
                0 => word.a == position,
                _ => word.b == position,
            });
            let partner = word.map(|word| if index == 0 { word.b } else { word.a });
            // The mark speaks of the vector shown beside it: the input vector. What differs is
            // the point, so it is bright; what stayed the same is calm.
            let (marker, style) = match word {
                Some(word) if word.input_vector.is_identical() => ("=", Style::new()),
                Some(_) => ("≠", theme.used()),
                None => ("≠", theme.warning()),
            };
            // The explorer's current word in A, and its twin in B, stand out (clicks step to them).
            let current = match index {
                0 => position == self.step,
                _ => word.is_some_and(|word| word.a == self.step),
            };
            let style = if current { theme.current() } else { style };
            let link = partner.map_or_else(|| format!("no {other}"), |p| format!("{other}{p}"));
            let id = lookup
                .token
                .id
                .map_or_else(|| "#?".to_owned(), |id| format!("#{id}"));
            let label = if show_id {
                format!(
                    "{marker} {:>2} {} {} ",
                    lookup.token.position,
                    pad(&lookup.token.text, 7),
                    pad(&id, 7)
                )
            } else {
                format!(
                    "{marker}{:>2} {} ",
                    lookup.token.position,
                    pad(&lookup.token.text, text_width)
                )
            };
            let mut spans = vec![Span::styled(label, style)];
            let link = if show_id {
                format!("{} ", pad(&link, 4))
            } else {
                pad(&link, 4)
            };
            spans.push(Span::styled(link, theme.muted()));
            if let Some(vector) = lookup.input_vector.as_ref() {
                spans.extend(vector_spans(self.wide_style, vector.view(), values, theme));
            }
            lines.push(Line::from(spans));
        }
        lines
    }
}

fn vector_spans(
    style: WideStyle,
    vector: ArrayView1<f32>,
    width: usize,
    theme: Theme,
) -> Vec<Span<'static>> {
    if is_wide(vector.len()) || vector.len() > values_per_line(width) {
        let strip = WideStyle {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::analysis::compare::{DEFAULT_PAIR_SEED, compare};
    use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel};
    use crate::core::text::vocabulary::VocabKind;
    use crate::ui::pane::screen;
    use crate::view_state::WideView;

    fn comparison(scheme: PositionScheme) -> Comparison {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let (a, b) = DEFAULT_PAIR_SEED;
        compare(&model, a, b, scheme, Mask::None, DEFAULT_SEED).unwrap()
    }

    fn input<'a>(comparison: Result<&'a Comparison, &'a str>, scheme: PositionScheme) -> Input<'a> {
        let wide_style = WideStyle {
            view: WideView::Strip,
            first_dim: 0,
            scale: 1.0,
        };
        Input {
            comparison,
            layer0: None,
            mask: Mask::None,
            outputs: None,
            keys: true,
            keep_vectors: false,
            scheme,
            overlay: scheme != PositionScheme::None,
            step: 0,
            wide_style,
            theme: Theme::new(false),
        }
    }

    #[test]
    fn both_orders_side_by_side_with_their_findings() {
        let comparison = comparison(PositionScheme::None);
        let pane = build(input(Ok(&comparison), PositionScheme::None), 100);
        let height = u16::try_from(pane.height()).unwrap();
        insta::assert_snapshot!(screen(&pane, 100, height).join("\n"));
    }

    #[test]
    fn a_short_pane_keeps_the_verdicts_and_counts_what_it_leaves_out() {
        let comparison = comparison(PositionScheme::Learned);
        let pane = build(input(Ok(&comparison), PositionScheme::Learned), 78);
        let lines = screen(&pane, 78, 12);
        let text = lines.join("\n");
        assert!(lines[0].contains("Compare · learned positions"), "{text}");
        assert!(text.contains("DIFFERENT INPUT VECTORS"), "{text}");
        assert!(
            lines[10].contains("more findings: a taller terminal shows them"),
            "{text}"
        );
    }

    #[test]
    fn a_click_on_a_word_of_b_steps_to_its_twin_in_a() {
        let comparison = comparison(PositionScheme::None);
        let pane = build(input(Ok(&comparison), PositionScheme::None), 100);
        let area = Rect::new(0, 0, 100, 20);
        let mut hits = HitMap::default();
        pane.render(area, &mut Buffer::empty(area), &mut hits);
        // 'man' is B's first word (row 2: border, header) and A's last.
        assert_eq!(hits.click_at(60, 2), Some(&Target::Token(2)));
        assert_eq!(hits.click_at(10, 2), Some(&Target::Token(0)));
    }

    #[test]
    fn with_nothing_to_compare_the_pane_says_what_to_type() {
        let pane = build(input(Err(""), PositionScheme::None), 60);
        let text = screen(&pane, 60, 5).join("\n");
        assert!(text.contains("Type two sentences to compare"), "{text}");
    }
}
