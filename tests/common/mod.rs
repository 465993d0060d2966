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
// GGUF files

/// The metadata of a GGUF file whose byte-level tokenizer (three tokens, one merge) names a
/// pre-tokenizer embedlens does not know, `martian-bpe`, so it cannot be rebuilt; add a table.
pub fn unknown_pre_tokenizer_gguf() -> embedlens::core::files::gguf::GgufWriter {
    embedlens::core::files::gguf::GgufWriter::new()
        .text("general.architecture", "llama")
        .text("tokenizer.ggml.model", "gpt2")
        .text("tokenizer.ggml.pre", "martian-bpe")
        .texts("tokenizer.ggml.tokens", &["a", "b", "ab"])
        .texts("tokenizer.ggml.merges", &["a b"])
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

/// The standard output of a run that must succeed quietly.
pub fn stdout_of(args: &[&str]) -> String {
    let output = run(args);
    assert!(
        output.status.success(),
        "embedlens {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stderr.is_empty(),
        "embedlens {args:?} wrote to stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// The standard error of a run that must fail, after checking it wrote nothing to stdout.
pub fn stderr_of_failure(args: &[&str]) -> String {
    let output = run(args);
    assert!(!output.status.success(), "embedlens {args:?} should fail");
    assert!(output.stdout.is_empty(), "{args:?} wrote to stdout");
    String::from_utf8(output.stderr).expect("UTF-8 errors")
}

/// The parsed JSON output of a successful run.
pub fn json_of(args: &[&str]) -> Value {
    let text = stdout_of(args);
    assert!(text.ends_with('\n'));
    serde_json::from_str(&text).expect("valid JSON")
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

pub mod screen;

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

// ---------------------------------------------------------------------------------------------
// GGUF, as llama.cpp's converter writes a small checkpoint

/// How [`convert_to_gguf`] stores the query, key and value weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GgufWeights {
    /// `F32`: the checkpoint's numbers, widened exactly.
    F32,
    /// `Q8_0`: ggml's reference quantization, 32 numbers to a block.
    Q8_0,
}

/// Writes layer 0 of a small BERT, GPT-2, Llama, Qwen2, Qwen3, `StableLM` or Gemma (1, 2, 3)
/// checkpoint folder
/// (its `config.json` and `model.safetensors`) into a GGUF file as llama.cpp's
/// `convert_hf_to_gguf.py` would: its names and metadata keys, each Llama head's query and key
/// rows interleaved (`permute`), 1 added to Gemma's norm weights (in float32), Llama 3's
/// `rope_freqs.weight`; norms, biases and the token tables in `F32`.
pub fn convert_to_gguf(folder: &Path, path: &Path, weights: GgufWeights) {
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("config.json")).unwrap())
            .unwrap();
    let bytes = std::fs::read(folder.join("model.safetensors")).unwrap();
    let fixture = FixtureTensors(
        embedlens::core::analysis::layer0::source::SafetensorsBytes::new(
            "fixture",
            std::sync::Arc::new(bytes),
        )
        .unwrap(),
    );
    let writer = match gguf_architecture(&config).as_str() {
        "bert" => convert_bert(&config, &fixture, weights),
        "gpt2" => convert_gpt2(&config, &fixture, weights),
        _ => convert_rotary(&config, &fixture, weights),
    };
    writer.write(path).unwrap();
}

/// A fixture's tensors, each read as rows of float32 (a vector is one row).
struct FixtureTensors(embedlens::core::analysis::layer0::source::SafetensorsBytes);

impl FixtureTensors {
    fn has(&self, name: &str) -> bool {
        use embedlens::core::analysis::layer0::source::TensorSource;
        self.0.shape(name).is_some()
    }

    fn rows(&self, name: &str) -> Vec<Vec<f32>> {
        use embedlens::core::analysis::layer0::source::TensorSource;
        let shape = self.0.shape(name).unwrap().shape;
        let (rows, cols) = match shape[..] {
            [cols] => (1, cols),
            [rows, cols] => (rows, cols),
            _ => panic!("{name}: {shape:?}"),
        };
        let table = self.0.table(name, rows, cols).unwrap();
        (0..rows).map(|r| table.row(r).unwrap().to_vec()).collect()
    }
}

/// Adds an `F32` tensor: a vector (one row) or a matrix.
fn gguf_f32(
    writer: embedlens::core::files::gguf::GgufWriter,
    name: &str,
    rows: &[Vec<f32>],
    vector: bool,
) -> embedlens::core::files::gguf::GgufWriter {
    let data: Vec<u8> = rows
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let cols = rows[0].len() as u64;
    let shape = if vector {
        vec![cols]
    } else {
        vec![rows.len() as u64, cols]
    };
    writer.tensor(
        name,
        &shape,
        embedlens::core::files::gguf::GgmlType(0),
        data,
    )
}

/// Adds a projection's weight matrix in the type the test asks for.
fn weight_tensor(
    writer: embedlens::core::files::gguf::GgufWriter,
    name: &str,
    rows: &[Vec<f32>],
    weights: GgufWeights,
) -> embedlens::core::files::gguf::GgufWriter {
    match weights {
        GgufWeights::F32 => gguf_f32(writer, name, rows, false),
        GgufWeights::Q8_0 => {
            let data = rows.iter().flat_map(|row| quantize_q8_0(row)).collect();
            let shape = [rows.len() as u64, rows[0].len() as u64];
            writer.tensor(
                name,
                &shape,
                embedlens::core::files::gguf::GgmlType(8),
                data,
            )
        }
    }
}

/// llama.cpp's `BertModel`: the names change, the numbers do not.
fn convert_bert(
    config: &Value,
    fixture: &FixtureTensors,
    weights: GgufWeights,
) -> embedlens::core::files::gguf::GgufWriter {
    let heads = usize::try_from(config["num_attention_heads"].as_u64().unwrap()).unwrap();
    let mut writer = bert_metadata(config, heads);
    let embeddings = [
        ("word_embeddings.weight", "token_embd.weight", false),
        ("position_embeddings.weight", "position_embd.weight", false),
        ("token_type_embeddings.weight", "token_types.weight", false),
        ("LayerNorm.weight", "token_embd_norm.weight", true),
        ("LayerNorm.bias", "token_embd_norm.bias", true),
    ];
    for (hf, gguf, vector) in embeddings {
        writer = gguf_f32(
            writer,
            gguf,
            &fixture.rows(&format!("embeddings.{hf}")),
            vector,
        );
    }
    for (hf, gguf) in [("query", "attn_q"), ("key", "attn_k"), ("value", "attn_v")] {
        let layer = format!("encoder.layer.0.attention.self.{hf}");
        let rows = fixture.rows(&format!("{layer}.weight"));
        writer = weight_tensor(writer, &format!("blk.0.{gguf}.weight"), &rows, weights);
        let bias = fixture.rows(&format!("{layer}.bias"));
        writer = gguf_f32(writer, &format!("blk.0.{gguf}.bias"), &bias, true);
    }
    writer
}

/// llama.cpp's `GPT2Model`: `c_attn`'s weight transposed to `outputs × inputs`.
fn convert_gpt2(
    config: &Value,
    fixture: &FixtureTensors,
    weights: GgufWeights,
) -> embedlens::core::files::gguf::GgufWriter {
    use embedlens::core::files::gguf::{GgufWriter, MetadataValue};

    let count = |key: &str| u32::try_from(config[key].as_u64().unwrap()).unwrap();
    #[expect(clippy::cast_possible_truncation, reason = "stored as float32")]
    let eps = config["layer_norm_epsilon"].as_f64().unwrap() as f32;
    let mut writer = GgufWriter::new()
        .text("general.architecture", "gpt2")
        .number("gpt2.context_length", count("n_positions"))
        .number("gpt2.embedding_length", count("n_embd"))
        .number("gpt2.block_count", 1)
        .number("gpt2.attention.head_count", count("n_head"))
        .metadata("gpt2.attention.layer_norm_epsilon", MetadataValue::F32(eps));
    writer = gguf_f32(
        writer,
        "token_embd.weight",
        &fixture.rows("wte.weight"),
        false,
    );
    writer = gguf_f32(
        writer,
        "position_embd.weight",
        &fixture.rows("wpe.weight"),
        false,
    );
    writer = gguf_f32(
        writer,
        "blk.0.attn_norm.weight",
        &fixture.rows("h.0.ln_1.weight"),
        true,
    );
    writer = gguf_f32(
        writer,
        "blk.0.attn_norm.bias",
        &fixture.rows("h.0.ln_1.bias"),
        true,
    );
    let conv1d = fixture.rows("h.0.attn.c_attn.weight");
    let transposed: Vec<Vec<f32>> = (0..conv1d[0].len())
        .map(|output| conv1d.iter().map(|input| input[output]).collect())
        .collect();
    writer = weight_tensor(writer, "blk.0.attn_qkv.weight", &transposed, weights);
    gguf_f32(
        writer,
        "blk.0.attn_qkv.bias",
        &fixture.rows("h.0.attn.c_attn.bias"),
        true,
    )
}

/// llama.cpp's `LlamaModel`, `Qwen2Model`, `Qwen3Model`, `StableLMModel` and the Gemma models.
fn convert_rotary(
    config: &Value,
    fixture: &FixtureTensors,
    weights: GgufWeights,
) -> embedlens::core::files::gguf::GgufWriter {
    let count = |key: &str| config[key].as_u64().map(|n| usize::try_from(n).unwrap());
    let arch = gguf_architecture(config);
    let hidden = count("hidden_size").unwrap();
    let heads = count("num_attention_heads").unwrap();
    let kv_heads = count("num_key_value_heads").unwrap_or(heads);
    let head_dim = count("head_dim").unwrap_or(hidden / heads);
    let mut writer = converted_metadata(config, heads, kv_heads, head_dim);
    writer = gguf_f32(
        writer,
        "token_embd.weight",
        &fixture.rows("embed_tokens.weight"),
        false,
    );
    let gemma = arch.starts_with("gemma");
    let norms = [
        ("input_layernorm", "attn_norm"),
        ("self_attn.q_norm", "attn_q_norm"),
        ("self_attn.k_norm", "attn_k_norm"),
    ];
    for (hf, gguf) in norms {
        let name = format!("layers.0.{hf}.weight");
        if fixture.has(&name) {
            let mut norm = fixture.rows(&name);
            if gemma {
                norm[0].iter_mut().for_each(|w| *w += 1.0);
            }
            writer = gguf_f32(writer, &format!("blk.0.{gguf}.weight"), &norm, true);
        }
    }
    if fixture.has("layers.0.input_layernorm.bias") {
        let bias = fixture.rows("layers.0.input_layernorm.bias");
        writer = gguf_f32(writer, "blk.0.attn_norm.bias", &bias, true);
    }
    for (hf, gguf, head_count) in [
        ("q", "attn_q", heads),
        ("k", "attn_k", kv_heads),
        ("v", "attn_v", kv_heads),
    ] {
        let mut rows = fixture.rows(&format!("layers.0.self_attn.{hf}_proj.weight"));
        let bias_name = format!("layers.0.self_attn.{hf}_proj.bias");
        let mut bias = fixture
            .has(&bias_name)
            .then(|| fixture.rows(&bias_name).remove(0));
        if arch == "llama" && hf != "v" {
            rows = interleave(&rows, head_count);
            bias = bias.map(|b| interleave(&b, head_count));
        }
        writer = weight_tensor(writer, &format!("blk.0.{gguf}.weight"), &rows, weights);
        if let Some(bias) = bias {
            writer = gguf_f32(writer, &format!("blk.0.{gguf}.bias"), &[bias], true);
        }
    }
    if let Some(divisors) = llama3_divisors(config, head_dim) {
        writer = gguf_f32(writer, "rope_freqs.weight", &[divisors], true);
    }
    writer
}

/// `rope_freqs.weight` as the converter computes it for Llama 3's `rope_scaling`: per rotated
/// pair, 1 for a fast pair, `factor` for a slow one, and between them the inverse of the
/// smoothed scale.
fn llama3_divisors(config: &Value, head_dim: usize) -> Option<Vec<f32>> {
    let rope = &config["rope_parameters"];
    if rope["rope_type"] != "llama3" {
        return None;
    }
    let number = |key: &str| rope[key].as_f64().unwrap();
    let (factor, low, high) = (
        number("factor"),
        number("low_freq_factor"),
        number("high_freq_factor"),
    );
    let context = number("original_max_position_embeddings");
    #[expect(clippy::cast_precision_loss, reason = "small widths")]
    let divisors = (0..head_dim / 2)
        .map(|pair| {
            let frequency = 1.0 / number("rope_theta").powf((2 * pair) as f64 / head_dim as f64);
            let wavelength = 2.0 * std::f64::consts::PI / frequency;
            let divisor = if wavelength < context / high {
                1.0
            } else if wavelength > context / low {
                factor
            } else {
                let smooth = (context / wavelength - low) / (high - low);
                1.0 / ((1.0 - smooth) / factor + smooth)
            };
            #[expect(clippy::cast_possible_truncation, reason = "stored as float32")]
            let divisor = divisor as f32;
            divisor
        })
        .collect();
    Some(divisors)
}

/// The metadata llama.cpp's converter writes for a small Llama, Qwen2 or Gemma `config.json`.
fn converted_metadata(
    config: &Value,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
) -> embedlens::core::files::gguf::GgufWriter {
    use embedlens::core::files::gguf::{GgufWriter, MetadataValue};

    let arch = gguf_architecture(config);
    let arch = arch.as_str();
    let count = |key: &str| usize::try_from(config[key].as_u64().unwrap()).unwrap();
    let hidden = count("hidden_size");
    // RMSNorm models state rms_norm_eps; StableLM's LayerNorm, layer_norm_eps.
    let (eps_key, eps) = match config["rms_norm_eps"].as_f64() {
        Some(eps) => ("layer_norm_rms_epsilon", eps),
        None => (
            "layer_norm_epsilon",
            config["layer_norm_eps"].as_f64().unwrap(),
        ),
    };
    // Gemma 3 keeps a base per kind of layer; GGUF stores the full-attention one.
    let rope = &config["rope_parameters"];
    let theta = rope["rope_theta"]
        .as_f64()
        .or_else(|| rope["full_attention"]["rope_theta"].as_f64())
        .unwrap();
    #[expect(
        clippy::cast_possible_truncation,
        reason = "GGUF stores these as float32, as the converter writes them"
    )]
    let (eps, theta) = (eps as f32, theta as f32);
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "int(head_dim * partial_rotary_factor), as the converter computes it"
    )]
    let rotated =
        (head_dim as f64 * rope["partial_rotary_factor"].as_f64().unwrap_or(1.0)) as usize;
    let number = |n: usize| MetadataValue::U32(u32::try_from(n).unwrap());
    let mut writer = GgufWriter::new()
        .text("general.architecture", arch)
        .metadata(
            &format!("{arch}.context_length"),
            number(count("max_position_embeddings")),
        )
        .metadata(&format!("{arch}.embedding_length"), number(hidden))
        .metadata(&format!("{arch}.block_count"), number(1))
        .metadata(&format!("{arch}.attention.head_count"), number(heads))
        .metadata(&format!("{arch}.attention.head_count_kv"), number(kv_heads))
        .metadata(
            &format!("{arch}.attention.{eps_key}"),
            MetadataValue::F32(eps),
        )
        .metadata(&format!("{arch}.rope.freq_base"), MetadataValue::F32(theta))
        .metadata(&format!("{arch}.rope.dimension_count"), number(rotated));
    if arch == "gemma2" || arch == "gemma3" {
        writer = writer.metadata(
            &format!("{arch}.attention.sliding_window"),
            number(count("sliding_window")),
        );
    }
    if let Some(cap) = config["attn_logit_softcapping"].as_f64() {
        #[expect(clippy::cast_possible_truncation, reason = "stored as float32")]
        let cap = cap as f32;
        writer = writer.metadata(
            &format!("{arch}.attn_logit_softcapping"),
            MetadataValue::F32(cap),
        );
    }
    if head_dim * heads != hidden {
        writer = writer
            .metadata(&format!("{arch}.attention.key_length"), number(head_dim))
            .metadata(&format!("{arch}.attention.value_length"), number(head_dim));
    }
    writer
}

/// The metadata llama.cpp's converter writes for a small BERT `config.json`.
fn bert_metadata(config: &Value, heads: usize) -> embedlens::core::files::gguf::GgufWriter {
    use embedlens::core::files::gguf::{GgufWriter, MetadataValue};

    let count = |key: &str| u32::try_from(config[key].as_u64().unwrap()).unwrap();
    #[expect(clippy::cast_possible_truncation, reason = "stored as float32")]
    let eps = config["layer_norm_eps"].as_f64().unwrap() as f32;
    GgufWriter::new()
        .text("general.architecture", "bert")
        .number("bert.context_length", count("max_position_embeddings"))
        .number("bert.embedding_length", count("hidden_size"))
        .number("bert.block_count", 1)
        .number("bert.attention.head_count", u32::try_from(heads).unwrap())
        .metadata("bert.attention.layer_norm_epsilon", MetadataValue::F32(eps))
        .metadata("bert.attention.causal", MetadataValue::Bool(false))
}

/// The `general.architecture` llama.cpp gives a `config.json`'s `model_type`.
fn gguf_architecture(config: &Value) -> String {
    match config["model_type"].as_str().unwrap() {
        "gemma3_text" => "gemma3".to_owned(),
        other => other.to_owned(),
    }
}

/// llama.cpp's `permute` of one matrix's rows, head by head: row `2k` of a head takes row `k`,
/// row `2k + 1` takes row `k + half`.
fn interleave<T: Clone>(rows: &[T], heads: usize) -> Vec<T> {
    let width = rows.len() / heads;
    let half = width / 2;
    (0..rows.len())
        .map(|index| {
            let (head, within) = (index / width, index % width);
            let from = if within % 2 == 0 {
                within / 2
            } else {
                half + within / 2
            };
            rows[head * width + from].clone()
        })
        .collect()
}

/// ggml's `quantize_row_q8_0_ref`: per 32 numbers a float16 scale `max|x| / 127` and each
/// number divided by it, rounded half away from zero.
fn quantize_q8_0(row: &[f32]) -> Vec<u8> {
    let mut out = Vec::new();
    for block in row.chunks(32) {
        let amax = block.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let scale = amax / 127.0;
        let inverse = if scale == 0.0 { 0.0 } else { 1.0 / scale };
        out.extend(half::f16::from_f32(scale).to_le_bytes());
        #[expect(
            clippy::cast_possible_truncation,
            reason = "|x| / scale is at most 127"
        )]
        out.extend(
            block
                .iter()
                .map(|x| ((x * inverse).round() as i8).to_le_bytes()[0]),
        );
    }
    out
}
