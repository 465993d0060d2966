//! A `tokenizer.json` whose model is BPE, read part by part into the tokenizer it describes.
//!
//! The `tokenizers` crate reads a model through `serde_json::Value` twice over (its tagged and
//! flattened forms), which for a 150,000-token vocabulary is most of the time it takes; here
//! the vocabulary and merges are read once, straight into what its BPE builder takes, and the
//! other parts (normaliser, pre-tokenizer, post-processor, decoder, added tokens) with the
//! crate's own types, then put together as the crate puts them together. Anything else (a
//! model of another type or without one, a field this reading refuses) is left to the crate,
//! so the ids and the error messages are always the crate's.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use tokenizers::models::bpe::{BPE, Vocab as BpeVocab};
use tokenizers::{
    AddedToken, DecoderWrapper, NormalizerWrapper, PaddingParams, PostProcessorWrapper,
    PreTokenizerWrapper, Tokenizer, TruncationParams,
};

/// The parts of a tokenizer, each read with the crate's own type.
#[derive(Deserialize)]
struct TokenizerFile {
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    truncation: Option<TruncationParams>,
    #[serde(default)]
    padding: Option<PaddingParams>,
    #[serde(default)]
    added_tokens: Vec<AddedEntry>,
    #[serde(default)]
    normalizer: Option<NormalizerWrapper>,
    #[serde(default)]
    pre_tokenizer: Option<PreTokenizerWrapper>,
    #[serde(default)]
    post_processor: Option<PostProcessorWrapper>,
    #[serde(default)]
    decoder: Option<DecoderWrapper>,
    #[serde(default)]
    model: Option<ModelFields>,
}

/// An added token as the file lists it: its id, then the token's own fields.
#[derive(Deserialize)]
struct AddedEntry {
    #[expect(
        dead_code,
        reason = "read so that a file without ids is the crate's to refuse"
    )]
    id: u32,
    #[serde(flatten)]
    token: AddedToken,
}

/// The fields of a model, whatever its type; only a BPE model's are used.
#[derive(Default)]
struct ModelFields {
    kind: Option<String>,
    dropout: Option<f32>,
    unk_token: Option<String>,
    continuing_subword_prefix: Option<String>,
    end_of_word_suffix: Option<String>,
    fuse_unk: Option<bool>,
    byte_fallback: Option<bool>,
    ignore_merges: Option<bool>,
    /// The token-to-id map, or a list (a unigram model's) skipped.
    vocab: Option<VocabField>,
    merges: Option<Vec<Merge>>,
}

/// A merge as written: a pair, or a line with a space between the two (the older form).
enum Merge {
    Pair(String, String),
    Line(String),
}

/// The tokenizer a `tokenizer.json` with a BPE model describes, built from its parts; `None`
/// when the file is not such a one, or anything in it is refused (the crate then reads it,
/// and says why).
pub(super) fn bpe_tokenizer(json: &[u8]) -> Option<Tokenizer> {
    let file: TokenizerFile = serde_json::from_slice(json).ok()?;
    if file
        .version
        .as_deref()
        .is_some_and(|version| version != "1.0")
    {
        return None;
    }
    let model = file.model?;
    if model.kind.as_deref() != Some("BPE") {
        return None;
    }
    let vocab = model.vocab?.0?;
    let merges = pairs(model.merges?)?;
    let mut builder = BPE::builder().vocab_and_merges(vocab, merges);
    if let Some(dropout) = model.dropout {
        builder = builder.dropout(dropout);
    }
    if let Some(unk) = model.unk_token {
        builder = builder.unk_token(unk);
    }
    if let Some(prefix) = model.continuing_subword_prefix {
        builder = builder.continuing_subword_prefix(prefix);
    }
    if let Some(suffix) = model.end_of_word_suffix {
        builder = builder.end_of_word_suffix(suffix);
    }
    if let Some(fuse) = model.fuse_unk {
        builder = builder.fuse_unk(fuse);
    }
    if let Some(fallback) = model.byte_fallback {
        builder = builder.byte_fallback(fallback);
    }
    if let Some(ignore) = model.ignore_merges {
        builder = builder.ignore_merges(ignore);
    }
    let mut tokenizer = Tokenizer::new(builder.build().ok()?);
    tokenizer
        .with_normalizer(file.normalizer)
        .with_pre_tokenizer(file.pre_tokenizer)
        .with_post_processor(file.post_processor)
        .with_decoder(file.decoder)
        .with_padding(file.padding);
    tokenizer.with_truncation(file.truncation).ok()?;
    let added: Vec<AddedToken> = file
        .added_tokens
        .into_iter()
        .map(|entry| entry.token)
        .collect();
    tokenizer.add_tokens(&added);
    Some(tokenizer)
}

/// The merges as pairs, as the crate reads them: all pairs, or all lines (those starting
/// `#version` left out) each split at its one space; `None` for a mixture or a line that is
/// not two tokens.
fn pairs(merges: Vec<Merge>) -> Option<Vec<(String, String)>> {
    if merges.iter().all(|merge| matches!(merge, Merge::Pair(..))) {
        return merges
            .into_iter()
            .map(|merge| match merge {
                Merge::Pair(left, right) => Some((left, right)),
                Merge::Line(_) => None,
            })
            .collect();
    }
    merges
        .into_iter()
        .filter(|merge| !matches!(merge, Merge::Line(line) if line.starts_with("#version")))
        .map(|merge| match merge {
            Merge::Line(line) => {
                let mut parts = line.split(' ');
                match (parts.next(), parts.next(), parts.next()) {
                    (Some(left), Some(right), None) => Some((left.to_owned(), right.to_owned())),
                    _ => None,
                }
            }
            Merge::Pair(..) => None,
        })
        .collect()
}

impl<'de> Deserialize<'de> for ModelFields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ModelVisitor)
    }
}

struct ModelVisitor;

impl<'de> Visitor<'de> for ModelVisitor {
    type Value = ModelFields;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tokenizer model")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ModelFields, A::Error> {
        let mut model = ModelFields::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "type" => model.kind = Some(map.next_value()?),
                "dropout" => model.dropout = map.next_value()?,
                "unk_token" => model.unk_token = map.next_value()?,
                "continuing_subword_prefix" => {
                    model.continuing_subword_prefix = map.next_value()?;
                }
                "end_of_word_suffix" => model.end_of_word_suffix = map.next_value()?,
                "fuse_unk" => model.fuse_unk = map.next_value()?,
                "byte_fallback" => model.byte_fallback = map.next_value()?,
                "ignore_merges" => model.ignore_merges = map.next_value()?,
                "vocab" => model.vocab = Some(map.next_value()?),
                "merges" => model.merges = Some(map.next_value::<Vec<Merge>>()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(model)
    }
}

/// A model's vocabulary: a token-to-id map, or (a unigram model's list) skipped.
struct VocabField(Option<BpeVocab>);

impl<'de> Deserialize<'de> for VocabField {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(VocabVisitor)
    }
}

struct VocabVisitor;

impl<'de> Visitor<'de> for VocabVisitor {
    type Value = VocabField;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a vocabulary")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<VocabField, A::Error> {
        let mut vocab = BpeVocab::with_capacity(map.size_hint().unwrap_or(0));
        while let Some((token, id)) = map.next_entry::<String, u32>()? {
            vocab.insert(token, id);
        }
        Ok(VocabField(Some(vocab)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<VocabField, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(VocabField(None))
    }
}

impl<'de> Deserialize<'de> for Merge {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MergeVisitor)
    }
}

struct MergeVisitor;

impl<'de> Visitor<'de> for MergeVisitor {
    type Value = Merge;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a merge: two tokens, or a line with a space between them")
    }

    fn visit_str<E: de::Error>(self, line: &str) -> Result<Merge, E> {
        Ok(Merge::Line(line.to_owned()))
    }

    fn visit_string<E: de::Error>(self, line: String) -> Result<Merge, E> {
        Ok(Merge::Line(line))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Merge, A::Error> {
        let left: String = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let right: String = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(3, &self));
        }
        Ok(Merge::Pair(left, right))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::{Value, json};

    use super::*;

    /// The tokenizer as the crate would write it back: every part, the vocabulary by id, the
    /// merges by rank, the added tokens.
    fn written(tokenizer: &Tokenizer) -> Value {
        serde_json::from_str(&tokenizer.to_string(false).unwrap()).unwrap()
    }

    fn same_as_the_crates(json: &[u8]) {
        let ours = bpe_tokenizer(json).expect("read part by part");
        let theirs = Tokenizer::from_bytes(json).unwrap();
        assert_eq!(written(&ours), written(&theirs));
        for text in [
            "Hello world",
            " <|endoftext|>  ied 4 ½ months",
            "北京 🦊\n\tx",
        ] {
            assert_eq!(
                ours.encode(text, true).unwrap().get_ids(),
                theirs.encode(text, true).unwrap().get_ids(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn real_bpe_tokenizers_are_built_as_the_crate_builds_them() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        for file in [
            "gguf/tokenizers/llama3/tokenizer.json",
            "gguf/tokenizers/smollm/tokenizer.json",
            "gguf/tokenizers/spm/tokenizer.json",
        ] {
            same_as_the_crates(&std::fs::read(fixtures.join(file)).unwrap());
        }
        let word_level = std::fs::read(fixtures.join("layer0/gpt2/tokenizer.json")).unwrap();
        assert!(bpe_tokenizer(&word_level).is_none(), "left to the crate");
    }

    fn small(merges: &Value) -> Value {
        json!({
            "version": "1.0",
            "added_tokens": [{"id": 4, "content": "<s>", "single_word": false, "lstrip": false,
                "rstrip": false, "normalized": false, "special": true}],
            "normalizer": null,
            "pre_tokenizer": {"type": "Whitespace"},
            "model": {"type": "BPE", "dropout": null, "unk_token": "<unk>", "fuse_unk": true,
                "vocab": {"<unk>": 0, "a": 1, "b": 2, "ab": 3, "<s>": 4}, "merges": merges},
        })
    }

    #[test]
    fn merges_as_lines_or_pairs_read_alike_and_anything_else_is_the_crates() {
        same_as_the_crates(small(&json!(["a b"])).to_string().as_bytes());
        same_as_the_crates(
            small(&json!(["#version: 0.2", "a b"]))
                .to_string()
                .as_bytes(),
        );
        same_as_the_crates(small(&json!([["a", "b"]])).to_string().as_bytes());
        let refused = |json: Value| bpe_tokenizer(json.to_string().as_bytes()).is_none();
        assert!(refused(small(&json!(["a b", ["a", "b"]]))), "a mixture");
        assert!(refused(small(&json!(["a b c"]))), "three tokens");
        assert!(refused(small(&json!([["a", "b", "c"]]))), "three tokens");
        let mut other = small(&json!(["a b"]));
        other["version"] = json!("2.0");
        assert!(refused(other), "another version");
        let mut unigram = small(&json!([]));
        unigram["model"] = json!({"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0]]});
        assert!(refused(unigram), "a unigram model");
        let mut untyped = small(&json!(["a b"]));
        untyped["model"].as_object_mut().unwrap().remove("type");
        assert!(refused(untyped), "a model without its type");
    }
}
