//! GGUF files opened as models: detection by architecture, the embedding block, the tokenizer
//! and what is said when something is missing.

use std::path::{Path, PathBuf};

use super::model::{gguf_label, inspect_gguf, open_gguf};
use super::{GgmlType, GgufFile, GgufWriter, MetadataValue};
use crate::core::files::ollama::locate_in;
use crate::core::files::{FileSource, OpenOptions, inspect, open};
use crate::core::tables::block::{EmbeddingBlock, ModelFamily};
use crate::core::test_fixtures::TempDir;
use crate::core::text::tokenizer::{COUNTED_AT_ONCE, TextTokenizer};

/// Writes a GGUF file into the folder and returns its path.
fn write_gguf(folder: &TempDir, name: &str, writer: &GgufWriter) -> PathBuf {
    let path = folder.join(name);
    writer.write(&path).unwrap();
    path
}

fn fixture(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gguf/tokenizers")
        .join(kind)
}

fn values(count: u16) -> Vec<f32> {
    (0..count).map(|i| f32::from(i) / 8.0).collect()
}

#[test]
fn a_llama_gguf_opens_rotary_with_the_tokenizer_from_its_metadata() {
    let path = fixture("smollm").join("model.gguf");
    // The fixture folder also holds the tokenizer.json it was made from; a copy alone in a
    // folder must rebuild its tokenizer from the metadata.
    let folder = TempDir::new("llama");
    let copy = folder.path().join("smollm.gguf");
    std::fs::copy(&path, &copy).unwrap();
    let model = open(&FileSource::path(&copy), &OpenOptions::default())
        .map(|opened| opened.model)
        .unwrap();
    assert_eq!(model.label(), "smollm");
    assert_eq!((model.rows(), model.dims()), (421, 2));
    assert_eq!(model.family(), ModelFamily::Rotary);
    assert_eq!(model.block(), &EmbeddingBlock::TokenOnly);
    assert_eq!(model.lookup(7).unwrap().to_vec(), [7.0, -7.0]);
    let detection = model.detection().join("\n");
    assert!(
        detection.contains("read from smollm.gguf (GGUF version 3)"),
        "{detection}"
    );
    assert!(
        detection.contains("architecture: llama (general.architecture); context length 64"),
        "{detection}"
    );
    assert!(
        detection.contains("token table: token_embd.weight (llama.cpp's name), 421×2 f32"),
        "{detection}"
    );
    assert!(
        detection.contains("(RoPE) instead (llama.rope.freq_base 10000)"),
        "{detection}"
    );
    assert!(
        detection.contains(
            "tokenizer: byte-level BPE (tokenizer.ggml.model gpt2, pre-tokenizer smollm)"
        ),
        "{detection}"
    );
    let tokens = model.tokenize(" fox fox").unwrap();
    let texts: Vec<&str> = tokens.iter().map(|token| token.text.as_str()).collect();
    assert_eq!(texts, ["␣fox", "␣fox"]);
    assert_eq!(tokens[0].id, tokens[1].id);
    assert!(model.warnings().is_empty(), "{:?}", model.warnings());
}

#[test]
fn a_tokenizer_json_beside_the_file_wins() {
    let model = open(
        &FileSource::path(fixture("spm").join("model.gguf")),
        &OpenOptions::default(),
    )
    .map(|opened| opened.model)
    .unwrap();
    let detection = model.detection().join("\n");
    assert!(
        detection.contains("tokenizer.json (700 ids), used instead of the file's own"),
        "{detection}"
    );
}

/// A word-level `tokenizer.json` of three words, as a GGUF file may carry it whole.
const WORDS_JSON: &str = r#"{"model": {"type": "WordLevel", "unk_token": "[UNK]",
    "vocab": {"hello": 0, "world": 1, "[UNK]": 2}}, "pre_tokenizer": {"type": "Whitespace"}}"#;

/// A GGUF file of three rows whose `tokenizer.ggml.*` metadata names the pre-tokenizer `pre`
/// (`martian-bpe`: one embedlens cannot rebuild), carrying `json` (when given) as its
/// `tokenizer.huggingface.json`.
fn with_embedded_json(folder: &TempDir, pre: &str, json: Option<&str>) -> PathBuf {
    let mut writer = GgufWriter::new()
        .text("general.architecture", "llama")
        .text("tokenizer.ggml.model", "gpt2")
        .text("tokenizer.ggml.pre", pre)
        .texts("tokenizer.ggml.tokens", &["a", "b", "ab"])
        .texts("tokenizer.ggml.merges", &["a b"])
        .f32_table("token_embd.weight", 3, 2, &values(6));
    if let Some(json) = json {
        writer = writer.text("tokenizer.huggingface.json", json);
    }
    write_gguf(folder, "carried.gguf", &writer)
}

#[test]
fn the_tokenizer_json_a_gguf_carries_is_its_tokenizer() {
    let folder = TempDir::new("carried");
    let path = with_embedded_json(&folder, "martian-bpe", Some(WORDS_JSON));
    let model = open(&FileSource::path(&path), &OpenOptions::default())
        .map(|opened| opened.model)
        .unwrap();
    let ids: Vec<_> = model
        .tokenize("world hello")
        .unwrap()
        .iter()
        .map(|token| token.id)
        .collect();
    assert_eq!(ids, [Some(1), Some(0)]);
    assert_eq!(model.token_text(1).as_deref(), Some("world"));
    let said = "tokenizer: the model's own tokenizer.json, carried whole in the file \
                (tokenizer.huggingface.json, 3 ids), used rather than one rebuilt from \
                tokenizer.ggml.*";
    assert!(
        model.detection().contains(&said.to_owned()),
        "{:?}",
        model.detection()
    );
    assert!(model.warnings().is_empty(), "{:?}", model.warnings());
    let listed = inspect(&FileSource::path(&path)).unwrap();
    assert!(
        listed.detection.contains(&said.to_owned()),
        "{:?}",
        listed.detection
    );

    // A tokenizer.json beside the file still wins over the one it carries.
    std::fs::write(
        folder.join("tokenizer.json"),
        WORDS_JSON.replace("world", "earth"),
    )
    .unwrap();
    let model = open(&FileSource::path(&path), &OpenOptions::default())
        .map(|opened| opened.model)
        .unwrap();
    assert_eq!(model.token_text(1).as_deref(), Some("earth"));
}

#[test]
fn a_large_carried_tokenizer_jsons_names_are_read_when_first_needed() {
    let folder = TempDir::new("carried-large");
    let count = COUNTED_AT_ONCE + 4;
    let words: Vec<String> = (0..count).map(|id| format!("w{id}")).collect();
    let vocab: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(id, word)| format!("\"{word}\": {id}"))
        .collect();
    let json = format!(
        r#"{{"model": {{"type": "WordLevel", "unk_token": "w0", "vocab": {{{}}}}},
            "pre_tokenizer": {{"type": "Whitespace"}}}}"#,
        vocab.join(", ")
    );
    let file = |json: &str| {
        let rows = u64::try_from(count).unwrap();
        let writer = GgufWriter::new()
            .text("general.architecture", "llama")
            .text("tokenizer.ggml.model", "gpt2")
            .text("tokenizer.ggml.pre", "martian-bpe")
            .texts("tokenizer.ggml.tokens", &words)
            .text("tokenizer.huggingface.json", json)
            .f32_table("token_embd.weight", rows, 1, &vec![0.5; count]);
        write_gguf(&folder, "carried.gguf", &writer)
    };
    let path = file(&json);
    let model = open(&FileSource::path(&path), &OpenOptions::default())
        .map(|opened| opened.model)
        .unwrap();
    // Counted by the metadata's token array, not read, until a name is asked for.
    assert!(model.names_pending());
    assert_eq!(
        model.tokenizer().map(TextTokenizer::vocab_size),
        Some(count)
    );
    assert!(
        model.detection().iter().any(|line| line.ends_with(
            "used rather than one rebuilt from tokenizer.ggml.*; the names of its ids are read \
             when first needed"
        )),
        "{:?}",
        model.detection()
    );
    assert_eq!(model.token_text(4099).as_deref(), Some("w4099"));
    assert!(!model.names_pending());
    let ids: Vec<_> = model
        .tokenize("w7 w4096")
        .unwrap()
        .iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(ids, [Some(7), Some(4096)]);
    // inspect reads them to count them.
    let listed = inspect(&FileSource::path(&path)).unwrap();
    let said = format!("(tokenizer.huggingface.json, {count} ids)");
    assert!(
        listed.detection.iter().any(|line| line.contains(&said)),
        "{:?}",
        listed.detection
    );

    // One that cannot be read is said where text would be read.
    let path = file("not JSON");
    let model = open(&FileSource::path(&path), &OpenOptions::default())
        .map(|opened| opened.model)
        .unwrap();
    let refusal = format!("{:#}", model.tokenize("w1").unwrap_err());
    assert!(
        refusal.contains(
            "the file's tokenizer.huggingface.json could not be read (not valid JSON: expected \
             ident at line 1 column 2)"
        ),
        "{refusal}"
    );
}

#[test]
fn a_carried_tokenizer_json_that_cannot_be_read_is_said_and_the_metadata_used() {
    let folder = TempDir::new("carried-bad");
    let path = with_embedded_json(&folder, "smollm", Some("not JSON"));
    let model = open(&FileSource::path(&path), &OpenOptions::default())
        .map(|opened| opened.model)
        .unwrap();
    assert!(
        model.warnings().contains(
            &"the file's tokenizer.huggingface.json could not be read (not valid JSON: expected \
              ident at line 1 column 2), so the tokenizer is rebuilt from tokenizer.ggml.* \
              instead"
                .to_owned()
        ),
        "{:?}",
        model.warnings()
    );
    assert!(
        model
            .detection()
            .join("\n")
            .contains("rebuilt from the file's metadata"),
        "{:?}",
        model.detection()
    );
    let path = with_embedded_json(&folder, "martian-bpe", Some("not JSON"));
    let model = open(&FileSource::path(&path), &OpenOptions::default())
        .map(|opened| opened.model)
        .unwrap();
    // Nor can the metadata's own tokenizer be rebuilt here: both reasons are given.
    let refusal = format!("{:#}", model.tokenize("hello").unwrap_err());
    assert!(
        refusal.contains(
            "the file's tokenizer.huggingface.json could not be read (not valid JSON: expected \
             ident at line 1 column 2), and the file's tokenizer could not be rebuilt: its \
             pre-tokenizer \"martian-bpe\""
        ),
        "{refusal}"
    );
    // Without the key, only the metadata's reason.
    let path = with_embedded_json(&folder, "martian-bpe", None);
    let model = open(&FileSource::path(&path), &OpenOptions::default())
        .map(|opened| opened.model)
        .unwrap();
    let refusal = format!("{:#}", model.tokenize("hello").unwrap_err());
    assert!(!refusal.contains("huggingface"), "{refusal}");
}

#[test]
fn inspect_and_text_give_the_same_reason_when_the_scores_are_missing() {
    let folder = TempDir::new("no-scores");
    let writer = GgufWriter::new()
        .text("general.architecture", "llama")
        .text("tokenizer.ggml.model", "llama")
        .texts("tokenizer.ggml.tokens", &["a", "b", "ab"])
        .f32_table("token_embd.weight", 3, 2, &values(6));
    let path = write_gguf(&folder, "spm.gguf", &writer);
    let why = "the file's tokenizer could not be rebuilt: a llama tokenizer needs \
               tokenizer.ggml.scores, which the file lacks";
    let listed = inspect(&FileSource::path(&path)).unwrap();
    assert!(
        listed.warnings.join("\n").contains(why),
        "{:?}",
        listed.warnings
    );
    let model = open(&FileSource::path(&path), &OpenOptions::default())
        .map(|opened| opened.model)
        .unwrap();
    let refusal = format!("{:#}", model.tokenize("a").unwrap_err());
    assert!(refusal.contains(why), "{refusal}");
}

#[test]
fn a_gpt2_gguf_adds_its_learned_position_table() {
    let folder = TempDir::new("gpt2");
    let writer = GgufWriter::new()
        .text("general.architecture", "gpt2")
        .number("gpt2.context_length", 3)
        .number("gpt2.embedding_length", 4)
        .f32_table("token_embd.weight", 5, 4, &values(20))
        .f32_table("position_embd.weight", 3, 4, &values(12));
    let model = open(
        &FileSource::path(write_gguf(&folder, "tiny.gguf", &writer)),
        &OpenOptions::default(),
    )
    .map(|opened| opened.model)
    .unwrap();
    assert_eq!(model.family(), ModelFamily::Gpt2);
    assert_eq!(model.block(), &EmbeddingBlock::Sum);
    assert_eq!(model.position_table().unwrap().rows(), 3);
    assert!(model.tokenizer().is_none());
    let refusal = format!("{:#}", model.tokenize("hello").unwrap_err());
    assert!(
        refusal.starts_with(
            "the tiny table cannot read text: the file's tokenizer could not be rebuilt: the \
             file has no tokenizer.ggml.model; to read text, name"
        ),
        "{refusal}"
    );
    let detection = model.detection().join("\n");
    assert!(
        detection.contains("position table: position_embd.weight (learned, gpt2), 3×4 f32"),
        "{detection}"
    );
    assert!(
        detection.contains("no tokenizer: rows are addressed by id"),
        "{detection}"
    );
    let warnings = model.warnings().join("\n");
    assert!(
        warnings.contains(
            "the file's tokenizer could not be rebuilt: the file has no tokenizer.ggml.model"
        ),
        "{warnings}"
    );
}

#[test]
fn a_bert_gguf_normalises_the_sum() {
    let folder = TempDir::new("bert");
    let writer = GgufWriter::new()
        .text("general.architecture", "bert")
        .metadata(
            "bert.attention.layer_norm_epsilon",
            MetadataValue::F32(1e-5),
        )
        .f32_table("token_embd.weight", 4, 2, &values(8))
        .f32_table("position_embd.weight", 3, 2, &values(6))
        .f32_table("token_types.weight", 2, 2, &[0.5, 0.5, 9.0, 9.0])
        .tensor(
            "token_embd_norm.weight",
            &[2],
            GgmlType(0),
            [1.0f32, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect(),
        )
        .tensor(
            "token_embd_norm.bias",
            &[2],
            GgmlType(0),
            [0.0f32, 1.0].iter().flat_map(|v| v.to_le_bytes()).collect(),
        );
    let model = open(
        &FileSource::path(write_gguf(&folder, "bert.gguf", &writer)),
        &OpenOptions::default(),
    )
    .map(|opened| opened.model)
    .unwrap();
    assert_eq!(model.family(), ModelFamily::Bert);
    let EmbeddingBlock::Bert {
        token_type_row,
        norm,
    } = model.block()
    else {
        panic!("{:?}", model.block());
    };
    assert_eq!(token_type_row.to_vec(), [0.5, 0.5]);
    assert_eq!(norm.weight().to_vec(), [1.0, 2.0]);
    let detection = model.detection().join("\n");
    assert!(detection.contains("LayerNorm: token_embd_norm.weight and token_embd_norm.bias, eps 1e-5 (bert.attention.layer_norm_epsilon)"), "{detection}");
}

#[test]
fn a_bert_gguf_eps_that_cannot_be_right_is_refused_by_name() {
    let folder = TempDir::new("bert-eps");
    for (name, eps) in [
        ("nan", f32::NAN),
        ("inf", f32::INFINITY),
        ("minus", -1.0),
        ("huge", 1e30),
    ] {
        let writer = GgufWriter::new()
            .text("general.architecture", "bert")
            .metadata("bert.attention.layer_norm_epsilon", MetadataValue::F32(eps))
            .f32_table("token_embd.weight", 4, 2, &values(8))
            .f32_table("position_embd.weight", 3, 2, &values(6));
        let error = open(
            &FileSource::path(write_gguf(&folder, &format!("{name}.gguf"), &writer)),
            &OpenOptions::default(),
        )
        .map(|_| ())
        .unwrap_err();
        let error = format!("{error:#}");
        assert!(
            error.contains("bert.attention.layer_norm_epsilon is")
                && error.contains("not a small positive number"),
            "{name}: {error}"
        );
    }
}

#[test]
fn quantized_tables_open_and_unreadable_ones_are_named() {
    let folder = TempDir::new("quantized");
    // One Q8_0 block per row: scale 0.5, bytes 0..32 (row 0) and 32..64 (row 1).
    let mut data = Vec::new();
    for row in 0..2u8 {
        data.extend(half::f16::from_f32(0.5).to_le_bytes());
        data.extend((0..32).map(|i| row * 32 + i));
    }
    let writer = GgufWriter::new()
        .text("general.architecture", "llama")
        .tensor("token_embd.weight", &[2, 32], GgmlType(8), data);
    let model = open(
        &FileSource::path(write_gguf(&folder, "q8.gguf", &writer)),
        &OpenOptions::default(),
    )
    .map(|opened| opened.model)
    .unwrap();
    assert_eq!(model.lookup(1).unwrap()[1].to_bits(), 16.5f32.to_bits());
    assert_eq!(model.token_table().dtype().unwrap().to_string(), "q8_0");

    let writer = GgufWriter::new()
        .text("general.architecture", "llama")
        .tensor(
            "token_embd.weight",
            &[2, 256],
            GgmlType(23),
            vec![0; 2 * 136],
        );
    let path = write_gguf(&folder, "iq4.gguf", &writer);
    let error = format!(
        "{:#}",
        open(&FileSource::path(&path), &OpenOptions::default())
            .map(|opened| opened.model)
            .unwrap_err()
    );
    assert!(
        error.contains("tensor token_embd.weight is IQ4_XS, which embedlens cannot dequantize"),
        "{error}"
    );
    let listed = inspect(&FileSource::path(&path)).unwrap().to_string();
    assert!(listed.contains("no embedding table read:"), "{listed}");
    assert!(
        listed.contains("token_embd.weight  IQ4_XS  2×256"),
        "{listed}"
    );
}

#[test]
fn a_missing_token_table_names_the_embedding_like_tensors() {
    let folder = TempDir::new("missing");
    let writer = GgufWriter::new().f32_table("tok_embeddings.weight", 2, 2, &values(4));
    let error = format!(
        "{:#}",
        open(
            &FileSource::path(write_gguf(&folder, "odd.gguf", &writer)),
            &OpenOptions::default()
        )
        .map(|opened| opened.model)
        .unwrap_err()
    );
    assert!(error.contains("no tensor named token_embd.weight; its embedding-like tensors are tok_embeddings.weight"), "{error}");
    let options = OpenOptions {
        token_tensor: Some("tok_embeddings.weight".to_owned()),
        ..OpenOptions::default()
    };
    let model = open(&FileSource::path(folder.path().join("odd.gguf")), &options)
        .map(|opened| opened.model)
        .unwrap();
    assert!(
        model
            .detection()
            .join("\n")
            .contains("tok_embeddings.weight (chosen by name)")
    );
}

#[test]
fn inspect_lists_metadata_tensors_and_detection() {
    let path = fixture("llama3").join("model.gguf");
    let listed = inspect_gguf(&GgufFile::open(&path).unwrap(), &path, None).to_string();
    assert!(
        listed.contains("metadata:\n  general.architecture"),
        "{listed}"
    );
    assert!(listed.contains("tokenizer.ggml.tokens"), "{listed}");
    assert!(listed.contains("… 421 strings]"), "{listed}");
    assert!(
        listed.contains("token_embd.weight  F32    421×2"),
        "{listed}"
    );
    assert!(
        listed.contains("detected:\n  read from model.gguf (GGUF version 3)"),
        "{listed}"
    );
    assert!(
        listed.contains("tokenizer.json (421 ids), used instead of the file's own"),
        "{listed}"
    );
}

#[test]
fn an_ollama_blob_opens_under_its_model_name() {
    let folder = TempDir::new("ollama");
    let root = folder.path().join("models");
    let manifests = root.join("manifests/registry.ollama.ai/library/tiny");
    std::fs::create_dir_all(&manifests).unwrap();
    std::fs::create_dir_all(root.join("blobs")).unwrap();
    let manifest = r#"{"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:abc123"}]}"#;
    std::fs::write(manifests.join("latest"), manifest).unwrap();
    std::fs::copy(
        fixture("smollm").join("model.gguf"),
        root.join("blobs/sha256-abc123"),
    )
    .unwrap();
    let found = locate_in(&root, "test", "tiny").unwrap();
    let file = std::sync::Arc::new(GgufFile::open(&found.blob).unwrap());
    let model = open_gguf(
        &file,
        found.label,
        Some(found.note),
        &OpenOptions::default(),
    )
    .unwrap();
    assert_eq!(model.label(), "tiny:latest");
    assert!(model.detection()[0].starts_with("Ollama's tiny:latest, manifest "));
    assert_eq!(gguf_label(Path::new("a/SmolLM2.Q8_0.gguf")), "SmolLM2.Q8_0");
}
