//! Reading a sentence into tokens with a bound: however much text is pasted, at most
//! [`MAX_SENTENCE_TOKENS`] tokens are read and looked up, and what was left unread is said.
//!
//! Every token's lookup holds vectors as wide as the table, so a megabyte of text looked up
//! whole would hold gigabytes and redo that work on every key typed after it. The explorer and
//! compare mode read text through [`read`]; the print subcommands stream instead.

use std::ops::Range;

use anyhow::Result;

use crate::core::tables::weights::EmbeddingModel;
use crate::core::text::vocabulary::{Token, ids_from_text};

/// The most tokens of a sentence that are read and looked up (a few pages of text).
pub const MAX_SENTENCE_TOKENS: usize = 4096;

/// The most bytes of text handed to the tokenizer: enough for [`MAX_SENTENCE_TOKENS`] tokens of
/// 16 bytes each, more than any real text's tokens average.
pub const MAX_READ_BYTES: usize = MAX_SENTENCE_TOKENS * 16;

/// The part of a text that was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unread {
    /// Where the unread text starts and ends, in bytes.
    pub span: Range<usize>,
    /// How many characters it holds.
    pub chars: usize,
}

impl Unread {
    /// A sentence saying what was left out, for the screen.
    #[must_use]
    pub fn note(&self) -> String {
        format!(
            "first {MAX_SENTENCE_TOKENS} tokens read, the {} characters after them left out",
            self.chars
        )
    }
}

/// A sentence read into at most [`MAX_SENTENCE_TOKENS`] tokens.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadSentence {
    /// The tokens read, in order.
    pub tokens: Vec<Token>,
    /// The text after the last token read, when there was more than the bound allows.
    pub unread: Option<Unread>,
    /// The text read and the character after it, kept when some text was left unread: an edit
    /// that leaves these alone cannot change the tokens read (see [`ReadSentence::reread`]).
    settled: String,
}

impl ReadSentence {
    /// What is left unread of `text`, an edit of the text this was read from, when the edit
    /// cannot change the tokens read: the text read and the whitespace after it are unchanged,
    /// so only the unread tail was edited (typing at the end of a long paste).
    ///
    /// `None` when the text must be read again.
    #[must_use]
    pub fn reread(&self, text: &str) -> Option<Unread> {
        let unread = self.unread.as_ref()?;
        let ends_between_words = self.settled.chars().next_back()?.is_whitespace();
        (ends_between_words && text.starts_with(&self.settled)).then(|| {
            let start = unread.span.start;
            Unread {
                span: start..text.len(),
                chars: text[start..].chars().count(),
            }
        })
    }
}

/// Reads `text` with the model's tokenizer (or as ids typed as numbers when `by_ids` is set or
/// the model has none), at most [`MAX_SENTENCE_TOKENS`] tokens of it.
///
/// At most [`MAX_READ_BYTES`] bytes are tokenised, cut where whitespace starts so no word is
/// split; the tokens that come from them are exactly the first tokens of the whole text.
///
/// # Errors
/// When the tokenizer fails.
pub fn read(
    model: &EmbeddingModel,
    text: &str,
    special_tokens: bool,
    by_ids: bool,
) -> Result<ReadSentence> {
    let head = &text[..cut(text, MAX_READ_BYTES)];
    let mut tokens = if !by_ids && model.reads_text() {
        model.tokenize_with(head, special_tokens)?
    } else {
        ids_from_text(head, model.rows())
    };
    let mut read_to = head.len();
    if tokens.len() > MAX_SENTENCE_TOKENS {
        tokens.truncate(MAX_SENTENCE_TOKENS);
        read_to = tokens
            .iter()
            .rev()
            .find(|token| !token.special)
            .map_or(0, |token| token.span.end);
    }
    let unread = (text[read_to..].trim().chars().next().is_some()).then(|| Unread {
        span: read_to..text.len(),
        chars: text[read_to..].chars().count(),
    });
    let settled = match (&unread, text[read_to..].chars().next()) {
        (Some(_), Some(next)) => text[..read_to + next.len_utf8()].to_owned(),
        _ => String::new(),
    };
    Ok(ReadSentence {
        tokens,
        unread,
        settled,
    })
}

/// The length of the text's head of at most `limit` bytes: the whole text when it fits, else
/// cut at the last whitespace within the limit (or the last character boundary, for a text
/// with no whitespace there).
fn cut(text: &str, limit: usize) -> usize {
    if text.len() <= limit {
        return text.len();
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end]
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(end, |(at, _)| at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::text::vocabulary::VocabKind;

    fn model(kind: VocabKind) -> EmbeddingModel {
        match kind {
            VocabKind::Gpt2 => EmbeddingModel::gpt2(123, 8),
            kind => EmbeddingModel::builtin(kind, 123),
        }
    }

    #[test]
    fn a_short_sentence_is_read_whole() {
        let model = model(VocabKind::Seed);
        let read = read(&model, "fox bites the fox", true, false).expect("reads");
        assert_eq!(read.tokens.len(), 4);
        assert_eq!(read.unread, None);
    }

    #[test]
    fn a_long_text_is_read_to_the_bound_and_the_rest_is_counted() {
        let model = model(VocabKind::Words);
        let text = "the fox bites the man ".repeat(50_000);
        let read = read(&model, &text, true, false).expect("reads");
        assert_eq!(read.tokens.len(), MAX_SENTENCE_TOKENS);
        let unread = read.unread.expect("most of the text is unread");
        let last = read.tokens.last().expect("tokens");
        assert_eq!(unread.span, last.span.end..text.len());
        assert_eq!(unread.chars, text.len() - last.span.end);
        // The tokens read are exactly the whole text's first tokens.
        let whole = model.tokenize(&text).expect("tokenises");
        assert_eq!(read.tokens[..], whole[..MAX_SENTENCE_TOKENS]);
    }

    #[test]
    fn byte_level_tokens_of_a_cut_text_are_the_whole_texts_first_tokens() {
        let model = model(VocabKind::Gpt2);
        let text = "café 東京 🦊 bites the man. ".repeat(20_000);
        let read = read(&model, &text, true, false).expect("reads");
        let whole = model.tokenize(&text).expect("tokenises");
        assert_eq!(read.tokens[..], whole[..read.tokens.len()]);
        assert_eq!(read.tokens.len(), MAX_SENTENCE_TOKENS);
        assert!(read.unread.is_some());
    }

    #[test]
    fn typing_in_the_unread_tail_keeps_the_tokens_read() {
        let model = model(VocabKind::Words);
        let text = "the fox bites the man ".repeat(5_000);
        let first = read(&model, &text, true, false).expect("reads");
        let typed = format!("{text}zz");
        let unread = first.reread(&typed).expect("only the tail changed");
        let again = read(&model, &typed, true, false).expect("reads");
        assert_eq!(again.tokens, first.tokens);
        assert_eq!(Some(unread), again.unread);
        // An edit inside the text read, or a sentence read whole, is read again.
        assert_eq!(first.reread(&format!("a{text}")), None);
        let short = read(&model, "the fox", true, false).expect("reads");
        assert_eq!(short.reread("the fox bites"), None);
    }

    #[test]
    fn ids_typed_as_numbers_are_bounded_too() {
        let model = model(VocabKind::Seed);
        let text = "1 2 3 ".repeat(10_000);
        let read = read(&model, &text, true, true).expect("reads");
        assert_eq!(read.tokens.len(), MAX_SENTENCE_TOKENS);
        assert!(
            read.unread
                .expect("rest unread")
                .note()
                .contains("first 4096 tokens read")
        );
    }

    #[test]
    fn a_text_without_whitespace_is_cut_on_a_character_boundary() {
        let text = "🦊".repeat(MAX_READ_BYTES);
        let end = cut(&text, MAX_READ_BYTES);
        assert!(text.is_char_boundary(end));
        assert!(end <= MAX_READ_BYTES && end > MAX_READ_BYTES - 4);
        assert_eq!(cut("short", MAX_READ_BYTES), 5);
        assert_eq!(cut("ab cd", 4), 2);
    }

    #[test]
    fn trailing_whitespace_past_the_bound_is_not_called_unread_text() {
        let model = model(VocabKind::Seed);
        let text = format!("fox{}", " ".repeat(MAX_READ_BYTES * 2));
        let read = read(&model, &text, true, false).expect("reads");
        assert_eq!(read.tokens.len(), 1);
        assert_eq!(read.unread, None);
    }
}
