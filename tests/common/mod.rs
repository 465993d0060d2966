//! What the integration tests share: temp folders, safetensors writers, `tokenizer.json`
//! builders, running the binary, reading its JSON.
//!
//! Each test file takes what it needs with `mod common;`, so any one file leaves some of this
//! unused.
#![allow(
    dead_code,
    reason = "each test file uses some of the fixtures; `expect` would fail in the files that use them all"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use safetensors::Dtype;
use safetensors::tensor::TensorView;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Folders

/// A fresh folder of its own under the system temp dir, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new empty folder whose name starts with `embedlens-`, the test binary's name and
    /// `name`.
    pub fn new(name: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
        let binary = std::env::current_exe()
            .ok()
            .and_then(|exe| {
                exe.file_stem()
                    .map(|stem| stem.to_string_lossy().into_owned())
            })
            .and_then(|stem| stem.split('-').next().map(str::to_owned))
            .unwrap_or_default();
        let path = std::env::temp_dir().join(format!(
            "embedlens-{binary}-{name}-{}-{unique}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("a temp folder");
        Self(path)
    }

    /// The folder itself.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// A path inside the folder, its parent folders made.
    pub fn join(&self, name: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::create_dir_all(path.parent().expect("inside the folder")).expect("a folder");
        path
    }

    /// The folder's own name: what embedlens calls a model read from it.
    pub fn name(&self) -> String {
        self.0.file_name().unwrap().to_string_lossy().into_owned()
    }

    /// Writes a text file into the folder and returns its path.
    pub fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.join(name);
        std::fs::write(&path, contents).expect("a written file");
        path
    }

    /// A FIFO (named pipe) inside the folder.
    pub fn fifo(&self, name: &str) -> PathBuf {
        let path = self.join(name);
        let made = Command::new("mkfifo")
            .arg(&path)
            .status()
            .expect("mkfifo runs");
        assert!(made.success(), "mkfifo {}", path.display());
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

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

/// An added (special) token as `tokenizer.json` lists it.
pub fn added_token(id: usize, content: &str) -> Value {
    json!({"id": id, "content": content, "single_word": false, "lstrip": false,
           "rstrip": false, "normalized": false, "special": true})
}

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

/// BERT's post-processor: `[CLS]` (id 2) before a sentence, `[SEP]` (id 3) after it.
pub fn bert_post_processor() -> Value {
    json!({
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                   {"Sequence": {"id": "A", "type_id": 0}},
                   {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                 {"Sequence": {"id": "A", "type_id": 0}},
                 {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                 {"Sequence": {"id": "B", "type_id": 1}},
                 {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
        "special_tokens": {
            "[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
            "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}
        }
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
