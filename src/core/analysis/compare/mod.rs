//! Two sentences side by side: the article's "dog bites man" and "man bites dog".
//!
//! Both go through the embedding layer and one attention head. Without position information
//! they bring the same set of token vectors, so attention gives each word the same output in
//! either order; a position scheme (or a causal mask) is what tells them apart.

mod outputs;
mod reorder;
mod verdicts;

use std::collections::HashMap;

use anyhow::{Result, bail};
use ndarray::Array1;

use crate::core::analysis::attention::{Attention, AttentionWeights, Mask, self_attention};
use crate::core::explain::verdict::VectorMatch;
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::weights::{EmbeddingModel, TokenLookup};
use crate::core::text::sentence;
use crate::core::text::tokenizer::TextTokenizer;
use crate::core::text::vocabulary::VocabKind;

pub use outputs::{OutputRow, output_rows};
pub use reorder::Reordering;
pub use verdicts::{AttentionOverall, Cause, Verdicts, WordVerdict, Wording};

/// The article's pair, for the six-word seed vocabulary.
pub const DEFAULT_PAIR_SEED: (&str, &str) = ("dog bites man", "man bites dog");

/// The pair for every other vocabulary: with a word before them, `dog` and `man` are the same
/// byte-pair pieces (`␣dog`, `␣man`) in both orders, so the token vectors still match.
pub const DEFAULT_PAIR: (&str, &str) = ("the dog bites the man", "the man bites the dog");

/// The pair to compare first: [`DEFAULT_PAIR_SEED`] for the seed vocabulary, else
/// [`DEFAULT_PAIR`].
#[must_use]
pub fn default_pair(model: &EmbeddingModel) -> (&'static str, &'static str) {
    match model.tokenizer() {
        Some(TextTokenizer::Words(vocabulary)) if vocabulary.name() == VocabKind::Seed.name() => {
            DEFAULT_PAIR_SEED
        }
        _ => DEFAULT_PAIR,
    }
}

/// The most tokens of each sentence a comparison takes, about a paragraph.
///
/// Attention's work and memory grow with the square of a sentence's tokens, and compare mode
/// redoes it on every key; the tokens after these are counted, left out, and said to be.
pub const MAX_COMPARED_TOKENS: usize = 128;

/// One sentence of a comparison: what the embedding layer and attention made of it.
#[derive(Clone, Debug, PartialEq)]
pub struct ComparedSentence {
    /// The sentence as given.
    pub text: String,
    /// How many tokens of the sentence were read (all of them, or the first
    /// [`MAX_SENTENCE_TOKENS`](sentence::MAX_SENTENCE_TOKENS) of a longer text); only the first [`MAX_COMPARED_TOKENS`] are
    /// compared.
    pub token_count: usize,
    /// Whether the sentence goes on past the tokens read.
    pub longer: bool,
    /// Each compared token's lookup; every one has a token vector and an input vector.
    pub lookups: Vec<TokenLookup>,
    /// One attention head over the input vectors, in sentence order.
    pub attention: Attention,
    /// The mean of the token vectors, summed in sorted order so that any reordering of the
    /// same tokens gives the same bits.
    pub mean_token_vector: Array1<f32>,
}

/// Two sentences through the same embedding layer and attention head.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Sentence A, then sentence B.
    pub sentences: [ComparedSentence; 2],
    /// The position scheme both were embedded and attended with.
    pub scheme: PositionScheme,
    /// The mask both were attended with.
    pub mask: Mask,
    /// Whether A's token vectors and B's are the same multiset (compared as bit patterns):
    /// the same vectors, perhaps in another order.
    pub same_token_vectors: bool,
    /// Whether the mean token vector of A has the same bits as B's, and is made of numbers
    /// (a mean holding NaN or infinity is never called the same).
    pub same_mean_vector: bool,
    /// Pairs (token `i` of A, token `j` of B) with the same id, the first copy in A with the
    /// first in B, the second with the second, and so on; ordered by `i`.
    pub links: Vec<(usize, usize)>,
    /// A sentence for each word that is spelled the same in A and B (ignoring a leading space
    /// and case) but looked up under different ids.
    pub id_differences: Vec<String>,
    /// Every judgement of the comparison: the words, the vectors, attention's outputs.
    pub verdicts: Verdicts,
}

impl Comparison {
    /// How A's mean token vector compares with B's (non-numbers are never identical).
    #[must_use]
    pub fn mean_match(&self) -> VectorMatch {
        VectorMatch::of(
            self.sentences[0].mean_token_vector.view(),
            self.sentences[1].mean_token_vector.view(),
        )
    }
}

/// Embeds both sentences and runs one attention head over each.
///
/// The head is `AttentionWeights::seeded(dims, attention_seed)`; both sentences share it.
/// Learned and sinusoidal positions are in the input vectors; with `RoPE` or `ALiBi` the input
/// vectors are the token vectors and the attention outputs carry the position.
///
/// # Errors
/// When the model has no tokenizer, a sentence has no tokens, or a token has no row or no
/// input vector (a word outside the vocabulary, or a position beyond the learned table).
pub fn compare(
    model: &EmbeddingModel,
    a: &str,
    b: &str,
    scheme: PositionScheme,
    mask: Mask,
    attention_seed: u64,
) -> Result<Comparison> {
    let head = AttentionWeights::seeded(model.dims(), attention_seed);
    compare_with_head(model, a, b, scheme, mask, &head, ReadAs::TEXT)
}

/// How both sentences of a comparison are read: as the explorer reads its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadAs {
    /// Whether the tokenizer adds its special tokens (`[CLS]`, `[SEP]`), as `S` chooses.
    pub special_tokens: bool,
    /// Whether numbers are read as token ids (`--ids`).
    pub by_ids: bool,
}

impl ReadAs {
    /// Text, with the special tokens the tokenizer adds.
    pub const TEXT: Self = Self {
        special_tokens: true,
        by_ids: false,
    };
}

/// [`compare`] with a head made beforehand, so a caller can keep one for a wide model
/// (three `d × d` matrices) rather than draw it again for every keystroke.
///
/// Both sentences are read as the explorer reads its own (`reading`): with or without the
/// special tokens, and as ids typed as numbers when `by_ids` is set or the model has no
/// tokenizer (see [`sentence::read`]).
///
/// # Errors
/// As [`compare`]; also when the head does not take the model's width.
pub fn compare_with_head(
    model: &EmbeddingModel,
    a: &str,
    b: &str,
    scheme: PositionScheme,
    mask: Mask,
    head: &AttentionWeights,
    reading: ReadAs,
) -> Result<Comparison> {
    if head.input_dims() != model.dims() {
        bail!(
            "the attention head takes {} numbers but the {} table's vectors have {}",
            head.input_dims(),
            model.label(),
            model.dims()
        );
    }
    let first = compared_sentence(model, (a, "A"), scheme, mask, head, reading)?;
    let second = compared_sentence(model, (b, "B"), scheme, mask, head, reading)?;
    let same_token_vectors = sorted_bits(&first) == sorted_bits(&second);
    let same_mean_vector = bits(&first.mean_token_vector) == bits(&second.mean_token_vector)
        && first.mean_token_vector.iter().all(|x| x.is_finite());
    let links = links(&first.lookups, &second.lookups);
    let id_differences = id_differences(&first.lookups, &second.lookups);
    let sentences = [first, second];
    let verdicts = Verdicts::of(&sentences, &links, scheme, mask, same_token_vectors);
    Ok(Comparison {
        sentences,
        scheme,
        mask,
        same_token_vectors,
        same_mean_vector,
        links,
        id_differences,
        verdicts,
    })
}

/// One sentence, `(text, name)`, through the lookups and the head.
fn compared_sentence(
    model: &EmbeddingModel,
    (text, name): (&str, &str),
    scheme: PositionScheme,
    mask: Mask,
    head: &AttentionWeights,
    reading: ReadAs,
) -> Result<ComparedSentence> {
    let ReadAs {
        special_tokens,
        by_ids,
    } = reading;
    let read = sentence::read(model, text, special_tokens, by_ids)?;
    let read_as_ids = by_ids || !model.reads_text();
    let (mut tokens, longer) = (read.tokens, read.unread.is_some());
    let token_count = tokens.len();
    tokens.truncate(MAX_COMPARED_TOKENS);
    let lookups = model.embed(&tokens, scheme);
    if lookups.is_empty() {
        bail!("sentence {name} has no tokens");
    }
    let mut token_vectors = Vec::with_capacity(lookups.len());
    let mut inputs = Vec::with_capacity(lookups.len());
    for lookup in &lookups {
        let word = &lookup.token.text;
        let Some(token_vector) = &lookup.token_vector else {
            if read_as_ids {
                bail!("'{word}' in sentence {name} {}", not_an_id(model, by_ids));
            }
            bail!(
                "'{word}' in sentence {name} has no row in the {} table",
                model.label()
            );
        };
        let Some(input) = &lookup.input_vector else {
            let reason = lookup
                .position
                .warning()
                .unwrap_or_else(|| "it has no input vector".to_owned());
            bail!("'{word}' in sentence {name} cannot take part: {reason}");
        };
        token_vectors.push(token_vector.clone());
        inputs.push(input.clone());
    }
    let positions: Vec<usize> = lookups.iter().map(|lookup| lookup.token.position).collect();
    let attention = self_attention(&inputs, &positions, head, mask, scheme);
    Ok(ComparedSentence {
        text: text.to_owned(),
        token_count,
        longer,
        mean_token_vector: mean(&token_vectors, model.dims()),
        lookups,
        attention,
    })
}

/// Why a piece of a sentence read as ids has no row: it is not a number below the row count;
/// and, when ids were not asked for (`by_ids`) but the model cannot read text, why not.
fn not_an_id(model: &EmbeddingModel, by_ids: bool) -> String {
    let ids = format!(
        "is not a token id: the {} table's ids run from 0 to {}",
        model.label(),
        model.rows().saturating_sub(1)
    );
    if by_ids {
        ids
    } else {
        format!("{ids}; {}", model.no_text_message())
    }
}

impl ComparedSentence {
    /// How many of the sentence's tokens were left out of the comparison.
    #[must_use]
    pub fn left_out(&self) -> usize {
        self.token_count - self.lookups.len()
    }

    /// How many tokens the sentence has, in words: "300" or "more than 4096".
    #[must_use]
    pub fn count_words(&self) -> String {
        if self.longer {
            format!("more than {}", self.token_count)
        } else {
            self.token_count.to_string()
        }
    }
}

impl Comparison {
    /// A sentence saying which tokens were left out, when some were: the verdicts then hold
    /// for the first [`MAX_COMPARED_TOKENS`] tokens of each sentence only.
    #[must_use]
    pub fn left_out_note(&self) -> Option<String> {
        let counts: Vec<String> = ["A", "B"]
            .iter()
            .zip(&self.sentences)
            .filter(|(_, sentence)| sentence.left_out() > 0)
            .map(|(name, sentence)| {
                if sentence.longer {
                    format!(
                        "{name} has {} tokens, all after the first {} left out",
                        sentence.count_words(),
                        sentence.lookups.len()
                    )
                } else {
                    format!(
                        "{name} has {} tokens, {} left out",
                        sentence.token_count,
                        sentence.left_out()
                    )
                }
            })
            .collect();
        (!counts.is_empty()).then(|| {
            format!(
                "Only the first {MAX_COMPARED_TOKENS} tokens of each sentence are compared \
                 ({}): what follows is about those.",
                counts.join("; ")
            )
        })
    }
}

/// The mean of the vectors, each dimension summed in f64 in sorted order and rounded once.
fn mean(vectors: &[Array1<f32>], dims: usize) -> Array1<f32> {
    #[expect(clippy::cast_precision_loss, reason = "a sentence's token count")]
    let count = vectors.len() as f64;
    Array1::from_shape_fn(dims, |dim| {
        let mut terms: Vec<f64> = vectors.iter().map(|v| f64::from(v[dim])).collect();
        terms.sort_unstable_by(f64::total_cmp);
        #[expect(
            clippy::cast_possible_truncation,
            reason = "rounded once to float32 on purpose"
        )]
        let value = (terms.iter().sum::<f64>() / count) as f32;
        value
    })
}

fn bits(vector: &Array1<f32>) -> Vec<u32> {
    vector.iter().map(|value| value.to_bits()).collect()
}

/// The token vectors of a sentence as sorted bit patterns: equal for equal multisets.
fn sorted_bits(sentence: &ComparedSentence) -> Vec<Vec<u32>> {
    let mut patterns: Vec<Vec<u32>> = sentence
        .lookups
        .iter()
        .filter_map(|lookup| lookup.token_vector.as_ref().map(bits))
        .collect();
    patterns.sort_unstable();
    patterns
}

/// Tokens of A and B with the same id, matched copy by copy in order of occurrence.
fn links(a: &[TokenLookup], b: &[TokenLookup]) -> Vec<(usize, usize)> {
    let ids = |lookups: &[TokenLookup]| -> Vec<Option<usize>> {
        lookups.iter().map(|lookup| lookup.token.id).collect()
    };
    id_links(&ids(a), &ids(b))
}

/// Places in A and B holding the same id, matched copy by copy in order of occurrence (the
/// first copy in A with the first in B, and so on); ordered by the place in A.
#[must_use]
pub fn id_links(a: &[Option<usize>], b: &[Option<usize>]) -> Vec<(usize, usize)> {
    let mut unmatched: HashMap<usize, Vec<usize>> = HashMap::new();
    for (j, id) in b.iter().enumerate().rev() {
        if let Some(id) = id {
            unmatched.entry(*id).or_default().push(j);
        }
    }
    a.iter()
        .enumerate()
        .filter_map(|(i, id)| {
            let j = unmatched.get_mut(&(*id)?)?.pop()?;
            Some((i, j))
        })
        .collect()
}

/// One piece of text a word was read as, and its id.
#[derive(Clone, PartialEq, Eq)]
struct Piece {
    text: String,
    id: usize,
}

/// The distinct pieces of each word (without a leading space, lower case), in order.
fn pieces_by_word(lookups: &[TokenLookup]) -> Vec<(String, Vec<Piece>)> {
    let mut words: Vec<(String, Vec<Piece>)> = Vec::new();
    for lookup in lookups {
        let Some(id) = lookup.token.id else { continue };
        let word = bare_word(&lookup.token.text);
        if word.is_empty() {
            continue;
        }
        let piece = Piece {
            text: lookup.token.text.clone(),
            id,
        };
        match words.iter_mut().find(|(known, _)| *known == word) {
            Some((_, pieces)) if !pieces.contains(&piece) => pieces.push(piece),
            Some(_) => {}
            None => words.push((word, vec![piece])),
        }
    }
    words
}

/// Sentences for the words that A and B spell alike but look up under different ids.
fn id_differences(a: &[TokenLookup], b: &[TokenLookup]) -> Vec<String> {
    let b_words = pieces_by_word(b);
    pieces_by_word(a)
        .into_iter()
        .filter_map(|(word, a_pieces)| {
            let (_, b_pieces) = b_words.iter().find(|(other, _)| *other == word)?;
            let ids = |pieces: &[Piece]| {
                let mut ids: Vec<usize> = pieces.iter().map(|piece| piece.id).collect();
                ids.sort_unstable();
                ids
            };
            if ids(&a_pieces) == ids(b_pieces) {
                return None;
            }
            let only_in = |pieces: &[Piece], others: &[Piece]| {
                pieces
                    .iter()
                    .find(|piece| others.iter().all(|other| other.id != piece.id))
                    .unwrap_or(&pieces[0])
                    .clone()
            };
            let (in_a, in_b) = (only_in(&a_pieces, b_pieces), only_in(b_pieces, &a_pieces));
            Some(format!(
                "'{}' is id {} in A but '{}' is {} in B: {}",
                in_a.text,
                in_a.id,
                in_b.text,
                in_b.id,
                why_pieces_differ(&in_a.text, &in_b.text)
            ))
        })
        .collect()
}

/// Why two spellings of one word are different pieces: a leading space, a capital, or both.
fn why_pieces_differ(a: &str, b: &str) -> &'static str {
    let has_space = |text: &str| text.starts_with(SPACE_MARKS);
    let space_differs = has_space(a) != has_space(b);
    let case_differs = a.trim_start_matches(SPACE_MARKS) != b.trim_start_matches(SPACE_MARKS);
    match (space_differs, case_differs) {
        (true, true) => "a leading space and a capital letter make different pieces",
        (true, false) => "a leading space makes a different piece",
        (false, true) => "a capital letter makes a different piece",
        (false, false) => "the tokenizer reads them as different pieces",
    }
}

/// The marks a token's text may start with for a leading space (`␣` on screen, `Ġ` raw).
const SPACE_MARKS: [char; 3] = [' ', '␣', 'Ġ'];

/// A token's text without its leading-space mark or surrounding spaces, in lower case.
fn bare_word(text: &str) -> String {
    text.trim_start_matches(SPACE_MARKS).trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tables::weights::DEFAULT_SEED;
    use crate::core::text::sentence::MAX_SENTENCE_TOKENS;

    fn seed_model() -> EmbeddingModel {
        EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED)
    }

    fn article_pair(scheme: PositionScheme, mask: Mask) -> Comparison {
        let (a, b) = DEFAULT_PAIR_SEED;
        compare(&seed_model(), a, b, scheme, mask, DEFAULT_SEED).unwrap()
    }

    fn output_bits(comparison: &Comparison, sentence: usize, token: usize) -> Vec<u32> {
        bits(&comparison.sentences[sentence].attention.outputs[token])
    }

    #[test]
    fn a_long_sentence_is_compared_on_its_first_tokens_and_says_so() {
        let model = EmbeddingModel::builtin(VocabKind::Words, DEFAULT_SEED);
        let long = "the dog bites the man ".repeat(20_000);
        let comparison = compare(
            &model,
            &long,
            "the man bites the dog",
            PositionScheme::None,
            Mask::None,
            DEFAULT_SEED,
        )
        .unwrap();
        let [a, b] = &comparison.sentences;
        assert_eq!(a.lookups.len(), MAX_COMPARED_TOKENS);
        assert_eq!(
            a.attention.weights.dim(),
            (MAX_COMPARED_TOKENS, MAX_COMPARED_TOKENS)
        );
        assert_eq!(a.attention.outputs.len(), MAX_COMPARED_TOKENS);
        assert_eq!(a.token_count, MAX_SENTENCE_TOKENS);
        assert!(a.longer);
        assert_eq!(b.left_out(), 0);
        let note = comparison.left_out_note().expect("a note");
        assert!(
            note.contains(&format!("first {MAX_COMPARED_TOKENS} tokens"))
                && note.contains(&format!(
                    "A has more than {MAX_SENTENCE_TOKENS} tokens, all after the first \
                     {MAX_COMPARED_TOKENS} left out"
                ))
                && !note.contains("B has"),
            "{note}"
        );
        assert_eq!(
            article_pair(PositionScheme::None, Mask::None).left_out_note(),
            None
        );
    }

    #[test]
    fn without_positions_both_orders_bring_the_same_vectors_and_get_the_same_outputs() {
        let comparison = article_pair(PositionScheme::None, Mask::None);
        assert!(comparison.same_token_vectors);
        assert!(comparison.same_mean_vector);
        assert_eq!(comparison.links, [(0, 2), (1, 1), (2, 0)]);
        assert!(comparison.id_differences.is_empty());
        for &(i, j) in &comparison.links {
            assert_eq!(
                output_bits(&comparison, 0, i),
                output_bits(&comparison, 1, j),
                "token {i} of A and {j} of B"
            );
        }
        let [a, b] = &comparison.sentences;
        assert_eq!((a.text.as_str(), b.text.as_str()), DEFAULT_PAIR_SEED);
        assert_eq!(a.attention.outputs.len(), 3);
    }

    #[test]
    fn learned_positions_keep_the_token_vectors_but_change_the_inputs_and_outputs() {
        let comparison = article_pair(PositionScheme::Learned, Mask::None);
        assert!(comparison.same_token_vectors, "token vectors never change");
        assert!(comparison.same_mean_vector);
        let [a, b] = &comparison.sentences;
        // dog is at 0 in A and 2 in B; bites is at 1 in both, so its input vector is the same.
        assert_ne!(a.lookups[0].input_vector, b.lookups[2].input_vector);
        assert_eq!(a.lookups[1].input_vector, b.lookups[1].input_vector);
        for &(i, j) in &comparison.links {
            assert_ne!(
                output_bits(&comparison, 0, i),
                output_bits(&comparison, 1, j),
                "token {i} of A and {j} of B"
            );
        }
    }

    #[test]
    fn rope_and_alibi_leave_the_inputs_alone_and_change_the_outputs() {
        for scheme in [PositionScheme::Rope, PositionScheme::Alibi] {
            let comparison = article_pair(scheme, Mask::None);
            let [a, b] = &comparison.sentences;
            for lookup in a.lookups.iter().chain(&b.lookups) {
                assert_eq!(lookup.input_vector, lookup.token_vector, "{scheme}");
                assert_eq!(lookup.position.vector(), None);
            }
            assert!(comparison.same_token_vectors);
        }
        let rope = article_pair(PositionScheme::Rope, Mask::None);
        assert_ne!(output_bits(&rope, 0, 0), output_bits(&rope, 1, 2), "dog");
        // ALiBi sees distances only, and reversing three words keeps every distance; with
        // the causal mask it was made for, the orders differ.
        let alibi = article_pair(PositionScheme::Alibi, Mask::None);
        assert_eq!(output_bits(&alibi, 0, 0), output_bits(&alibi, 1, 2), "dog");
        let causal = article_pair(PositionScheme::Alibi, Mask::Causal);
        assert_ne!(
            output_bits(&causal, 0, 2),
            output_bits(&causal, 1, 0),
            "man"
        );
        let (a, b) = DEFAULT_PAIR;
        let longer = compare(&seed_model(), a, b, PositionScheme::Alibi, Mask::None, 1).unwrap();
        assert_ne!(
            output_bits(&longer, 0, 1),
            output_bits(&longer, 1, 4),
            "dog"
        );
    }

    #[test]
    fn a_causal_mask_alone_breaks_the_symmetry() {
        let comparison = article_pair(PositionScheme::None, Mask::Causal);
        assert_eq!(comparison.mask, Mask::Causal);
        let [a, _] = &comparison.sentences;
        assert_eq!(
            a.attention.outputs[0], a.attention.values[0],
            "dog sees only itself"
        );
        assert_ne!(
            output_bits(&comparison, 0, 0),
            output_bits(&comparison, 1, 2)
        );
    }

    #[test]
    fn repeated_words_link_copy_by_copy() {
        let (a, b) = DEFAULT_PAIR;
        let comparison = compare(
            &seed_model(),
            a,
            b,
            PositionScheme::None,
            Mask::None,
            DEFAULT_SEED,
        )
        .unwrap();
        assert_eq!(comparison.links, [(0, 0), (1, 4), (2, 2), (3, 3), (4, 1)]);
        assert!(comparison.same_token_vectors);
    }

    #[test]
    fn gpt2_reads_dog_at_the_start_and_dog_after_a_space_as_different_pieces() {
        let model = EmbeddingModel::gpt2(DEFAULT_SEED, 4);
        model.wait_until_ready();
        let (a, b) = DEFAULT_PAIR_SEED;
        let comparison =
            compare(&model, a, b, PositionScheme::None, Mask::None, DEFAULT_SEED).unwrap();
        assert!(!comparison.same_token_vectors);
        assert!(!comparison.same_mean_vector);
        assert_eq!(comparison.links, [(1, 1)], "only ␣bites is the same piece");
        assert_eq!(
            comparison.id_differences[0],
            "'dog' is id 9703 in A but '␣dog' is 3290 in B: a leading space makes a different piece"
        );
        assert_eq!(
            comparison.id_differences.len(),
            2,
            "{:?}",
            comparison.id_differences
        );
        assert!(comparison.id_differences[1].starts_with("'␣man' is id 582 in A but 'man' is"));
        // With a word in front, every piece of the longer pair is the same in both orders.
        assert_eq!(default_pair(&model), DEFAULT_PAIR);
        let (a, b) = DEFAULT_PAIR;
        let comparison =
            compare(&model, a, b, PositionScheme::None, Mask::None, DEFAULT_SEED).unwrap();
        assert!(comparison.same_token_vectors && comparison.same_mean_vector);
        assert!(comparison.id_differences.is_empty());
    }

    #[test]
    fn the_default_pair_depends_on_the_vocabulary() {
        assert_eq!(default_pair(&seed_model()), DEFAULT_PAIR_SEED);
        let words = EmbeddingModel::builtin(VocabKind::Words, DEFAULT_SEED);
        assert_eq!(default_pair(&words), DEFAULT_PAIR);
        let (a, b) = DEFAULT_PAIR;
        assert!(compare(&words, a, b, PositionScheme::Sinusoidal, Mask::None, 1).is_ok());
    }

    #[test]
    fn sentences_that_cannot_be_attended_are_explained() {
        let model = seed_model();
        let error = |a: &str, scheme| {
            compare(&model, a, "dog", scheme, Mask::None, 1)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            error("dog bites cat", PositionScheme::None),
            "'cat' in sentence A has no row in the seed table"
        );
        assert_eq!(error("", PositionScheme::None), "sentence A has no tokens");
        let long = ["dog"; 17].join(" ");
        assert_eq!(
            error(&long, PositionScheme::Learned),
            "'dog' in sentence A cannot take part: position 16 is beyond the context length 16"
        );
        // RoPE has no table to run out of.
        assert!(compare(&model, &long, "dog", PositionScheme::Rope, Mask::None, 1).is_ok());
        // A table without a vocabulary reads both sentences as ids, as the explorer does.
        let shaped = EmbeddingModel::shaped(6, 3, 16, 1).unwrap();
        let ids = compare(
            &shaped,
            "5 1 2",
            "2 1 5",
            PositionScheme::None,
            Mask::None,
            1,
        );
        assert_eq!(ids.unwrap().sentences[1].lookups[2].token.id, Some(5));
        let words = compare(&shaped, "5 a", "b", PositionScheme::None, Mask::None, 1);
        assert_eq!(
            words.unwrap_err().to_string(),
            format!(
                "'a' in sentence A is not a token id: the {0} table's ids run from 0 to 5; the {0} \
                 table has no vocabulary to read words with; give token ids with --ids",
                shaped.label()
            )
        );
        // With ids asked for, a table with a vocabulary reads numbers as ids too.
        let head = AttentionWeights::seeded(3, 1);
        let read = |by_ids| {
            let pair = compare_with_head(
                &model,
                "2 1",
                "1 2",
                PositionScheme::None,
                Mask::None,
                &head,
                ReadAs {
                    special_tokens: true,
                    by_ids,
                },
            );
            pair.map(|pair| pair.sentences[0].lookups[0].token.id)
        };
        assert_eq!(read(true).unwrap(), Some(2));
        assert!(read(false).is_err());
    }

    #[test]
    fn a_head_made_beforehand_gives_the_same_comparison() {
        let model = seed_model();
        let (a, b) = DEFAULT_PAIR_SEED;
        let head = AttentionWeights::seeded(3, 9);
        let scheme = PositionScheme::Sinusoidal;
        assert_eq!(
            compare_with_head(&model, a, b, scheme, Mask::Causal, &head, ReadAs::TEXT).unwrap(),
            compare(&model, a, b, scheme, Mask::Causal, 9).unwrap()
        );
        let narrow = AttentionWeights::seeded(2, 9);
        let error =
            compare_with_head(&model, a, b, scheme, Mask::None, &narrow, ReadAs::TEXT).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the attention head takes 2 numbers but the seed table's vectors have 3"
        );
    }

    #[test]
    fn reasons_name_the_space_the_capital_or_both() {
        assert_eq!(
            why_pieces_differ("dog", "␣dog"),
            "a leading space makes a different piece"
        );
        assert_eq!(
            why_pieces_differ("Dog", "dog"),
            "a capital letter makes a different piece"
        );
        assert_eq!(
            why_pieces_differ("␣Dog", "dog"),
            "a leading space and a capital letter make different pieces"
        );
        assert_eq!(bare_word("␣Dog"), "dog");
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn the_mean_does_not_depend_on_the_order(
                (vectors, order) in (1usize..=8, 1usize..=6).prop_flat_map(|(dims, count)| (
                    proptest::collection::vec(
                        proptest::collection::vec(-4.0f32..4.0, dims).prop_map(Array1::from),
                        count,
                    ),
                    Just((0..count).collect::<Vec<_>>()).prop_shuffle(),
                )),
            ) {
                let dims = vectors[0].len();
                let shuffled: Vec<Array1<f32>> = order.iter().map(|&i| vectors[i].clone()).collect();
                prop_assert_eq!(bits(&mean(&vectors, dims)), bits(&mean(&shuffled, dims)));
            }
        }
    }
}
