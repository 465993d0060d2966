//! Tests of opening checkpoints: files the tests write, every failure named. The files' builders
//! are here; [`families`] reads each family's tables, [`files`] the ways a folder or file is
//! laid out or wrong.

use std::path::Path;

use anyhow::Result;

use super::build::check_tokenizer_fits;
use super::detect::detect;
use super::locate::file_name;
use super::safetensors::checkpoint::Checkpoint;
use super::safetensors::{LENGTH_BYTES, read_header};
use super::*;
use crate::core::tables::block::{EmbeddingBlock, ModelFamily};
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::table::Table;
use crate::core::tables::weights::TokenLookup;
use crate::core::test_fixtures::TempDir;
use crate::core::text::tokenizer::TextTokenizer;
use crate::core::text::vocabulary::{Token, Vocabulary};
use ::safetensors::tensor::TensorView;

/// A tensor to write: name, dtype, shape and values (converted to the dtype).
struct Spec {
    name: &'static str,
    dtype: ::safetensors::Dtype,
    shape: Vec<usize>,
    bytes: Vec<u8>,
}

fn tensor(
    name: &'static str,
    dtype: ::safetensors::Dtype,
    shape: &[usize],
    values: &[f32],
) -> Spec {
    let bytes = values
        .iter()
        .flat_map(|&v| match dtype {
            ::safetensors::Dtype::F32 => v.to_le_bytes().to_vec(),
            ::safetensors::Dtype::F16 => half::f16::from_f32(v).to_le_bytes().to_vec(),
            ::safetensors::Dtype::BF16 => half::bf16::from_f32(v).to_le_bytes().to_vec(),
            other => panic!("test helper does not write {other}"),
        })
        .collect();
    Spec {
        name,
        dtype,
        shape: shape.to_vec(),
        bytes,
    }
}

fn f32_tensor(name: &'static str, shape: &[usize], values: &[f32]) -> Spec {
    tensor(name, ::safetensors::Dtype::F32, shape, values)
}

/// `rows × cols` values `start, start + 1, ...` divided by 8 (exact in every dtype).
fn counting(name: &'static str, rows: usize, cols: usize, start: f32) -> Spec {
    #[expect(clippy::cast_precision_loss, reason = "tiny test values")]
    let values: Vec<f32> = (0..rows * cols).map(|i| (start + i as f32) / 8.0).collect();
    f32_tensor(name, &[rows, cols], &values)
}

fn serialize(specs: &[Spec]) -> Vec<u8> {
    let views: Vec<(&str, TensorView<'_>)> = specs
        .iter()
        .map(|s| {
            (
                s.name,
                TensorView::new(s.dtype, s.shape.clone(), &s.bytes).unwrap(),
            )
        })
        .collect();
    ::safetensors::serialize(views, None).unwrap()
}

fn write(path: &Path, specs: &[Spec]) {
    std::fs::write(path, serialize(specs)).unwrap();
}

/// A safetensors file from a hand-written header and data.
fn raw_file(header: &str, data: &[u8]) -> Vec<u8> {
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend(header.as_bytes());
    bytes.extend(data);
    bytes
}

fn open(path: &Path) -> Result<EmbeddingModel> {
    super::open(&FileSource::path(path), &OpenOptions::default()).map(|opened| opened.model)
}

fn open_error(path: &Path) -> String {
    format!("{:#}", open(path).unwrap_err())
}

fn row(model: &EmbeddingModel, id: usize) -> Vec<f32> {
    model.lookup(id).unwrap().to_vec()
}

/// A token read as id `id` at `position`, as `--ids` reads it.
fn id_token(id: usize, position: usize) -> Token {
    Token {
        text: format!("#{id}"),
        span: 0..0,
        position,
        id: Some(id),
        special: false,
        unknown: false,
    }
}

fn lookup_at(model: &EmbeddingModel, id: usize, position: usize) -> TokenLookup {
    model
        .embed(&[id_token(id, position)], PositionScheme::None)
        .remove(0)
}

fn gpt2_specs(token_name: &'static str, position_name: &'static str) -> Vec<Spec> {
    vec![
        counting(token_name, 5, 3, 0.0),
        counting(position_name, 4, 3, 100.0),
    ]
}

fn bert_specs() -> Vec<Spec> {
    vec![
        f32_tensor(
            "bert.embeddings.word_embeddings.weight",
            &[3, 4],
            &[0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, -1.0, 0.5, 0.25, 2.0],
        ),
        f32_tensor(
            "bert.embeddings.position_embeddings.weight",
            &[2, 4],
            &[0.5, 0.5, 0.5, 0.5, 0.0, -1.0, 1.0, 0.0],
        ),
        f32_tensor(
            "bert.embeddings.token_type_embeddings.weight",
            &[2, 4],
            &[0.25, 0.0, -0.25, 1.0, 9.0, 9.0, 9.0, 9.0],
        ),
        f32_tensor(
            "bert.embeddings.LayerNorm.weight",
            &[4],
            &[1.0, 2.0, 0.5, 1.0],
        ),
        f32_tensor(
            "bert.embeddings.LayerNorm.bias",
            &[4],
            &[0.0, 0.1, -0.1, 0.0],
        ),
        f32_tensor("bert.pooler.dense.bias", &[4], &[0.0; 4]),
    ]
}

mod families;
mod files;
