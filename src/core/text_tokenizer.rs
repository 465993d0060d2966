//! Every tokenizer the explorer can read text with, behind one face.
//!
//! Word-level vocabularies are built in; later variants read a model's `tokenizer.json` or
//! GPT-2's byte-pair encoding.

use anyhow::Result;
use unicode_width::UnicodeWidthStr;

use super::tokenizer::{Token, Vocabulary};

/// A tokenizer: text in, tokens with ids and spans out.
#[derive(Clone, Debug)]
pub enum TextTokenizer {
    /// A word-level vocabulary that splits on whitespace and punctuation.
    Words(Vocabulary),
}

impl TextTokenizer {
    /// Reads a Hugging Face `tokenizer.json`.
    ///
    /// # Errors
    /// When the file is missing or is not a tokenizer the `tokenizers` crate can read; the
    /// message names the file.
    pub fn from_file(path: &std::path::Path) -> Result<Self> {
        anyhow::bail!("{}: reading tokenizer.json is not built yet", path.display())
    }

    /// GPT-2's own byte-pair encoding (r50k_base, 50,257 ids), built into the binary.
    #[must_use]
    pub fn gpt2() -> Self {
        todo!("GPT-2 tokenizer")
    }

    /// A short name for titles and JSON.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Self::Words(vocabulary) => vocabulary.name(),
        }
    }

    /// Splits text into tokens; `special_tokens` adds the markers the model itself adds.
    ///
    /// # Errors
    /// When the tokenizer cannot read the text.
    pub fn tokenize(&self, text: &str, special_tokens: bool) -> Result<Vec<Token>> {
        let _ = special_tokens;
        match self {
            Self::Words(vocabulary) => Ok(vocabulary.tokenize(text)),
        }
    }

    /// How many ids the tokenizer hands out (its highest id plus one).
    #[must_use]
    pub fn vocab_size(&self) -> usize {
        match self {
            Self::Words(vocabulary) => vocabulary.len(),
        }
    }

    /// The text of an id as the screen shows it.
    #[must_use]
    pub fn token_text(&self, id: usize) -> Option<String> {
        match self {
            Self::Words(vocabulary) => vocabulary.token(id).map(str::to_owned),
        }
    }

    /// The id whose token is exactly this text, if there is one.
    #[must_use]
    pub fn id_of(&self, text: &str) -> Option<usize> {
        match self {
            Self::Words(vocabulary) => vocabulary
                .tokens()
                .iter()
                .position(|token| token == text),
        }
    }

    /// Whether a word the vocabulary lacks still gets a row (`<|unk|>`), rather than none.
    #[must_use]
    pub fn has_unknown_token(&self) -> bool {
        match self {
            Self::Words(vocabulary) => vocabulary.has_unknown_token(),
        }
    }

    /// The whole vocabulary in id order, when it is small enough to list (word vocabularies).
    #[must_use]
    pub fn listing(&self) -> Option<&[String]> {
        match self {
            Self::Words(vocabulary) => Some(vocabulary.tokens()),
        }
    }

    /// The widest token text in columns, for laying out a matrix.
    #[must_use]
    pub fn widest_token(&self) -> usize {
        match self {
            Self::Words(vocabulary) => vocabulary
                .tokens()
                .iter()
                .map(|token| token.width())
                .max()
                .unwrap_or(0),
        }
    }
}
