//! GPT-2's own byte-pair encoding (tiktoken's `r50k_base`), whose ranks are built into the binary.

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, OnceLock};

use anyhow::{Result, anyhow};
use tiktoken_rs::{CoreBPE, Rank};

use super::display::{DisplayVocab, byte_level_bytes, ceil_boundary, visible, visible_bytes};
use crate::core::text::vocabulary::{END_OF_TEXT, Token};

/// How many ids GPT-2 hands out: 50,000 merges, 256 bytes and `<|endoftext|>`.
pub const GPT2_VOCAB_SIZE: usize = 50_257;
/// GPT-2's id for `<|endoftext|>`, its last.
pub const GPT2_END_OF_TEXT: usize = 50_256;

/// GPT-2's tokenizer, with the display string of every id cached.
///
/// Cloning is cheap: the encoder and its cache are shared.
#[derive(Clone)]
pub struct Gpt2Tokenizer {
    bpe: Arc<CoreBPE>,
    vocab: Arc<DisplayVocab>,
}

impl fmt::Debug for Gpt2Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gpt2Tokenizer")
            .field("vocab_size", &self.vocab.len())
            .finish_non_exhaustive()
    }
}

impl Gpt2Tokenizer {
    /// GPT-2's tokenizer, built on first use and shared after.
    ///
    /// # Errors
    /// When the ranks built into tiktoken-rs cannot be read (they always can).
    pub fn new() -> Result<Self> {
        static SHARED: OnceLock<Gpt2Tokenizer> = OnceLock::new();
        if let Some(shared) = SHARED.get() {
            return Ok(shared.clone());
        }
        let built = Self::build()?;
        Ok(SHARED.get_or_init(|| built).clone())
    }

    fn build() -> Result<Self> {
        let bpe = tiktoken_rs::r50k_base()
            .map_err(|error| anyhow!("GPT-2's ranks would not load: {error}"))?;
        let texts = (0..GPT2_VOCAB_SIZE)
            .map(|id| {
                Rank::try_from(id)
                    .ok()
                    .and_then(|rank| bpe.decode_bytes(&[rank]).ok())
                    .map(|bytes| visible_bytes(&bytes))
                    .unwrap_or_default()
            })
            .collect();
        Ok(Self {
            bpe: Arc::new(bpe),
            vocab: Arc::new(DisplayVocab::new(texts)),
        })
    }

    /// Tokenises text; with `special_tokens`, a typed `<|endoftext|>` becomes id 50256,
    /// flagged special, else it is read as ordinary text.
    ///
    /// Spans are byte ranges on character boundaries, in order and never overlapping, and
    /// together cover the text: a piece that ends inside a character spans to the character's
    /// end, and the next piece starts there.
    ///
    /// # Errors
    /// When tiktoken's pattern fails on the text.
    pub fn tokenize(&self, text: &str, special_tokens: bool) -> Result<Vec<Token>> {
        let allowed: HashSet<&str> = if special_tokens {
            HashSet::from([END_OF_TEXT])
        } else {
            HashSet::new()
        };
        let (ranks, _) = self
            .bpe
            .encode(text, &allowed)
            .map_err(|error| anyhow!("GPT-2's tokenizer cannot read this text: {error}"))?;
        let mut tokens = Vec::with_capacity(ranks.len());
        // `offset` counts the bytes the pieces decode to; `cursor` is where the last span ended.
        let mut offset = 0;
        let mut cursor = 0;
        for (position, &rank) in ranks.iter().enumerate() {
            let id = rank as usize;
            let length = self
                .bpe
                .decode_bytes(&[rank])
                .map_or(0, |bytes| bytes.len());
            offset += length;
            let end = ceil_boundary(text, offset).max(cursor);
            let span = cursor..end;
            cursor = end;
            tokens.push(Token {
                text: self
                    .vocab
                    .text(id)
                    .map_or_else(|| format!("#{id}"), str::to_owned),
                span,
                position,
                id: Some(id),
                special: special_tokens && id == GPT2_END_OF_TEXT,
                // Byte pairs spell any text: no word falls to an unknown row.
                unknown: false,
            });
        }
        Ok(tokens)
    }

    /// The cached display strings.
    pub(super) fn display(&self) -> &DisplayVocab {
        &self.vocab
    }

    /// The id of a token: its display form (`␣fox`), the text itself (` fox`), or the
    /// byte-level form of GPT-2's `vocab.json` (`Ġfox`).
    #[must_use]
    pub fn id_of(&self, text: &str) -> Option<usize> {
        self.vocab
            .id(text)
            .or_else(|| self.vocab.id(&visible(text)))
            .or_else(|| {
                let bytes = byte_level_bytes(text)?;
                self.vocab.id(&visible_bytes(&bytes))
            })
    }
}
