//! T5-style `SentencePiece` unigram tokenizers (`tokenizer.ggml.model` `t5`: T5, XLM-R's
//! vocabulary in nomic-bert-moe) rebuilt from GGUF metadata, as llama.cpp's UGM tokenizer reads
//! text: the text normalised with the file's precompiled character map
//! (`tokenizer.ggml.precompiled_charsmap`), its runs of spaces merged and its ends trimmed
//! (`tokenizer.ggml.remove_extra_whitespaces`), a space put in front
//! (`tokenizer.ggml.add_space_prefix`), spaces written `▁`, and then the most likely pieces by
//! the scores (Viterbi), a character no piece covers read as the unknown token.

use anyhow::{Result, anyhow, bail};
use serde_json::json;
use tokenizers::models::unigram::Unigram;
use tokenizers::normalizers::{NormalizerWrapper, Precompiled, Sequence};

use super::bpe::{part, sentencepiece_decoder};
use super::{EndDefaults, Ends, GgufFile, USER_DEFINED, Vocab, assemble, flag, scores};
use crate::core::text::tokenizer::Encoder;

/// The key of the character map.
const CHARSMAP: &str = "tokenizer.ggml.precompiled_charsmap";

/// The unigram tokenizer the metadata describes.
pub(super) fn build(file: &GgufFile, vocab: &Vocab) -> Result<Encoder> {
    let scores = scores(file, vocab, "t5")?;
    // llama.cpp scores a user-defined piece 0, more likely than any learned one.
    let pieces: Vec<(String, f64)> = vocab
        .tokens
        .iter()
        .zip(&scores)
        .zip(&vocab.types)
        .map(|((token, &score), &kind)| {
            let score = if kind == USER_DEFINED {
                0.0
            } else {
                f64::from(score)
            };
            ((*token).to_owned(), score)
        })
        .collect();
    let unk = vocab
        .special_id(file, "tokenizer.ggml.unknown_token_id")?
        .or(Some(2).filter(|&id| id < vocab.tokens.len()));
    let model = Unigram::from(pieces, unk, false).map_err(|error| anyhow!("{error}"))?;
    let ends = Ends::read(
        file,
        vocab,
        EndDefaults {
            bos_id: None,
            eos_id: Some(1),
            adds_bos: false,
            adds_eos: true,
        },
    )?;
    let prefix = flag(file, "tokenizer.ggml.add_space_prefix", true);
    assemble(
        model,
        Some(normalizer(file, prefix)?),
        serde_json::Value::Null,
        ends.template(),
        sentencepiece_decoder(prefix),
        vocab,
    )
}

/// The character map, then the spaces as llama.cpp treats them.
fn normalizer(file: &GgufFile, prefix: bool) -> Result<NormalizerWrapper> {
    let mut steps: Vec<NormalizerWrapper> = Vec::new();
    if let Some(charsmap) = charsmap(file)? {
        let precompiled = Precompiled::from(&charsmap)
            .map_err(|error| anyhow!("{CHARSMAP} is not a character map: {error}"))?;
        steps.push(NormalizerWrapper::Precompiled(precompiled));
    }
    let mut spaces = Vec::new();
    if flag(file, "tokenizer.ggml.remove_extra_whitespaces", true) {
        spaces.push(json!({"type": "Strip", "strip_left": true, "strip_right": true}));
        spaces.push(json!({"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}));
    }
    if prefix {
        spaces.push(json!({"type": "Prepend", "prepend": "▁"}));
    }
    spaces.push(json!({"type": "Replace", "pattern": {"String": " "}, "content": "▁"}));
    for step in spaces {
        steps.extend(part::<NormalizerWrapper>(step)?);
    }
    Ok(NormalizerWrapper::Sequence(Sequence::new(steps)))
}

/// The bytes of the character map, if the file has one.
fn charsmap(file: &GgufFile) -> Result<Option<Vec<u8>>> {
    let Some(value) = file.get(CHARSMAP) else {
        return Ok(None);
    };
    let Some(items) = value.items() else {
        bail!("{CHARSMAP} is not an array of bytes");
    };
    let bytes = items
        .iter()
        .map(|item| match item {
            super::MetadataValue::U8(byte) => Some(byte),
            super::MetadataValue::I8(byte) => Some(byte.to_le_bytes()[0]),
            _ => None,
        })
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(|| anyhow!("{CHARSMAP} is not an array of bytes"))?;
    Ok(Some(bytes).filter(|bytes| !bytes.is_empty()))
}
