//! The model files the CLI model tests (`cli_models.rs`, `cli_model_errors.rs`) write and the
//! ways they run the binary on them: GPT-2 and BERT folders, tables of awkward values, a run
//! that must succeed quietly and one that must fail cleanly.
//!
//! Each test file takes what it needs with `mod model_files;`, so any one file leaves some of
//! this unused.
#![allow(
    dead_code,
    reason = "each test file uses some of the model files; `expect` would fail in the files that use them all"
)]

use std::path::Path;

use crate::common::{
    TempDir, Tensor, added_token, bert_post_processor, f32_bytes, run, word_level_tokenizer,
    write_safetensors,
};
use safetensors::Dtype;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Files

/// An f32 tensor of `rows × cols` values.
pub fn f32_table(name: &'static str, rows: usize, cols: usize, values: &[f32]) -> Tensor<'static> {
    assert_eq!(values.len(), rows * cols, "{name}");
    (name, Dtype::F32, vec![rows, cols], f32_bytes(values))
}

/// `count` values that are not round in binary (sixty-firsts), so a float32 sum rounds and a
/// bit-for-bit comparison means something; `salt` makes each table different.
pub fn awkward_values(count: usize, salt: usize) -> Vec<f32> {
    (0..count)
        .map(|i| {
            let step = u16::try_from((i * 37 + salt * 101) % 199).unwrap();
            f32::from(step) / 61.0 - 1.5
        })
        .collect()
}

/// Row `row` of a row-major table `cols` wide.
pub fn row_of(values: &[f32], cols: usize, row: usize) -> &[f32] {
    &values[row * cols..(row + 1) * cols]
}

// ---------------------------------------------------------------------------------------------
// Running the binary

/// The standard error of a run that must fail cleanly: a non-zero exit, nothing on stdout,
/// one `embedlens: ` message, and no panic.
pub fn failure(args: &[&str]) -> String {
    let output = run(args);
    let error = String::from_utf8(output.stderr).expect("UTF-8 errors");
    assert!(
        !output.status.success(),
        "embedlens {args:?} should fail; it printed {}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(
        !error.contains("panicked"),
        "embedlens {args:?} panicked: {error}"
    );
    assert!(
        output.stdout.is_empty(),
        "embedlens {args:?} wrote to stdout"
    );
    assert!(error.starts_with("embedlens: "), "{error}");
    error
}

/// Checks that a run fails with a message naming `file` and saying `problem`.
pub fn assert_fails_naming(args: &[&str], file: &Path, problem: &str) {
    let error = failure(args);
    assert!(
        error.contains(&file.display().to_string()),
        "embedlens {args:?}: the message does not name {}: {error}",
        file.display()
    );
    assert!(
        error.contains(problem),
        "embedlens {args:?}: wanted {problem:?} in: {error}"
    );
}

pub fn bits_of(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// The float32 sum, element by element, as PyTorch's `wte(ids) + wpe(positions)` computes it.
pub fn f32_sum(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

pub fn tokens(json: &Value) -> &[Value] {
    json["tokens"].as_array().expect("a tokens array")
}

pub fn column<'a>(json: &'a Value, key: &str) -> Vec<&'a Value> {
    tokens(json).iter().map(|token| &token[key]).collect()
}

// ---------------------------------------------------------------------------------------------
// Model folders

pub const WIDTH: usize = 4;

/// A GPT-2-style folder: `transformer.wte.weight` 10×4, `transformer.wpe.weight` 8×4, a final
/// `LayerNorm` weight for company, a word-level `tokenizer.json` and a `config.json`.
pub struct Gpt2Folder {
    pub dir: TempDir,
    pub wte: Vec<f32>,
    pub wpe: Vec<f32>,
}

pub const GPT2_WORDS: [&str; 10] = [
    "the", "fox", "bites", "dog", "man", "quick", "brown", "jumps", "over", "[UNK]",
];

pub const GPT2_CONTEXT: usize = 8;

impl Gpt2Folder {
    pub fn write(name: &str) -> Self {
        let dir = TempDir::new(name);
        let wte = awkward_values(GPT2_WORDS.len() * WIDTH, 1);
        let wpe = awkward_values(GPT2_CONTEXT * WIDTH, 2);
        write_safetensors(
            &dir.join("model.safetensors"),
            &[
                f32_table("transformer.wte.weight", GPT2_WORDS.len(), WIDTH, &wte),
                f32_table("transformer.wpe.weight", GPT2_CONTEXT, WIDTH, &wpe),
                (
                    "transformer.ln_f.weight",
                    Dtype::F32,
                    vec![WIDTH],
                    f32_bytes(&[1.0; WIDTH]),
                ),
            ],
        );
        dir.write(
            "tokenizer.json",
            &word_level_tokenizer(&GPT2_WORDS).to_string(),
        );
        dir.write(
            "config.json",
            &json!({"model_type": "gpt2", "n_embd": WIDTH, "n_positions": GPT2_CONTEXT,
                    "vocab_size": GPT2_WORDS.len()})
            .to_string(),
        );
        Self { dir, wte, wpe }
    }

    pub fn token_row(&self, id: usize) -> &[f32] {
        row_of(&self.wte, WIDTH, id)
    }

    pub fn position_row(&self, position: usize) -> &[f32] {
        row_of(&self.wpe, WIDTH, position)
    }
}

/// A BERT-style folder: word, position and token-type tables, the embeddings' `LayerNorm`,
/// a `config.json` with `layer_norm_eps`, and a `tokenizer.json` that adds `[CLS]`/`[SEP]` and
/// also asks (as real BERT files do) for padding and truncation.
pub struct BertFolder {
    pub dir: TempDir,
    pub words: Vec<f32>,
    pub positions: Vec<f32>,
    pub token_types: Vec<f32>,
    pub norm_weight: Vec<f32>,
    pub norm_bias: Vec<f32>,
}

pub const BERT_WORDS: [&str; 10] = [
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "quick", "fox", "dog", "bites", "man",
];

pub const BERT_CONTEXT: usize = 12;

/// Far from BERT's default 1e-12, so a `LayerNorm` that ignored `config.json` would show.
pub const BERT_EPS: f64 = 1e-3;

impl BertFolder {
    pub fn write(name: &str) -> Self {
        let dir = TempDir::new(name);
        let folder = Self {
            words: awkward_values(BERT_WORDS.len() * WIDTH, 3),
            positions: awkward_values(BERT_CONTEXT * WIDTH, 4),
            token_types: awkward_values(2 * WIDTH, 5),
            norm_weight: vec![1.5, 0.5, -1.0, 2.0],
            norm_bias: vec![0.25, -0.5, 0.0, 1.0],
            dir,
        };
        let vector = |name, values: &[f32]| (name, Dtype::F32, vec![WIDTH], f32_bytes(values));
        write_safetensors(
            &folder.dir.join("model.safetensors"),
            &[
                f32_table(
                    "bert.embeddings.word_embeddings.weight",
                    BERT_WORDS.len(),
                    WIDTH,
                    &folder.words,
                ),
                f32_table(
                    "bert.embeddings.position_embeddings.weight",
                    BERT_CONTEXT,
                    WIDTH,
                    &folder.positions,
                ),
                f32_table(
                    "bert.embeddings.token_type_embeddings.weight",
                    2,
                    WIDTH,
                    &folder.token_types,
                ),
                vector("bert.embeddings.LayerNorm.weight", &folder.norm_weight),
                vector("bert.embeddings.LayerNorm.bias", &folder.norm_bias),
            ],
        );
        folder
            .dir
            .write("tokenizer.json", &bert_tokenizer().to_string());
        folder.dir.write(
            "config.json",
            &json!({"model_type": "bert", "hidden_size": WIDTH, "layer_norm_eps": BERT_EPS,
                    "max_position_embeddings": BERT_CONTEXT, "type_vocab_size": 2})
            .to_string(),
        );
        folder
    }

    /// `LayerNorm((word + token type 0) + position)`, the sum in f32 as PyTorch adds, the
    /// normalisation in f64.
    pub fn expected_embedding(&self, id: usize, position: usize) -> Vec<f64> {
        let sum = f32_sum(
            &f32_sum(
                row_of(&self.words, WIDTH, id),
                row_of(&self.token_types, WIDTH, 0),
            ),
            row_of(&self.positions, WIDTH, position),
        );
        let sum: Vec<f64> = sum.into_iter().map(f64::from).collect();
        #[expect(clippy::cast_precision_loss, reason = "a width of 4")]
        let count = sum.len() as f64;
        let mean = sum.iter().sum::<f64>() / count;
        let variance = sum.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / count;
        let inverse_std = 1.0 / (variance + BERT_EPS).sqrt();
        sum.iter()
            .zip(self.norm_weight.iter().zip(&self.norm_bias))
            .map(|(v, (w, b))| (v - mean) * inverse_std * f64::from(*w) + f64::from(*b))
            .collect()
    }
}

/// BERT's `tokenizer.json` in small: lower-cases, splits on whitespace, wraps the text in
/// `[CLS]`…`[SEP]`, and asks for padding to 16 and truncation to 3, which embedlens must ignore.
pub fn bert_tokenizer() -> Value {
    let mut tokenizer = word_level_tokenizer(&BERT_WORDS);
    tokenizer["truncation"] =
        json!({"direction": "Right", "max_length": 3, "strategy": "LongestFirst", "stride": 0});
    tokenizer["padding"] = json!({"strategy": {"Fixed": 16}, "direction": "Right",
        "pad_to_multiple_of": null, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"});
    tokenizer["added_tokens"] = json!([
        added_token(0, "[PAD]"),
        added_token(1, "[UNK]"),
        added_token(2, "[CLS]"),
        added_token(3, "[SEP]")
    ]);
    tokenizer["normalizer"] = json!({"type": "Lowercase"});
    tokenizer["post_processor"] = bert_post_processor();
    tokenizer
}
