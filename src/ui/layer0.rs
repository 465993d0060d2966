//! The attention pane's words when it shows the model's own layer 0: its title, what the
//! layer's outputs show (the verdicts come from `core::explain::claim`), a `RoPE` model's
//! scores between two copies of a word, and why a seeded head stands in when it must.

use ratatui::text::Line;
use unicode_width::UnicodeWidthStr;

use super::text::{wrap_words, wrapped};
use crate::action::fill_keys;
use crate::app::{App, RealLayer};
use crate::core::analysis::layer0::Layer0;
use crate::core::explain::claim::CopyScores;
use crate::core::explain::layer0::{OwnPositions, SentenceRun};
use crate::theme::Theme;

/// How many distances the copy-score sentence lists.
const LISTED_DISTANCES: usize = 8;

/// Which position information layer 0 was given, in a few words.
fn positions(layer: &Layer0, with_positions: bool) -> &'static str {
    match (layer.rope().is_some(), with_positions) {
        (true, true) => "RoPE on",
        (true, false) => "RoPE off",
        (false, true) => "own positions on",
        (false, false) => "no positions",
    }
}

/// The pane's title for the model's own layer 0, shortened when the pane is narrow.
pub(super) fn title(app: &App, layer: &Layer0, width: u16) -> String {
    let heads = layer.heads();
    let head = app.head();
    let positions = positions(layer, app.overlay());
    let mask = if layer.is_causal() {
        "causal"
    } else {
        "unmasked"
    };
    let full = format!(
        " Attention · the model's own layer 0 · head {head} of {heads} · {mask} · {positions} "
    );
    let short = format!(" Layer 0 · head {head}/{heads} · {positions} ");
    if full.width() + 2 <= usize::from(width) {
        full
    } else {
        short
    }
}

/// What the pane says while there is no run to show: computing, or why there is none.
pub(super) fn waiting(app: &App) -> Option<String> {
    let RealLayer::Open(layer) = app.real_layer() else {
        return None;
    };
    if app.tokens().is_empty() {
        // Nothing to run yet: the pane's own "type a sentence" says so.
        return None;
    }
    Some(match app.layer0_view() {
        None => format!(
            "Computing the model's own layer 0 ({} heads) over the sentence…",
            layer.heads()
        ),
        Some(Err(why)) => format!("The model's own layer 0 cannot run on this sentence: {why}."),
        Some(Ok(_)) => return None,
    })
}

/// The verdicts, wrapped: the sentence against its reversal, then the first repeated word's
/// copies, then the keys that change what is shown (decided in `core::explain::layer0`).
pub(super) fn finding(app: &App, layer: &Layer0, view: &SentenceRun, width: usize) -> Vec<String> {
    let own = OwnPositions::of(layer.rope().is_some(), app.active_scheme(), app.overlay());
    view.finding(app.tokens(), own, layer.heads())
        .iter()
        .flat_map(|sentence| wrap_words(&fill_keys(sentence), width))
        .collect()
}

/// A `RoPE` model's query·key score between two copies of the repeated word, for this head.
pub(super) fn extra(
    app: &App,
    view: &SentenceRun,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let (Some(scores), Some((word, copies))) = (&view.copy_scores, &view.copies) else {
        return Vec::new();
    };
    let head = app.head();
    let Some(scores) = scores.get(head) else {
        return Vec::new();
    };
    let copy = CopyScores {
        head,
        rotated: view.run.with_positions,
        scores: scores.clone(),
    };
    let style = if copy.is_flat() {
        theme.muted()
    } else {
        theme.finding()
    };
    let apart = copies.second - copies.first;
    wrapped(
        &copy.sentence(word, LISTED_DISTANCES, Some(apart)),
        width,
        style,
    )
}

/// Why the seeded head stands in for a model opened from files.
pub(super) fn unavailable(app: &App, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let RealLayer::Unavailable(why) = app.real_layer() else {
        return Vec::new();
    };
    wrap_words(
        &format!(
            "This model's own layer 0 cannot be computed ({why}), so a seeded head stands in."
        ),
        width,
    )
    .into_iter()
    .map(|line| Line::styled(line, theme.warning()))
    .collect()
}
