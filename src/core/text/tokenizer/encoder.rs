//! The part of a model tokenizer that reads text: the `tokenizers` crate's tokenizer, built
//! when text is first read (or on a worker, for the explorer), never for ids alone.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use anyhow::{Result, anyhow};
use tokenizers::models::ModelWrapper;
use tokenizers::models::unigram::Unigram;
use tokenizers::{Model, Tokenizer};

/// A built `tokenizers` tokenizer, with what reading text needs beside it.
pub struct Encoder {
    pub(super) tokenizer: Tokenizer,
    /// The content of each special added token (`[CLS]`, `<s>`), by id.
    pub(super) special_tokens: HashMap<u32, String>,
    /// The id every word the model's vocabulary lacks reads (`[UNK]`), if it names one.
    pub(super) unknown_id: Option<u32>,
}

impl Encoder {
    /// Reads the JSON of a `tokenizer.json` (already checked by [`super::names::JsonVocab`]):
    /// a BPE model part by part ([`super::bpe_json`]), anything else by the `tokenizers` crate.
    ///
    /// # Errors
    /// When the `tokenizers` crate cannot read it.
    pub fn from_json(json: &[u8]) -> Result<Self> {
        match super::bpe_json::bpe_tokenizer(json) {
            Some(tokenizer) => Self::new(tokenizer),
            None => Self::new(Tokenizer::from_bytes(json).map_err(|error| anyhow!("{error}"))?),
        }
    }

    /// A tokenizer built in code, with padding and truncation switched off, so the tokens are
    /// exactly what was typed.
    ///
    /// # Errors
    /// When truncation cannot be switched off (it always can).
    pub fn new(mut tokenizer: Tokenizer) -> Result<Self> {
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(None)
            .map_err(|error| anyhow!("{error}"))?;
        let unknown_id = unknown_token(&tokenizer).and_then(|token| tokenizer.token_to_id(&token));
        let special_tokens = tokenizer
            .get_added_tokens_decoder()
            .into_iter()
            .filter(|(_, token)| token.special)
            .map(|(id, token)| (id, token.content))
            .collect();
        Ok(Self {
            tokenizer,
            special_tokens,
            unknown_id,
        })
    }
}

impl Encoder {
    /// The tokenizer as a `tokenizer.json`.
    ///
    /// # Errors
    /// When the `tokenizers` crate cannot write it (it always can).
    pub fn to_json(&self) -> Result<String> {
        self.tokenizer
            .to_string(false)
            .map_err(|error| anyhow!("{error}"))
    }
}

/// The token the model reads for words its vocabulary lacks, where the model names one
/// (a unigram model's is private to the tokenizers crate: `None`).
fn unknown_token(tokenizer: &Tokenizer) -> Option<String> {
    match tokenizer.get_model() {
        ModelWrapper::WordPiece(model) => Some(model.unk_token.clone()),
        ModelWrapper::WordLevel(model) => Some(model.unk_token.clone()),
        ModelWrapper::BPE(model) => model.unk_token.clone(),
        ModelWrapper::Unigram(model) => {
            unigram_unknown_id(model).and_then(|id| model.id_to_token(id))
        }
    }
}

/// The id of a unigram model's unknown piece, which the `tokenizers` crate keeps to itself but
/// writes out before the pieces: only the head of its JSON is written, then writing stops.
fn unigram_unknown_id(model: &Unigram) -> Option<u32> {
    /// Keeps the first bytes written, then refuses the rest (the pieces, which may be many).
    struct Head(Vec<u8>);
    impl std::io::Write for Head {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.0.len() >= 256 {
                return Err(std::io::Error::other("the head is written"));
            }
            self.0.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut head = Head(Vec::new());
    // Writing stops with an error once the head is kept: expected.
    let _ = serde_json::to_writer(&mut head, model);
    let head = String::from_utf8_lossy(&head.0);
    let (_, after) = head.split_once("\"unk_id\":")?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// How an [`Encoder`] is made, once.
type Build = Box<dyn FnOnce() -> Result<Encoder> + Send>;

/// An [`Encoder`] built on first use: by the first reader of text, or by a worker started
/// ahead of it; a second reader waits for the first build rather than starting another.
pub struct LazyEncoder {
    build: Mutex<Option<Build>>,
    built: OnceLock<Result<Encoder, String>>,
}

/// Where an encoder's build is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Readiness<'a> {
    /// Built: text can be read now.
    Ready,
    /// Not built yet (or being built).
    Pending,
    /// The build failed: why.
    Failed(&'a str),
}

impl LazyEncoder {
    /// An encoder already built.
    pub fn ready(encoder: Encoder) -> Self {
        Self {
            build: Mutex::new(None),
            built: OnceLock::from(Ok(encoder)),
        }
    }

    /// An encoder `build` makes when it is first needed.
    pub fn deferred(build: impl FnOnce() -> Result<Encoder> + Send + 'static) -> Self {
        Self {
            build: Mutex::new(Some(Box::new(build))),
            built: OnceLock::new(),
        }
    }

    /// The encoder, built now if it has not been; waits while another thread builds it.
    ///
    /// # Errors
    /// When the build failed: the reason, as a sentence.
    pub fn get(&self) -> Result<&Encoder, &str> {
        self.built
            .get_or_init(|| {
                let build = self
                    .build
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .take();
                match build {
                    Some(build) => build().map_err(|error| format!("{error:#}")),
                    None => Err("its build stopped before it finished".to_owned()),
                }
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// Where the build is, without waiting for it.
    pub fn readiness(&self) -> Readiness<'_> {
        match self.built.get() {
            Some(Ok(_)) => Readiness::Ready,
            Some(Err(why)) => Readiness::Failed(why),
            None => Readiness::Pending,
        }
    }
}
