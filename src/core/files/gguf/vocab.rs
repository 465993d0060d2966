//! A model's tokenizer rebuilt from its GGUF metadata, as a Hugging Face `tokenizer.json`.
//!
//! llama.cpp's converter stores a tokenizer as `tokenizer.ggml.*` entries: the tokens by id,
//! their types, merges (byte-level BPE) or scores (`SentencePiece`), the special token ids, and
//! for byte-level BPE the name of the pre-tokenizer (`tokenizer.ggml.pre`). This module turns
//! them back into the `tokenizer.json` Hugging Face publishes for such a model, so that the
//! `tokenizers` crate reads text into the same ids:
//! - `gpt2` (Llama 3, Qwen, `SmolLM`, GPT-2): byte-level BPE with the file's merges and the
//!   pre-tokenizer its `pre` names;
//! - `llama` (Llama 2, Mistral, Gemma, `TinyLlama`): `SentencePiece` BPE with byte fallback, the
//!   merges derived from the scores as Hugging Face's `SentencePieceExtractor` does, and `▁`
//!   for spaces (prepended to the text unless `tokenizer.ggml.add_space_prefix` is false).
//!
//! Control and unknown tokens become special added tokens, user-defined ones plain added
//! tokens, so that they are matched whole in the text.

use std::cmp::Ordering;
use std::collections::HashMap;

use anyhow::{Result, anyhow, bail};
use serde_json::{Value, json};

use super::file::GgufFile;
use super::value::MetadataValue;
use crate::core::text::tokenizer::{HuggingFaceTokenizer, MAX_SPECIAL_TOKEN_BYTES, TextTokenizer};

/// Token types as llama.cpp numbers them.
const UNKNOWN: i64 = 2;
const CONTROL: i64 = 3;
const USER_DEFINED: i64 = 4;

/// GPT-2's split pattern, built into the `ByteLevel` pre-tokenizer (`use_regex`).
const GPT2_SPLITS: &[&str] = &["gpt-2", "gpt2", "mpt", "olmo", "jais"];
/// Llama 3's split pattern, as its `tokenizer.json` writes it.
const LLAMA3_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
const LLAMA3_SPLITS: &[&str] = &["llama-bpe", "llama3", "llama-v3", "dbrx", "smaug-bpe"];
/// Qwen 2's split pattern: Llama 3's with digits one at a time.
const QWEN2_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
const QWEN2_SPLITS: &[&str] = &["qwen2", "stablelm2"];
/// Digits one at a time, then GPT-2's pattern (`StarCoder`, `SmolLM`).
const DIGITS_THEN_GPT2: &[&str] = &["smollm", "starcoder", "refact"];

/// A `tokenizer.json` rebuilt from metadata, and a line saying what it is.
#[derive(Clone, Debug)]
pub struct MetadataTokenizer {
    /// The JSON of the tokenizer, for the `tokenizers` crate.
    pub json: String,
    /// What was built, such as `byte-level BPE (gpt2, pre-tokenizer smollm), 49152 tokens`.
    pub summary: String,
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

/// Rebuilds the tokenizer a GGUF file's metadata describes.
///
/// # Errors
/// When the metadata holds no tokenizer, one of a kind not rebuilt here (the message names
/// it), or entries that contradict each other; the message says which.
pub fn metadata_tokenizer(file: &GgufFile) -> Result<MetadataTokenizer> {
    let model = file
        .text("tokenizer.ggml.model")
        .ok_or_else(|| anyhow!("the file has no tokenizer.ggml.model"))?;
    let vocab = Vocab::read(file)?;
    match model {
        "gpt2" => byte_level_bpe(file, &vocab),
        "llama" => sentencepiece(file, &vocab),
        other => bail!(
            "its tokenizer.ggml.model is {other:?}; embedlens rebuilds gpt2 (byte-level BPE) and \
             llama (SentencePiece) tokenizers"
        ),
    }
}

/// The entries every kind of tokenizer uses.
struct Vocab<'a> {
    tokens: Vec<&'a str>,
    ids: HashMap<&'a str, usize>,
    types: Vec<i64>,
}

impl<'a> Vocab<'a> {
    fn read(file: &'a GgufFile) -> Result<Self> {
        let tokens: Vec<&str> = strings(file, "tokenizer.ggml.tokens")?
            .ok_or_else(|| anyhow!("the file has no tokenizer.ggml.tokens"))?;
        let types = match file.get("tokenizer.ggml.token_type") {
            None => vec![1; tokens.len()],
            Some(value) => value
                .as_array()
                .and_then(|items| {
                    items
                        .iter()
                        .map(MetadataValue::as_i64)
                        .collect::<Option<Vec<_>>>()
                })
                .filter(|types| types.len() == tokens.len())
                .ok_or_else(|| anyhow!("tokenizer.ggml.token_type is not one integer per token"))?,
        };
        // Special and added tokens go to a matcher whose cost grows with the square of their
        // length; SentencePiece pieces are split at every place to find their merges.
        let sentencepiece = file.text("tokenizer.ggml.model") == Some("llama");
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

    /// The token of an id named by a metadata key, if the key is there.
    fn special(&self, file: &GgufFile, key: &str) -> Result<Option<(usize, &'a str)>> {
        let Some(value) = file.get(key) else {
            return Ok(None);
        };
        let id = value
            .as_u64()
            .and_then(|id| usize::try_from(id).ok())
            .filter(|&id| id < self.tokens.len())
            .ok_or_else(|| {
                anyhow!(
                    "{key} is {value}, not the id of one of its {} tokens",
                    self.tokens.len()
                )
            })?;
        Ok(Some((id, self.tokens[id])))
    }

    /// Control, unknown and user-defined tokens, as `added_tokens` entries.
    fn added_tokens(&self) -> Vec<Value> {
        self.types
            .iter()
            .enumerate()
            .filter(|&(_, &kind)| matches!(kind, UNKNOWN | CONTROL | USER_DEFINED))
            .map(|(id, &kind)| {
                json!({
                    "id": id,
                    "content": self.tokens[id],
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
        Value::Object(
            self.tokens
                .iter()
                .enumerate()
                .map(|(id, token)| ((*token).to_owned(), json!(id)))
                .collect(),
        )
    }
}

/// A string array, if the key is there.
fn strings<'a>(file: &'a GgufFile, key: &str) -> Result<Option<Vec<&'a str>>> {
    file.get(key)
        .map(|value| {
            value
                .as_array()
                .and_then(|items| items.iter().map(MetadataValue::as_str).collect())
                .ok_or_else(|| anyhow!("{key} is not an array of strings"))
        })
        .transpose()
}

fn flag(file: &GgufFile, key: &str, default: bool) -> bool {
    file.get(key)
        .and_then(MetadataValue::as_bool)
        .unwrap_or(default)
}

/// The post-processor that adds the beginning (and end) of sequence tokens, when the
/// metadata says they are added.
fn template(bos: Special, eos: Special) -> Value {
    if bos.is_none() && eos.is_none() {
        return Value::Null;
    }
    let special = |(_, token): (usize, &str)| json!({"SpecialToken": {"id": token, "type_id": 0}});
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

/// A special token: its id and text.
type Special<'a> = Option<(usize, &'a str)>;

/// The beginning and end tokens the model adds, by `add_bos_token` and `add_eos_token`.
fn added_ends<'a>(
    file: &GgufFile,
    vocab: &Vocab<'a>,
    bos_by_default: bool,
) -> Result<(Special<'a>, Special<'a>)> {
    let bos = vocab.special(file, "tokenizer.ggml.bos_token_id")?;
    let eos = vocab.special(file, "tokenizer.ggml.eos_token_id")?;
    let adds_first = flag(
        file,
        "tokenizer.ggml.add_bos_token",
        bos_by_default && bos.is_some(),
    );
    let adds_last = flag(file, "tokenizer.ggml.add_eos_token", false);
    if adds_first && bos.is_none() {
        bail!("tokenizer.ggml.add_bos_token is true, but tokenizer.ggml.bos_token_id is not set");
    }
    if adds_last && eos.is_none() {
        bail!("tokenizer.ggml.add_eos_token is true, but tokenizer.ggml.eos_token_id is not set");
    }
    Ok((bos.filter(|_| adds_first), eos.filter(|_| adds_last)))
}

fn byte_level(use_regex: bool) -> Value {
    json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": use_regex})
}

/// The pre-tokenizer (and normalizer) a `tokenizer.ggml.pre` name stands for.
fn pre_tokenizer(pre: &str) -> Option<(Value, Value)> {
    let split = |pattern: &str| {
        json!({"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": false},
            byte_level(false),
        ]})
    };
    if GPT2_SPLITS.contains(&pre) {
        Some((byte_level(true), Value::Null))
    } else if LLAMA3_SPLITS.contains(&pre) {
        Some((split(LLAMA3_PATTERN), Value::Null))
    } else if QWEN2_SPLITS.contains(&pre) {
        Some((split(QWEN2_PATTERN), json!({"type": "NFC"})))
    } else if DIGITS_THEN_GPT2.contains(&pre) {
        let digits = json!({"type": "Digits", "individual_digits": true});
        Some((
            json!({"type": "Sequence", "pretokenizers": [digits, byte_level(true)]}),
            Value::Null,
        ))
    } else {
        None
    }
}

fn byte_level_bpe(file: &GgufFile, vocab: &Vocab) -> Result<MetadataTokenizer> {
    let pre = file.text("tokenizer.ggml.pre").unwrap_or("gpt-2");
    let Some((pre_tokenizer, normalizer)) = pre_tokenizer(pre) else {
        bail!(
            "its pre-tokenizer {pre:?} (tokenizer.ggml.pre) is not one embedlens knows (it knows \
             {})",
            [GPT2_SPLITS, LLAMA3_SPLITS, QWEN2_SPLITS, DIGITS_THEN_GPT2]
                .concat()
                .join(", ")
        );
    };
    let merges = strings(file, "tokenizer.ggml.merges")?.ok_or_else(|| {
        anyhow!("a gpt2 tokenizer needs tokenizer.ggml.merges, which the file lacks")
    })?;
    let merges = merges
        .iter()
        .map(|merge| {
            let (left, right) = merge.split_once(' ').ok_or_else(|| {
                anyhow!("the merge {merge:?} is not two tokens with a space between")
            })?;
            Ok(json!([left, right]))
        })
        .collect::<Result<Vec<_>>>()?;
    let (bos, eos) = added_ends(file, vocab, false)?;
    let model = json!({
        "type": "BPE",
        "dropout": null,
        "unk_token": null,
        "continuing_subword_prefix": null,
        "end_of_word_suffix": null,
        "fuse_unk": false,
        "byte_fallback": false,
        // Llama 3 takes a word whole when the vocabulary has it, whatever the merges say.
        "ignore_merges": LLAMA3_SPLITS.contains(&pre),
        "vocab": vocab.vocab_json(),
        "merges": merges,
    });
    let tokenizer = json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": vocab.added_tokens(),
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": template(bos, eos),
        "decoder": byte_level(true),
        "model": model,
    });
    Ok(MetadataTokenizer {
        json: tokenizer.to_string(),
        summary: format!(
            "byte-level BPE (tokenizer.ggml.model gpt2, pre-tokenizer {pre}), {} tokens, {} merges",
            vocab.tokens.len(),
            merges.len()
        ),
    })
}

fn sentencepiece(file: &GgufFile, vocab: &Vocab) -> Result<MetadataTokenizer> {
    let scores: Vec<f32> = match file.get("tokenizer.ggml.scores") {
        Some(MetadataValue::Array(items)) => items
            .iter()
            .map(|item| match item {
                MetadataValue::F32(score) => Some(*score),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .filter(|scores| scores.len() == vocab.tokens.len())
            .ok_or_else(|| anyhow!("tokenizer.ggml.scores is not one f32 per token"))?,
        _ => bail!(
            "a llama (SentencePiece) tokenizer needs tokenizer.ggml.scores, which the file lacks"
        ),
    };
    let unk = vocab
        .special(file, "tokenizer.ggml.unknown_token_id")?
        .map_or_else(
            || vocab.tokens.first().copied().unwrap_or("<unk>"),
            |(_, token)| token,
        );
    let prefix = flag(file, "tokenizer.ggml.add_space_prefix", true);
    let (bos, eos) = added_ends(file, vocab, true)?;
    let merges = merges_from_scores(vocab, &scores);
    let replace = json!({"type": "Replace", "pattern": {"String": " "}, "content": "▁"});
    let normalizer = if prefix {
        json!({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, replace]})
    } else {
        replace
    };
    let mut decoders = vec![
        json!({"type": "Replace", "pattern": {"String": "▁"}, "content": " "}),
        json!({"type": "ByteFallback"}),
        json!({"type": "Fuse"}),
    ];
    if prefix {
        decoders.push(json!({"type": "Strip", "content": " ", "start": 1, "stop": 0}));
    }
    let model = json!({
        "type": "BPE",
        "dropout": null,
        "unk_token": unk,
        "continuing_subword_prefix": null,
        "end_of_word_suffix": null,
        "fuse_unk": true,
        "byte_fallback": true,
        "ignore_merges": false,
        "vocab": vocab.vocab_json(),
        "merges": merges.iter().map(|(l, r)| json!([l, r])).collect::<Vec<_>>(),
    });
    let tokenizer = json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": vocab.added_tokens(),
        "normalizer": normalizer,
        "pre_tokenizer": null,
        "post_processor": template(bos, eos),
        "decoder": {"type": "Sequence", "decoders": decoders},
        "model": model,
    });
    Ok(MetadataTokenizer {
        json: tokenizer.to_string(),
        summary: format!(
            "SentencePiece BPE (tokenizer.ggml.model llama), {} tokens, {} merges derived from \
             the scores{}",
            vocab.tokens.len(),
            merges.len(),
            if prefix { "" } else { ", no space prefix" }
        ),
    })
}

/// The merges a `SentencePiece` vocabulary implies, ranked as Hugging Face's
/// `SentencePieceExtractor` ranks them: every split of every token into two tokens, the splits
/// of one token ordered by the ids of their halves; then all of them by the token's score, the
/// left half's length and the right half's length, highest first, ties kept in id order.
fn merges_from_scores<'a>(vocab: &Vocab<'a>, scores: &[f32]) -> Vec<(&'a str, &'a str)> {
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};

    use super::*;

    /// Text that reaches every part of a tokenizer: merges, unseen words, digits, accents, CJK,
    /// emoji (byte fallback), runs of spaces and line breaks, typed special and added tokens.
    const TEXTS: [&str; 12] = [
        "The quick brown fox jumps over the lazy dog.",
        "fox bites the fox",
        "In 2026 there were 12345 foxes; 3.14159 of them were zebras.",
        "Café naïve résumé, 東京 and 大阪, Ärger über Öl",
        "emoji 🦊🐶🧪 and ∑ ∫ ≠ ∞",
        "Tabs\tand  double  spaces\n\nnew lines\r\nand   three",
        "  leading and trailing  ",
        "I'm sure they'LL say we've DONE it",
        "<|im_start|>user hello<|im_end|> <s>x</s> <tool> call",
        "<|begin_of_text|>bos typed",
        "",
        "xyzzy qwertyuiop zzzz",
    ];

    fn folder(kind: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/gguf/tokenizers")
            .join(kind)
    }

    fn ids(tokenizer: &TextTokenizer, text: &str, special: bool) -> Vec<usize> {
        let tokens = tokenizer.tokenize(text, special).unwrap();
        tokens.iter().map(|token| token.id.unwrap()).collect()
    }

    #[test]
    fn metadata_tokenizers_give_the_ids_of_the_published_tokenizer_json() {
        for kind in ["smollm", "llama3", "spm"] {
            let published = TextTokenizer::from_file(&folder(kind).join("tokenizer.json")).unwrap();
            let file = GgufFile::open(&folder(kind).join("model.gguf")).unwrap();
            let rebuilt = metadata_tokenizer(&file).unwrap().build(kind).unwrap();
            assert_eq!(rebuilt.vocab_size(), published.vocab_size(), "{kind}");
            for text in TEXTS {
                for special in [false, true] {
                    assert_eq!(
                        ids(&rebuilt, text, special),
                        ids(&published, text, special),
                        "{kind}, special tokens {special}: {text:?}"
                    );
                }
            }
            for id in 0..published.vocab_size() {
                assert_eq!(
                    rebuilt.token_text(id),
                    published.token_text(id),
                    "{kind} id {id}"
                );
            }
        }
    }

    /// GPT-2's printable stand-in for each byte (its `bytes_to_unicode`): printable Latin-1
    /// bytes stand for themselves, the rest take the characters from U+0100 on, in order.
    fn byte_level(bytes: &[u8]) -> String {
        let printable = |b: u8| matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
        let mut table = ['\0'; 256];
        let mut next = 0x100u32;
        for byte in 0..=255u8 {
            table[usize::from(byte)] = if printable(byte) {
                char::from(byte)
            } else {
                next += 1;
                char::from_u32(next - 1).unwrap()
            };
        }
        bytes.iter().map(|&b| table[usize::from(b)]).collect()
    }

    /// GPT-2's merges, recovered from tiktoken's ranks: a token's bytes, merged by the ranks
    /// below its own, end as exactly the two tokens its merge joins.
    fn gpt2_merges(tokens: &[Vec<u8>]) -> Vec<String> {
        let rank: HashMap<&[u8], usize> = tokens
            .iter()
            .enumerate()
            .map(|(id, t)| (t.as_slice(), id))
            .collect();
        let mut merges = Vec::new();
        for (id, token) in tokens.iter().enumerate().filter(|(_, t)| t.len() > 1) {
            let mut parts: Vec<&[u8]> = token.chunks(1).collect();
            loop {
                let best = (0..parts.len() - 1)
                    .filter_map(|i| {
                        let joined = [parts[i], parts[i + 1]].concat();
                        rank.get(joined.as_slice())
                            .filter(|&&r| r < id)
                            .map(|&r| (r, i))
                    })
                    .min();
                let Some((_, i)) = best else { break };
                let joined = &token[parts[..i].iter().map(|p| p.len()).sum::<usize>()..]
                    [..parts[i].len() + parts[i + 1].len()];
                parts.splice(i..=i + 1, [joined]);
            }
            assert_eq!(parts.len(), 2, "id {id}");
            merges.push(format!("{} {}", byte_level(parts[0]), byte_level(parts[1])));
        }
        merges
    }

    #[test]
    fn gpt2_from_metadata_gives_the_ids_of_gpt2s_own_tokenizer() {
        use super::super::writer::GgufWriter;
        use crate::core::text::tokenizer::GPT2_END_OF_TEXT;
        let published = TextTokenizer::gpt2().unwrap();
        let bpe = tiktoken_rs::r50k_base().unwrap();
        let tokens: Vec<Vec<u8>> = (0..GPT2_END_OF_TEXT)
            .map(|id| bpe.decode_bytes(&[u32::try_from(id).unwrap()]).unwrap())
            .collect();
        let merges = gpt2_merges(&tokens);
        assert_eq!(merges.len(), 50_000);
        let mut strings: Vec<String> = tokens.iter().map(|t| byte_level(t)).collect();
        strings.push("<|endoftext|>".to_owned());
        let mut types = vec![MetadataValue::I32(1); GPT2_END_OF_TEXT];
        types.push(MetadataValue::I32(3));
        // As llama.cpp's converter stores GPT-2.
        let writer = GgufWriter::new()
            .text("tokenizer.ggml.model", "gpt2")
            .text("tokenizer.ggml.pre", "gpt-2")
            .texts("tokenizer.ggml.tokens", &strings)
            .metadata("tokenizer.ggml.token_type", MetadataValue::Array(types))
            .texts("tokenizer.ggml.merges", &merges)
            .number("tokenizer.ggml.bos_token_id", 50_256)
            .number("tokenizer.ggml.eos_token_id", 50_256);
        let file = GgufFile::from_bytes(
            std::sync::Arc::new(writer.to_bytes()),
            Path::new("gpt2.gguf"),
        )
        .unwrap();
        let rebuilt = metadata_tokenizer(&file).unwrap().build("gpt2").unwrap();
        // (tiktoken reads a typed <|endoftext|> as text; GPT-2's tokenizer.json, like the
        // rebuilt one, as the special token. The sample texts type none.)
        for text in TEXTS {
            assert_eq!(
                ids(&rebuilt, text, false),
                ids(&published, text, false),
                "{text:?}"
            );
        }
    }

    #[test]
    fn what_was_built_is_said() {
        let file = GgufFile::open(&folder("smollm").join("model.gguf")).unwrap();
        let summary = metadata_tokenizer(&file).unwrap().summary;
        assert_eq!(
            summary,
            "byte-level BPE (tokenizer.ggml.model gpt2, pre-tokenizer smollm), 421 tokens, 161 merges"
        );
        let file = GgufFile::open(&folder("spm").join("model.gguf")).unwrap();
        let summary = metadata_tokenizer(&file).unwrap().summary;
        assert!(
            summary.starts_with("SentencePiece BPE (tokenizer.ggml.model llama), 700 tokens"),
            "{summary}"
        );
    }

    #[test]
    fn a_special_token_or_piece_past_the_bound_is_refused_by_id_and_length() {
        use super::super::writer::GgufWriter;
        let read = |model: &str, types: Vec<MetadataValue>| {
            let long = "x".repeat(MAX_SPECIAL_TOKEN_BYTES + 1);
            let writer = GgufWriter::new()
                .text("tokenizer.ggml.model", model)
                .texts("tokenizer.ggml.tokens", &["a", "b", long.as_str()])
                .metadata("tokenizer.ggml.token_type", MetadataValue::Array(types));
            let file =
                GgufFile::from_bytes(std::sync::Arc::new(writer.to_bytes()), Path::new("m.gguf"))
                    .unwrap();
            format!("{:#}", metadata_tokenizer(&file).unwrap_err())
        };
        let normal = || vec![MetadataValue::I32(1); 3];
        let control = vec![
            MetadataValue::I32(1),
            MetadataValue::I32(1),
            MetadataValue::I32(3),
        ];
        let error = read("gpt2", control);
        assert!(
            error.contains("its special or added token 2 is 1025 bytes long"),
            "{error}"
        );
        let error = read("llama", normal());
        assert!(
            error.contains("its SentencePiece piece 2 is 1025 bytes long"),
            "{error}"
        );
        // A long ordinary token of a byte-level vocabulary costs nothing quadratic.
        let error = read("gpt2", normal());
        assert!(!error.contains("bytes long"), "{error}");
    }

    #[test]
    fn tokenizers_that_cannot_be_rebuilt_say_why() {
        use super::super::writer::GgufWriter;
        let read = |writer: GgufWriter| {
            let file =
                GgufFile::from_bytes(std::sync::Arc::new(writer.to_bytes()), Path::new("m.gguf"))
                    .unwrap();
            format!("{:#}", metadata_tokenizer(&file).unwrap_err())
        };
        assert_eq!(
            read(GgufWriter::new()),
            "the file has no tokenizer.ggml.model"
        );
        let base = || GgufWriter::new().texts("tokenizer.ggml.tokens", &["a", "b", "ab"]);
        let error = read(base().text("tokenizer.ggml.model", "bert"));
        assert!(
            error.contains("tokenizer.ggml.model is \"bert\""),
            "{error}"
        );
        let error = read(
            base()
                .text("tokenizer.ggml.model", "gpt2")
                .text("tokenizer.ggml.pre", "deepseek-llm"),
        );
        assert!(error.contains("pre-tokenizer \"deepseek-llm\""), "{error}");
        let error = read(base().text("tokenizer.ggml.model", "gpt2"));
        assert!(error.contains("needs tokenizer.ggml.merges"), "{error}");
        let error = read(base().text("tokenizer.ggml.model", "llama"));
        assert!(error.contains("needs tokenizer.ggml.scores"), "{error}");
        let twice = GgufWriter::new()
            .text("tokenizer.ggml.model", "gpt2")
            .texts("tokenizer.ggml.tokens", &["a", "b", "a"]);
        assert_eq!(read(twice), "the token \"a\" appears twice, as ids 0 and 2");
        let bad_bos = base()
            .text("tokenizer.ggml.model", "gpt2")
            .texts("tokenizer.ggml.merges", &["a b"])
            .number("tokenizer.ggml.bos_token_id", 9);
        assert!(
            read(bad_bos)
                .contains("tokenizer.ggml.bos_token_id is 9, not the id of one of its 3 tokens")
        );
    }

    #[test]
    fn sentencepiece_merges_rank_by_score_then_by_the_halves_lengths() {
        let tokens = ["a", "b", "c", "ab", "bc", "abc"];
        let vocab = Vocab {
            tokens: tokens.to_vec(),
            ids: tokens.iter().enumerate().map(|(id, t)| (*t, id)).collect(),
            types: vec![1; 6],
        };
        let merges = merges_from_scores(&vocab, &[0.0, 0.0, 0.0, -1.0, -1.0, -2.0]);
        // "ab" and "bc" tie on score and lengths, so stay in id order; "abc" splits as a+bc
        // and ab+c, ordered by the halves' ids, then ranked by the left half's length.
        assert_eq!(merges, [("a", "b"), ("b", "c"), ("ab", "c"), ("a", "bc")]);
    }
}
