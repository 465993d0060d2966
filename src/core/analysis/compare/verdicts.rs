//! What a comparison shows, judged once: the same words or not, the same token vectors, the
//! same input vectors, and whether attention gives each word the same output in both
//! sentences. The explorer and `embedlens compare` both print these, so they never disagree.
//!
//! The judgements are values; [`Verdicts::sentences`] turns them into prose last. The
//! sentences name no keys: the screen adds its own hints from the key table.

use std::fmt;

use super::ComparedSentence;
use crate::core::analysis::attention::Mask;
use crate::core::explain::verdict::{VectorMatch, capitalised};
use crate::core::tables::positional::PositionScheme;
use crate::core::text::vocabulary::bare_word;

/// How the two sentences' tokens relate to each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wording {
    /// The same tokens in the same order.
    SameOrder,
    /// The same tokens (the same ids, as often each) in another order.
    Reordered,
    /// The same words, but some as other tokens (other ids), as a byte-pair vocabulary makes
    /// them: `dog` at the start and `␣dog` after a space.
    SameWordsOtherTokens,
    /// Some word of one sentence is not in the other, or not as often.
    DifferentWords,
}

impl Wording {
    /// A short machine-readable name: `same_order`, `reordered`, `different_tokens` or
    /// `different_words`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::SameOrder => "same_order",
            Self::Reordered => "reordered",
            Self::SameWordsOtherTokens => "different_tokens",
            Self::DifferentWords => "different_words",
        }
    }
}

/// One word that appears in both sentences (the same id), and how its vectors compare.
#[derive(Clone, Debug, PartialEq)]
pub struct WordVerdict {
    /// Its index in sentence A.
    pub a: usize,
    /// Its index in sentence B.
    pub b: usize,
    /// The token's text.
    pub text: String,
    /// Its input vectors in A and B (token vector, plus position vector when positions are
    /// added to the inputs).
    pub input_vector: VectorMatch,
    /// Its attention outputs in A and B.
    pub output: VectorMatch,
}

/// Attention's outputs over all the words the sentences share.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AttentionOverall {
    /// No word is in both sentences, so no output can be compared.
    NothingShared,
    /// Every shared word gets the same output in both sentences.
    Identical {
        /// How many words were compared.
        words: usize,
    },
    /// Some outputs differ, none by more than the last bit of float32.
    LastBit {
        /// How many words differ in the last bit.
        differing: usize,
        /// How many words were compared.
        words: usize,
    },
    /// Some output holds NaN or infinity, so no output can be said to be the same.
    NotNumbers,
    /// Some outputs differ by more than rounding.
    Differ {
        /// How many words get a different output.
        differing: usize,
        /// How many words were compared.
        words: usize,
        /// The largest difference of any number of any output.
        largest: f64,
    },
}

impl AttentionOverall {
    /// A short machine-readable name: `nothing_shared`, `identical`, `last_bit`, `differs` or
    /// `not_numbers`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::NothingShared => "nothing_shared",
            Self::Identical { .. } => "identical",
            Self::LastBit { .. } => "last_bit",
            Self::Differ { .. } => "differs",
            Self::NotNumbers => "not_numbers",
        }
    }

    /// Whether every shared word's output is the same in both sentences (or none is shared).
    #[must_use]
    pub fn is_identical(self) -> bool {
        matches!(self, Self::Identical { .. })
    }
}

/// Why attention's outputs differ between the sentences, or why they cannot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The same sentence twice: nothing could differ.
    SameSentence,
    /// No position signal and no mask: attention sees a set of vectors, so a reordering
    /// cannot change any word's output.
    NoPositionSignal,
    /// `ALiBi` (without the causal mask) sees only distances between words, and this
    /// reordering kept them: the outputs match.
    AlibiDistancesKept,
    /// Learned or sinusoidal positions make the input vectors differ.
    PositionsInInputs(PositionScheme),
    /// `RoPE` or `ALiBi` act inside attention: the inputs match but the scores differ.
    PositionsInsideAttention(PositionScheme),
    /// The causal mask lets each word see only the words before it.
    CausalMask,
    /// The sentences hold different words (or the same words as different tokens), so the
    /// shared ones attend over other company.
    DifferentCompany(Wording),
}

/// How many of the words whose outputs differ most the attention sentence names.
const NAMED_WORDS: usize = 3;

/// Every judgement of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdicts {
    /// Same words in the same order, reordered, or different words.
    pub wording: Wording,
    /// Whether A's token vectors and B's are the same multiset.
    pub same_token_vectors: bool,
    /// Whether A's input vectors and B's are the same multiset; `None` when positions are not
    /// added to the inputs (then the input vectors are the token vectors).
    pub same_input_vectors: Option<bool>,
    /// Each shared word, in A's order.
    pub words: Vec<WordVerdict>,
    /// Attention's outputs over the shared words.
    pub attention: AttentionOverall,
    /// Why the outputs differ or match, most telling first.
    pub causes: Vec<Cause>,
}

impl Verdicts {
    /// Judges two sentences compared under `scheme` and `mask`, whose shared tokens are
    /// `links` (as [`super::Comparison::links`]).
    #[must_use]
    pub fn of(
        sentences: &[ComparedSentence; 2],
        links: &[(usize, usize)],
        scheme: PositionScheme,
        mask: Mask,
        same_token_vectors: bool,
    ) -> Self {
        let [a, b] = sentences;
        let wording = wording(a, b);
        let same_input_vectors = scheme
            .is_additive()
            .then(|| sorted_input_bits(a) == sorted_input_bits(b));
        let words: Vec<WordVerdict> = links
            .iter()
            .map(|&(i, j)| WordVerdict {
                a: i,
                b: j,
                text: a.lookups[i].token.text.clone(),
                input_vector: match (&a.lookups[i].input_vector, &b.lookups[j].input_vector) {
                    (Some(left), Some(right)) => VectorMatch::of(left.view(), right.view()),
                    _ => VectorMatch::DiffersBy(f64::INFINITY),
                },
                output: VectorMatch::of(
                    a.attention.outputs[i].view(),
                    b.attention.outputs[j].view(),
                ),
            })
            .collect();
        let attention = overall(&words);
        let causes = causes(scheme, mask, wording, attention);
        Self {
            wording,
            same_token_vectors,
            same_input_vectors,
            words,
            attention,
            causes,
        }
    }

    /// The verdicts as sentences, in the order a reader needs them: the words, the token
    /// vectors, the input vectors (when positions are added), attention, and why.
    #[must_use]
    pub fn sentences(&self, scheme: PositionScheme) -> Vec<String> {
        let mut sentences = vec![self.wording_sentence(), self.token_sentence()];
        if let Some(sentence) = self.input_sentence(scheme) {
            sentences.push(sentence);
        }
        sentences.push(self.attention_sentence());
        sentences.extend(self.causes.iter().map(ToString::to_string));
        sentences
    }

    /// Whether the sentences hold the same words.
    #[must_use]
    pub fn wording_sentence(&self) -> String {
        match self.wording {
            Wording::SameOrder => "A and B are the same tokens in the same order.",
            Wording::Reordered => "B holds exactly A's tokens, in another order.",
            Wording::SameWordsOtherTokens => {
                "A and B hold the same words, but some as different tokens (other ids), not \
                 just a different order."
            }
            Wording::DifferentWords => "A and B hold different words, not just a different order.",
        }
        .to_owned()
    }

    /// Whether the token vectors are the same set.
    #[must_use]
    pub fn token_sentence(&self) -> String {
        if self.same_token_vectors {
            "Token vectors: the same set in A and B; the lookup hands the model the same \
             vectors, only arranged differently."
        } else {
            "Token vectors: not the same set; some token of one sentence has no equal in the \
             other."
        }
        .to_owned()
    }

    /// Whether the input vectors are the same set; `None` when positions are not added.
    #[must_use]
    pub fn input_sentence(&self, scheme: PositionScheme) -> Option<String> {
        let same = self.same_input_vectors?;
        Some(if same {
            format!("Input vectors (token + {scheme} position): the same set in A and B.")
        } else {
            format!(
                "Input vectors (token + {scheme} position): not the same set; a word at another \
                 position gets another input vector."
            )
        })
    }

    /// The words whose outputs differ, the largest difference first.
    fn differing_most(&self) -> Vec<&WordVerdict> {
        let mut differing: Vec<&WordVerdict> = self
            .words
            .iter()
            .filter(|word| !word.output.is_identical())
            .collect();
        differing.sort_by(|x, y| {
            y.output
                .largest_difference()
                .total_cmp(&x.output.largest_difference())
        });
        differing
    }

    /// The words [`Self::attention_sentence`] names, by their index in A: a table that
    /// cannot show every word keeps these.
    #[must_use]
    pub fn named_words(&self) -> Vec<usize> {
        match self.attention {
            AttentionOverall::Differ { .. } => self
                .differing_most()
                .iter()
                .take(NAMED_WORDS)
                .map(|word| word.a)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Attention's outputs, overall and for the words that differ most.
    #[must_use]
    pub fn attention_sentence(&self) -> String {
        match self.attention {
            AttentionOverall::NothingShared => {
                "Attention outputs: no word is in both sentences, so none can be compared."
                    .to_owned()
            }
            AttentionOverall::NotNumbers => {
                "Attention outputs: some are non-numbers (NaN or infinity), so none can be \
                 called the same or different; the vectors fed in hold such values."
                    .to_owned()
            }
            AttentionOverall::Identical { words } => format!(
                "Attention outputs: identical for {} in A and B, bit for bit.",
                count_words(words, true)
            ),
            AttentionOverall::LastBit { differing, words } => {
                let rest = if differing < words {
                    "; the rest are identical"
                } else {
                    ""
                };
                format!(
                    "Attention outputs: {} only in the last bit (rounding){rest}.",
                    some_of_words(differing, words, "differs", "differ")
                )
            }
            AttentionOverall::Differ {
                differing, words, ..
            } => {
                let differing_words = self.differing_most();
                let examples: Vec<String> = differing_words
                    .iter()
                    .take(NAMED_WORDS)
                    .map(|word| {
                        // A repeated word is named by its place in A, so its copies differ.
                        let repeated =
                            self.words.iter().filter(|w| w.text == word.text).count() > 1;
                        let place = if repeated {
                            format!(" at A{}", word.a)
                        } else {
                            String::new()
                        };
                        format!("'{}'{place} {}", word.text, word.output.extent())
                    })
                    .collect();
                let more = match differing_words.len() {
                    count if count > NAMED_WORDS => format!(" and {} more", count - NAMED_WORDS),
                    _ => String::new(),
                };
                format!(
                    "Attention outputs: {} a different output: {}{more}.",
                    some_of_words(differing, words, "gets", "get"),
                    examples.join(", ")
                )
            }
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SameSentence => f.write_str("Both sentences are the same, so nothing differs."),
            Self::NoPositionSignal => f.write_str(
                "With no position information and no mask, attention receives a set of vectors: \
                 it cannot tell one order from another.",
            ),
            Self::AlibiDistancesKept => f.write_str(
                "ALiBi only sees how far apart two words are, and this reordering keeps those \
                 distances, so the outputs still match.",
            ),
            Self::PositionsInInputs(scheme) => write!(
                f,
                "{} positions are added to the token vectors, so a word's input vector depends \
                 on where it stands, and order leaves a trace.",
                capitalised(scheme.name())
            ),
            Self::PositionsInsideAttention(scheme) => write!(
                f,
                "{scheme} acts inside attention: the input vectors match, but the scores depend \
                 on where the words stand, and order leaves a trace."
            ),
            Self::CausalMask => f.write_str(
                "The causal mask lets each word see only itself and the words before it, so \
                 order changes what each word sees.",
            ),
            Self::DifferentCompany(Wording::SameWordsOtherTokens) => f.write_str(
                "The sentences hold different tokens, so even a shared token attends over \
                 different company.",
            ),
            Self::DifferentCompany(_) => f.write_str(
                "The sentences hold different words, so even a shared word attends over \
                 different company.",
            ),
        }
    }
}

/// `1 word`, `3 words`, or `all 3 words`.
fn count_words(words: usize, all: bool) -> String {
    match words {
        1 => "the 1 shared word".to_owned(),
        _ if all => format!("all {words} shared words"),
        _ => format!("{words} words"),
    }
}

/// `differing` of `words` shared words, with the verb agreeing: `the 1 shared word gets`,
/// `all 3 shared words get`, `2 of 3 shared words get` (never `1 of 1 words`).
fn some_of_words(differing: usize, words: usize, one: &str, many: &str) -> String {
    let verb = if differing == 1 { one } else { many };
    if differing == words {
        format!("{} {verb}", count_words(words, true))
    } else {
        format!("{differing} of {words} shared words {verb}")
    }
}

fn wording(a: &ComparedSentence, b: &ComparedSentence) -> Wording {
    let ids = |sentence: &ComparedSentence| -> Vec<Option<usize>> {
        sentence
            .lookups
            .iter()
            .map(|lookup| lookup.token.id)
            .collect()
    };
    let (a_ids, b_ids) = (ids(a), ids(b));
    if a_ids == b_ids {
        return Wording::SameOrder;
    }
    let sorted = |mut ids: Vec<Option<usize>>| {
        ids.sort_unstable();
        ids
    };
    if sorted(a_ids) == sorted(b_ids) {
        return Wording::Reordered;
    }
    let words = |sentence: &ComparedSentence| -> Vec<String> {
        let mut words: Vec<String> = sentence
            .lookups
            .iter()
            .map(|lookup| bare_word(&lookup.token.text))
            .collect();
        words.sort_unstable();
        words
    };
    if words(a) == words(b) {
        Wording::SameWordsOtherTokens
    } else {
        Wording::DifferentWords
    }
}

/// The input vectors of a sentence as sorted bit patterns: equal for equal multisets.
fn sorted_input_bits(sentence: &ComparedSentence) -> Vec<Vec<u32>> {
    let mut patterns: Vec<Vec<u32>> = sentence
        .lookups
        .iter()
        .filter_map(|lookup| {
            lookup
                .input_vector
                .as_ref()
                .map(|vector| vector.iter().map(|value| value.to_bits()).collect())
        })
        .collect();
    patterns.sort_unstable();
    patterns
}

fn overall(words: &[WordVerdict]) -> AttentionOverall {
    if words.is_empty() {
        return AttentionOverall::NothingShared;
    }
    if words
        .iter()
        .any(|word| word.output == VectorMatch::NotNumbers)
    {
        return AttentionOverall::NotNumbers;
    }
    let differing = words
        .iter()
        .filter(|word| !word.output.is_identical())
        .count();
    let largest = words
        .iter()
        .map(|word| word.output.largest_difference())
        .fold(0.0, f64::max);
    let beyond_last_bit = words
        .iter()
        .any(|word| matches!(word.output, VectorMatch::DiffersBy(_)));
    match (differing, beyond_last_bit) {
        (0, _) => AttentionOverall::Identical { words: words.len() },
        (_, false) => AttentionOverall::LastBit {
            differing,
            words: words.len(),
        },
        (_, true) => AttentionOverall::Differ {
            differing,
            words: words.len(),
            largest,
        },
    }
}

fn causes(
    scheme: PositionScheme,
    mask: Mask,
    wording: Wording,
    attention: AttentionOverall,
) -> Vec<Cause> {
    if wording == Wording::SameOrder {
        return vec![Cause::SameSentence];
    }
    let mut causes = Vec::new();
    let outputs_differ = matches!(
        attention,
        AttentionOverall::LastBit { .. } | AttentionOverall::Differ { .. }
    );
    if matches!(
        wording,
        Wording::DifferentWords | Wording::SameWordsOtherTokens
    ) && outputs_differ
    {
        causes.push(Cause::DifferentCompany(wording));
    }
    match attention {
        AttentionOverall::NothingShared | AttentionOverall::NotNumbers => {}
        AttentionOverall::Identical { .. } => {
            if scheme == PositionScheme::Alibi && mask == Mask::None {
                causes.push(Cause::AlibiDistancesKept);
            } else if scheme == PositionScheme::None && mask == Mask::None {
                causes.push(Cause::NoPositionSignal);
            }
        }
        AttentionOverall::LastBit { .. } | AttentionOverall::Differ { .. } => {
            if scheme.is_additive() {
                causes.push(Cause::PositionsInInputs(scheme));
            } else if scheme != PositionScheme::None {
                causes.push(Cause::PositionsInsideAttention(scheme));
            }
            if mask == Mask::Causal {
                causes.push(Cause::CausalMask);
            }
        }
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::analysis::compare::{DEFAULT_PAIR, DEFAULT_PAIR_SEED, compare};
    use crate::core::explain::verdict::significant;
    use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel};
    use crate::core::text::vocabulary::VocabKind;

    fn verdicts(a: &str, b: &str, scheme: PositionScheme, mask: Mask) -> Verdicts {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        compare(&model, a, b, scheme, mask, DEFAULT_SEED)
            .unwrap()
            .verdicts
    }

    #[test]
    fn the_same_words_reordered_get_identical_outputs_without_positions() {
        let (a, b) = DEFAULT_PAIR_SEED;
        let found = verdicts(a, b, PositionScheme::None, Mask::None);
        assert_eq!(found.wording, Wording::Reordered);
        assert!(found.same_token_vectors);
        assert_eq!(found.same_input_vectors, None);
        assert_eq!(found.attention, AttentionOverall::Identical { words: 3 });
        assert!(found.words.iter().all(|word| word.output.is_identical()));
        assert!(
            found
                .words
                .iter()
                .all(|word| word.input_vector.is_identical())
        );
        assert_eq!(found.causes, [Cause::NoPositionSignal]);
        assert_eq!(
            found.attention_sentence(),
            "Attention outputs: identical for all 3 shared words in A and B, bit for bit."
        );
        let sentences = found.sentences(PositionScheme::None);
        assert_eq!(
            sentences[0],
            "B holds exactly A's tokens, in another order."
        );
        assert_eq!(sentences.len(), 4, "{sentences:?}");
    }

    #[test]
    fn different_words_are_not_just_a_different_order() {
        let found = verdicts(
            "dog bites man",
            "dog bites fox",
            PositionScheme::None,
            Mask::None,
        );
        assert_eq!(found.wording, Wording::DifferentWords);
        assert!(!found.same_token_vectors);
        assert_eq!(found.words.len(), 2, "dog and bites are shared");
        assert!(matches!(
            found.attention,
            AttentionOverall::Differ {
                differing: 2,
                words: 2,
                ..
            }
        ));
        assert_eq!(
            found.causes,
            [Cause::DifferentCompany(Wording::DifferentWords)]
        );
        assert_eq!(
            found.wording_sentence(),
            "A and B hold different words, not just a different order."
        );
        assert!(
            found
                .attention_sentence()
                .starts_with("Attention outputs: all 2 shared words get a different output: '"),
            "{}",
            found.attention_sentence()
        );
        assert!(!found.attention_sentence().contains("0.0000"));
    }

    #[test]
    fn the_same_words_as_other_byte_pair_tokens_are_different_tokens_not_words() {
        let model = EmbeddingModel::gpt2(1, 2);
        model.wait_until_ready();
        let found = compare(
            &model,
            "dog bites man",
            "man bites dog",
            PositionScheme::None,
            Mask::None,
            DEFAULT_SEED,
        )
        .unwrap()
        .verdicts;
        assert_eq!(found.wording, Wording::SameWordsOtherTokens);
        assert_eq!(found.wording.name(), "different_tokens");
        let sentence = found.wording_sentence();
        assert!(sentence.contains("the same words"), "{sentence}");
        assert!(sentence.contains("different tokens"), "{sentence}");
        assert!(!sentence.contains("different words"), "{sentence}");
        for cause in &found.causes {
            assert!(!cause.to_string().contains("different words"), "{cause}");
        }
    }

    /// The verdicts of one reordered word, 'dog', whose output compares as `output`.
    fn one_word(output: VectorMatch) -> Verdicts {
        let words = vec![WordVerdict {
            a: 0,
            b: 0,
            text: "dog".to_owned(),
            input_vector: VectorMatch::Identical,
            output,
        }];
        Verdicts {
            wording: Wording::Reordered,
            same_token_vectors: true,
            same_input_vectors: None,
            attention: overall(&words),
            words,
            causes: Vec::new(),
        }
    }

    #[test]
    fn one_shared_word_is_never_one_of_one_words() {
        let found = one_word(VectorMatch::LastBit(1e-8));
        assert_eq!(
            found.attention_sentence(),
            "Attention outputs: the 1 shared word differs only in the last bit (rounding)."
        );
        assert_eq!(
            some_of_words(2, 3, "gets", "get"),
            "2 of 3 shared words get"
        );
        assert_eq!(some_of_words(3, 3, "gets", "get"), "all 3 shared words get");
    }

    #[test]
    fn positions_make_the_input_vectors_and_outputs_differ() {
        let (a, b) = DEFAULT_PAIR_SEED;
        let found = verdicts(a, b, PositionScheme::Learned, Mask::None);
        assert!(found.same_token_vectors, "token vectors never change");
        assert_eq!(found.same_input_vectors, Some(false));
        // bites stands at 1 in both orders: the same input vector.
        let bites = found
            .words
            .iter()
            .find(|word| word.text == "bites")
            .unwrap();
        assert!(bites.input_vector.is_identical());
        let dog = found.words.iter().find(|word| word.text == "dog").unwrap();
        assert!(matches!(dog.input_vector, VectorMatch::DiffersBy(_)));
        assert!(matches!(
            found.attention,
            AttentionOverall::Differ { differing: 3, .. }
        ));
        assert_eq!(
            found.causes,
            [Cause::PositionsInInputs(PositionScheme::Learned)]
        );
        assert_eq!(
            found.input_sentence(PositionScheme::Learned).unwrap(),
            "Input vectors (token + learned position): not the same set; a word at another \
             position gets another input vector."
        );
    }

    #[test]
    fn the_causal_mask_alone_tells_the_orders_apart() {
        let (a, b) = DEFAULT_PAIR_SEED;
        let found = verdicts(a, b, PositionScheme::None, Mask::Causal);
        assert!(found.same_token_vectors);
        assert!(!found.attention.is_identical());
        assert_eq!(found.causes, [Cause::CausalMask]);
    }

    #[test]
    fn alibi_keeps_a_reversal_of_three_words_identical_and_says_why() {
        let (a, b) = DEFAULT_PAIR_SEED;
        let found = verdicts(a, b, PositionScheme::Alibi, Mask::None);
        assert!(found.attention.is_identical());
        assert_eq!(found.causes, [Cause::AlibiDistancesKept]);
        let (a, b) = DEFAULT_PAIR;
        let longer = verdicts(a, b, PositionScheme::Rope, Mask::None);
        assert_eq!(
            longer.same_input_vectors, None,
            "RoPE adds nothing to inputs"
        );
        assert_eq!(
            longer.causes,
            [Cause::PositionsInsideAttention(PositionScheme::Rope)]
        );
    }

    #[test]
    fn the_same_sentence_twice_is_said_to_be_the_same() {
        let found = verdicts(
            "fox bites dog",
            "fox bites dog",
            PositionScheme::Learned,
            Mask::None,
        );
        assert_eq!(found.wording, Wording::SameOrder);
        assert_eq!(found.same_input_vectors, Some(true));
        assert!(found.attention.is_identical());
        assert_eq!(found.causes, [Cause::SameSentence]);
    }

    #[test]
    fn sentences_that_share_nothing_compare_no_outputs() {
        let found = verdicts("dog", "fox", PositionScheme::None, Mask::None);
        assert_eq!(found.attention, AttentionOverall::NothingShared);
        assert_eq!(found.attention.name(), "nothing_shared");
        assert!(found.causes.is_empty());
    }

    #[test]
    fn differences_are_printed_in_significant_digits() {
        let found = one_word(VectorMatch::DiffersBy(0.000_012_3));
        assert_eq!(
            found.attention_sentence(),
            "Attention outputs: the 1 shared word gets a different output: 'dog' by up to \
             0.000012."
        );
        assert_eq!(significant(0.000_012_3), "0.000012");
    }
}
