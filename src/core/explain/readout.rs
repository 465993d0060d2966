//! Sentences that explain what the lookups show, shared by the explorer and the print commands.

use ndarray::Array1;

use crate::core::analysis::metrics::euclidean_distance;
use crate::core::tables::positional::{PositionScheme, PositionVector};
use crate::core::tables::weights::TokenLookup;
use crate::core::text::vocabulary::bare_word;

/// How many other copies a sentence names and measures at the most.
const NAMED_COPIES: usize = 4;

/// Explains a token that appears more than once: every copy reads the same row, and only
/// position vectors can tell the copies apart.
///
/// `index` is the copy the sentence starts from, and `scheme` the position scheme `lookups`
/// were embedded with. The sentence lists where the copies stand, then the Euclidean
/// distance (four decimals) from this copy to each other one, first between token vectors
/// (always 0, the point of the lesson) and then, when positions are on, between input
/// vectors:
///
/// `fox at 0 and 3: same row 2, Euclidean distance 0.0000; with learned positions 1.2345`
///
/// With three or more copies each distance names the copy it reaches, as in
/// `Euclidean distance 0.0000 to 2 and 0.0000 to 4`; a copy whose learned position is beyond the
/// context length has no input vector, so its distance is `—`.
///
/// `None` when the token appears once, or has no row to share.
#[must_use]
pub fn describe_copies(
    lookups: &[TokenLookup],
    index: usize,
    scheme: PositionScheme,
) -> Option<String> {
    let current = lookups.get(index)?;
    let id = current.token.id?;
    current.token_vector.as_ref()?;
    // Copies share a row; different unknown words share one too, but are not copies.
    let copies: Vec<usize> = lookups
        .iter()
        .enumerate()
        .filter(|(_, lookup)| current.token.is_copy_of(&lookup.token))
        .map(|(i, _)| i)
        .collect();
    if copies.len() < 2 {
        return None;
    }
    // A sentence names a handful of copies; thousands would make it unreadable (and slow).
    let others: Vec<&TokenLookup> = copies
        .iter()
        .filter(|&&copy| copy != index)
        .take(NAMED_COPIES)
        .map(|&copy| &lookups[copy])
        .collect();
    let mut named: Vec<String> = copies
        .iter()
        .take(NAMED_COPIES + 1)
        .map(|&copy| lookups[copy].token.position.to_string())
        .collect();
    if copies.len() > NAMED_COPIES + 1 {
        named.push(format!("{} more", copies.len() - NAMED_COPIES - 1));
    }
    let places = join_and(named);
    let with_positions = if scheme == PositionScheme::None {
        String::new()
    } else if !scheme.is_additive() {
        format!(
            "; {scheme} adds nothing here (still {}): position enters inside attention",
            distances(current, &others, |lookup| lookup.input_vector.as_ref()),
        )
    } else {
        format!(
            "; with {scheme} positions {}",
            distances(current, &others, |lookup| lookup.input_vector.as_ref()),
        )
    };
    Some(format!(
        "{} at {places}: same row {id}, Euclidean distance {}{with_positions}",
        current.token.text,
        distances(current, &others, |lookup| lookup.token_vector.as_ref()),
    ))
}

/// Why a word's copies are identical or not, in the state shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopiesWhy {
    /// The model has no learned position table: positions stay out of the embedding layer.
    NoLearnedTable,
    /// Positions on, but the scheme acts inside attention and adds nothing here.
    InsideAttention(PositionScheme),
    /// Positions on and added: each copy gets its own position's vector.
    OwnPositions,
    /// Positions off: same id, same row, same vector.
    SameVector,
}

impl CopiesWhy {
    /// Why for a copy whose position vector is `position`, under the selected `scheme` with
    /// positions on or off.
    #[must_use]
    pub fn of(position: &PositionVector, scheme: PositionScheme, positions: bool) -> Self {
        if *position == PositionVector::NoLearnedTable {
            Self::NoLearnedTable
        } else if positions && !scheme.is_additive() {
            Self::InsideAttention(scheme)
        } else if positions {
            Self::OwnPositions
        } else {
            Self::SameVector
        }
    }

    /// The reason in a sentence, its keys named as `{Action}`.
    #[must_use]
    pub fn sentence(self) -> String {
        match self {
            Self::NoLearnedTable => "This model has no learned position table: it keeps \
                                     position out of the embedding layer (Llama-style models \
                                     rotate queries and keys inside attention), so the copies \
                                     stay identical here. {CycleScheme} switches to sinusoidal \
                                     vectors to see what adding one does."
                .to_owned(),
            Self::InsideAttention(scheme) => format!(
                "{scheme} adds nothing to the embeddings, so the copies stay identical here: \
                 position enters inside attention ({{ShowDetail(Attention)}} shows where)."
            ),
            Self::OwnPositions => "Same row, but each copy gets its own position's vector: the \
                                   input vectors now differ."
                .to_owned(),
            Self::SameVector => "Same id, same row, same vector: the lookup has no input for \
                                 position. {TogglePositions} adds positions."
                .to_owned(),
        }
    }
}

/// Different words the vocabulary lacks, which all read its one unknown-token row: they share
/// the row (so the same vector), but are not copies of one word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedUnknownRow {
    /// The current word, as typed.
    pub word: String,
    /// Its position.
    pub position: usize,
    /// The unknown-token row.
    pub row: usize,
    /// The other unknown words on the row, as typed, with their positions.
    pub others: Vec<(String, usize)>,
}

impl SharedUnknownRow {
    /// The finding for `lookups[index]`: `None` unless it is an unknown word and another,
    /// different unknown word shares its row.
    #[must_use]
    pub fn of(lookups: &[TokenLookup], index: usize) -> Option<Self> {
        let current = &lookups.get(index)?.token;
        let row = current.id.filter(|_| current.unknown)?;
        let others: Vec<(String, usize)> = lookups
            .iter()
            .map(|lookup| &lookup.token)
            .filter(|token| token.unknown && token.id == Some(row) && !current.is_copy_of(token))
            .map(|token| (token.text.clone(), token.position))
            .collect();
        (!others.is_empty()).then(|| Self {
            word: current.text.clone(),
            position: current.position,
            row,
            others,
        })
    }
}

impl std::fmt::Display for SharedUnknownRow {
    /// `'naïve' at 4 shares the unknown-token row 2036 with 'zorp' at 7 and 'blick' at 9:
    /// different words, one row, so the same vector.`
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Each other word once, with every place it stands: `'zorp' at 1 and 7`.
        let mut words: Vec<(&str, Vec<String>)> = Vec::new();
        for (word, position) in &self.others {
            match words.iter_mut().find(|(seen, _)| seen == word) {
                Some((_, places)) => places.push(position.to_string()),
                None => words.push((word, vec![position.to_string()])),
            }
        }
        let mut named: Vec<String> = words
            .iter()
            .take(NAMED_COPIES)
            .map(|(word, places)| format!("'{word}' at {}", join_and(places.clone())))
            .collect();
        if words.len() > NAMED_COPIES {
            named.push(format!("{} more words", words.len() - NAMED_COPIES));
        }
        write!(
            f,
            "'{}' at {} shares the unknown-token row {} with {}: different words, not copies, \
             but one row, so the same vector",
            self.word,
            self.position,
            self.row,
            join_and(named)
        )
    }
}

/// Explains pieces that read as the same word but are different tokens, as byte-pair
/// encodings make them: `fox` at the start and `␣fox` after a space have different ids, so
/// they do not even share a row.
///
/// `None` when no other token of the sentence is the same word under another id.
#[must_use]
pub fn describe_lookalikes(lookups: &[TokenLookup], index: usize) -> Option<String> {
    let current = lookups.get(index)?;
    let id = current.token.id?;
    let word = bare_word(&current.token.text);
    if word.is_empty() {
        return None;
    }
    let others: Vec<&TokenLookup> = lookups
        .iter()
        .filter(|other| {
            other.token.id.is_some_and(|other_id| other_id != id)
                && same_word(&other.token.text, &word)
        })
        .collect();
    let first = others.first()?;
    let places = join_and(
        others
            .iter()
            .map(|other| {
                format!(
                    "'{}' (id {}) at {}",
                    other.token.text,
                    other.token.id.unwrap_or_default(),
                    other.token.position
                )
            })
            .collect(),
    );
    Some(format!(
        "'{}' (id {id}) at {} and {places} are the same word but different tokens: \
         the tokenizer splits text into pieces, and a leading space (␣) or a capital makes \
         another piece with its own row, so {} and {} look up different rows",
        current.token.text,
        current.token.position,
        id,
        first.token.id.unwrap_or_default()
    ))
}

/// Whether `text` is `word` (already bare) once bared, allocating only for non-ASCII text.
fn same_word(text: &str, word: &str) -> bool {
    let trimmed = text.trim_start_matches([' ', '␣', 'Ġ']).trim();
    if trimmed.is_ascii() {
        trimmed.eq_ignore_ascii_case(word)
    } else {
        trimmed.to_lowercase() == word
    }
}

/// The distances from `current` to each of `others` between the vectors `pick` chooses.
///
/// One other copy gives a bare number; more give `0.1234 to 2 and 0.5678 to 4`.
fn distances(
    current: &TokenLookup,
    others: &[&TokenLookup],
    pick: impl Fn(&TokenLookup) -> Option<&Array1<f32>>,
) -> String {
    let distance = |other: &TokenLookup| match (pick(current), pick(other)) {
        (Some(from), Some(to)) => format!("{:.4}", euclidean_distance(from.view(), to.view())),
        _ => "—".to_owned(),
    };
    match others {
        [other] => distance(other),
        _ => join_and(
            others
                .iter()
                .map(|other| format!("{} to {}", distance(other), other.token.position))
                .collect(),
        ),
    }
}

/// Joins items as a sentence does: `0 and 3`, `0, 2 and 5`.
fn join_and(mut items: Vec<String>) -> String {
    match items.pop() {
        None => String::new(),
        Some(last) if items.is_empty() => last,
        Some(last) => format!("{} and {last}", items.join(", ")),
    }
}

#[cfg(test)]
mod unknown_tests {
    use super::*;
    use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel};
    use crate::core::text::vocabulary::VocabKind;

    #[test]
    fn different_unknown_words_share_the_unknown_row_and_are_not_copies() {
        let model = EmbeddingModel::builtin(VocabKind::Words, DEFAULT_SEED);
        let tokens = model.tokenize("the zorp saw a blick and a zorp").unwrap();
        let lookups = model.embed(&tokens, PositionScheme::None);
        let shared = SharedUnknownRow::of(&lookups, 1).unwrap();
        assert_eq!(shared.others, [("blick".to_owned(), 4)]);
        let from_blick = SharedUnknownRow::of(&lookups, 4).unwrap().to_string();
        assert!(
            from_blick.contains("with 'zorp' at 1 and 7: different words"),
            "{from_blick}"
        );
        let sentence = shared.to_string();
        assert!(
            sentence.starts_with("'zorp' at 1 shares the unknown-token row"),
            "{sentence}"
        );
        assert!(sentence.contains("not copies"), "{sentence}");
        let copies = describe_copies(&lookups, 1, PositionScheme::None).unwrap();
        assert!(copies.starts_with("zorp at 1 and 7: same row"), "{copies}");
        assert_eq!(
            describe_copies(&lookups, 4, PositionScheme::None),
            None,
            "blick appears once: no copies, though its row is shared"
        );
        assert!(
            SharedUnknownRow::of(&lookups, 0).is_none(),
            "'the' is known"
        );
    }
}

#[cfg(test)]
mod lookalike_tests {
    use super::*;
    use crate::core::tables::positional::PositionScheme;
    use crate::core::tables::weights::EmbeddingModel;
    use crate::core::text::vocabulary::VocabKind;

    #[test]
    fn byte_pair_pieces_of_one_word_are_told_apart() {
        let model = EmbeddingModel::gpt2(1, 2);
        let tokens = model.tokenize("fox bites the fox").unwrap();
        let lookups = model.embed(&tokens, PositionScheme::None);
        let sentence = describe_lookalikes(&lookups, 0).unwrap();
        assert!(
            sentence.starts_with("'fox' (id 12792) at 0 and '␣fox' (id 21831) at 3"),
            "{sentence}"
        );
        assert!(describe_lookalikes(&lookups, 1).is_none());
    }

    #[test]
    fn word_vocabularies_have_no_lookalikes() {
        let model = EmbeddingModel::builtin(VocabKind::Seed, 123);
        let lookups = model.embed(
            &model.tokenize("fox bites the Fox").unwrap(),
            PositionScheme::None,
        );
        assert!(describe_lookalikes(&lookups, 0).is_none());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel};
    use crate::core::text::vocabulary::VocabKind;

    fn lookups(text: &str, scheme: PositionScheme) -> Vec<TokenLookup> {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        model.embed(&model.tokenize(text).unwrap(), scheme)
    }

    fn input_distance(lookups: &[TokenLookup], a: usize, b: usize) -> String {
        let vector = |i: usize| lookups[i].input_vector.as_ref().unwrap().view();
        format!("{:.4}", euclidean_distance(vector(a), vector(b)))
    }

    #[test]
    fn copies_without_positions_are_the_same_vector() {
        let lookups = lookups("fox bites the fox", PositionScheme::None);
        let expected = "fox at 0 and 3: same row 2, Euclidean distance 0.0000";
        assert_eq!(
            describe_copies(&lookups, 0, PositionScheme::None).as_deref(),
            Some(expected)
        );
        assert_eq!(
            describe_copies(&lookups, 3, PositionScheme::None).as_deref(),
            Some(expected),
            "either copy tells the same story"
        );
    }

    #[test]
    fn positions_pull_the_copies_apart() {
        for scheme in [PositionScheme::Learned, PositionScheme::Sinusoidal] {
            let lookups = lookups("fox bites the fox", scheme);
            let apart = input_distance(&lookups, 0, 3);
            assert_ne!(apart, "0.0000", "{scheme}");
            assert_eq!(
                describe_copies(&lookups, 0, scheme).unwrap(),
                format!(
                    "fox at 0 and 3: same row 2, Euclidean distance 0.0000; with {scheme} positions {apart}"
                )
            );
        }
    }

    #[test]
    fn three_copies_name_each_distance() {
        let lookups = lookups("the fox the dog the", PositionScheme::Learned);
        let (to_2, to_4) = (
            input_distance(&lookups, 0, 2),
            input_distance(&lookups, 0, 4),
        );
        assert_eq!(
            describe_copies(&lookups, 0, PositionScheme::Learned).unwrap(),
            format!(
                "the at 0, 2 and 4: same row 0, Euclidean distance 0.0000 to 2 and 0.0000 to 4; \
                 with learned positions {to_2} to 2 and {to_4} to 4"
            )
        );
        let from_middle = describe_copies(&lookups, 2, PositionScheme::Learned).unwrap();
        assert!(
            from_middle.contains("0.0000 to 0 and 0.0000 to 4"),
            "{from_middle}"
        );
    }

    #[test]
    fn single_tokens_and_words_without_a_row_have_nothing_to_say() {
        let lookups = lookups("fox bites the fox cat cat", PositionScheme::Learned);
        assert_eq!(describe_copies(&lookups, 1, PositionScheme::Learned), None);
        assert_eq!(describe_copies(&lookups, 4, PositionScheme::Learned), None);
        assert_eq!(describe_copies(&lookups, 9, PositionScheme::Learned), None);
    }

    #[test]
    fn a_copy_beyond_the_context_has_no_input_distance() {
        let text = ["fox"; 17].join(" ");
        let lookups = lookups(&text, PositionScheme::Learned);
        let sentence = describe_copies(&lookups, 16, PositionScheme::Learned).unwrap();
        assert!(
            sentence.starts_with("fox at 0, 1, 2, 3, 4 and 12 more"),
            "{sentence}"
        );
        assert!(sentence.contains("— to 0"), "{sentence}");
    }

    #[test]
    fn lists_read_like_sentences() {
        let list = |items: &[&str]| join_and(items.iter().map(|&s| s.to_owned()).collect());
        assert_eq!(list(&[]), "");
        assert_eq!(list(&["0"]), "0");
        assert_eq!(list(&["0", "3"]), "0 and 3");
        assert_eq!(list(&["0", "2", "5"]), "0, 2 and 5");
    }

    #[test]
    fn copies_are_told_apart_only_by_added_positions() {
        let learned = PositionVector::Added(Array1::zeros(2));
        assert_eq!(
            CopiesWhy::of(&learned, PositionScheme::Learned, false),
            CopiesWhy::SameVector
        );
        assert_eq!(
            CopiesWhy::of(&learned, PositionScheme::Learned, true),
            CopiesWhy::OwnPositions
        );
        let rope = CopiesWhy::of(&PositionVector::Absent, PositionScheme::Rope, true);
        assert_eq!(rope, CopiesWhy::InsideAttention(PositionScheme::Rope));
        assert!(
            rope.sentence()
                .starts_with("RoPE adds nothing to the embeddings")
        );
        let none = CopiesWhy::of(
            &PositionVector::NoLearnedTable,
            PositionScheme::Learned,
            true,
        );
        assert!(
            none.sentence()
                .contains("{CycleScheme} switches to sinusoidal")
        );
        assert!(
            CopiesWhy::SameVector
                .sentence()
                .contains("{TogglePositions} adds positions")
        );
    }
}
