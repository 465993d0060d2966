//! A model's own Hugging Face `tokenizer.json`, read with the `tokenizers` crate.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Result, anyhow, bail};
use serde_json::{Map, Value};
use tokenizers::Tokenizer;
use tokenizers::decoders::DecoderWrapper;
use tokenizers::models::ModelWrapper;
use tokenizers::pre_tokenizers::PreTokenizerWrapper;

use super::MAX_SPECIAL_TOKEN_BYTES;
use super::display::{
    DisplayVocab, byte_level_bytes, ceil_boundary, floor_boundary, visible, visible_bytes,
};
use crate::core::files::access::{JsonKind, read_json_text};
use crate::core::text::vocabulary::Token;

/// The most ids a `tokenizer.json` may hand out: real vocabularies stop near a million, and
/// every id up to the highest costs two cached strings, used or not (a 70-byte file naming id
/// 49,999,999 took over 2 GB when this was 50 million).
const MAX_IDS: usize = 4_000_000;

/// A tokenizer read from a `tokenizer.json`, with the display string of every id cached.
///
/// Cloning is cheap: the tokenizer and its cache are shared.
#[derive(Clone)]
pub struct HuggingFaceTokenizer {
    name: String,
    tokenizer: Arc<Tokenizer>,
    vocab: Arc<DisplayVocab>,
    /// The content of each special added token (`[CLS]`, `<s>`), by id.
    special_tokens: Arc<HashMap<u32, String>>,
    byte_level: bool,
    /// The id every word the model's vocabulary lacks reads (`[UNK]`), if it names one.
    unknown_id: Option<u32>,
}

impl fmt::Debug for HuggingFaceTokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HuggingFaceTokenizer")
            .field("name", &self.name)
            .field("vocab_size", &self.vocab.len())
            .field("byte_level", &self.byte_level)
            .finish_non_exhaustive()
    }
}

/// Refuses an added token longer than [`MAX_SPECIAL_TOKEN_BYTES`], naming its id and length:
/// the `tokenizers` crate's matcher of added tokens takes time that grows with the square of
/// their length (a 30,000-character token took 82 s to open).
fn check_added_token_lengths(json: &serde_json::Value) -> Result<()> {
    let added = json
        .get("added_tokens")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten();
    for token in added {
        let length = token
            .get("content")
            .and_then(serde_json::Value::as_str)
            .map_or(0, str::len);
        if length > MAX_SPECIAL_TOKEN_BYTES {
            let id = token
                .get("id")
                .map_or_else(|| "without an id".to_owned(), ToString::to_string);
            bail!(
                "its added token {id} is {length} bytes long; embedlens reads added tokens of at \
                 most {MAX_SPECIAL_TOKEN_BYTES} bytes (real ones are tens of bytes)"
            );
        }
    }
    Ok(())
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
        Self::from_json(text.as_bytes(), name).map_err(|error| {
            anyhow!(
                "{}: not a tokenizer.json the tokenizers library can read: {error}",
                path.display()
            )
        })
    }

    /// Reads the JSON of a `tokenizer.json` already in memory.
    ///
    /// Padding and truncation are switched off, so the tokens are exactly what was typed.
    ///
    /// # Errors
    /// When the `tokenizers` crate cannot read the JSON.
    pub fn from_json(json: &[u8], name: impl Into<String>) -> Result<Self> {
        // tokenizers 0.22 panics (`expect("Helper")`) when the decoder is not well-formed JSON,
        // such as invalid UTF-8 in one of its strings, so text that is not JSON is turned away
        // here, with serde_json's own message, before the crate sees it.
        let parsed = serde_json::from_slice::<serde_json::Value>(json)
            .map_err(|error| anyhow!("not valid JSON: {error}"))?;
        check_added_token_lengths(&parsed)?;
        let mut tokenizer = Tokenizer::from_bytes(json).map_err(|error| anyhow!("{error}"))?;
        let (processor_ids, undefined) = post_processor_tokens(&tokenizer);
        if let Some(id) = undefined {
            bail!(
                "its post-processor's template adds the special token {id}, which its \
                 special_tokens do not define"
            );
        }
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(None)
            .map_err(|error| anyhow!("{error}"))?;
        let byte_level = is_byte_level(&tokenizer);
        let unknown_id = unknown_token(&tokenizer).and_then(|token| tokenizer.token_to_id(&token));
        let added = tokenizer.get_added_tokens_decoder();
        let model_vocab = tokenizer.get_vocab(false);
        let highest = model_vocab
            .values()
            .chain(added.keys())
            .chain(&processor_ids)
            .copied()
            .max()
            .map_or(0, |id| id as usize + 1);
        if highest > MAX_IDS {
            bail!(
                "its highest id is {}, too many to be a vocabulary",
                highest - 1
            );
        }
        let mut texts = vec![String::new(); highest];
        for (token, &id) in &model_vocab {
            let shown = match byte_level_bytes(token) {
                Some(bytes) if byte_level => visible_bytes(&bytes),
                _ => visible(token),
            };
            texts[id as usize] = shown;
        }
        for (&id, token) in &added {
            texts[id as usize] = visible(&token.content);
        }
        let special_tokens = added
            .into_iter()
            .filter(|(_, token)| token.special)
            .map(|(id, token)| (id, token.content))
            .collect();
        Ok(Self {
            name: name.into(),
            tokenizer: Arc::new(tokenizer),
            vocab: Arc::new(DisplayVocab::new(texts)),
            special_tokens: Arc::new(special_tokens),
            byte_level,
            unknown_id,
        })
    }

    /// The name given at construction: the model folder, or the file's stem.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the vocabulary is GPT-2-style byte-level BPE (`Ġfox`).
    #[must_use]
    pub fn is_byte_level(&self) -> bool {
        self.byte_level
    }

    /// Tokenises text; `special_tokens` lets the post-processor add `[CLS]`, `[SEP]`, `<s>`...
    ///
    /// Tokens the post-processor adds are flagged special and get an empty span where they
    /// were inserted; special tokens typed in the text are flagged special and keep their span.
    /// Spans are byte ranges on character boundaries, in order and never overlapping: a piece
    /// that holds part of a character (byte-level BPE) spans the whole character, and the
    /// pieces after it in that character get an empty span at its end.
    ///
    /// # Errors
    /// When the tokenizer cannot encode the text (a word-level vocabulary with no unknown token).
    pub fn tokenize(&self, text: &str, special_tokens: bool) -> Result<Vec<Token>> {
        let encoding = self
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
            let typed_special = self
                .special_tokens
                .get(&id)
                .is_some_and(|content| text[span.clone()].trim() == content.trim());
            // A word read as the unknown token keeps what was typed, so two different
            // unknown words are told apart (they share a row, but are not copies).
            let unknown =
                Some(id) == self.unknown_id && !inserted && !typed_special && !span.is_empty();
            let id = id as usize;
            let text = if unknown {
                visible(&text[span.clone()])
            } else {
                self.vocab
                    .text(id)
                    .map_or_else(|| visible(piece), str::to_owned)
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
        self.vocab.len()
    }

    /// The cached display strings.
    pub(super) fn display(&self) -> &DisplayVocab {
        &self.vocab
    }

    /// The id of a token: its display form (`␣fox`), the text itself (` fox`), or the raw
    /// vocabulary string (`Ġfox`, `##ing`).
    #[must_use]
    pub fn id_of(&self, text: &str) -> Option<usize> {
        self.vocab
            .id(text)
            .or_else(|| self.vocab.id(&visible(text)))
            .or_else(|| self.tokenizer.token_to_id(text).map(|id| id as usize))
    }
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

/// The special tokens a post-processor adds (`[CLS]`, `<s>`), read from its serialised form
/// (the crate keeps templates private), nested `Sequence`s included: their ids, which need not
/// be in the model's vocabulary, and the first token a template names but does not define.
///
/// tokenizers 0.22 checks templates built in code, not templates read from a file, and then
/// panics (`no entry found for key`) on the first encode that adds special tokens.
fn post_processor_tokens(tokenizer: &Tokenizer) -> (Vec<u32>, Option<String>) {
    let mut ids = Vec::new();
    let mut undefined = None;
    let Some(processor) = tokenizer
        .get_post_processor()
        .and_then(|processor| serde_json::to_value(processor).ok())
    else {
        return (ids, undefined);
    };
    for_each_object(
        &processor,
        &mut |fields| match fields.get("type").and_then(Value::as_str) {
            Some("TemplateProcessing") => {
                let defined = fields.get("special_tokens").and_then(Value::as_object);
                for token in defined.into_iter().flat_map(Map::values) {
                    let token_ids = token.get("ids").and_then(Value::as_array);
                    ids.extend(token_ids.into_iter().flatten().filter_map(as_id));
                }
                let named = ["single", "pair"]
                    .into_iter()
                    .filter_map(|template| fields.get(template).and_then(Value::as_array))
                    .flatten()
                    .filter_map(|piece| piece.pointer("/SpecialToken/id").and_then(Value::as_str));
                for name in named {
                    if undefined.is_none() && !defined.is_some_and(|d| d.contains_key(name)) {
                        undefined = Some(name.to_owned());
                    }
                }
            }
            Some("BertProcessing" | "RobertaProcessing") => {
                let pairs = ["sep", "cls"].into_iter().filter_map(|key| fields.get(key));
                ids.extend(pairs.filter_map(|pair| pair.get(1)).filter_map(as_id));
            }
            _ => {}
        },
    );
    (ids, undefined)
}

fn as_id(value: &Value) -> Option<u32> {
    value.as_u64().and_then(|id| u32::try_from(id).ok())
}

/// Calls `visit` on every JSON object in `value`, itself included.
fn for_each_object(value: &Value, visit: &mut impl FnMut(&Map<String, Value>)) {
    match value {
        Value::Array(items) => items.iter().for_each(|item| for_each_object(item, visit)),
        Value::Object(fields) => {
            visit(fields);
            fields
                .values()
                .for_each(|field| for_each_object(field, visit));
        }
        _ => {}
    }
}

/// The token the model reads for words its vocabulary lacks, where the model names one
/// (a unigram model's is private to the tokenizers crate: `None`).
fn unknown_token(tokenizer: &Tokenizer) -> Option<String> {
    match tokenizer.get_model() {
        ModelWrapper::WordPiece(model) => Some(model.unk_token.clone()),
        ModelWrapper::WordLevel(model) => Some(model.unk_token.clone()),
        ModelWrapper::BPE(model) => model.unk_token.clone(),
        ModelWrapper::Unigram(_) => None,
    }
}

/// Whether the tokenizer writes bytes with GPT-2's byte-level alphabet.
fn is_byte_level(tokenizer: &Tokenizer) -> bool {
    let decoder = match tokenizer.get_decoder() {
        Some(DecoderWrapper::ByteLevel(_)) => true,
        Some(DecoderWrapper::Sequence(sequence)) => sequence
            .get_decoders()
            .iter()
            .any(|decoder| matches!(decoder, DecoderWrapper::ByteLevel(_))),
        _ => false,
    };
    let pre_tokenizer = match tokenizer.get_pre_tokenizer() {
        Some(PreTokenizerWrapper::ByteLevel(_)) => true,
        Some(PreTokenizerWrapper::Sequence(sequence)) => sequence
            .as_ref()
            .iter()
            .any(|pre| matches!(pre, PreTokenizerWrapper::ByteLevel(_))),
        _ => false,
    };
    decoder || pre_tokenizer
}
