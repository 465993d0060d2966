//! The model's own layer 0 at three widths: a 64-token sentence through a Llama-style first
//! attention layer 768 wide (12 heads, BERT's and GPT-2's width: a block of 512 and a shorter
//! one), 1024 wide (16 heads) and 4096 wide (32 query heads, 8 key/value heads), bf16, on
//! checkpoints the benchmark writes once under `target/bench-models`. The file is opened before
//! timing; the figure is the layer itself (norm, projections read in place, RoPE, every head).

use std::fmt::Write as _;
use std::fs::{self, File};
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use embedlens::core::files::{FileSource, OpenOptions, open};
use half::bf16;

const VOCABULARY: usize = 1024;
const TOKENS: usize = 64;

/// A layer's shape: its width and its query and key/value heads.
#[derive(Clone, Copy)]
struct Shape {
    hidden: usize,
    heads: usize,
    kv_heads: usize,
}

/// The widths measured.
const SHAPES: [Shape; 3] = [
    Shape {
        hidden: 768,
        heads: 12,
        kv_heads: 12,
    },
    Shape {
        hidden: 1024,
        heads: 16,
        kv_heads: 16,
    },
    Shape {
        hidden: 4096,
        heads: 32,
        kv_heads: 8,
    },
];

/// The tensors of the checkpoint: name and shape.
fn tensors(shape: Shape) -> Vec<(&'static str, Vec<usize>)> {
    let Shape {
        hidden,
        heads,
        kv_heads,
    } = shape;
    let head_dims = hidden / heads;
    vec![
        ("model.embed_tokens.weight", vec![VOCABULARY, hidden]),
        ("model.layers.0.input_layernorm.weight", vec![hidden]),
        (
            "model.layers.0.self_attn.q_proj.weight",
            vec![heads * head_dims, hidden],
        ),
        (
            "model.layers.0.self_attn.k_proj.weight",
            vec![kv_heads * head_dims, hidden],
        ),
        (
            "model.layers.0.self_attn.v_proj.weight",
            vec![kv_heads * head_dims, hidden],
        ),
    ]
}

/// A deterministic, well-spread value for element `index` of tensor `tensor`.
fn value(tensor: usize, index: usize) -> f32 {
    let mixed = (index as u64 ^ ((tensor as u64) << 40)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    #[expect(clippy::cast_precision_loss, reason = "a 24-bit fraction")]
    let unit = (mixed >> 40) as f32 / (1u64 << 24) as f32;
    (unit - 0.5) * 0.1
}

/// Writes the checkpoint folder (model.safetensors and config.json) unless it is there.
fn checkpoint(shape: Shape) -> PathBuf {
    let Shape {
        hidden,
        heads,
        kv_heads,
    } = shape;
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("target/bench-models/layer0-{hidden}-bf16"));
    let file = folder.join("model.safetensors");
    let tensors = tensors(shape);
    let data: usize = tensors
        .iter()
        .map(|(_, shape)| shape.iter().product::<usize>() * 2)
        .sum();
    let mut header = String::from("{");
    let mut offset = 0;
    for (index, (name, shape)) in tensors.iter().enumerate() {
        let bytes = shape.iter().product::<usize>() * 2;
        let dims: Vec<String> = shape.iter().map(ToString::to_string).collect();
        if index > 0 {
            header.push(',');
        }
        let _ = write!(
            header,
            "\"{name}\":{{\"dtype\":\"BF16\",\"shape\":[{}],\"data_offsets\":[{offset},{}]}}",
            dims.join(","),
            offset + bytes
        );
        offset += bytes;
    }
    header.push('}');
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    let expected = 8 + header.len() + data;
    if fs::metadata(&file).is_ok_and(|meta| meta.len() == expected as u64) {
        return folder;
    }
    fs::create_dir_all(&folder).expect("target/bench-models can be made");
    let mut out = BufWriter::new(File::create(&file).expect("the checkpoint can be written"));
    out.write_all(&(header.len() as u64).to_le_bytes()).unwrap();
    out.write_all(header.as_bytes()).unwrap();
    for (tensor, (_, shape)) in tensors.iter().enumerate() {
        for index in 0..shape.iter().product::<usize>() {
            let number = if tensor == 1 {
                1.0 + value(tensor, index)
            } else {
                value(tensor, index)
            };
            out.write_all(&bf16::from_f32(number).to_le_bytes())
                .unwrap();
        }
    }
    out.flush().unwrap();
    fs::write(
        folder.join("config.json"),
        format!(
            "{{\"model_type\":\"llama\",\"hidden_size\":{hidden},\"num_attention_heads\":{heads},\
             \"num_key_value_heads\":{kv_heads},\"rms_norm_eps\":1e-5,\"rope_theta\":500000.0,\
             \"max_position_embeddings\":8192}}"
        ),
    )
    .unwrap();
    folder
}

fn layer0(c: &mut Criterion) {
    let ids: Vec<usize> = (0..TOKENS).map(|i| (i * 37) % VOCABULARY).collect();
    let mut group = c.benchmark_group("layer0");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for shape in SHAPES {
        let Shape {
            hidden,
            heads,
            kv_heads,
        } = shape;
        let layer = open(
            &FileSource::path(checkpoint(shape)),
            &OpenOptions::default(),
        )
        .map(|opened| opened.layer0)
        .expect("the checkpoint opens")
        .expect("it has a layer 0");
        let name = format!("{TOKENS} tokens, {hidden} wide, {heads}/{kv_heads} heads, bf16");
        group.bench_function(name, |b| {
            b.iter(|| black_box(layer.run(black_box(&ids), true).expect("the layer runs")));
        });
    }
    group.finish();
}

criterion_group!(benches, layer0);
criterion_main!(benches);
