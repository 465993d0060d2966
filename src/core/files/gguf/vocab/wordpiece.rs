//! BERT's `WordPiece` (`tokenizer.ggml.model` `bert`) rebuilt from GGUF metadata.
//!
//! llama.cpp's converter writes a word-start piece with `▁` in front (`▁the`) and a
//! continuation without its `##` (`ing` for `##ing`), control tokens as they are. Spelt back,
//! they are the `vocab.txt` of the model, read as Hugging Face's `BertTokenizerFast` reads it:
//! BERT's normaliser (clean the text, space out CJK, lower-case and strip accents as
//! `tokenizer.ggml.normalizer.*` say, both on by default as in llama.cpp), BERT's split on
//! whitespace and punctuation, and the longest pieces first.

use anyhow::{Result, anyhow};
use serde_json::{Value, json};

use super::{CONTROL, GgufFile, Vocab, flag, vocab_json};

/// What llama.cpp's converter puts before a word-start piece.
const WORD_START: char = '▁';

/// A piece as `vocab.txt` spells it.
pub(super) fn spelt_back(token: &str, kind: i64) -> String {
    if kind == CONTROL {
        return token.to_owned();
    }
    match token.strip_prefix(WORD_START) {
        Some(word) => word.to_owned(),
        None => format!("##{token}"),
    }
}

pub(super) fn build(file: &GgufFile, vocab: &Vocab) -> Result<Value> {
    let spelling: Vec<String> = vocab
        .tokens
        .iter()
        .zip(&vocab.types)
        .map(|(token, &kind)| spelt_back(token, kind))
        .collect();
    let mut seen = std::collections::HashMap::with_capacity(spelling.len());
    for (id, token) in spelling.iter().enumerate() {
        if let Some(first) = seen.insert(token.as_str(), id) {
            return Err(anyhow!(
                "the WordPiece tokens {first} and {id} are both {token:?} once spelt back"
            ));
        }
    }
    let unk = vocab
        .special(file, "tokenizer.ggml.unknown_token_id")?
        .map(|(id, _)| id)
        .or(Some(100).filter(|&id| id < spelling.len()))
        .ok_or_else(|| anyhow!("a bert tokenizer needs tokenizer.ggml.unknown_token_id"))?;
    let lowercase = flag(file, "tokenizer.ggml.normalizer.lowercase", true);
    let strip_accents = flag(file, "tokenizer.ggml.normalizer.strip_accents", lowercase);
    // llama.cpp always puts the beginning token (its [CLS]) first and the separator last,
    // whatever tokenizer.ggml.add_bos_token, add_eos_token or add_sep_token say.
    let special = |key: &str, default: usize| -> Result<usize> {
        vocab
            .special_id(file, key)?
            .or(Some(default).filter(|&id| id < spelling.len()))
            .ok_or_else(|| anyhow!("a bert tokenizer needs {key}"))
    };
    let cls = special("tokenizer.ggml.bos_token_id", 101)?;
    let sep = special("tokenizer.ggml.seperator_token_id", 102)?;
    let named = |id: usize| spelling[id].as_str();
    let post_processor = json!({
        "type": "TemplateProcessing",
        "single": [
            {"SpecialToken": {"id": named(cls), "type_id": 0}},
            {"Sequence": {"id": "A", "type_id": 0}},
            {"SpecialToken": {"id": named(sep), "type_id": 0}},
        ],
        "pair": [
            {"SpecialToken": {"id": named(cls), "type_id": 0}},
            {"Sequence": {"id": "A", "type_id": 0}},
            {"SpecialToken": {"id": named(sep), "type_id": 0}},
            {"Sequence": {"id": "B", "type_id": 1}},
            {"SpecialToken": {"id": named(sep), "type_id": 1}},
        ],
        "special_tokens": {
            named(cls): {"id": named(cls), "ids": [cls], "tokens": [named(cls)]},
            named(sep): {"id": named(sep), "ids": [sep], "tokens": [named(sep)]},
        },
    });
    Ok(json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": vocab.added_tokens_as(&spelling),
        "normalizer": {
            "type": "BertNormalizer",
            "clean_text": true,
            "handle_chinese_chars": true,
            "strip_accents": strip_accents,
            "lowercase": lowercase,
        },
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": post_processor,
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
        "model": {
            "type": "WordPiece",
            "unk_token": named(unk),
            "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100,
            "vocab": vocab_json(&spelling),
        },
    }))
}
