//! The attention pane's words when it shows the model's own layer 0: its title, what the
//! layer's outputs show (the verdicts come from `core::explain::claim`), a `RoPE` model's
//! scores between two copies of a word, and why a seeded head stands in when it must.

use ratatui::text::Line;
use unicode_width::UnicodeWidthStr;

use super::Input;
use crate::action::fill_keys;
use crate::app::RealLayer;
use crate::core::analysis::layer0::Layer0;
use crate::core::explain::claim::CopyScores;
use crate::core::explain::layer0::{OwnPositions, SentenceRun};
use crate::theme::Theme;
use crate::ui::text::{wrap_words, wrapped};

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
pub(super) fn title(input: &Input, layer: &Layer0, width: u16) -> String {
    let heads = layer.heads();
    let head = input.head;
    let positions = positions(layer, input.overlay);
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
pub(super) fn waiting(input: &Input) -> Option<String> {
    let RealLayer::Open(layer) = input.layer else {
        return None;
    };
    if input.tokens.is_empty() {
        // Nothing to run yet: the pane's own "type a sentence" says so.
        return None;
    }
    Some(match input.run {
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
pub(super) fn finding(
    input: &Input,
    layer: &Layer0,
    view: &SentenceRun,
    width: usize,
) -> Vec<String> {
    let own = OwnPositions::of(layer.rope().is_some(), input.scheme, input.overlay);
    view.finding(input.tokens, own, layer.heads())
        .iter()
        .flat_map(|sentence| wrap_words(&fill_keys(sentence), width))
        .collect()
}

/// A `RoPE` model's query·key score between two copies of the repeated word, for this head.
pub(super) fn extra(
    head: usize,
    view: &SentenceRun,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let (Some(scores), Some((word, copies))) = (&view.copy_scores, &view.copies) else {
        return Vec::new();
    };
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
pub(super) fn unavailable(layer: RealLayer, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let RealLayer::Unavailable(why) = layer else {
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

#[cfg(test)]
pub(super) mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::core::analysis::layer0::Unavailable;
    use crate::core::files::{FileSource, OpenOptions, open};
    use crate::core::text::vocabulary::Token;
    use crate::panes::attention::bare_input;

    /// A token read by id, at a position.
    pub(crate) fn token(text: &str, id: usize, position: usize) -> Token {
        Token {
            text: text.to_owned(),
            span: 0..0,
            position,
            id: Some(id),
            special: false,
            unknown: false,
        }
    }

    /// The small BERT-shaped layer 0 the tests' fixtures hold.
    pub(crate) fn bert() -> Arc<Layer0> {
        let folder =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layer0/bert");
        Arc::new(
            open(&FileSource::path(folder), &OpenOptions::default())
                .unwrap()
                .layer0
                .unwrap(),
        )
    }

    #[test]
    fn the_title_names_the_head_the_mask_and_the_positions_shortened_when_narrow() {
        let layer = bert();
        let heads = layer.heads();
        let tokens = [token("x", 5, 0)];
        let input = Input {
            layer: RealLayer::Open(&layer),
            head: 1,
            overlay: true,
            ..bare_input(&tokens, &[])
        };
        assert_eq!(
            title(&input, &layer, 120),
            format!(
                " Attention · the model's own layer 0 · head 1 of {heads} · unmasked · own \
                 positions on "
            )
        );
        assert_eq!(
            title(&input, &layer, 40),
            format!(" Layer 0 · head 1/{heads} · own positions on ")
        );
    }

    #[test]
    fn while_the_layer_runs_or_cannot_the_pane_says_so() {
        let layer = bert();
        let tokens = [token("x", 5, 0)];
        let computing = Input {
            layer: RealLayer::Open(&layer),
            ..bare_input(&tokens, &[])
        };
        assert_eq!(
            waiting(&computing),
            Some(format!(
                "Computing the model's own layer 0 ({} heads) over the sentence…",
                layer.heads()
            ))
        );
        let refused = Input {
            run: Some(Err("the sentence is too long")),
            ..computing
        };
        assert_eq!(
            waiting(&refused).unwrap(),
            "The model's own layer 0 cannot run on this sentence: the sentence is too long."
        );
        // Nothing typed: the pane's own "type a sentence" says it.
        let empty = Input {
            layer: RealLayer::Open(&layer),
            ..bare_input(&[], &[])
        };
        assert_eq!(waiting(&empty), None);
        let why = Unavailable::NoLayer0;
        let lines = unavailable(RealLayer::Unavailable(&why), 200, Theme::new(false));
        assert!(
            lines[0]
                .to_string()
                .starts_with("This model's own layer 0 cannot be computed ("),
            "{lines:?}"
        );
        assert!(unavailable(RealLayer::None, 200, Theme::new(false)).is_empty());
    }
}
