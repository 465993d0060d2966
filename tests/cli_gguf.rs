//! GGUF files and Ollama models through the real binary, as a user meets them: `inspect`,
//! `lookup --model x.gguf` with the tokenizer rebuilt from the file, quantized tables, a fake
//! Ollama models folder, and the messages when something cannot be read.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{TempDir, unknown_pre_tokenizer_gguf};
use embedlens::core::files::gguf::{GgmlType, GgufWriter};
use serde_json::Value;

/// The byte-level BPE fixture (a llama model with `SmolLM`'s pre-tokenizer, 421 rows of
/// `(id, -id)`), copied alone into a folder so its tokenizer comes from its metadata.
fn smollm_alone(folder: &TempDir) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gguf/tokenizers/smollm/model.gguf");
    let path = folder.join("smollm.gguf");
    std::fs::copy(source, &path).expect("a copied fixture");
    path
}

fn run(args: &[&str], ollama_models: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_embedlens"));
    command.args(args).stdin(Stdio::null());
    match ollama_models {
        Some(root) => command.env("OLLAMA_MODELS", root),
        None => command.env_remove("OLLAMA_MODELS"),
    };
    command.output().expect("the binary runs")
}

fn stdout_of(args: &[&str], ollama_models: Option<&Path>) -> String {
    let output = run(args, ollama_models);
    assert!(
        output.status.success(),
        "embedlens {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

fn stderr_of_failure(args: &[&str], ollama_models: Option<&Path>) -> String {
    let output = run(args, ollama_models);
    assert!(!output.status.success(), "embedlens {args:?} should fail");
    assert!(output.stdout.is_empty());
    String::from_utf8(output.stderr).expect("UTF-8 errors")
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temp path")
}

/// The id and row of each token `lookup --format json` reads `text` into with the file's own
/// tokenizer.
fn lookup_rows(path: &Path, text: &str) -> Vec<(u64, Vec<f64>)> {
    let args = ["lookup", "--model", arg(path), "--format", "json", text];
    ids_and_rows(&stdout_of(&args, None))
}

fn ids_and_rows(json: &str) -> Vec<(u64, Vec<f64>)> {
    let value: Value = serde_json::from_str(json).expect("JSON");
    value["tokens"]
        .as_array()
        .expect("tokens")
        .iter()
        .map(|token| {
            let row = token["token_vector"].as_array().expect("a row");
            (
                token["id"].as_u64().expect("an id"),
                row.iter().map(|x| x.as_f64().unwrap()).collect(),
            )
        })
        .collect()
}

#[test]
fn inspect_shows_metadata_every_tensor_and_what_was_detected() {
    let folder = TempDir::new("inspect");
    let path = smollm_alone(&folder);
    let listed = stdout_of(&["inspect", arg(&path)], None);
    for expected in [
        "metadata:",
        "general.architecture",
        "\"llama\"",
        "tokenizer.ggml.pre",
        "\"smollm\"",
        "… 421 strings]",
        "token_embd.weight  F32    421×2",
        "detected:",
        "architecture: llama (general.architecture); context length 64 (llama.context_length)",
        "no position table: llama models rotate queries and keys inside attention (RoPE)",
        "tokenizer: byte-level BPE (tokenizer.ggml.model gpt2, pre-tokenizer smollm), 421 tokens",
    ] {
        assert!(
            listed.contains(expected),
            "{expected:?} missing from:\n{listed}"
        );
    }
}

#[test]
fn lookup_reads_text_with_the_files_own_tokenizer() {
    let folder = TempDir::new("lookup");
    let path = smollm_alone(&folder);
    let rows = lookup_rows(&path, " fox fox");
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0], rows[1], "the same id returns the same row");
    let (id, row) = &rows[0];
    #[expect(clippy::cast_precision_loss, reason = "ids below 421")]
    let expected = vec![*id as f64, -(*id as f64)];
    assert_eq!(row, &expected);
    let table = stdout_of(&["lookup", "--model", arg(&path), " fox fox"], None);
    assert!(
        table.contains("smollm vocabulary, 421x2 weights"),
        "{table}"
    );
    assert!(table.contains("␣fox"), "{table}");
}

#[test]
fn a_gguf_that_carries_its_tokenizer_json_reads_text_with_it() {
    let folder = TempDir::new("carried");
    // Its tokenizer.ggml.* names a pre-tokenizer embedlens does not know: only the JSON reads.
    let json = r#"{"model": {"type": "WordLevel", "unk_token": "[UNK]",
        "vocab": {"hello": 0, "world": 1, "[UNK]": 2}}, "pre_tokenizer": {"type": "Whitespace"}}"#;
    let path = folder.join("carried.gguf");
    unknown_pre_tokenizer_gguf()
        .text("tokenizer.huggingface.json", json)
        .f32_table("token_embd.weight", 3, 2, &[0.0, 0.5, 1.0, 1.5, 2.0, 2.5])
        .write(&path)
        .expect("a written file");
    let listed = stdout_of(&["inspect", arg(&path)], None);
    assert!(
        listed.contains(
            "tokenizer: the model's own tokenizer.json, carried whole in the file \
             (tokenizer.huggingface.json, 3 ids), used rather than one rebuilt from \
             tokenizer.ggml.*"
        ),
        "{listed}"
    );
    let rows = lookup_rows(&path, "world hello");
    assert_eq!(rows, [(1, vec![1.0, 1.5]), (0, vec![0.0, 0.5])]);
}

#[test]
fn a_quantized_table_is_read_by_id() {
    let folder = TempDir::new("q4");
    // One Q4_0 block per row: scale 0.25; low nibbles 0..15 become -8..7, high nibbles all 15.
    let mut data = Vec::new();
    for _ in 0..3 {
        data.extend(half::f16::from_f32(0.25).to_le_bytes());
        data.extend((0..16u8).map(|i| 0xF0 | i));
    }
    let writer = GgufWriter::new()
        .text("general.architecture", "llama")
        .tensor("token_embd.weight", &[3, 32], GgmlType(2), data);
    let path = folder.join("q4.gguf");
    writer.write(&path).expect("a written file");
    let json = stdout_of(
        &[
            "lookup",
            "--model",
            arg(&path),
            "--ids",
            "2",
            "--format",
            "json",
        ],
        None,
    );
    let (id, row) = &ids_and_rows(&json)[0];
    assert_eq!(*id, 2);
    assert_eq!(row[..3], [-2.0, -1.75, -1.5]);
    assert_eq!(row[16..], [1.75; 16]);
    let table = stdout_of(&["lookup", "--model", arg(&path), "--ids", "2"], None);
    assert!(table.contains("unnamed table, 3x32 weights"), "{table}");
}

#[test]
fn text_on_a_tokenizer_that_cannot_be_rebuilt_is_refused_naming_why() {
    let folder = TempDir::new("unknown-pre");
    let writer = unknown_pre_tokenizer_gguf().f32_table("token_embd.weight", 3, 4, &[0.5; 12]);
    let path = folder.join("martian.gguf");
    writer.write(&path).expect("a written file");
    let why = "the file's tokenizer could not be rebuilt: its pre-tokenizer \"martian-bpe\" \
               (tokenizer.ggml.pre) is not one embedlens knows";
    let hint = "to read text, name the model's tokenizer.json with --tokenizer PATH or put it \
                beside the model's file";
    // inspect says it, and every command that needs text gives the same sentence and the way on.
    let listed = stdout_of(&["inspect", arg(&path)], None);
    assert!(listed.contains(why), "{listed}");
    assert!(listed.contains(hint), "{listed}");
    for command in [
        &["lookup", "--model", arg(&path), "hello"][..],
        &["compare", "--model", arg(&path), "a b", "b a"],
    ] {
        let error = stderr_of_failure(command, None);
        assert!(error.contains(why), "{command:?}: {error}");
        assert!(error.contains(hint), "{command:?}: {error}");
        assert!(error.contains("or give token ids with --ids"), "{error}");
    }
    // By id it still opens.
    let table = stdout_of(&["lookup", "--model", arg(&path), "--ids", "2"], None);
    assert!(table.contains("0.5"), "{table}");
}

#[test]
fn unreadable_types_and_damaged_files_say_what_is_wrong() {
    let folder = TempDir::new("bad");
    let writer =
        GgufWriter::new().tensor("token_embd.weight", &[2, 256], GgmlType(16), vec![0; 132]);
    let path = folder.join("iq2.gguf");
    writer.write(&path).expect("a written file");
    let error = stderr_of_failure(&["lookup", "--model", arg(&path), "--ids", "0"], None);
    assert!(
        error.contains(
            "iq2.gguf: tensor token_embd.weight is IQ2_XXS, which embedlens cannot dequantize"
        ),
        "{error}"
    );

    let mut bytes = std::fs::read(&path).expect("the file");
    bytes.truncate(30);
    let cut = folder.join("cut.gguf");
    std::fs::write(&cut, bytes).expect("a written file");
    let error = stderr_of_failure(&["inspect", arg(&cut)], None);
    assert!(error.contains("cut.gguf: truncated"), "{error}");
}

#[test]
fn an_ollama_model_is_found_in_its_models_folder() {
    let folder = TempDir::new("ollama");
    let root = folder.join("models");
    let manifests = root.join("manifests/registry.ollama.ai/library/smollm");
    std::fs::create_dir_all(&manifests).expect("a manifests folder");
    std::fs::create_dir_all(root.join("blobs")).expect("a blobs folder");
    let manifest = r#"{"schemaVersion":2,"layers":[
        {"mediaType":"application/vnd.ollama.image.template","digest":"sha256:0000"},
        {"mediaType":"application/vnd.ollama.image.model","digest":"sha256:5eed"}]}"#;
    std::fs::write(manifests.join("135m"), manifest).expect("a manifest");
    let blob = root.join("blobs/sha256-5eed");
    std::fs::copy(smollm_alone(&folder), &blob).expect("a blob");

    let table = stdout_of(
        &["lookup", "--model", "ollama:smollm:135m", "fox"],
        Some(&root),
    );
    assert!(
        table.contains("smollm:135m vocabulary, 421x2 weights"),
        "{table}"
    );
    let listed = stdout_of(&["inspect", "ollama:smollm:135m"], Some(&root));
    assert!(
        listed.starts_with("ollama:smollm:135m: 1 tensor in 1 file"),
        "{listed}"
    );
    assert!(
        listed.contains("Ollama's smollm:135m, manifest"),
        "{listed}"
    );

    let error = stderr_of_failure(&["lookup", "--model", "ollama:smollm", "fox"], Some(&root));
    assert!(
        error.contains("ollama:smollm: Ollama has not pulled smollm:latest: no manifest at"),
        "{error}"
    );
    assert!(
        error.contains("manifests/registry.ollama.ai/library/smollm/latest"),
        "{error}"
    );
    assert!(
        error.contains("from OLLAMA_MODELS); it has 135m pulled"),
        "{error}"
    );
}

#[test]
fn an_ollama_models_own_layer_0_is_read_from_its_blob() {
    let folder = TempDir::new("ollama-layer0");
    let root = folder.join("models");
    let manifests = root.join("manifests/registry.ollama.ai/library/tiny");
    std::fs::create_dir_all(&manifests).expect("a manifests folder");
    std::fs::create_dir_all(root.join("blobs")).expect("a blobs folder");
    let manifest = r#"{"schemaVersion":2,"layers":[
        {"mediaType":"application/vnd.ollama.image.model","digest":"sha256:11a4"}]}"#;
    std::fs::write(manifests.join("latest"), manifest).expect("a manifest");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layer0/llama_gqa_bf16");
    common::convert_to_gguf(
        &fixture,
        &root.join("blobs/sha256-11a4"),
        common::GgufWeights::F32,
    );
    let table = stdout_of(
        &["attention", "--model", "ollama:tiny", "--ids", "3,10,7"],
        Some(&root),
    );
    assert!(
        table.contains("layer 0 of a Llama-style (llama) model, 4 query heads, 2 key/value heads"),
        "{table}"
    );
}
