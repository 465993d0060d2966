//! The token every tokenizer hands out, and the built-in word-level vocabularies that split text
//! on whitespace and punctuation.
//!
//! Every token keeps the byte span it came from, so the screen can point at it in the input.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

use unicode_segmentation::UnicodeSegmentation;

use crate::core::tables::trained;

/// The built-in vocabularies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VocabKind {
    /// Six words, three dimensions: the article's own example.
    Seed,
    /// About 2,000 common English words and punctuation, eight dimensions.
    Words,
    /// The `words` vocabulary's single-token words with all-MiniLM-L6-v2's trained rows (384
    /// dimensions) and learned positions.
    Trained,
    /// GPT-2's own byte-pair encoding (50,257 ids) with untrained, PyTorch-initialised tables.
    Gpt2,
}

impl VocabKind {
    /// Every built-in vocabulary, in the order `v` cycles through them.
    pub const ALL: [Self; 4] = [Self::Seed, Self::Words, Self::Trained, Self::Gpt2];

    /// The name used on the command line and on screen.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Seed => "seed",
            Self::Words => "words",
            Self::Trained => "trained",
            Self::Gpt2 => "gpt2",
        }
    }

    /// The vocabulary after this one, wrapping around.
    #[must_use]
    pub fn next(self) -> Self {
        let index = Self::ALL.iter().position(|&kind| kind == self).unwrap_or(0);
        Self::ALL[(index + 1) % Self::ALL.len()]
    }
}

impl fmt::Display for VocabKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The end-of-text marker, second to last in the `words` vocabulary.
pub const END_OF_TEXT: &str = "<|endoftext|>";
/// The unknown-word token, last in the `words` vocabulary.
pub const UNKNOWN: &str = "<|unk|>";

/// One token of the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The text as the user typed it.
    pub text: String,
    /// Where the text stands in the input, in bytes (always on character boundaries).
    pub span: Range<usize>,
    /// The token's position in the sequence, counting from 0.
    pub position: usize,
    /// The row this token looks up, or `None` when the vocabulary has no row for it.
    pub id: Option<usize>,
    /// Whether the tokenizer added it (such as `[CLS]`) rather than reading it from the text.
    pub special: bool,
    /// Whether the vocabulary has no entry for the text, so it reads the unknown-token row
    /// (`<|unk|>`, `[UNK]`) that every such word shares; `text` is then what was typed.
    pub unknown: bool,
}

impl Token {
    /// Whether `other` is a copy of this token: the same row, and for words that share the
    /// unknown-token row, the same word too (different unknown words are not copies).
    /// Tokens with no row are compared by their lower-cased text.
    #[must_use]
    pub fn is_copy_of(&self, other: &Token) -> bool {
        let same_text =
            || self.text == other.text || self.text.to_lowercase() == other.text.to_lowercase();
        match (self.id, other.id) {
            (Some(a), Some(b)) => {
                a == b && self.unknown == other.unknown && (!self.unknown || same_text())
            }
            (None, None) => same_text(),
            _ => false,
        }
    }
}

/// A token's text without its visible leading-space mark, spaces or case: the word a
/// reader sees, whatever piece the tokenizer made of it.
#[must_use]
pub fn bare_word(text: &str) -> String {
    text.trim_start_matches([' ', '␣', 'Ġ'])
        .trim()
        .to_lowercase()
}

/// A word-level vocabulary: token strings and the id of each.
#[derive(Clone, Debug)]
pub struct Vocabulary {
    name: String,
    tokens: Vec<String>,
    ids: HashMap<String, usize>,
    unknown_id: Option<usize>,
}

impl Vocabulary {
    /// Builds a vocabulary from its tokens in id order; `<|unk|>`, if present, takes unknown words.
    #[must_use]
    pub fn new(name: impl Into<String>, tokens: Vec<String>) -> Self {
        Self::with_unknown(name, tokens, UNKNOWN)
    }

    /// Builds a vocabulary from its tokens in id order; `unknown`, if present, takes unknown
    /// words (`[UNK]` for a BERT model's words).
    #[must_use]
    pub fn with_unknown(name: impl Into<String>, tokens: Vec<String>, unknown: &str) -> Self {
        let ids: HashMap<String, usize> = tokens
            .iter()
            .enumerate()
            .map(|(id, token)| (token.clone(), id))
            .collect();
        let unknown_id = ids.get(unknown).copied();
        Self {
            name: name.into(),
            tokens,
            ids,
            unknown_id,
        }
    }

    /// One of the built-in word vocabularies, embedded in the binary (`None` for `gpt2`, which
    /// is a byte-pair encoding, not a word list).
    #[must_use]
    pub fn builtin(kind: VocabKind) -> Option<Self> {
        let listing = match kind {
            VocabKind::Seed => include_str!("../../../assets/seed.txt"),
            VocabKind::Words => include_str!("../../../assets/words.txt"),
            VocabKind::Trained => {
                let words = trained::tables().words;
                return Some(Self::with_unknown(
                    kind.name(),
                    words,
                    trained::UNKNOWN_TOKEN,
                ));
            }
            VocabKind::Gpt2 => return None,
        };
        let mut tokens: Vec<String> = listing.lines().map(str::to_owned).collect();
        if kind == VocabKind::Words {
            tokens.push(END_OF_TEXT.to_owned());
            tokens.push(UNKNOWN.to_owned());
        }
        Some(Self::new(kind.name(), tokens))
    }

    /// The vocabulary's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many rows the vocabulary addresses.
    #[must_use]
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether the vocabulary has no tokens.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The token string of an id.
    #[must_use]
    pub fn token(&self, id: usize) -> Option<&str> {
        self.tokens.get(id).map(String::as_str)
    }

    /// All token strings in id order.
    #[must_use]
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// The id of a piece of text: exact, then lower-cased, then `<|unk|>` if the vocabulary has it.
    #[must_use]
    pub fn id(&self, piece: &str) -> Option<usize> {
        self.known_id(piece).or(self.unknown_id)
    }

    /// The id of a piece the vocabulary holds (exact, then lower-cased); `None` for a piece
    /// only the unknown token would stand for.
    fn known_id(&self, piece: &str) -> Option<usize> {
        self.ids
            .get(piece)
            .or_else(|| self.ids.get(&piece.to_lowercase()))
            .copied()
    }

    /// Whether unknown words map to `<|unk|>` rather than having no row.
    #[must_use]
    pub fn has_unknown_token(&self) -> bool {
        self.unknown_id.is_some()
    }

    /// Splits `text` and gives each piece its position and id.
    #[must_use]
    pub fn tokenize(&self, text: &str) -> Vec<Token> {
        split(text)
            .into_iter()
            .enumerate()
            .map(|(position, span)| {
                let piece = &text[span.clone()];
                let known = self.known_id(piece);
                Token {
                    text: piece.to_owned(),
                    id: known.or(self.unknown_id),
                    span,
                    position,
                    special: false,
                    unknown: known.is_none() && self.unknown_id.is_some(),
                }
            })
            .collect()
    }
}

/// Whether a character continues a word rather than standing alone as punctuation.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Splits text into byte spans: runs of letters and digits, and each other non-space character.
#[must_use]
pub fn split(text: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut word_start: Option<usize> = None;
    // By user-perceived character, so an accent typed after its letter (e + U+0301) stays in
    // the word, and an emoji with its modifiers stays one token.
    for (index, grapheme) in text.grapheme_indices(true) {
        let first = grapheme.chars().next().unwrap_or(' ');
        if is_word_char(first) {
            word_start.get_or_insert(index);
            continue;
        }
        if let Some(start) = word_start.take() {
            spans.push(start..index);
        }
        if !first.is_whitespace() {
            spans.push(index..index + grapheme.len());
        }
    }
    if let Some(start) = word_start {
        spans.push(start..text.len());
    }
    spans
}

/// Tokens for ids typed as numbers (`3 1 4` or `3,1,4`), for tables without a vocabulary.
///
/// Anything that is not a number below `rows` becomes a token without a row.
#[must_use]
pub fn ids_from_text(text: &str, rows: usize) -> Vec<Token> {
    split(text)
        .into_iter()
        .filter(|span| &text[span.clone()] != ",")
        .enumerate()
        .map(|(position, span)| {
            let piece = &text[span.clone()];
            Token {
                text: piece.to_owned(),
                id: piece.parse::<usize>().ok().filter(|&id| id < rows),
                span,
                position,
                special: false,
                unknown: false,
            }
        })
        .collect()
}

/// The indices of the copies of `tokens[index]` (itself included, see [`Token::is_copy_of`]),
/// in ascending order, so a caller can `binary_search` them: a pasted text may have
/// thousands.
#[must_use]
pub fn copies_of(tokens: &[Token], index: usize) -> Vec<usize> {
    let Some(target) = tokens.get(index) else {
        return Vec::new();
    };
    tokens
        .iter()
        .enumerate()
        .filter(|(_, token)| target.is_copy_of(token))
        .map(|(i, _)| i)
        .collect()
}

/// Where a sentence first shows a repeated word: the second copy of the first token that has
/// one, as [`copies_of`] counts copies.
///
/// One pass with a map, not a [`copies_of`] per token: a pasted text may have thousands.
#[must_use]
pub fn first_repeat(tokens: &[Token]) -> Option<usize> {
    /// What makes two tokens copies: the same row, or for tokens without one (or sharing the
    /// unknown-token row) the same text.
    #[derive(PartialEq, Eq, Hash)]
    enum Key {
        Row(usize),
        Text(String),
        Unknown(String),
    }
    let mut seen: HashMap<Key, (usize, Option<usize>)> = HashMap::new();
    for (index, token) in tokens.iter().enumerate() {
        let key = match token.id {
            Some(_) if token.unknown => Key::Unknown(token.text.to_lowercase()),
            Some(id) => Key::Row(id),
            None => Key::Text(token.text.to_lowercase()),
        };
        seen.entry(key)
            .and_modify(|(_, second)| {
                second.get_or_insert(index);
            })
            .or_insert((index, None));
    }
    seen.into_values()
        .filter_map(|(first, second)| Some((first, second?)))
        .min()
        .map(|(_, second)| second)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<&str> {
        split(text).into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn splits_on_whitespace_and_punctuation() {
        assert_eq!(
            texts("Hello, world! It's  fine."),
            ["Hello", ",", "world", "!", "It", "'", "s", "fine", "."]
        );
        assert_eq!(texts("   "), Vec::<&str>::new());
        assert_eq!(texts("a\nb\tc"), ["a", "b", "c"]);
    }

    #[test]
    fn accents_typed_after_their_letter_stay_in_the_word() {
        assert_eq!(texts("cafe\u{301} ok"), ["cafe\u{301}", "ok"]);
        assert_eq!(texts("🦊🦊 👍🏽"), ["🦊", "🦊", "👍🏽"]);
    }

    #[test]
    fn spans_slice_the_input_on_character_boundaries() {
        let text = "naïve café — 東京!";
        for span in split(text) {
            assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
        }
        assert_eq!(texts(text), ["naïve", "café", "—", "東京", "!"]);
    }

    #[test]
    fn seed_vocabulary_has_the_articles_ids() {
        let seed = Vocabulary::builtin(VocabKind::Seed).unwrap();
        assert_eq!(
            seed.tokens(),
            ["the", "quick", "fox", "dog", "bites", "man"]
        );
        let tokens = seed.tokenize("fox bites the fox");
        let ids: Vec<_> = tokens.iter().map(|t| t.id).collect();
        assert_eq!(ids, [Some(2), Some(4), Some(0), Some(2)]);
        assert_eq!(tokens[3].position, 3);
        assert_eq!(tokens[3].span, 14..17);
    }

    #[test]
    fn seed_vocabulary_has_no_row_for_other_words() {
        let seed = Vocabulary::builtin(VocabKind::Seed).unwrap();
        let tokens = seed.tokenize("The cat");
        assert_eq!(tokens[0].id, Some(0), "lookup ignores case");
        assert_eq!(tokens[1].id, None);
        assert!(!seed.has_unknown_token());
    }

    #[test]
    fn words_vocabulary_ends_with_its_special_tokens() {
        let words = Vocabulary::builtin(VocabKind::Words).unwrap();
        let n = words.len();
        assert!((1900..=2100).contains(&n), "{n} tokens");
        assert_eq!(words.token(n - 2), Some(END_OF_TEXT));
        assert_eq!(words.token(n - 1), Some(UNKNOWN));
        assert_eq!(words.id("zzyzzx"), Some(n - 1));
        for word in ["the", "quick", "fox", "dog", "bites", "man", ",", "."] {
            assert_ne!(words.id(word), Some(n - 1), "{word} should be known");
        }
    }

    #[test]
    fn copies_share_an_id() {
        let seed = Vocabulary::builtin(VocabKind::Seed).unwrap();
        let tokens = seed.tokenize("fox bites the fox");
        assert_eq!(copies_of(&tokens, 0), [0, 3]);
        assert_eq!(copies_of(&tokens, 1), [1]);
        let unknown = seed.tokenize("cat Cat fox");
        assert_eq!(copies_of(&unknown, 1), [0, 1]);
        assert!(copies_of(&tokens, 9).is_empty());
    }

    #[test]
    fn the_first_repeat_is_the_second_copy_of_the_first_repeated_word() {
        let seed = Vocabulary::builtin(VocabKind::Seed).unwrap();
        let repeat = |text: &str| first_repeat(&seed.tokenize(text));
        assert_eq!(repeat("fox bites the fox"), Some(3));
        assert_eq!(
            repeat("a b b a"),
            Some(3),
            "a is the first word that repeats"
        );
        assert_eq!(
            repeat("cat the Cat the"),
            Some(2),
            "no row: copies by text, any case"
        );
        assert_eq!(repeat("fox bites man"), None);
        assert_eq!(repeat(""), None);
        // The same answer as asking copies_of of every token, which takes n² steps.
        for text in ["the dog bites the man the", "x y z y x", "fox fox", "a b c"] {
            let tokens = seed.tokenize(text);
            let slow = (0..tokens.len())
                .find(|&index| copies_of(&tokens, index).len() > 1)
                .and_then(|index| copies_of(&tokens, index).get(1).copied());
            assert_eq!(first_repeat(&tokens), slow, "{text}");
        }
    }

    #[test]
    fn ids_typed_as_numbers() {
        let tokens = ids_from_text("3, 1 4,99 x", 6);
        let ids: Vec<_> = tokens.iter().map(|t| t.id).collect();
        assert_eq!(ids, [Some(3), Some(1), Some(4), None, None]);
        assert_eq!(tokens[3].position, 3);
        assert_eq!(&"3, 1 4,99 x"[tokens[2].span.clone()], "4");
    }

    #[test]
    fn vocab_kinds_cycle() {
        assert_eq!(VocabKind::Seed.next(), VocabKind::Words);
        assert_eq!(VocabKind::Words.next(), VocabKind::Trained);
        assert_eq!(VocabKind::Trained.next(), VocabKind::Gpt2);
        assert_eq!(VocabKind::Gpt2.next(), VocabKind::Seed);
        assert!(Vocabulary::builtin(VocabKind::Gpt2).is_none());
    }

    #[test]
    fn trained_vocabulary_reads_any_case_and_sends_the_rest_to_unk() {
        let trained = Vocabulary::builtin(VocabKind::Trained).unwrap();
        let unknown = trained.len() - 1;
        assert_eq!(trained.token(unknown), Some("[UNK]"));
        assert!(trained.has_unknown_token());
        let ids: Vec<_> = trained
            .tokenize("The dog zzyzzx")
            .iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(ids, [trained.id("the"), trained.id("dog"), Some(unknown)]);
        assert_ne!(ids[0], Some(unknown));
    }

    #[test]
    fn different_unknown_words_share_a_row_but_are_not_copies() {
        let words = Vocabulary::builtin(VocabKind::Words).unwrap();
        let tokens = words.tokenize("zorp the blick zorp");
        assert!(tokens[0].unknown && tokens[2].unknown && !tokens[1].unknown);
        assert_eq!(tokens[0].id, tokens[2].id, "one unknown-token row");
        assert_eq!(copies_of(&tokens, 0), [0, 3], "the same unknown word twice");
        assert_eq!(copies_of(&tokens, 2), [2], "another word on the same row");
        assert_eq!(first_repeat(&tokens), Some(3));
        assert_eq!(first_repeat(&words.tokenize("zorp blick")), None);
    }
}
