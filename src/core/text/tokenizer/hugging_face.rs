//! A model's own Hugging Face `tokenizer.json`, read with the `tokenizers` crate; or a
//! tokenizer rebuilt from a GGUF file's metadata, read the same way.
//!
//! The names of the ids are known at once; the part that reads text is built when text is
//! first read, so a model opened for its ids never pays for it.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Result, anyhow};

use super::display::{ceil_boundary, floor_boundary, visible};
use super::encoder::{Encoder, LazyEncoder, Readiness};
use super::names::{JsonVocab, Names};
use crate::core::files::access::{JsonKind, read_json_text};
use crate::core::text::vocabulary::Token;

/// A model tokenizer: the display text of every id, and the `tokenizers` tokenizer that
/// reads text, built on first use.
///
/// Cloning is cheap: the names and the encoder are shared.
#[derive(Clone)]
pub struct HuggingFaceTokenizer {
    name: String,
    names: Arc<Names>,
    encoder: Arc<LazyEncoder>,
}

impl fmt::Debug for HuggingFaceTokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HuggingFaceTokenizer")
            .field("name", &self.name)
            .field("vocab_size", &self.names.len())
            .field("byte_level", &self.names.is_byte_level())
            .finish_non_exhaustive()
    }
}

impl HuggingFaceTokenizer {
    /// Reads a `tokenizer.json`, named after its folder (or the file, if it has another name).
    ///
    /// # Errors
    /// When the file is missing or unreadable, or the `tokenizers` crate cannot read it; the
    /// message names the file.
    pub fn from_file(path: &Path) -> Result<Self> {
        Self::from_file_named(path, name_for(path))
    }

    /// Reads a `tokenizer.json` under the given name.
    ///
    /// # Errors
    /// As [`Self::from_file`].
    pub fn from_file_named(path: &Path, name: impl Into<String>) -> Result<Self> {
        let text = read_json_text(path, JsonKind::Tokenizer)?;
        Self::from_json(text.as_bytes(), name).map_err(|error| not_readable(path, &error))
    }

    /// Reads the names of a `tokenizer.json`'s ids now, and builds the part that reads text
    /// when text is first read: what a model opened for its ids needs. Named `name`, or as
    /// [`Self::from_file`] names it.
    ///
    /// # Errors
    /// When the file is missing or unreadable, or is not JSON that names a vocabulary; the
    /// message names the file. What only the `tokenizers` crate refuses is said when text is
    /// read.
    pub fn deferred_from_file(path: &Path, name: Option<String>) -> Result<Self> {
        let name = name.unwrap_or_else(|| name_for(path));
        let text = read_json_text(path, JsonKind::Tokenizer)?;
        let vocab = JsonVocab::read(text.as_bytes()).map_err(|error| not_readable(path, &error))?;
        let shown = path.to_owned();
        let encoder = LazyEncoder::deferred(move || {
            Encoder::from_json(text.as_bytes()).map_err(|error| not_readable(&shown, &error))
        });
        Ok(Self {
            name,
            names: Arc::new(vocab.into_names()),
            encoder: Arc::new(encoder),
        })
    }

    /// Reads the JSON of a `tokenizer.json` already in memory, names and reader both.
    ///
    /// Padding and truncation are switched off, so the tokens are exactly what was typed.
    ///
    /// # Errors
    /// When the `tokenizers` crate cannot read the JSON.
    pub fn from_json(json: &[u8], name: impl Into<String>) -> Result<Self> {
        // tokenizers 0.22 panics (`expect("Helper")`) when the decoder is not well-formed JSON,
        // such as invalid UTF-8 in one of its strings, so text that is not JSON is turned away
        // by reading the names first, with serde_json's own message, before the crate sees it.
        let vocab = JsonVocab::read(json)?;
        let encoder = Encoder::from_json(json)?;
        Ok(Self {
            name: name.into(),
            names: Arc::new(vocab.into_names()),
            encoder: Arc::new(LazyEncoder::ready(encoder)),
        })
    }

    /// A tokenizer from its parts: the names of its ids (now, or read [`Names::later`]), the
    /// reader of text built by `build` when text is first read, once the names are read.
    pub fn from_parts(
        name: impl Into<String>,
        names: Names,
        build: impl FnOnce() -> Result<Encoder> + Send + 'static,
    ) -> Self {
        let names = Arc::new(names);
        let read = Arc::clone(&names);
        Self {
            name: name.into(),
            names,
            encoder: Arc::new(LazyEncoder::deferred(move || {
                read.read_now()?;
                build()
            })),
        }
    }

    /// Whether text can be read now, is waiting for the reader to be built, or cannot be read
    /// (why); never waits.
    #[must_use]
    pub fn readiness(&self) -> Readiness<'_> {
        self.encoder.readiness()
    }

    /// Builds the reader of text now, if it is not built, and says why when it cannot be;
    /// first counts the widest of the ids' names, for the panes that lay tokens out.
    ///
    /// # Errors
    /// When it cannot be built.
    pub fn prepare(&self) -> Result<()> {
        self.names.count_widest();
        self.encoder
            .get()
            .map(|_| ())
            .map_err(|why| anyhow!("{why}"))
    }

    /// The name given at construction: the model folder, or the file's stem.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the vocabulary is GPT-2-style byte-level BPE (`Ġfox`).
    #[must_use]
    pub fn is_byte_level(&self) -> bool {
        self.names.is_byte_level()
    }

    /// Tokenises text; `special_tokens` lets the post-processor add `[CLS]`, `[SEP]`, `<s>`...
    ///
    /// The first call builds the reader of text, if nothing has yet.
    ///
    /// Tokens the post-processor adds are flagged special and get an empty span where they
    /// were inserted; special tokens typed in the text are flagged special and keep their span.
    /// Spans are byte ranges on character boundaries, in order and never overlapping: a piece
    /// that holds part of a character (byte-level BPE) spans the whole character, and the
    /// pieces after it in that character get an empty span at its end.
    ///
    /// # Errors
    /// When the reader cannot be built, or cannot encode the text (a word-level vocabulary with
    /// no unknown token).
    pub fn tokenize(&self, text: &str, special_tokens: bool) -> Result<Vec<Token>> {
        let encoder = self
            .encoder
            .get()
            .map_err(|why| anyhow!("the {} tokenizer cannot read text: {why}", self.name))?;
        let encoding = encoder
            .tokenizer
            .encode(text, special_tokens)
            .map_err(|error| {
                anyhow!("the {} tokenizer cannot read this text: {error}", self.name)
            })?;
        let mut tokens = Vec::with_capacity(encoding.len());
        let mut cursor = 0;
        let pieces = encoding
            .get_ids()
            .iter()
            .zip(encoding.get_offsets())
            .zip(encoding.get_special_tokens_mask())
            .zip(encoding.get_tokens());
        for (position, (((&id, &(start, end)), &mask), piece)) in pieces.enumerate() {
            let inserted = mask == 1 && start == end;
            let span = if inserted {
                cursor..cursor
            } else {
                let start = floor_boundary(text, start).max(cursor);
                start..ceil_boundary(text, end).max(start)
            };
            cursor = span.end;
            let typed_special = encoder
                .special_tokens
                .get(&id)
                .is_some_and(|content| text[span.clone()].trim() == content.trim());
            // A word read as the unknown token keeps what was typed, so two different
            // unknown words are told apart (they share a row, but are not copies).
            let unknown =
                Some(id) == encoder.unknown_id && !inserted && !typed_special && !span.is_empty();
            let id = id as usize;
            let text = if unknown {
                visible(&text[span.clone()])
            } else {
                self.names.text(id).unwrap_or_else(|| visible(piece))
            };
            tokens.push(Token {
                text,
                span,
                position,
                id: Some(id),
                special: inserted || typed_special,
                unknown,
            });
        }
        Ok(tokens)
    }

    /// How many ids the tokenizer hands out, added tokens included: its highest id plus one.
    #[must_use]
    pub fn vocab_size(&self) -> usize {
        self.names.len()
    }

    /// The display text of every id.
    pub(super) fn names(&self) -> &Names {
        &self.names
    }

    /// The id of a token: its display form (`␣fox`), the text itself (` fox`), or the raw
    /// vocabulary string (`Ġfox`, `##ing`).
    #[must_use]
    pub fn id_of(&self, text: &str) -> Option<usize> {
        let names = self.names.all();
        names
            .id(text)
            .or_else(|| names.id(&visible(text)))
            .or_else(|| {
                let raw = super::names::model_token_text(text, self.names.is_byte_level());
                names.id(&raw)
            })
    }
}

/// The file named in a message that says the tokenizers library cannot read it.
fn not_readable(path: &Path, error: &anyhow::Error) -> anyhow::Error {
    anyhow!(
        "{}: not a tokenizer.json the tokenizers library can read: {error}",
        path.display()
    )
}

/// The name a tokenizer file goes by: its folder for `tokenizer.json`, else the file's stem.
fn name_for(path: &Path) -> String {
    let folder = path.parent().and_then(Path::file_name).filter(|_| {
        path.file_name()
            .is_some_and(|name| name == "tokenizer.json")
    });
    folder.or_else(|| path.file_stem()).map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}
