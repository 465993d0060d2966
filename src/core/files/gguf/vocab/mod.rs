//! A model's tokenizer rebuilt from its GGUF metadata, as a Hugging Face `tokenizer.json`.
//!
//! llama.cpp's converter stores a tokenizer as `tokenizer.ggml.*` entries: the tokens by id,
//! their types, merges (BPE) or scores (`SentencePiece`), the special token ids, and for
//! byte-level BPE the name of the pre-tokenizer (`tokenizer.ggml.pre`). This module turns them
//! back into the `tokenizer.json` Hugging Face publishes for such a model, so that the
//! `tokenizers` crate reads text into the ids llama.cpp's own tests expect:
//! - `gpt2` (Llama 3, Qwen, `SmolLM`, GPT-2, `DeepSeek`, Falcon, Command R…): byte-level BPE
//!   with the file's merges and the split its `pre` names ([`pre`], every name llama.cpp knows
//!   but the few it splits with code of its own);
//! - `llama` (Llama 2, Mistral, Gemma, Phi-3): `SentencePiece` BPE with byte fallback, the
//!   merges derived from the scores as Hugging Face's `SentencePieceExtractor` does, and `▁`
//!   for spaces (prepended to the text unless `tokenizer.ggml.add_space_prefix` is false);
//! - `gemma4`: `SentencePiece`-style BPE with the file's merges, each line merged whole;
//! - `bert`: `WordPiece`, the converter's `▁` word starts turned back into `##` continuations,
//!   lower-casing and accent stripping as the metadata says ([`wordpiece`]).
//!
//! The special tokens are added as llama.cpp adds them: its default for the family, unless
//! `tokenizer.ggml.add_bos_token` or `add_eos_token` says otherwise ([`Ends`]). Control and
//! unknown tokens become special added tokens, user-defined ones plain added tokens, so that
//! they are matched whole in the text.

mod bpe;
mod pre;
mod unigram;
mod wordpiece;

use std::collections::HashMap;

use anyhow::{Result, anyhow, bail};
use serde_json::{Value, json};
use tokenizers::decoders::DecoderWrapper;
use tokenizers::models::ModelWrapper;
use tokenizers::normalizers::NormalizerWrapper;
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::processors::PostProcessorWrapper;
use tokenizers::{AddedToken, Tokenizer};

use std::sync::Arc;

use super::file::GgufFile;
use super::value::{Items, MetadataValue};
use crate::core::text::tokenizer::{
    Encoder, HuggingFaceTokenizer, MAX_SPECIAL_TOKEN_BYTES, Names, TextTokenizer, model_token_text,
    visible,
};

/// The metadata key under which a GGUF file may carry its model's whole `tokenizer.json` (the
/// GGUF specification's "for executors that support HF tokenizers directly").
pub const HUGGING_FACE_JSON: &str = "tokenizer.huggingface.json";

/// Token types as llama.cpp numbers them.
const UNKNOWN: i64 = 2;
const CONTROL: i64 = 3;
const USER_DEFINED: i64 = 4;

/// A `tokenizer.json` rebuilt from metadata, and a line saying what it is.
#[derive(Clone, Debug)]
pub struct MetadataTokenizer {
    /// The JSON of the tokenizer, for the `tokenizers` crate.
    pub json: String,
    /// What was built, such as `byte-level BPE (gpt2, pre-tokenizer smollm), 49152 tokens`.
    pub summary: String,
    /// How many tokens it holds (ids 0 up to one less).
    pub tokens: usize,
}

impl MetadataTokenizer {
    /// The tokenizer itself, under the given name.
    ///
    /// # Errors
    /// When the `tokenizers` crate refuses the JSON (a metadata entry it cannot use).
    pub fn build(&self, name: impl Into<String>) -> Result<TextTokenizer> {
        HuggingFaceTokenizer::from_json(self.json.as_bytes(), name).map(TextTokenizer::HuggingFace)
    }
}

/// The kinds of tokenizer rebuilt from metadata, by `tokenizer.ggml.model`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `gpt2`: byte-level BPE.
    ByteLevel,
    /// `llama`: `SentencePiece` BPE.
    SentencePiece,
    /// `gemma4`: `SentencePiece`-style BPE with merges.
    Gemma4,
    /// `bert`: `WordPiece`.
    WordPiece,
    /// `t5`: `SentencePiece` unigram.
    Unigram,
}

/// What a GGUF file's metadata says of its tokenizer, read without building it: what opening
/// a model for its ids and listing a file need.
#[derive(Clone, Debug)]
pub struct TokenizerPlan {
    kind: Kind,
    /// What would be built, such as `byte-level BPE (tokenizer.ggml.model gpt2, pre-tokenizer
    /// smollm), 49152 tokens, 48900 merges`.
    pub summary: String,
    /// How many tokens it holds (ids 0 up to one less).
    pub tokens: usize,
}

/// Reads what a GGUF file's metadata says of its tokenizer without building it: its kind, its
/// pre-tokenizer, and how many tokens and merges it has.
///
/// # Errors
/// When the metadata holds no tokenizer, one of a kind not rebuilt here (the message names
/// it, or the pre-tokenizer it names), or arrays of the wrong type.
pub fn tokenizer_plan(file: &GgufFile) -> Result<TokenizerPlan> {
    let model = file
        .text("tokenizer.ggml.model")
        .ok_or_else(|| anyhow!("the file has no tokenizer.ggml.model"))?;
    // Checked before the tokens are read, so the reason named is the kind.
    let (kind, pre) = match model {
        "gpt2" => (Kind::ByteLevel, Some(byte_level_pre(file)?.0)),
        "llama" => (Kind::SentencePiece, None),
        "gemma4" => (Kind::Gemma4, None),
        "bert" => (Kind::WordPiece, None),
        "t5" => (Kind::Unigram, None),
        other => bail!(
            "its tokenizer.ggml.model is {other:?}; embedlens rebuilds gpt2 (byte-level BPE), \
             llama (SentencePiece), gemma4, bert (WordPiece) and t5 (SentencePiece unigram) \
             tokenizers"
        ),
    };
    let tokens = array_len(file, "tokenizer.ggml.tokens")?
        .ok_or_else(|| anyhow!("the file has no tokenizer.ggml.tokens"))?;
    let merges = || -> Result<usize> {
        array_len(file, "tokenizer.ggml.merges")?.ok_or_else(|| {
            anyhow!("a {model} tokenizer needs tokenizer.ggml.merges, which the file lacks")
        })
    };
    // What can be told from the arrays' lengths alone is told now, so that inspect gives the
    // reason a build would (the build checks their items too).
    if array_len(file, "tokenizer.ggml.token_type")?.is_some_and(|types| types != tokens) {
        bail!("tokenizer.ggml.token_type is not one integer per token");
    }
    if matches!(kind, Kind::SentencePiece | Kind::Unigram) {
        match array_len(file, "tokenizer.ggml.scores")? {
            None => bail!("a {model} tokenizer needs tokenizer.ggml.scores, which the file lacks"),
            Some(scores) if scores != tokens => {
                bail!("tokenizer.ggml.scores is not one f32 per token")
            }
            Some(_) => {}
        }
    }
    let summary = match kind {
        Kind::ByteLevel => format!(
            "byte-level BPE (tokenizer.ggml.model gpt2, pre-tokenizer {}), {tokens} tokens, {} \
             merges",
            pre.unwrap_or("default"),
            merges()?
        ),
        Kind::SentencePiece => format!(
            "SentencePiece BPE (tokenizer.ggml.model llama), {tokens} tokens, merges derived \
             from the scores{}",
            if flag(file, "tokenizer.ggml.add_space_prefix", true) {
                ""
            } else {
                ", no space prefix"
            }
        ),
        Kind::Gemma4 => format!(
            "SentencePiece-style BPE (tokenizer.ggml.model gemma4), {tokens} tokens, {} merges",
            merges()?
        ),
        Kind::Unigram => format!(
            "SentencePiece unigram (tokenizer.ggml.model t5), {tokens} tokens{}",
            if file.get("tokenizer.ggml.precompiled_charsmap").is_some() {
                ", its precompiled character map"
            } else {
                ""
            }
        ),
        Kind::WordPiece => {
            let lowercase = flag(file, "tokenizer.ggml.normalizer.lowercase", true);
            let strip_accents = flag(file, "tokenizer.ggml.normalizer.strip_accents", lowercase);
            format!(
                "WordPiece (tokenizer.ggml.model bert), {tokens} tokens{}{}",
                if lowercase { ", lower-cased" } else { "" },
                if strip_accents {
                    ", accents stripped"
                } else {
                    ""
                },
            )
        }
    };
    Ok(TokenizerPlan {
        kind,
        summary,
        tokens,
    })
}

/// How many items an array holds, if the key is there.
fn array_len(file: &GgufFile, key: &str) -> Result<Option<usize>> {
    file.get(key)
        .map(|value| {
            value
                .items()
                .map(Items::len)
                .ok_or_else(|| anyhow!("{key} is not an array"))
        })
        .transpose()
}

/// The tokenizer a GGUF file's metadata describes, as [`tokenizer_plan`] read it: the names of
/// its ids read from the metadata when asked for, its reader of text built from the metadata
/// when text is first read.
#[must_use]
pub fn lazy_tokenizer(file: &Arc<GgufFile>, plan: &TokenizerPlan, name: &str) -> TextTokenizer {
    let kind = plan.kind;
    // Where the two arrays are among the metadata, found once: a name is then read in
    // constant time, however many keys the file has.
    let position = |key: &str| file.metadata().iter().position(|(name, _)| name == key);
    let (tokens_at, types_at) = (
        position("tokenizer.ggml.tokens"),
        position("tokenizer.ggml.token_type"),
    );
    let source = Arc::clone(file);
    let name_of = move |id: usize| -> Option<String> {
        let items = |at: Option<usize>| source.metadata()[at?].1.items();
        let token = items(tokens_at)?.text(id)?;
        let token_type = items(types_at).and_then(|types| types.i64(id)).unwrap_or(1);
        Some(token_text(kind, &token, token_type))
    };
    let names = Names::new(plan.tokens, kind == Kind::ByteLevel, Arc::new(name_of));
    let built = Arc::clone(file);
    TextTokenizer::HuggingFace(HuggingFaceTokenizer::from_parts(name, names, move || {
        metadata_encoder(&built)
            .map_err(|error| anyhow!("the file's tokenizer could not be rebuilt: {error:#}"))
    }))
}

/// The whole `tokenizer.json` a GGUF file carries under [`HUGGING_FACE_JSON`], if it has the
/// key.
///
/// # Errors
/// When the key holds something other than a string.
#[must_use]
pub fn embedded_json(file: &GgufFile) -> Option<Result<&str>> {
    file.get(HUGGING_FACE_JSON).map(|value| {
        value
            .as_str()
            .ok_or_else(|| anyhow!("it is a {}, not a string", value.type_name()))
    })
}

/// The tokenizer of the `tokenizer.json` a GGUF file carries ([`embedded_json`]): its names
/// given, its reader of text built from the JSON when text is first read.
#[must_use]
pub fn embedded_tokenizer(file: &Arc<GgufFile>, names: Names, name: &str) -> TextTokenizer {
    let built = Arc::clone(file);
    TextTokenizer::HuggingFace(HuggingFaceTokenizer::from_parts(name, names, move || {
        let json = match embedded_json(&built) {
            Some(Ok(json)) => json,
            Some(Err(error)) => return Err(error),
            None => bail!("the file has no {HUGGING_FACE_JSON}"),
        };
        Encoder::from_json(json.as_bytes()).map_err(|error| {
            anyhow!(
                "the file's {HUGGING_FACE_JSON} is not a tokenizer.json the tokenizers library \
                 can read: {error:#}"
            )
        })
    }))
}

/// The reader of text a GGUF file's metadata describes: a BPE tokenizer built straight from
/// the metadata arrays, a `WordPiece` one through its `tokenizer.json`.
///
/// # Errors
/// As [`metadata_tokenizer`], and when the `tokenizers` crate refuses a part.
pub fn metadata_encoder(file: &GgufFile) -> Result<Encoder> {
    let plan = tokenizer_plan(file)?;
    let vocab = Vocab::read(file, plan.kind == Kind::SentencePiece)?;
    match plan.kind {
        Kind::ByteLevel => {
            let (_, pre) = byte_level_pre(file)?;
            bpe::byte_level(file, &vocab, pre)?.encoder(&vocab)
        }
        Kind::SentencePiece => bpe::sentencepiece(file, &vocab)?.encoder(&vocab),
        Kind::Gemma4 => bpe::gemma4(file, &vocab)?.encoder(&vocab),
        Kind::WordPiece => {
            Encoder::from_json(wordpiece::build(file, &vocab)?.to_string().as_bytes())
        }
        Kind::Unigram => unigram::build(file, &vocab),
    }
}

/// A tokenizer from its model and parts (each part's JSON, null for none), with the
/// vocabulary's control, unknown and user-defined tokens added as the `tokenizers` crate adds
/// a `tokenizer.json`'s `added_tokens`: matched whole, never normalised.
fn assemble(
    model: impl Into<ModelWrapper>,
    normalizer: Option<NormalizerWrapper>,
    pre_tokenizer: Value,
    post_processor: Value,
    decoder: Value,
    vocab: &Vocab,
) -> Result<Encoder> {
    let mut tokenizer = Tokenizer::new(model);
    tokenizer
        .with_normalizer(normalizer)
        .with_pre_tokenizer(bpe::part::<PreTokenizerWrapper>(pre_tokenizer)?)
        .with_post_processor(bpe::part::<PostProcessorWrapper>(post_processor)?)
        .with_decoder(bpe::part::<DecoderWrapper>(decoder)?);
    let added: Vec<AddedToken> = vocab
        .added()
        .map(|(token, special)| {
            AddedToken::from(token.to_owned(), special)
                .single_word(false)
                .lstrip(false)
                .rstrip(false)
                .normalized(false)
        })
        .collect();
    tokenizer.add_tokens(&added);
    Encoder::new(tokenizer)
}

/// The score of every token, which a `SentencePiece` model (`model` names it) needs.
fn scores(file: &GgufFile, vocab: &Vocab, model: &str) -> Result<Vec<f32>> {
    match file
        .get("tokenizer.ggml.scores")
        .and_then(MetadataValue::items)
    {
        Some(items) => items
            .f32s()
            .filter(|scores| scores.len() == vocab.tokens.len())
            .ok_or_else(|| anyhow!("tokenizer.ggml.scores is not one f32 per token")),
        None => bail!("a {model} tokenizer needs tokenizer.ggml.scores, which the file lacks"),
    }
}

/// A token of the metadata as the tokenizer rebuilt from it shows it.
fn token_text(kind: Kind, token: &str, token_type: i64) -> String {
    let added = matches!(token_type, UNKNOWN | CONTROL | USER_DEFINED);
    match kind {
        Kind::ByteLevel if !added => model_token_text(token, true),
        Kind::WordPiece => visible(&wordpiece::spelt_back(token, token_type)),
        _ => visible(token),
    }
}

/// Rebuilds the tokenizer a GGUF file's metadata describes.
///
/// # Errors
/// When the metadata holds no tokenizer, one of a kind not rebuilt here (the message names
/// it), or entries that contradict each other; the message says which.
pub fn metadata_tokenizer(file: &GgufFile) -> Result<MetadataTokenizer> {
    let plan = tokenizer_plan(file)?;
    let vocab = Vocab::read(file, plan.kind == Kind::SentencePiece)?;
    let json = match plan.kind {
        Kind::ByteLevel => {
            let (_, pre) = byte_level_pre(file)?;
            bpe::byte_level(file, &vocab, pre)?.json(&vocab)
        }
        Kind::SentencePiece => bpe::sentencepiece(file, &vocab)?.json(&vocab),
        Kind::Gemma4 => bpe::gemma4(file, &vocab)?.json(&vocab),
        Kind::WordPiece => wordpiece::build(file, &vocab)?,
        Kind::Unigram => serde_json::from_str(&unigram::build(file, &vocab)?.to_json()?)?,
    };
    Ok(MetadataTokenizer {
        json: json.to_string(),
        summary: plan.summary,
        tokens: plan.tokens,
    })
}

/// The pre-tokenizer a byte-level BPE file names, or why it cannot be used.
fn byte_level_pre(file: &GgufFile) -> Result<(&str, pre::PreTokenizer)> {
    let name = file.text("tokenizer.ggml.pre");
    let Some(pre) = pre::lookup(name) else {
        bail!(
            "its pre-tokenizer {:?} (tokenizer.ggml.pre) is not one embedlens knows (it knows \
             the {} that llama.cpp splits by patterns, such as llama-bpe, qwen2 and gpt-2)",
            name.unwrap_or_default(),
            pre::known_names().len()
        );
    };
    Ok((name.unwrap_or("default"), pre))
}

/// The entries every kind of tokenizer uses.
struct Vocab<'a> {
    tokens: Vec<&'a str>,
    ids: HashMap<&'a str, usize>,
    types: Vec<i64>,
}

impl<'a> Vocab<'a> {
    fn read(file: &'a GgufFile, sentencepiece: bool) -> Result<Self> {
        let tokens: Vec<&str> = strings(file, "tokenizer.ggml.tokens")?
            .ok_or_else(|| anyhow!("the file has no tokenizer.ggml.tokens"))?;
        let types = match file.get("tokenizer.ggml.token_type") {
            None => vec![1; tokens.len()],
            Some(value) => value
                .items()
                .and_then(Items::i64s)
                .filter(|types| types.len() == tokens.len())
                .ok_or_else(|| anyhow!("tokenizer.ggml.token_type is not one integer per token"))?,
        };
        // Special and added tokens go to a matcher whose cost grows with the square of their
        // length; SentencePiece pieces are split at every place to find their merges.
        for (id, (token, kind)) in tokens.iter().zip(&types).enumerate() {
            let special = matches!(*kind, UNKNOWN | CONTROL | USER_DEFINED);
            if token.len() > MAX_SPECIAL_TOKEN_BYTES && (special || sentencepiece) {
                let what = if special {
                    "special or added token"
                } else {
                    "SentencePiece piece"
                };
                bail!(
                    "its {what} {id} is {} bytes long; embedlens reads such tokens of at most \
                     {MAX_SPECIAL_TOKEN_BYTES} bytes (real ones are tens of bytes)",
                    token.len()
                );
            }
        }
        let mut ids = HashMap::with_capacity(tokens.len());
        for (id, token) in tokens.iter().enumerate() {
            if let Some(first) = ids.insert(*token, id) {
                bail!("the token {token:?} appears twice, as ids {first} and {id}");
            }
        }
        Ok(Self { tokens, ids, types })
    }

    /// The id a metadata key names, if the key is there.
    fn special_id(&self, file: &GgufFile, key: &str) -> Result<Option<usize>> {
        let Some(value) = file.get(key) else {
            return Ok(None);
        };
        value
            .as_u64()
            .and_then(|id| usize::try_from(id).ok())
            .filter(|&id| id < self.tokens.len())
            .map(Some)
            .ok_or_else(|| {
                anyhow!(
                    "{key} is {value}, not the id of one of its {} tokens",
                    self.tokens.len()
                )
            })
    }

    /// The token of an id named by a metadata key, if the key is there.
    fn special(&self, file: &GgufFile, key: &str) -> Result<Special<'a>> {
        Ok(self.special_id(file, key)?.map(|id| (id, self.tokens[id])))
    }

    /// Control, unknown and user-defined tokens in id order, and whether each is special (all
    /// but the user-defined).
    fn added(&self) -> impl Iterator<Item = (&'a str, bool)> + '_ {
        self.tokens
            .iter()
            .zip(&self.types)
            .filter(|&(_, &kind)| matches!(kind, UNKNOWN | CONTROL | USER_DEFINED))
            .map(|(&token, &kind)| (token, kind != USER_DEFINED))
    }

    /// Control, unknown and user-defined tokens, as `added_tokens` entries.
    fn added_tokens(&self) -> Vec<Value> {
        self.added_tokens_as(&self.tokens)
    }

    /// The same, with the tokens spelt as given (`WordPiece` spells them back).
    fn added_tokens_as<S: AsRef<str>>(&self, spelling: &[S]) -> Vec<Value> {
        self.types
            .iter()
            .enumerate()
            .filter(|&(_, &kind)| matches!(kind, UNKNOWN | CONTROL | USER_DEFINED))
            .map(|(id, &kind)| {
                json!({
                    "id": id,
                    "content": spelling[id].as_ref(),
                    "single_word": false,
                    "lstrip": false,
                    "rstrip": false,
                    "normalized": false,
                    "special": kind != USER_DEFINED,
                })
            })
            .collect()
    }

    fn vocab_json(&self) -> Value {
        vocab_json(&self.tokens)
    }
}

/// The `vocab` object of a model: each token and its id.
fn vocab_json<S: AsRef<str>>(tokens: &[S]) -> Value {
    Value::Object(
        tokens
            .iter()
            .enumerate()
            .map(|(id, token)| (token.as_ref().to_owned(), json!(id)))
            .collect(),
    )
}

/// A string array, if the key is there.
fn strings<'a>(file: &'a GgufFile, key: &str) -> Result<Option<Vec<&'a str>>> {
    file.get(key)
        .map(|value| match value.items().and_then(Items::strs) {
            Some(Ok(strings)) => Ok(strings),
            Some(Err(index)) => Err(anyhow!("item {index} of {key} is not UTF-8 text")),
            None => Err(anyhow!("{key} is not an array of strings")),
        })
        .transpose()
}

fn flag(file: &GgufFile, key: &str, default: bool) -> bool {
    file.get(key)
        .and_then(MetadataValue::as_bool)
        .unwrap_or(default)
}

/// A special token: its id and text.
type Special<'a> = Option<(usize, &'a str)>;

/// What llama.cpp does at the ends of a text for a family when the file does not say: the ids
/// it takes for the beginning and end tokens when no key names them, and whether it adds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EndDefaults {
    bos_id: Option<usize>,
    eos_id: Option<usize>,
    adds_bos: bool,
    adds_eos: bool,
}

/// The beginning and end tokens a text gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ends<'a> {
    bos: Special<'a>,
    eos: Special<'a>,
}

impl<'a> Ends<'a> {
    /// The family's defaults, overridden by `tokenizer.ggml.bos_token_id`, `eos_token_id`,
    /// `add_bos_token` and `add_eos_token`, as llama.cpp's `llama_vocab::load` reads them.
    fn read(file: &GgufFile, vocab: &Vocab<'a>, defaults: EndDefaults) -> Result<Self> {
        let id = |key: &str, default: Option<usize>| -> Result<Option<usize>> {
            let default = default.filter(|&id| id < vocab.tokens.len());
            Ok(vocab.special_id(file, key)?.or(default))
        };
        let bos = id("tokenizer.ggml.bos_token_id", defaults.bos_id)?;
        let eos = id("tokenizer.ggml.eos_token_id", defaults.eos_id)?;
        let begins = flag(file, "tokenizer.ggml.add_bos_token", defaults.adds_bos);
        let ends = flag(file, "tokenizer.ggml.add_eos_token", defaults.adds_eos);
        if begins && bos.is_none() {
            bail!(
                "it adds a beginning-of-sequence token, but tokenizer.ggml.bos_token_id is not set"
            );
        }
        if ends && eos.is_none() {
            bail!("it adds an end-of-sequence token, but tokenizer.ggml.eos_token_id is not set");
        }
        let token = |id: usize| (id, vocab.tokens[id]);
        Ok(Self {
            bos: bos.filter(|_| begins).map(token),
            eos: eos.filter(|_| ends).map(token),
        })
    }

    /// The post-processor that adds them, or none.
    fn template(self) -> Value {
        let Self { bos, eos } = self;
        if bos.is_none() && eos.is_none() {
            return Value::Null;
        }
        let special =
            |(_, token): (usize, &str)| json!({"SpecialToken": {"id": token, "type_id": 0}});
        let sequence = |name: &str| json!({"Sequence": {"id": name, "type_id": 0}});
        let mut single: Vec<Value> = bos.into_iter().map(special).collect();
        single.push(sequence("A"));
        single.extend(eos.map(special));
        let mut pair = single.clone();
        pair.extend(bos.map(special));
        pair.push(sequence("B"));
        pair.extend(eos.map(special));
        let special_tokens: serde_json::Map<String, Value> = bos
            .into_iter()
            .chain(eos)
            .map(|(id, token)| {
                (
                    token.to_owned(),
                    json!({"id": token, "ids": [id], "tokens": [token]}),
                )
            })
            .collect();
        json!({
            "type": "TemplateProcessing",
            "single": single,
            "pair": pair,
            "special_tokens": special_tokens,
        })
    }
}

#[cfg(test)]
use bpe::merges_from_scores;

#[cfg(test)]
mod tests;
