//! The readout: what the current lookup shows, in words, with the distance between copies.

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::text::{display_width, fit, wrap_words, wrapped};
use super::vector::format_value;
use crate::action::{Action, Scope, fill_keys, key, key_name};
use crate::app::{App, Focus, RealLayer};
use crate::core::explain::findings::OrderSignal;
use crate::core::explain::readout::{
    CopiesWhy, SharedUnknownRow, describe_copies, describe_lookalikes,
};
use crate::core::tables::block::ModelFamily;
use crate::core::tables::positional::{PositionScheme, PositionVector};
use crate::core::tables::weights::TokenLookup;
use crate::core::text::vocabulary::UNKNOWN;
use crate::hit_map::{HitMap, Scrollable, Target};

pub(super) fn render(app: &App, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
    let theme = app.theme();
    hits.record(area, Target::Pane(Scrollable::Explanation));
    let block = super::pane(" What the layer returned ", false, theme);
    let inner = block.inner(area);
    let width = usize::from(inner.width).max(1);
    let (lines, lead) = readout_parts(app, width);
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
    let mut used = 0;
    let mut whole = 0;
    for line in &lines {
        let needed = rows(std::slice::from_ref(line), width);
        if used + needed + 1 > height {
            break;
        }
        used += needed;
        whole += 1;
    }
    block.render(area, buf);
    if whole < lead.min(lines.len()) {
        // The marker would push out the finding or its explanation: the rows that fit, the
        // last one ending in `…`.
        Paragraph::new(cut_rows(&lines, width, height)).render(inner, buf);
        return;
    }
    // Page 0 is the whole lines that fit; each page after it the next rows, a row kept for
    // the marker that names the key for the next page.
    let page_rows = height.saturating_sub(1).max(1);
    let pages = 1 + rows(&lines, width).saturating_sub(used).div_ceil(page_rows);
    let page = app.explanation_page() % pages;
    // The key pages the explorer's explanation; from the typing screen, the explorer first.
    let next = match app.focus() {
        Focus::Input => format!(
            "{}, then {},",
            key_name(&Action::FocusExplorer, Scope::Input),
            key(&Action::ScrollExplanation)
        ),
        Focus::Explorer => key(&Action::ScrollExplanation),
    };
    let marker = if page + 1 < pages {
        format!("▼ more below: {next} shows it")
    } else {
        format!("▲ that is all: {next} goes back to the top")
    };
    let marker = Line::styled(fit(&marker, width), theme.muted());
    if page > 0 {
        let start = used + (page - 1) * page_rows;
        let mut shown: Vec<Line<'static>> = lines_wrapped(&lines, width)
            .into_iter()
            .skip(start)
            .take(page_rows)
            .collect();
        shown.push(marker);
        Paragraph::new(shown).render(inner, buf);
        return;
    }
    let mut shown: Vec<Line<'static>> = lines.into_iter().take(whole).collect();
    // A blank line before the marker says nothing.
    while shown.last().is_some_and(|line| line.width() == 0) {
        shown.pop();
    }
    shown.push(marker);
    Paragraph::new(shown)
        .wrap(Wrap { trim: true })
        .render(inner, buf);
}

/// The lines as rows of `width`, each row in the style of its line's first words.
fn lines_wrapped(lines: &[Line<'static>], width: usize) -> Vec<Line<'static>> {
    let mut rows = Vec::new();
    for line in lines {
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
        rows.extend(wrapped(&text, width, style));
    }
    rows
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
pub(super) fn lead_height(app: &App, width: u16) -> usize {
    let width = usize::from(width.saturating_sub(2)).max(1);
    let (lines, lead) = readout_parts(app, width);
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
fn readout_parts(app: &App, width: usize) -> (Vec<Line<'static>>, usize) {
    let theme = app.theme();
    let model = app.model();
    if app.waiting_for_tables() {
        let awaited = if app.reading_tokenizer() {
            "the tokenizer is read"
        } else {
            "the tables are generated"
        };
        return (
            vec![Line::styled(
                format!("The lookups appear as soon as {awaited}."),
                theme.muted(),
            )],
            1,
        );
    }
    if app.compare().is_some() {
        return (compare_lines(app), 1);
    }
    let Some(lookup) = app.lookups().get(app.step()) else {
        return (vec![Line::styled(type_first(), theme.muted())], 1);
    };
    let token = &lookup.token;
    let Some(id) = token.id else {
        return (no_row_lines(app, &token.text), 1);
    };
    let mut lines = Vec::new();
    let shared_unknown = SharedUnknownRow::of(app.lookups(), app.step())
        .map(|shared| Line::styled(format!("{shared}."), theme.finding()));
    if let Some(sentence) = describe_copies(app.lookups(), app.step(), app.active_scheme()) {
        lines.push(Line::styled(sentence, theme.finding()));
        let explanation = copies_explanation(app, lookup);
        lines.push(Line::styled(explanation, theme.muted()));
        lines.extend(shared_unknown);
    } else if let Some(shared) = shared_unknown {
        lines.push(shared);
    } else if let Some(sentence) = describe_lookalikes(app.lookups(), app.step()) {
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
    if app.focus() == Focus::Input {
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
    lines.push(Line::styled(step_detail(app, lookup, id), theme.muted()));
    lines.extend(model_block_lines(app, lookup));
    lines.push(Line::default());
    lines.push(Line::styled(why_it_matters(app), theme.muted()));
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
fn copies_explanation(app: &App, lookup: &TokenLookup) -> String {
    fill_keys(&CopiesWhy::of(&lookup.position, app.scheme(), app.overlay()).sentence())
}

/// The current token's finding on its own, for the lesson panel: its copies and their distance.
pub(super) fn finding(app: &App) -> Option<Line<'static>> {
    describe_copies(app.lookups(), app.step(), app.active_scheme())
        .map(|sentence| Line::styled(sentence, app.theme().finding()))
}

/// The readout for a word the vocabulary has no row for.
fn no_row_lines(app: &App, text: &str) -> Vec<Line<'static>> {
    let (theme, model) = (app.theme(), app.model());
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
fn compare_lines(app: &App) -> Vec<Line<'static>> {
    let theme = app.theme();
    let (through, keys) = if matches!(app.real_layer(), RealLayer::Open(_)) {
        (
            "Compare mode: two sentences (at first the same words in two orders), through the \
             model's own embedding layer and its own first attention layer.",
            "{TogglePositions} gives both the model's positions or takes them away: watch the \
             badge and the layer-0 line. {ShowDetail(Attention)} shows each word's output in A \
             and B side by side ({PreviousHead} {NextHead} choose a head). {FocusInput} edits \
             A, {FocusOther} edits B; {ToggleCompare} leaves.",
        )
    } else {
        (
            "Compare mode: two sentences (at first the same words in two orders), through the \
             same layer and the same attention head.",
            "{TogglePositions} adds position vectors and {CycleScheme} cycles the schemes: watch \
             the badge and the attention line. {ShowDetail(Attention)} shows each word's output \
             in A and B side by side. {ToggleCausal} switches on the causal mask of decoder \
             models. {FocusInput} edits A, {FocusOther} edits B; {ToggleCompare} leaves.",
        )
    };
    vec![
        Line::styled(through, theme.title()),
        Line::styled(fill_keys(keys), theme.muted()),
    ]
}

/// What this one lookup did, spelled out: which row, and what was added to it.
fn step_detail(app: &App, lookup: &TokenLookup, id: usize) -> String {
    let model = app.model();
    let mut detail = format!(
        "Lookup: id {id} is the address of row {id} of the {}×{} weight matrix; the layer copies that row out, and nothing else in the sentence takes part.",
        model.rows(),
        model.dims()
    );
    if let PositionVector::Added(_) = lookup.position {
        let position = lookup.token.position;
        let source = match app.active_scheme() {
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
fn why_it_matters(app: &App) -> String {
    let signal = OrderSignal::of(app.active_scheme(), app.mask());
    fill_keys(&signal.why_it_matters(app.model().context_length()))
}

/// For a model read from files: what its own embedding block outputs for this token.
fn model_block_lines(app: &App, lookup: &TokenLookup) -> Vec<Line<'static>> {
    let model = app.model();
    if model.family() == ModelFamily::Generated {
        return Vec::new();
    }
    let theme = app.theme();
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
