//! The BPE tokenizers rebuilt from metadata (`gpt2` byte-level, `llama` `SentencePiece`,
//! `gemma4`) as their parts: the vocabulary, the merges (the file's own, or derived from the
//! scores), and the normaliser, pre-tokenizer, post-processor and decoder. The parts make a
//! `tokenizer.json`, or the `tokenizers` crate's tokenizer straight from the metadata arrays,
//! without writing that JSON and reading it back (the same tokenizer, several times sooner for
//! 150,000 tokens).

use std::cmp::Ordering;

use anyhow::{Result, anyhow};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokenizers::models::bpe::{BPE, Vocab as BpeVocab};
use tokenizers::normalizers::NormalizerWrapper;

use super::{EndDefaults, Ends, GgufFile, Vocab, assemble, flag, pre, scores, strings};
use crate::core::text::tokenizer::Encoder;

/// What a BPE model's pieces are.
#[derive(Clone, Copy)]
enum Pieces<'a> {
    /// Bytes in GPT-2's printable alphabet.
    ByteLevel,
    /// UTF-8 text with `▁` for spaces; bytes only where the vocabulary lacks a character.
    SentencePiece {
        /// The token for what cannot be read, if the model has one.
        unk: Option<&'a str>,
    },
}

/// A BPE tokenizer as the metadata describes it, before it is made into JSON or built.
pub(super) struct BpeParts<'a> {
    pieces: Pieces<'a>,
    merges: Vec<(&'a str, &'a str)>,
    ignore_merges: bool,
    normalizer: Value,
    pre_tokenizer: Value,
    post_processor: Value,
    decoder: Value,
}

impl BpeParts<'_> {
    /// The `tokenizer.json` these parts make.
    pub(super) fn json(&self, vocab: &Vocab) -> Value {
        let (unk, sentencepiece) = self.model_flags();
        let merges: Vec<Value> = self.merges.iter().map(|(l, r)| json!([l, r])).collect();
        json!({
            "version": "1.0",
            "truncation": null,
            "padding": null,
            "added_tokens": vocab.added_tokens(),
            "normalizer": self.normalizer,
            "pre_tokenizer": self.pre_tokenizer,
            "post_processor": self.post_processor,
            "decoder": self.decoder,
            "model": {
                "type": "BPE",
                "dropout": null,
                "unk_token": unk,
                "continuing_subword_prefix": null,
                "end_of_word_suffix": null,
                "fuse_unk": sentencepiece,
                "byte_fallback": sentencepiece,
                "ignore_merges": self.ignore_merges,
                "vocab": vocab.vocab_json(),
                "merges": merges,
            },
        })
    }

    /// The tokenizer these parts make, built straight from them: the same one the
    /// `tokenizers` crate reads from [`Self::json`], as it reads it (the model, then the added
    /// tokens).
    pub(super) fn encoder(self, vocab: &Vocab) -> Result<Encoder> {
        let (unk, sentencepiece) = self.model_flags();
        let mut ids = BpeVocab::with_capacity(vocab.tokens.len());
        for (id, token) in vocab.tokens.iter().enumerate() {
            ids.insert((*token).to_owned(), u32::try_from(id)?);
        }
        let merges = self
            .merges
            .iter()
            .map(|&(left, right)| (left.to_owned(), right.to_owned()))
            .collect();
        let mut model = BPE::builder()
            .vocab_and_merges(ids, merges)
            .fuse_unk(sentencepiece)
            .byte_fallback(sentencepiece)
            .ignore_merges(self.ignore_merges);
        if let Some(unk) = unk {
            model = model.unk_token(unk.to_owned());
        }
        let model = model.build().map_err(|error| anyhow!("{error}"))?;
        assemble(
            model,
            part::<NormalizerWrapper>(self.normalizer)?,
            self.pre_tokenizer,
            self.post_processor,
            self.decoder,
            vocab,
        )
    }

    /// The model's unknown token, and whether it is `SentencePiece`-style.
    fn model_flags(&self) -> (Option<&str>, bool) {
        match self.pieces {
            Pieces::ByteLevel => (None, false),
            Pieces::SentencePiece { unk } => (unk, true),
        }
    }
}

/// A part of a tokenizer (normaliser, pre-tokenizer, ...) read from its JSON; none for null.
pub(super) fn part<T: DeserializeOwned>(json: Value) -> Result<Option<T>> {
    serde_json::from_value(json).map_err(|error| anyhow!("{error}"))
}

/// The merges of a BPE file, as pairs.
fn merge_pairs<'a>(file: &'a GgufFile, model: &str) -> Result<Vec<(&'a str, &'a str)>> {
    let merges = strings(file, "tokenizer.ggml.merges")?.ok_or_else(|| {
        anyhow!("a {model} tokenizer needs tokenizer.ggml.merges, which the file lacks")
    })?;
    merges
        .into_iter()
        .map(|merge| {
            // llama.cpp splits at the first space after the first byte: a merge's left half may
            // itself be a space.
            let first = merge.chars().next().map_or(0, char::len_utf8);
            let at = merge[first..]
                .find(' ')
                .map(|at| at + first)
                .ok_or_else(|| {
                    anyhow!("the merge {merge:?} is not two tokens with a space between")
                })?;
            Ok((&merge[..at], &merge[at + 1..]))
        })
        .collect()
}

/// `gpt2`: byte-level BPE with the file's merges and the split its pre-tokenizer names.
pub(super) fn byte_level<'a>(
    file: &'a GgufFile,
    vocab: &Vocab<'a>,
    pre: pre::PreTokenizer,
) -> Result<BpeParts<'a>> {
    let merges = merge_pairs(file, "gpt2")?;
    let ends = Ends::read(
        file,
        vocab,
        EndDefaults {
            bos_id: Some(11),
            eos_id: Some(11),
            adds_bos: pre.adds_bos,
            adds_eos: false,
        },
    )?;
    Ok(BpeParts {
        pieces: Pieces::ByteLevel,
        merges,
        ignore_merges: pre.ignore_merges,
        normalizer: pre.normalizer(),
        pre_tokenizer: pre.json(),
        post_processor: ends.template(),
        decoder: pre::byte_level(true),
    })
}

/// The decoder of a `SentencePiece`-style vocabulary: `▁` back to spaces, bytes fused.
pub(super) fn sentencepiece_decoder(prefix: bool) -> Value {
    let mut decoders = vec![
        json!({"type": "Replace", "pattern": {"String": "▁"}, "content": " "}),
        json!({"type": "ByteFallback"}),
        json!({"type": "Fuse"}),
    ];
    if prefix {
        decoders.push(json!({"type": "Strip", "content": " ", "start": 1, "stop": 0}));
    }
    json!({"type": "Sequence", "decoders": decoders})
}

/// `llama`: `SentencePiece` BPE with byte fallback, the merges derived from the scores.
pub(super) fn sentencepiece<'a>(file: &'a GgufFile, vocab: &Vocab<'a>) -> Result<BpeParts<'a>> {
    let scores = scores(file, vocab, "llama (SentencePiece)")?;
    let unk = vocab
        .special(file, "tokenizer.ggml.unknown_token_id")?
        .map_or_else(
            || vocab.tokens.first().copied().unwrap_or("<unk>"),
            |(_, token)| token,
        );
    let prefix = flag(file, "tokenizer.ggml.add_space_prefix", true);
    let ends = Ends::read(
        file,
        vocab,
        EndDefaults {
            bos_id: Some(1),
            eos_id: Some(2),
            adds_bos: true,
            adds_eos: false,
        },
    )?;
    let replace = json!({"type": "Replace", "pattern": {"String": " "}, "content": "▁"});
    let normalizer = if prefix {
        json!({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, replace]})
    } else {
        replace
    };
    Ok(BpeParts {
        pieces: Pieces::SentencePiece { unk: Some(unk) },
        merges: merges_from_scores(vocab, &scores),
        ignore_merges: false,
        normalizer,
        pre_tokenizer: Value::Null,
        post_processor: ends.template(),
        decoder: sentencepiece_decoder(prefix),
    })
}

/// Gemma 4: `SentencePiece`-style BPE with the file's own merges over raw UTF-8, spaces as
/// `▁`, no space in front, each line (and each run of line breaks) merged as one word, and
/// the beginning-of-sequence token always added (llama.cpp overrides the file for Gemma 4).
pub(super) fn gemma4<'a>(file: &'a GgufFile, vocab: &Vocab<'a>) -> Result<BpeParts<'a>> {
    let merges = merge_pairs(file, "gemma4")?;
    let unk = vocab
        .special(file, "tokenizer.ggml.unknown_token_id")?
        .map(|(_, token)| token);
    let ends = Ends::read(
        file,
        vocab,
        EndDefaults {
            bos_id: None,
            eos_id: None,
            adds_bos: true,
            adds_eos: false,
        },
    )?;
    let ends = Ends {
        bos: match ends.bos {
            Some(bos) => Some(bos),
            None => vocab.special(file, "tokenizer.ggml.bos_token_id")?,
        },
        ..ends
    };
    Ok(BpeParts {
        pieces: Pieces::SentencePiece { unk },
        merges,
        ignore_merges: false,
        normalizer: json!({"type": "Replace", "pattern": {"String": " "}, "content": "▁"}),
        pre_tokenizer: json!({"type": "Split", "pattern": {"Regex": "[^\n]+|[\n]+"}, "behavior": "Isolated", "invert": false}),
        post_processor: ends.template(),
        decoder: sentencepiece_decoder(false),
    })
}

/// The merges a `SentencePiece` vocabulary implies, ranked as Hugging Face's
/// `SentencePieceExtractor` ranks them: every split of every token into two tokens, the splits
/// of one token ordered by the ids of their halves; then all of them by the token's score, the
/// left half's length and the right half's length, highest first, ties kept in id order.
pub(super) fn merges_from_scores<'a>(vocab: &Vocab<'a>, scores: &[f32]) -> Vec<(&'a str, &'a str)> {
    // (left, right, score, left's length, right's length), lengths in characters as Python
    // counts them; computed once, as a 262,144-token vocabulary has half a million merges.
    let mut merges: Vec<(&str, &str, f32, usize, usize)> = Vec::new();
    for (id, token) in vocab.tokens.iter().enumerate() {
        let start = merges.len();
        for (chars, (at, _)) in token.char_indices().enumerate().skip(1) {
            let (left, right) = token.split_at(at);
            if vocab.ids.contains_key(left) && vocab.ids.contains_key(right) {
                let right_chars = right.chars().count();
                merges.push((left, right, scores[id], chars, right_chars));
            }
        }
        merges[start..].sort_by_key(|(left, right, ..)| (vocab.ids[left], vocab.ids[right]));
    }
    merges.sort_by(|a, b| {
        b.2.partial_cmp(&a.2)
            .unwrap_or(Ordering::Equal)
            .then_with(|| b.3.cmp(&a.3))
            .then_with(|| b.4.cmp(&a.4))
    });
    merges
        .into_iter()
        .map(|(left, right, ..)| (left, right))
        .collect()
}
