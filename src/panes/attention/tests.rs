//! The attention pane's own tests, drawn straight from its input value.

use super::*;
use crate::core::analysis::attention::{AttentionWeights, self_attention};
use crate::core::analysis::schemes::{
    AlibiRow, RopeTurn, TurnedCopies, alibi_row, rope_turn, turned_copies,
};
use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel, TokenLookup};
use crate::core::text::vocabulary::VocabKind;
use crate::ui::pane::screen;

/// "the dog bites the man" in the seed vocabulary at the second 'the', through the seeded
/// head under `scheme` and `mask`, with what the derive step computes for the scheme.
struct Sentence {
    tokens: Vec<Token>,
    lookups: Vec<TokenLookup>,
    pattern: HeadPattern,
    rope: Option<RopeTurn>,
    rope_copies: Option<TurnedCopies>,
    alibi: Option<AlibiRow>,
    scheme: PositionScheme,
    mask: Mask,
}

const STEP: usize = 3;

impl Sentence {
    fn new(scheme: PositionScheme, mask: Mask) -> Self {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let tokens = model.tokenize("the dog bites the man").unwrap();
        let lookups = model.embed(&tokens, scheme);
        let vectors: Vec<_> = lookups
            .iter()
            .filter_map(|lookup| lookup.input_vector.clone())
            .collect();
        let positions: Vec<usize> = tokens.iter().map(|token| token.position).collect();
        let head = AttentionWeights::seeded(model.dims(), DEFAULT_SEED);
        let pattern: HeadPattern = self_attention(&vectors, &positions, &head, mask, scheme).into();
        let alibi = alibi_row(pattern.scores.row(STEP), &positions, STEP);
        Self {
            rope: rope_turn(&lookups[STEP]),
            rope_copies: turned_copies(&tokens, &lookups, STEP),
            alibi,
            tokens,
            lookups,
            pattern,
            scheme,
            mask,
        }
    }

    fn input(&self) -> Input<'_> {
        Input {
            attention: Some(&self.pattern),
            step: STEP,
            mask: self.mask,
            scheme: self.scheme,
            overlay: self.scheme != PositionScheme::None,
            rope: self
                .rope
                .as_ref()
                .filter(|_| self.scheme == PositionScheme::Rope),
            rope_copies: self
                .rope_copies
                .as_ref()
                .filter(|_| self.scheme == PositionScheme::Rope),
            alibi: self
                .alibi
                .as_ref()
                .filter(|_| self.scheme == PositionScheme::Alibi),
            ..bare_input(&self.tokens, &self.lookups)
        }
    }
}

#[test]
fn one_head_s_weights_outputs_and_the_copies_claim_beside_their_rows() {
    let sentence = Sentence::new(PositionScheme::None, Mask::None);
    let pane = build(sentence.input(), 80);
    let height = u16::try_from(pane.height()).unwrap();
    insta::assert_snapshot!(screen(&pane, 80, height).join("\n"));
}

#[test]
fn a_short_pane_drops_the_copies_claim_with_its_rows() {
    let sentence = Sentence::new(PositionScheme::None, Mask::None);
    let pane = build(sentence.input(), 80);
    let claim = "the at 0 and 3: identical weights and outputs.";
    let tall = screen(&pane, 80, 20).join("\n");
    assert!(tall.contains(claim), "{tall}");
    // Too short for the copy's rows: the claim goes too, and the current row stays.
    let short = screen(&pane, 80, 9);
    let text = short.join("\n");
    assert!(!text.contains(claim), "{text}");
    assert!(
        short.iter().any(|line| line.starts_with("│▶   3 the")),
        "{text}"
    );
    assert!(pane.least_height() <= 9);
}

#[test]
fn alibi_gives_the_current_row_s_biases_and_what_the_mask_changes() {
    let sentence = Sentence::new(PositionScheme::Alibi, Mask::Causal);
    let pane = build(sentence.input(), 90);
    let text = screen(&pane, 90, 40).join("\n");
    assert!(
        text.contains("bias on position 3's scores, key by key:"),
        "{text}"
    );
    // The causal mask hides the keys after position 3: their bias is a dot.
    assert!(text.contains("     ·"), "{text}");
    assert!(
        text.contains("With the causal mask each token sees only"),
        "{text}"
    );
    assert!(text.contains("causal mask · ALiBi"), "{text}");
}

#[test]
fn with_no_head_the_pane_says_why() {
    let none = bare_input(&[], &[]);
    let text = screen(&build(none, 60), 60, 5).join("\n");
    assert!(text.contains("No tokens yet: type a sentence"), "{text}");
}

#[test]
fn added_positions_keep_both_copies_rows_beside_their_finding() {
    let sentence = Sentence::new(PositionScheme::Learned, Mask::None);
    let pane = build(sentence.input(), 42);
    let rows = |lines: &[String], prefix: &str| {
        lines.iter().filter(|line| line.starts_with(prefix)).count()
    };
    // As short as the explorer's at 80×24: the other rows give way to the copy at 0.
    for height in [10, 12] {
        let short = screen(&pane, 42, height);
        let text = short.join("\n");
        assert!(text.contains("the same word at another"), "{text}");
        assert_eq!(rows(&short, "│    0 the"), 1, "{text}");
        assert_eq!(rows(&short, "│▶   3 the"), 2, "weights and output:\n{text}");
    }
    // Too short for the copy's row: the finding points at the readout instead.
    let tiny = screen(&pane, 42, 6);
    let text = tiny.join("\n");
    println!("{text}");
    assert_eq!(rows(&tiny, "│    0 the"), 0, "{text}");
    assert!(!text.contains("attends"), "{text}");
    assert!(
        text.contains("'the' at 0 and 3 now differ: What the"),
        "{text}"
    );
    assert!(
        text.contains("layer returned gives their distance."),
        "{text}"
    );
}
