//! Benchmarks of GGUF models' tokenizers: rebuilding one from metadata (49,152, 151,936 and
//! 262,144 tokens, as `SmolLM2`, Qwen 2.5 and Gemma have), and opening a GGUF model beside the
//! same table in safetensors.
//!
//! The vocabularies are made up here: 256 byte tokens, then tokens each joining two earlier
//! ones, with the merge that made each, so the metadata has the shape llama.cpp writes.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use embedlens::core::files::gguf::{GgufFile, GgufWriter, MetadataValue, metadata_tokenizer};
use embedlens::core::files::{FileSource, OpenOptions, open};

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

fn gguf_bytes(size: usize, with_table: bool) -> Vec<u8> {
    let (tokens, merges) = vocabulary(size);
    let types = vec![MetadataValue::I32(1); tokens.len()];
    let mut writer = GgufWriter::new()
        .text("general.architecture", "qwen2")
        .text("tokenizer.ggml.model", "gpt2")
        .text("tokenizer.ggml.pre", "qwen2")
        .texts("tokenizer.ggml.tokens", &tokens)
        .metadata("tokenizer.ggml.token_type", MetadataValue::Array(types))
        .texts("tokenizer.ggml.merges", &merges);
    if with_table {
        let values = vec![0.5f32; size * DIMS];
        let (rows, cols) = (u64::try_from(size), u64::try_from(DIMS));
        let (rows, cols) = (rows.expect("rows"), cols.expect("width"));
        writer = writer.f32_table("token_embd.weight", rows, cols, &values);
    }
    writer.to_bytes()
}

fn tokenizer_build(c: &mut Criterion) {
    let mut group = c.benchmark_group("gguf tokenizer build");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for size in [49_152, 151_936, 262_144] {
        let file = GgufFile::from_bytes(Arc::new(gguf_bytes(size, false)), Path::new("v.gguf"))
            .expect("a GGUF file");
        group.bench_function(format!("{size} tokens: metadata to tokenizer.json"), |b| {
            b.iter(|| black_box(metadata_tokenizer(&file).expect("rebuilt")));
        });
        let built = metadata_tokenizer(&file).expect("rebuilt");
        group.bench_function(format!("{size} tokens: tokenizer.json to tokenizer"), |b| {
            b.iter(|| black_box(built.build("bench").expect("built")));
        });
    }
    group.finish();
}

fn bench_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-models");
    std::fs::create_dir_all(&dir).expect("create target/bench-models");
    dir
}

fn gguf_open(c: &mut Criterion) {
    let mut group = c.benchmark_group("gguf open");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    let size = 151_936;
    let path = bench_dir().join(format!("vocab-{size}.gguf"));
    if !path.exists() {
        std::fs::write(&path, gguf_bytes(size, true)).expect("write the GGUF file");
    }
    group.bench_function(format!("{size} tokens, GGUF with its tokenizer"), |b| {
        b.iter(|| {
            let opened = open(&FileSource::path(path.clone()), &OpenOptions::default());
            black_box(opened.expect("opened"))
        });
    });
    group.finish();
}

criterion_group!(benches, tokenizer_build, gguf_open);
criterion_main!(benches);
