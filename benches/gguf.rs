//! Benchmarks of model tokenizers and of opening a GGUF model: building a tokenizer (49,152,
//! 151,936 and 262,144 tokens, as `SmolLM2`, Qwen 2.5 and Gemma have) from GGUF metadata
//! (byte-level BPE and `SentencePiece`) and from a `tokenizer.json` (its names and reader, and
//! its reader alone), beside the ways they were built before (the metadata written as a
//! `tokenizer.json` and read back; the `tokenizer.json` read whole by the `tokenizers` crate,
//! its model through `serde_json` values); and opening a GGUF
//! model with a 151,936-token vocabulary (made up, the made-up one with its `tokenizer.json`
//! carried in the file, and Qwen 2's own when llama.cpp's test vocabularies are fetched) and
//! drawing the explorer's first frame, beside the same table as a lone safetensors file.
//!
//! The vocabularies are made up here (but for Qwen 2's own): 256 byte tokens, then tokens each
//! joining two earlier ones, with the merge that made each, so the metadata has the shape
//! llama.cpp writes.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use embedlens::app::{App, Options};
use embedlens::core::files::gguf::{
    GgufFile, GgufWriter, MetadataValue, metadata_encoder, metadata_tokenizer,
};
use embedlens::core::files::{FileSource, OpenOptions, open};
use embedlens::core::text::tokenizer::{Encoder, HuggingFaceTokenizer};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// The widths of the made-up tables (rows are tokens).
const DIMS: usize = 16;

/// A byte-level vocabulary of `size` tokens and its merges.
fn vocabulary(size: usize) -> (Vec<String>, Vec<String>) {
    // GPT-2's printable stand-ins for the 256 bytes.
    let mut tokens: Vec<String> = (0..=255u32)
        .map(|byte| {
            let printable = matches!(byte, 0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF);
            let shown = if printable { byte } else { 0x100 + byte };
            char::from_u32(shown).expect("a character").to_string()
        })
        .collect();
    let mut merges = Vec::with_capacity(size);
    let mut seen: std::collections::HashSet<String> = tokens.iter().cloned().collect();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    while tokens.len() < size {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        let pick = |state: u64, shift: u32| {
            // Favour the last 4,096 tokens, as real merges build on each other.
            let n = tokens.len();
            let draw = usize::try_from(state >> shift).unwrap_or(usize::MAX);
            let recent = n.saturating_sub(4096) * usize::from((state >> 7) & 1 == 1);
            (draw % n.min(4096) + recent) % n
        };
        let (left, right) = (pick(state, 17), pick(state, 41));
        let joined = format!("{}{}", tokens[left], tokens[right]);
        if joined.chars().count() > 16 || !seen.insert(joined.clone()) {
            continue;
        }
        merges.push(format!("{} {}", tokens[left], tokens[right]));
        tokens.push(joined);
    }
    (tokens, merges)
}

/// The GGUF bytes of a made-up vocabulary of `size` tokens: byte-level BPE with its merges
/// (`gpt2`), or `SentencePiece` with a score a token (`llama`); with a `size × 16` token table
/// when `with_table`, and carrying `carried` whole as `tokenizer.huggingface.json` if given.
fn gguf_bytes(size: usize, model: &str, with_table: bool, carried: Option<&str>) -> Vec<u8> {
    let (tokens, merges) = vocabulary(size);
    let types = vec![MetadataValue::I32(1); tokens.len()];
    let mut writer = GgufWriter::new()
        .text("general.architecture", "qwen2")
        .text("tokenizer.ggml.model", model)
        .texts("tokenizer.ggml.tokens", &tokens)
        .metadata("tokenizer.ggml.token_type", MetadataValue::Array(types));
    writer = if model == "llama" {
        #[expect(clippy::cast_precision_loss, reason = "scores only rank the tokens")]
        let scores = (0..size)
            .map(|id| MetadataValue::F32(-(id as f32)))
            .collect();
        writer.metadata("tokenizer.ggml.scores", MetadataValue::Array(scores))
    } else {
        writer
            .text("tokenizer.ggml.pre", "qwen2")
            .texts("tokenizer.ggml.merges", &merges)
    };
    if let Some(json) = carried {
        writer = writer.text("tokenizer.huggingface.json", json);
    }
    if with_table {
        writer = writer.f32_table("token_embd.weight", rows(size), rows(DIMS), &table(size));
    }
    writer.to_bytes()
}

fn rows(n: usize) -> u64 {
    u64::try_from(n).expect("a size")
}

/// The made-up table's values: not all equal, so the explorer's scales mean something.
fn table(size: usize) -> Vec<f32> {
    (0..size * DIMS)
        .map(|i| f32::from(u16::try_from(i % 97).expect("small")) / 97.0 - 0.5)
        .collect()
}

fn gguf_file(size: usize, model: &str) -> GgufFile {
    GgufFile::from_bytes(
        Arc::new(gguf_bytes(size, model, false, None)),
        Path::new("v.gguf"),
    )
    .expect("a GGUF file")
}

fn tokenizer_build(c: &mut Criterion) {
    let mut group = c.benchmark_group("tokenizer build");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8));
    for size in [49_152, 151_936, 262_144] {
        let file = gguf_file(size, "gpt2");
        group.bench_function(format!("{size} tokens: GGUF byte-level BPE"), |b| {
            b.iter(|| black_box(metadata_encoder(&file).expect("built")));
        });
        // Before: the metadata written as a tokenizer.json and read back by the crate.
        group.bench_function(format!("{size} tokens: GGUF through tokenizer.json"), |b| {
            b.iter(|| {
                let built = metadata_tokenizer(&file).expect("rebuilt");
                black_box(built.build("bench").expect("built"))
            });
        });
        let json = metadata_tokenizer(&file).expect("rebuilt").json;
        group.bench_function(format!("{size} tokens: tokenizer.json"), |b| {
            b.iter(|| {
                black_box(HuggingFaceTokenizer::from_json(json.as_bytes(), "bench").expect("read"))
            });
        });
        group.bench_function(format!("{size} tokens: tokenizer.json's reader"), |b| {
            b.iter(|| black_box(Encoder::from_json(json.as_bytes()).expect("read")));
        });
        // Before: the whole file read by the crate, its model through serde_json values.
        group.bench_function(
            format!("{size} tokens: tokenizer.json's reader, read whole by the crate"),
            |b| b.iter(|| black_box(tokenizers::Tokenizer::from_bytes(json.as_bytes()))),
        );
        let file = gguf_file(size, "llama");
        group.bench_function(format!("{size} tokens: GGUF SentencePiece"), |b| {
            b.iter(|| black_box(metadata_encoder(&file).expect("built")));
        });
    }
    group.finish();
}

fn bench_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-models");
    std::fs::create_dir_all(&dir).expect("create target/bench-models");
    dir
}

/// Opens a model and draws the explorer's first 120 × 40 frame: what a user waits for.
///
/// The run loop starts a large tokenizer's worker only once this frame is drawn
/// ([`App::drawn`]), after the time measured; it is not started here, as waiting for each
/// build (a quarter of a second or more, `tokenizer build` above) would make the thousands of
/// opens take many minutes, and a build left running would slow the next open.
fn open_and_draw(path: &Path) -> Duration {
    let started = Instant::now();
    let opened = open(&FileSource::path(path), &OpenOptions::default()).expect("it opens");
    let app = App::new(Options {
        model: Some(opened.model),
        layer0: Some(opened.layer0),
        ..Options::default()
    });
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
    terminal
        .draw(|frame| frame.render_widget(&app, frame.area()))
        .expect("draw");
    started.elapsed()
}

/// A GGUF file of Qwen 2's own vocabulary (llama.cpp's test file `ggml-vocab-qwen2.gguf`,
/// fetched by `scripts/fetch_llama_vocab.sh`: 151,936 tokens and 151,387 merges as Qwen 2.5
/// ships them, 5.9 MB of metadata against the made-up vocabulary's 8.9 MB) with the made-up
/// table; `None` when the vocabulary is not fetched.
fn real_vocabulary(size: usize) -> Option<PathBuf> {
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llama-vocab/gguf/qwen2.gguf");
    let vocabulary = GgufFile::open(&source).ok()?;
    let path = bench_dir().join(format!("qwen2-vocab-{size}.gguf"));
    if !path.exists() {
        let mut writer = GgufWriter::new();
        for (key, value) in vocabulary.metadata() {
            writer = writer.metadata(key, value.clone());
        }
        writer
            .f32_table("token_embd.weight", rows(size), rows(DIMS), &table(size))
            .write(&path)
            .expect("write the GGUF file");
    }
    Some(path)
}

/// Leaves a file's pages in the page cache as reading it from disk does: its cached pages
/// dropped (GNU dd's `iflag=nocache`), then the file read through once. A file just written in
/// one go sits in the cache in large pieces that map several times faster than those of a model
/// read from disk or downloaded, which would flatter a GGUF's 6-9 MB of metadata (the
/// safetensors file maps only its header and a few rows, but is treated the same).
fn as_read_from_disk(path: &Path) {
    std::fs::File::open(path)
        .and_then(|file| file.sync_all())
        .expect("the bench file is written");
    let dropped = std::process::Command::new("dd")
        .arg(format!("if={}", path.display()))
        .args(["iflag=nocache", "count=0", "status=none"])
        .status();
    if !dropped.is_ok_and(|status| status.success()) {
        eprintln!(
            "{}: its cached pages could not be dropped (GNU dd iflag=nocache); it is measured \
             as it is cached",
            path.display()
        );
    }
    black_box(std::fs::read(path).expect("the bench file reads"));
}

fn open_first_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("open and first frame");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8));
    let size = 151_936;
    let gguf = bench_dir().join(format!("vocab-{size}.gguf"));
    if !gguf.exists() {
        std::fs::write(&gguf, gguf_bytes(size, "gpt2", true, None)).expect("write the GGUF file");
    }
    // The same file carrying the vocabulary's tokenizer.json whole (8.4 MB), which is read
    // rather than the metadata arrays.
    let carried = bench_dir().join(format!("vocab-{size}-carried-json.gguf"));
    if !carried.exists() {
        let json = metadata_tokenizer(&gguf_file(size, "gpt2"))
            .expect("rebuilt")
            .json;
        std::fs::write(&carried, gguf_bytes(size, "gpt2", true, Some(&json)))
            .expect("write the GGUF file");
    }
    let safetensors = bench_dir().join(format!("table-{size}x{DIMS}.safetensors"));
    if !safetensors.exists() {
        let bytes: Vec<u8> = table(size).iter().flat_map(|v| v.to_le_bytes()).collect();
        let view =
            safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![size, DIMS], &bytes)
                .expect("a tensor");
        safetensors::serialize_to_file([("model.embed_tokens.weight", view)], None, &safetensors)
            .expect("write the safetensors file");
    }
    let mut files = vec![
        ("GGUF, its tokenizer in the metadata", gguf),
        ("GGUF, carrying its tokenizer.json", carried),
    ];
    match real_vocabulary(size) {
        Some(real) => files.push(("GGUF, Qwen 2's own vocabulary in the metadata", real)),
        None => eprintln!(
            "llama.cpp's qwen2 vocabulary is not fetched (scripts/fetch_llama_vocab.sh): its \
             GGUF is left out"
        ),
    }
    files.push(("the same table in safetensors, no tokenizer", safetensors));
    for (_, path) in &files {
        as_read_from_disk(path);
    }
    for (name, path) in &files {
        group.bench_function(format!("{size} rows: {name}"), |b| {
            b.iter_custom(|iterations| (0..iterations).map(|_| open_and_draw(path)).sum());
        });
    }
    group.finish();
}

criterion_group!(benches, tokenizer_build, open_first_frame);
criterion_main!(benches);
