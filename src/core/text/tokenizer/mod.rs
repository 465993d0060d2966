//! Every tokenizer the explorer can read text with, behind one face.
//!
//! Word-level vocabularies are built in; a model's `tokenizer.json` is read with the
//! `tokenizers` crate; GPT-2's byte-pair encoding comes from tiktoken-rs, offline.
//!
//! Token strings are shown as the screen should show them: a space inside a token as `␣`
//! (`␣fox`, which GPT-2's `vocab.json` writes `Ġfox`), a line break as `↵`, and bytes that are
//! only part of a character as `<0xE6>`. `WordPiece` strings such as `##ing` are kept as they are.

mod bpe_json;
mod display;
mod encoder;
mod gpt2;
mod hugging_face;
mod names;

use std::path::Path;

use anyhow::Result;
use unicode_width::UnicodeWidthStr;

pub use display::{NEWLINE_MARK, SPACE_MARK, TAB_MARK, visible};
pub use encoder::{Encoder, Readiness};
pub use gpt2::{GPT2_END_OF_TEXT, GPT2_VOCAB_SIZE, Gpt2Tokenizer};
pub use hugging_face::HuggingFaceTokenizer;
pub use names::{COUNTED_AT_ONCE, MAX_IDS, NameOf, Names, WIDEST_COUNTED, model_token_text};

/// The longest added or special token (and `SentencePiece` piece) a tokenizer may hold, in
/// bytes: far past any real one (the longest are tens of bytes), and a bound on work that grows
/// with the square of a token's length (the `tokenizers` crate's matcher of added tokens, the
/// merges implied by `SentencePiece` scores).
pub const MAX_SPECIAL_TOKEN_BYTES: usize = 1024;

use crate::core::text::vocabulary::{Token, Vocabulary};

/// A tokenizer: text in, tokens with ids and spans out.
#[derive(Clone, Debug)]
pub enum TextTokenizer {
    /// A word-level vocabulary that splits on whitespace and punctuation.
    Words(Vocabulary),
    /// A model's own `tokenizer.json`, read with the `tokenizers` crate.
    HuggingFace(HuggingFaceTokenizer),
    /// GPT-2's byte-pair encoding (tiktoken's `r50k_base`).
    Gpt2(Gpt2Tokenizer),
}

impl TextTokenizer {
    /// Reads a Hugging Face `tokenizer.json`, named after its folder (`gpt2/tokenizer.json` is
    /// `gpt2`), or after the file's stem when the file has another name.
    ///
    /// Padding and truncation set in the file are switched off: the tokens are what was typed.
    ///
    /// # Errors
    /// When the file is missing or is not a tokenizer the `tokenizers` crate can read; the
    /// message names the file.
    pub fn from_file(path: &Path) -> Result<Self> {
        HuggingFaceTokenizer::from_file(path).map(Self::HuggingFace)
    }

    /// Reads a Hugging Face `tokenizer.json` under the given name.
    ///
    /// # Errors
    /// As [`Self::from_file`].
    pub fn from_file_named(path: &Path, name: impl Into<String>) -> Result<Self> {
        HuggingFaceTokenizer::from_file_named(path, name).map(Self::HuggingFace)
    }

    /// Reads the names of a `tokenizer.json`'s ids, leaving the reader of text to be built
    /// when text is first read; named `name`, or as [`Self::from_file`] names it.
    ///
    /// # Errors
    /// When the file is missing, or is not JSON that names a vocabulary; the message names the
    /// file. What only the `tokenizers` crate refuses is said when text is read.
    pub fn deferred(path: &Path, name: Option<String>) -> Result<Self> {
        HuggingFaceTokenizer::deferred_from_file(path, name).map(Self::HuggingFace)
    }

    /// GPT-2's own byte-pair encoding (`r50k_base`, 50,257 ids), built into the binary.
    ///
    /// The first call builds it (reading the ranks, caching every id's display string); later
    /// calls share that.
    ///
    /// # Errors
    /// When the ranks built into tiktoken-rs cannot be read (they always can).
    pub fn gpt2() -> Result<Self> {
        Gpt2Tokenizer::new().map(Self::Gpt2)
    }

    /// A short name for titles and JSON.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Self::Words(vocabulary) => vocabulary.name(),
            Self::HuggingFace(tokenizer) => tokenizer.name(),
            Self::Gpt2(_) => "gpt2",
        }
    }

    /// Splits text into tokens; `special_tokens` adds the markers the model itself adds.
    ///
    /// Word vocabularies add none. Spans are byte ranges of `text` on character boundaries.
    ///
    /// # Errors
    /// When the tokenizer cannot read the text.
    pub fn tokenize(&self, text: &str, special_tokens: bool) -> Result<Vec<Token>> {
        match self {
            Self::Words(vocabulary) => Ok(vocabulary.tokenize(text)),
            Self::HuggingFace(tokenizer) => tokenizer.tokenize(text, special_tokens),
            Self::Gpt2(tokenizer) => tokenizer.tokenize(text, special_tokens),
        }
    }

    /// How many ids the tokenizer hands out (its highest id plus one), added tokens included.
    #[must_use]
    pub fn vocab_size(&self) -> usize {
        match self {
            Self::Words(vocabulary) => vocabulary.len(),
            Self::HuggingFace(tokenizer) => tokenizer.vocab_size(),
            Self::Gpt2(tokenizer) => tokenizer.display().len(),
        }
    }

    /// The highest id the tokenizer can hand out, or `None` for an empty vocabulary.
    ///
    /// A weight matrix serves this tokenizer only if it has more rows than this.
    #[must_use]
    pub fn max_id(&self) -> Option<usize> {
        self.vocab_size().checked_sub(1)
    }

    /// The text of an id as the screen shows it (`␣fox` for GPT-2's id 21831).
    #[must_use]
    pub fn token_text(&self, id: usize) -> Option<String> {
        match self {
            Self::Words(vocabulary) => vocabulary.token(id).map(str::to_owned),
            Self::HuggingFace(tokenizer) => tokenizer.names().text(id),
            Self::Gpt2(tokenizer) => tokenizer.display().text(id).map(str::to_owned),
        }
    }

    /// Whether the names of the ids are read: they are, but for a model tokenizer whose
    /// names are read after the first frame ([`Names::later`]) and are not yet. A pane drawn
    /// meanwhile marks its names as being read rather than wait for them. Never waits.
    #[must_use]
    pub fn names_read(&self) -> bool {
        match self {
            Self::HuggingFace(tokenizer) => tokenizer.names().is_read(),
            Self::Words(_) | Self::Gpt2(_) => true,
        }
    }

    /// The id whose token is exactly this text, if there is one.
    ///
    /// Model tokenizers accept the display form (`␣fox`), the text itself (` fox`), or the raw
    /// vocabulary string (`Ġfox`, `##ing`).
    #[must_use]
    pub fn id_of(&self, text: &str) -> Option<usize> {
        match self {
            Self::Words(vocabulary) => vocabulary.tokens().iter().position(|token| token == text),
            Self::HuggingFace(tokenizer) => tokenizer.id_of(text),
            Self::Gpt2(tokenizer) => tokenizer.id_of(text),
        }
    }

    /// Ids whose display text matches the query, best first, at most `limit`.
    ///
    /// The exact text first, then the text ignoring case, then texts that start with the
    /// query, then texts that contain it (both ignoring case); by id within each class. An
    /// empty query matches nothing. For model tokenizers a space in the query means `␣`.
    #[must_use]
    pub fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        match self {
            Self::Words(vocabulary) => {
                let folded: Vec<String> = vocabulary
                    .tokens()
                    .iter()
                    .map(|token| token.to_lowercase())
                    .collect();
                display::search(
                    vocabulary
                        .tokens()
                        .iter()
                        .zip(&folded)
                        .enumerate()
                        .map(|(id, (token, folded))| (id, token.as_str(), folded.as_str())),
                    query,
                    limit,
                )
            }
            Self::HuggingFace(tokenizer) => tokenizer
                .names()
                .all()
                .search(&display_query(query, tokenizer.is_byte_level()), limit),
            Self::Gpt2(tokenizer) => tokenizer
                .display()
                .search(&display_query(query, true), limit),
        }
    }

    /// Whether a word the vocabulary lacks still gets a row, rather than none.
    ///
    /// Model tokenizers always give one: byte-level pieces, or the model's unknown token.
    #[must_use]
    pub fn has_unknown_token(&self) -> bool {
        match self {
            Self::Words(vocabulary) => vocabulary.has_unknown_token(),
            Self::HuggingFace(_) | Self::Gpt2(_) => true,
        }
    }

    /// The whole vocabulary in id order, when it is small enough to list (word vocabularies).
    #[must_use]
    pub fn listing(&self) -> Option<&[String]> {
        match self {
            Self::Words(vocabulary) => Some(vocabulary.tokens()),
            Self::HuggingFace(_) | Self::Gpt2(_) => None,
        }
    }

    /// The widest token text in columns, for laying out a matrix, counted up to
    /// [`WIDEST_COUNTED`] (no pane gives a token more).
    ///
    /// A model tokenizer reads its ids until one is that wide, once: a large one when its
    /// reader of text is built, and until then answers [`WIDEST_COUNTED`].
    #[must_use]
    pub fn widest_token(&self) -> usize {
        match self {
            Self::Words(vocabulary) => vocabulary
                .tokens()
                .iter()
                .map(|token| token.width())
                .max()
                .unwrap_or(0)
                .min(WIDEST_COUNTED),
            Self::HuggingFace(tokenizer) => tokenizer.names().widest(),
            Self::Gpt2(tokenizer) => tokenizer.display().widest().min(WIDEST_COUNTED),
        }
    }

    /// Whether text can be read now, waits for the reader to be built, or cannot be read
    /// (why); never waits itself. Only a model tokenizer is ever built late.
    #[must_use]
    pub fn readiness(&self) -> Readiness<'_> {
        match self {
            Self::HuggingFace(tokenizer) => tokenizer.readiness(),
            Self::Words(_) | Self::Gpt2(_) => Readiness::Ready,
        }
    }

    /// Builds the reader of text now if it is not built yet: what a worker calls so that
    /// typing later does not wait.
    ///
    /// # Errors
    /// When it cannot be built: why.
    pub fn prepare(&self) -> Result<()> {
        match self {
            Self::HuggingFace(tokenizer) => tokenizer.prepare(),
            Self::Words(_) | Self::Gpt2(_) => Ok(()),
        }
    }
}

/// A search query in display form: spaces as `␣`, and for byte-level vocabularies the raw
/// marks `Ġ` and `Ċ` as `␣` and `↵`.
fn display_query(query: &str, byte_level: bool) -> String {
    let shown = display::visible(query);
    if byte_level {
        shown.replace('Ġ', "␣").replace('Ċ', "↵")
    } else {
        shown
    }
}

#[cfg(test)]
mod tests;
