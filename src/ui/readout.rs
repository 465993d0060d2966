//! The readout: what the current lookup shows, in words, with the distance between copies.

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::room::Room;
use super::text::{display_width, fit, wrap_words, wrapped};
use super::vector::format_value;
use crate::action::{Action, Scope, fill_keys, key, key_name};
use crate::core::analysis::attention::Mask;
use crate::core::explain::findings::OrderSignal;
use crate::core::explain::readout::{
    CopiesWhy, SharedUnknownRow, describe_copies, describe_lookalikes,
};
use crate::core::explain::sentences;
use crate::core::tables::block::ModelFamily;
use crate::core::tables::positional::{PositionScheme, PositionVector};
use crate::core::tables::weights::{EmbeddingModel, TokenLookup};
use crate::core::text::vocabulary::UNKNOWN;
use crate::hit_map::{HitMap, Scrollable, Target};
use crate::theme::Theme;

/// What the readout reads, made in `ui.rs`.
pub(super) struct Input<'a> {
    /// The model the rows come from.
    pub(super) model: &'a EmbeddingModel,
    /// Each token's lookup.
    pub(super) lookups: &'a [TokenLookup],
    /// The current token.
    pub(super) step: usize,
    /// What the lookups wait for, when they wait: the tokenizer, or the tables.
    pub(super) awaited: Option<&'static str>,
    /// In compare mode, whether both sentences run through the model's own layer 0.
    pub(super) compare: Option<bool>,
    /// Whether the keys go to the text (the readout then names the way into the explorer).
    pub(super) typing: bool,
    /// The position scheme chosen.
    pub(super) scheme: PositionScheme,
    /// The scheme acting now (none while positions are off).
    pub(super) active_scheme: PositionScheme,
    /// Whether position vectors are added.
    pub(super) overlay: bool,
    /// The seeded head's mask.
    pub(super) mask: Mask,
    /// The page of a readout too tall for its pane.
    pub(super) page: usize,
    /// The styles in use.
    pub(super) theme: Theme,
}

pub(super) fn render(input: &Input, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
    let theme = input.theme;
    hits.record(area, Target::Pane(Scrollable::Explanation));
    let block = super::frame::pane(" What the layer returned ", false, theme);
    let inner = block.inner(area);
    let width = usize::from(inner.width).max(1);
    let (lines, lead) = readout_parts(input, width);
    let height = usize::from(inner.height);
    if rows(&lines, width) <= height {
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: true })
            .render(area, buf);
        return;
    }
    // Too tall: the whole lines that fit, then a row that says there is more, so no sentence
    // is ever cut silently.
    let mut room = Room::new(height.saturating_sub(1));
    let whole = room.leading(
        lines
            .iter()
            .map(|line| rows(std::slice::from_ref(line), width)),
    );
    let used = height.saturating_sub(1) - room.left();
    block.render(area, buf);
    // The key pages the explorer's explanation; from the typing screen, the explorer first.
    let next = if input.typing {
        format!(
            "{}, then {},",
            key_name(&Action::FocusExplorer, Scope::Input),
            key(&Action::ScrollExplanation)
        )
    } else {
        key(&Action::ScrollExplanation)
    };
    // Page 0, and the rows the pages after it hold.
    let (first, rest) = if whole < lead.min(lines.len()) {
        // A marker row would push out the finding or its explanation: page 0 ends at the
        // last sentence end that fits with the marker after it, on its own last row.
        let more = format!("▼ more: {next} shows it");
        let Some((first, rest)) = at_sentence_end(&lines, width, height, &more, theme) else {
            // Not one sentence fits: the rows that fit, the last one ending in `…`.
            Paragraph::new(cut_rows(&lines, width, height)).render(inner, buf);
            return;
        };
        (first, lines_wrapped(&rest, width))
    } else {
        let rest = lines_wrapped(&lines, width).split_off(used);
        let mut first: Vec<Line<'static>> = lines.into_iter().take(whole).collect();
        // A blank line before the marker says nothing.
        while first.last().is_some_and(|line| line.width() == 0) {
            first.pop();
        }
        first.push(Line::styled(
            fit(&format!("▼ more below: {next} shows it"), width),
            theme.muted(),
        ));
        (first, rest)
    };
    // Each page after the first holds the next rows, a row kept for the marker that names
    // the key for the next page.
    let page_rows = height.saturating_sub(1).max(1);
    let pages = 1 + rest.len().div_ceil(page_rows);
    let page = input.page % pages;
    if page == 0 {
        Paragraph::new(first)
            .wrap(Wrap { trim: true })
            .render(inner, buf);
        return;
    }
    let marker = if page + 1 < pages {
        format!("▼ more below: {next} shows it")
    } else {
        format!("▲ that is all: {next} goes back to the top")
    };
    let mut shown: Vec<Line<'static>> = rest
        .into_iter()
        .skip((page - 1) * page_rows)
        .take(page_rows)
        .collect();
    shown.push(Line::styled(fit(&marker, width), theme.muted()));
    Paragraph::new(shown).render(inner, buf);
}

/// The lines cut at the last sentence end that lets them, with ` {more}` after it, fit
/// `height` rows of `width`: the lines shown, the marker on the last, and the rest (the cut
/// line's other sentences, then the lines after it); `None` when not even the first sentence
/// fits. Whole lines keep their styles; the cut one is in the style of its first words.
fn at_sentence_end(
    lines: &[Line<'static>],
    width: usize,
    height: usize,
    more: &str,
    theme: Theme,
) -> Option<(Vec<Line<'static>>, Vec<Line<'static>>)> {
    // Each line's sentences, as (line, sentence) pairs in reading order.
    let flat = lines_flat(lines);
    let units: Vec<(usize, &str)> = flat
        .iter()
        .enumerate()
        .flat_map(|(index, (text, _))| sentences(text).map(move |sentence| (index, sentence)))
        .collect();
    // The first `count` sentences as lines, each whole line as it was.
    let shown = |count: usize| -> (Vec<Line<'static>>, Vec<Line<'static>>) {
        let mut first = Vec::new();
        let mut rest = Vec::new();
        for (index, line) in lines.iter().enumerate() {
            let mut taken = String::new();
            let mut left = String::new();
            for (at, _) in units.iter().enumerate().filter(|(_, (of, _))| *of == index) {
                let part = if at < count { &mut taken } else { &mut left };
                part.push_str(units[at].1);
            }
            let style = flat[index].1;
            match (taken.is_empty(), left.is_empty()) {
                (false, true) => first.push(line.clone()),
                (true, _) => rest.push(line.clone()),
                (false, false) => {
                    first.push(Line::styled(taken.trim_end().to_owned(), style));
                    rest.push(Line::styled(left, style));
                }
            }
        }
        if let Some(last) = first.last_mut() {
            last.spans
                .push(Span::styled(format!(" {more}"), theme.muted()));
        }
        (first, rest)
    };
    let fits = (1..units.len())
        .take_while(|&count| rows(&shown(count).0, width) <= height)
        .last()?;
    Some(shown(fits))
}

/// Each line's text and the style of its first words.
fn lines_flat(lines: &[Line<'static>]) -> Vec<(String, Style)> {
    lines
        .iter()
        .map(|line| {
            let style = line
                .spans
                .iter()
                .find(|span| !span.content.trim().is_empty())
                .map_or(line.style, |span| line.style.patch(span.style));
            let text: String = line
                .spans
                .iter()
                .map(|span| span.content.as_ref())
                .collect();
            (text, style)
        })
        .collect()
}

/// The lines as rows of `width`, each row in the style of its line's first words.
fn lines_wrapped(lines: &[Line<'static>], width: usize) -> Vec<Line<'static>> {
    lines_flat(lines)
        .into_iter()
        .flat_map(|(text, style)| wrapped(&text, width, style))
        .collect()
}

/// The lines as rows of `width`, the first `height` of them, the last ending in `…`.
fn cut_rows(lines: &[Line<'static>], width: usize, height: usize) -> Vec<Line<'static>> {
    let mut rows = lines_wrapped(lines, width);
    rows.truncate(height);
    if let Some(last) = rows.last_mut() {
        let text: String = last
            .spans
            .iter()
            .map(|span| span.content.as_ref())
            .collect();
        let style = last.spans.first().map_or(last.style, |span| span.style);
        *last = Line::styled(fit(&format!("{} …", text.trim_end()), width), style);
    }
    rows
}

/// Rows the lines take wrapped at `width`.
fn rows(lines: &[Line], width: usize) -> usize {
    lines
        .iter()
        .map(|line| {
            let text: String = line
                .spans
                .iter()
                .map(|span| span.content.as_ref())
                .collect();
            wrap_words(&text, width).len().max(1)
        })
        .sum()
}

/// The rows the readout's lead needs at `width`, borders included: its warnings, the finding
/// and the sentence that explains it, so a short terminal never cuts them.
pub(super) fn lead_height(input: &Input, width: u16) -> usize {
    let width = usize::from(width.saturating_sub(2)).max(1);
    let (lines, lead) = readout_parts(input, width);
    2 + rows(&lines[..lead.min(lines.len())], width)
}

/// What to do before there is a lookup to show.
fn type_first() -> String {
    format!(
        "Type a sentence, then press {} to step through its lookups.",
        key_name(&Action::FocusExplorer, Scope::Input)
    )
}

/// The readout's lines at `width`, and how many lead them: the warnings, the finding and the
/// sentence that explains it, which a short terminal must never cut; on the typing screen also
/// the way into the lesson, when it takes one row.
fn readout_parts(input: &Input, width: usize) -> (Vec<Line<'static>>, usize) {
    let theme = input.theme;
    let model = input.model;
    if let Some(awaited) = input.awaited {
        return (
            vec![Line::styled(
                format!("The lookups appear as soon as {awaited}."),
                theme.muted(),
            )],
            1,
        );
    }
    if input.compare.is_some() {
        return (compare_lines(input), 1);
    }
    let Some(lookup) = input.lookups.get(input.step) else {
        return (vec![Line::styled(type_first(), theme.muted())], 1);
    };
    let token = &lookup.token;
    let Some(id) = token.id else {
        return (no_row_lines(input, &token.text), 1);
    };
    let mut lines = Vec::new();
    let shared_unknown = SharedUnknownRow::of(input.lookups, input.step)
        .map(|shared| Line::styled(format!("{shared}."), theme.finding()));
    if let Some(sentence) = describe_copies(input.lookups, input.step, input.active_scheme) {
        lines.push(Line::styled(sentence, theme.finding()));
        let explanation = copies_explanation(input, lookup);
        lines.push(Line::styled(explanation, theme.muted()));
        lines.extend(shared_unknown);
    } else if let Some(shared) = shared_unknown {
        lines.push(shared);
    } else if let Some(sentence) = describe_lookalikes(input.lookups, input.step) {
        lines.push(Line::styled(sentence, theme.finding()));
    } else {
        lines.push(Line::from(vec![
            Span::raw(format!(
                "'{}' at {} reads row {id}",
                token.text, token.position
            )),
            Span::styled(
                " and appears once; type a word twice to compare its copies.",
                theme.muted(),
            ),
        ]));
    }
    let mut lead = lines.len();
    // On the typing screen the way into the lesson follows the finding; where it takes one
    // row (80 columns and up) it is part of the lead, so the terminal never hides it.
    if input.typing {
        let hint = format!(
            "New here? Press {}, then {} for a guided lesson that asks before it shows.",
            key_name(&Action::FocusExplorer, Scope::Input),
            key(&Action::ToggleLesson)
        );
        if display_width(&hint) <= width {
            lead += 1;
        }
        lines.push(Line::styled(hint, theme.key()));
    }
    lines.push(Line::styled(step_detail(input, lookup, id), theme.muted()));
    lines.extend(model_block_lines(input, lookup));
    lines.push(Line::default());
    lines.push(Line::styled(why_it_matters(input), theme.muted()));
    if token.unknown {
        lines.insert(
            0,
            Line::styled(
                format!(
                    "'{}' is not in the {} vocabulary, so it reads the {} row.",
                    token.text,
                    model.label(),
                    model.token_text(id).unwrap_or_else(|| UNKNOWN.to_owned())
                ),
                theme.warning(),
            ),
        );
        lead += 1;
    }
    if let PositionVector::BeyondContext { .. } = lookup.position
        && let Some(warning) = lookup.position.warning()
    {
        lines.insert(
            0,
            Line::styled(
                format!("{warning}: the learned table has no row for it."),
                theme.warning(),
            ),
        );
        lead += 1;
    }
    (lines, lead)
}

/// Why the copies are identical or not, in the state shown.
fn copies_explanation(input: &Input, lookup: &TokenLookup) -> String {
    fill_keys(&CopiesWhy::of(&lookup.position, input.scheme, input.overlay).sentence())
}

/// The current token's finding on its own, for the lesson panel: its copies and their distance.
pub(super) fn finding(input: &Input) -> Option<Line<'static>> {
    describe_copies(input.lookups, input.step, input.active_scheme)
        .map(|sentence| Line::styled(sentence, input.theme.finding()))
}

/// The readout for a word the vocabulary has no row for.
fn no_row_lines(input: &Input, text: &str) -> Vec<Line<'static>> {
    let (theme, model) = (input.theme, input.model);
    let words = model
        .tokenizer()
        .and_then(|tokenizer| tokenizer.listing())
        .filter(|listing| listing.len() <= 12)
        .map(|listing| format!(" ({})", listing.join(", ")))
        .unwrap_or_default();
    vec![
        Line::styled(
            format!(
                "'{text}' is not in the {} vocabulary{words}: it has no row to return.",
                model.label()
            ),
            theme.warning(),
        ),
        Line::styled(
            fill_keys(
                "Press {CycleVocab} for the words vocabulary, or {FocusInput} to edit the sentence.",
            ),
            theme.muted(),
        ),
    ]
}

/// The readout in compare mode: what to try.
fn compare_lines(input: &Input) -> Vec<Line<'static>> {
    let theme = input.theme;
    let (through, keys) = if input.compare == Some(true) {
        (
            "Compare mode: two sentences (at first the same words in two orders), through the \
             model's own embedding layer and its own first attention layer.",
            "{TogglePositions} gives both the model's positions or takes them away: watch the \
             badge. {ShowDetail(Attention)} shows each word's output in A and B side by side, \
             below the vectors when both fit, and the layer-0 line that judges them \
             ({PreviousHead} {NextHead} choose a head). {FocusInput} edits A, {FocusOther} \
             edits B; {ToggleCompare} leaves.",
        )
    } else {
        (
            "Compare mode: two sentences (at first the same words in two orders), through the \
             same layer and the same attention head.",
            "{TogglePositions} adds position vectors and {CycleScheme} cycles the schemes: watch \
             the badge. {ShowDetail(Attention)} shows each word's output in A and B side by \
             side, below the vectors when both fit, and the attention line that judges them. \
             {ToggleCausal} switches on the causal mask of decoder models. {FocusInput} edits \
             A, {FocusOther} edits B; {ToggleCompare} leaves.",
        )
    };
    vec![
        Line::styled(through, theme.title()),
        Line::styled(fill_keys(keys), theme.muted()),
    ]
}

/// What this one lookup did, spelled out: which row, and what was added to it.
fn step_detail(input: &Input, lookup: &TokenLookup, id: usize) -> String {
    let model = input.model;
    let mut detail = format!(
        "Lookup: id {id} is the address of row {id} of the {}×{} weight matrix; the layer copies that row out, and nothing else in the sentence takes part.",
        model.rows(),
        model.dims()
    );
    if let PositionVector::Added(_) = lookup.position {
        let position = lookup.token.position;
        let source = match input.active_scheme {
            PositionScheme::Learned => format!(
                "row {position} of the {}×{} {}",
                model.context_length(),
                model.dims(),
                model.table_kind().position_table()
            ),
            _ => format!("sine and cosine waves of position {position} (base 10000)"),
        };
        let _ = write!(detail, " Then input vector = token vector + {source}.");
    }
    detail
}

/// The argument the screen illustrates: why identical vectors are a problem, and what the
/// state shown (positions, mask) does about it.
fn why_it_matters(input: &Input) -> String {
    let signal = OrderSignal::of(input.active_scheme, input.mask);
    fill_keys(&signal.why_it_matters(input.model.context_length()))
}

/// For a model read from files: what its own embedding block outputs for this token.
fn model_block_lines(input: &Input, lookup: &TokenLookup) -> Vec<Line<'static>> {
    let model = input.model;
    if model.family() == ModelFamily::Generated {
        return Vec::new();
    }
    let theme = input.theme;
    let mut lines = vec![Line::styled(
        format!(
            "This {} model's embedding block outputs {}:",
            model.family_name(),
            model.block().formula()
        ),
        theme.muted(),
    )];
    if let Some(note) = model.position_rows_note() {
        lines.insert(0, Line::styled(note, theme.muted()));
    }
    if let Some(output) = &lookup.model_embedding {
        let shown = 12.min(output.len());
        let mut spans = vec![Span::raw("  ")];
        spans.extend(
            output
                .iter()
                .take(shown)
                .map(|&value| Span::styled(format_value(value), theme.value(value))),
        );
        if output.len() > shown {
            spans.push(Span::styled(
                format!(
                    "  … {} more (lookup --format json prints all)",
                    output.len() - shown
                ),
                theme.muted(),
            ));
        }
        lines.push(Line::from(spans));
    }
    for warning in model.warnings() {
        lines.push(Line::styled(warning.clone(), theme.warning()));
    }
    if let Some(id) = lookup.token.id
        && let Some(warning) = model.non_finite_warning(id)
    {
        lines.push(Line::styled(warning, theme.warning()));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tables::weights::DEFAULT_SEED;
    use crate::core::text::vocabulary::VocabKind;
    use crate::ui::pane::drawn;

    /// The readout over "fox bites the fox" at its second fox, on `page`.
    fn readout(typing: bool, page: usize, width: u16, height: u16) -> Vec<String> {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let tokens = model.tokenize("fox bites the fox").unwrap();
        let lookups = model.embed(&tokens, PositionScheme::None);
        let input = Input {
            model: &model,
            lookups: &lookups,
            step: 3,
            awaited: None,
            compare: None,
            typing,
            scheme: PositionScheme::Learned,
            active_scheme: PositionScheme::None,
            overlay: false,
            mask: Mask::None,
            page,
            theme: Theme::new(false),
        };
        drawn(width, height, |area, buf, hits| {
            render(&input, area, buf, hits);
        })
    }

    #[test]
    fn the_finding_comes_first_with_the_sentence_that_explains_it() {
        let text = readout(false, 0, 100, 14).join("\n");
        assert!(
            text.contains("fox at 0 and 3: same row 2, Euclidean distance 0.0000"),
            "{text}"
        );
        assert!(
            text.contains("Lookup: id 2 is the address of row 2"),
            "{text}"
        );
        assert!(text.contains("Why it matters"), "{text}");
        assert!(!text.contains("more below"), "{text}");
    }

    #[test]
    fn a_readout_too_tall_for_its_pane_pages_and_names_the_key() {
        let first = readout(false, 0, 60, 7).join("\n");
        assert!(first.contains("same row 2, Euclidean distance"), "{first}");
        assert!(first.contains("▼ more below: Space shows it"), "{first}");
        let typing = readout(true, 0, 60, 7).join("\n");
        assert!(typing.contains("Enter, then Space,"), "{typing}");
        // Paged past its end, it says so and how to go back to the top.
        let last = (1..20)
            .map(|page| readout(false, page, 60, 7).join("\n"))
            .find(|text| text.contains("▲ that is all"))
            .expect("a last page");
        assert!(last.contains("goes back to the top"), "{last}");
    }
}
