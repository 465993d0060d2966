//! What the integration tests share: temp folders, safetensors writers, `tokenizer.json`
//! builders, running the binary, reading its JSON.
//!
//! Each test file takes what it needs with `mod common;`, so any one file leaves some of this
//! unused.
#![allow(
    dead_code,
    unused_imports,
    reason = "each test file uses some of the fixtures; `expect` would fail in the files that use them all"
)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

use safetensors::Dtype;
use safetensors::tensor::TensorView;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Folders and tokenizer.json pieces, shared with the unit tests

#[path = "../../src/core/test_fixtures.rs"]
mod fixtures;

pub(crate) use fixtures::{TempDir, added_token, bert_post_processor};

/// A path as an argument; temp paths are UTF-8 on every system these tests run on.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temp path")
}

// ---------------------------------------------------------------------------------------------
// Safetensors

/// One tensor to write: its name, dtype, shape and little-endian bytes.
pub type Tensor<'a> = (&'a str, Dtype, Vec<usize>, Vec<u8>);

/// Writes a safetensors file with the `safetensors` crate, as PyTorch's exporters do.
pub fn write_safetensors(path: &Path, tensors: &[Tensor<'_>]) {
    let views: Vec<(&str, TensorView<'_>)> = tensors
        .iter()
        .map(|(name, dtype, shape, bytes)| {
            let view = TensorView::new(*dtype, shape.clone(), bytes).expect("a consistent tensor");
            (*name, view)
        })
        .collect();
    safetensors::serialize_to_file(views, None, path).expect("a written safetensors file");
}

/// Float32 values as little-endian bytes.
pub fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A float32 tensor of `shape`, `values` repeated to fill it.
pub fn f32_tensor<'a>(name: &'a str, shape: &[usize], values: &[f32]) -> Tensor<'a> {
    let count: usize = shape.iter().product();
    let filled: Vec<f32> = values.iter().copied().cycle().take(count).collect();
    (name, Dtype::F32, shape.to_vec(), f32_bytes(&filled))
}

/// Writes a safetensors file of float32 tensors, each `(name, shape, values)`; the values are
/// repeated to fill the shape.
pub fn write_f32_safetensors(path: &Path, tensors: &[(&str, &[usize], &[f32])]) {
    let tensors: Vec<Tensor<'_>> = tensors
        .iter()
        .map(|&(name, shape, values)| f32_tensor(name, shape, values))
        .collect();
    write_safetensors(path, &tensors);
}

/// A safetensors file from a hand-written header and data, for files the crate would refuse.
pub fn raw_safetensors(header: &str, data: &[u8]) -> Vec<u8> {
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend(header.as_bytes());
    bytes.extend(data);
    bytes
}

// ---------------------------------------------------------------------------------------------
// tokenizer.json

/// A word-level `tokenizer.json`: word `i` gets id `i`; `[UNK]` must be among the words.
pub fn word_level_tokenizer(words: &[&str]) -> Value {
    let vocab: serde_json::Map<String, Value> = words
        .iter()
        .enumerate()
        .map(|(id, word)| ((*word).to_owned(), json!(id)))
        .collect();
    json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [],
        "normalizer": null,
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": null,
        "decoder": null,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}
    })
}

// ---------------------------------------------------------------------------------------------
// The binary and its JSON

/// Runs the binary with `args`, stdin closed so it never waits for a terminal.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_embedlens"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

/// A JSON number as the float32 its text names (parsed from the text, never via a cast).
pub fn float32(number: &Value) -> f32 {
    assert!(number.is_number(), "{number} is not a number");
    number.to_string().parse().unwrap()
}

/// A JSON array of numbers as float32 bit patterns.
pub fn bits(vector: &Value) -> Vec<u32> {
    vector
        .as_array()
        .unwrap_or_else(|| panic!("{vector} is not an array"))
        .iter()
        .map(|number| float32(number).to_bits())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The screen

/// The explorer drawn once on a `TestBackend` of `width × height`.
pub fn draw(
    app: &embedlens::app::App,
    width: u16,
    height: u16,
) -> ratatui::Terminal<ratatui::backend::TestBackend> {
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height))
        .expect("test backend");
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .expect("draw");
    terminal
}
