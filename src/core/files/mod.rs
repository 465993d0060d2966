//! Reading models from disk: safetensors checkpoints and GGUF files, memory-mapped, read by
//! the names real models give their embedding tables.
//!
//! Only the header of each file is parsed at open; the tables are mapped in place and a row is
//! read when it is looked at, so opening costs the same for a 500 kB toy and a 30 GB model.
//!
//! One folder a format: [`safetensors`] maps a file, reads its header and holds a checkpoint's
//! tensors with its config; [`gguf`] reads a GGUF file's header, metadata, tensors and
//! tokenizer, decides its tables, and reads its first attention layer under the names and
//! settings of the checkpoint it was converted from. Beside them: [`access`] opens the files a
//! user names, [`locate`] finds the files a path stands for, [`hub_cache`] finds `ORG/NAME` in
//! the Hugging Face cache, [`ollama`] finds the GGUF blob of a model Ollama has pulled,
//! [`other_formats`] names files of other formats, [`detect`] decides which tensors are the
//! embedding tables (as values, turned into sentences last), [`build`] reads those tables and
//! the tokenizer, [`inspect`] lists what a file holds, [`layer0`] reads a checkpoint's first
//! attention layer, and [`source`] says which model to build.

pub mod access;
mod build;
mod detect;
pub mod gguf;
pub mod hub_cache;
mod inspect;
mod layer0;
mod locate;
mod ollama;
mod other_formats;
mod safetensors;
pub mod source;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::core::files::gguf::is_gguf;
use crate::core::tables::weights::{EmbeddingModel, Provenance};
use build::{load_tokenizer, read_tables};
use detect::detect;
use gguf::model::{gguf_label, open_gguf};
use hub_cache::CachedSnapshot;
use locate::label_of;
use ollama::{locate_ollama, ollama_reference};
use safetensors::checkpoint::Checkpoint;

pub use detect::{LearnedOrigin, NoPositions, PositionSource, padding_position_offset};
pub use inspect::{Inspection, TensorSummary, inspect};
pub use layer0::open_layer0;

/// BERT's `LayerNorm` eps when `config.json` does not give `layer_norm_eps`.
pub const DEFAULT_LAYER_NORM_EPS: f32 = 1e-12;

/// Choices that override what the folder would give.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpenOptions {
    /// A `tokenizer.json` to use instead of the folder's own.
    pub tokenizer: Option<PathBuf>,
    /// The token table's tensor name, instead of the detected one.
    pub token_tensor: Option<String>,
    /// The learned position table's tensor name, instead of the detected one.
    pub position_tensor: Option<String>,
}

/// Opens a checkpoint: a folder (`model.safetensors` or shards named by
/// `model.safetensors.index.json`, with `tokenizer.json` and `config.json` when present), a
/// single `.safetensors` file, a `*.safetensors.index.json`, a GGUF file (told by its first
/// bytes, whatever its name), or `ollama:NAME[:TAG]`, a model Ollama has pulled.
///
/// The files are memory-mapped and only their headers are parsed, so opening does not depend
/// on their size. The embedding tables are found by the names GPT-2, BERT and Llama-style
/// checkpoints use; [`EmbeddingModel::detection`] says what was found and why.
///
/// # Errors
/// When a file is missing, truncated or corrupt, a table is not a two-dimensional f32, f16 or
/// bf16 tensor (or, in GGUF, one of the quantized types embedlens dequantizes), an Ollama
/// model is not in Ollama's models folder, the tables disagree in width, the tokenizer's ids outrun the table, or
/// `config.json` is malformed. Every message names the file.
pub fn open_model(path: &Path, options: &OpenOptions) -> Result<EmbeddingModel> {
    if let Some(reference) = ollama_reference(path) {
        let found = locate_ollama(reference)?;
        return open_gguf(&found.blob, found.label, Some(found.note), options);
    }
    if path.is_file() && is_gguf(path) {
        return open_gguf(path, gguf_label(path), None, options);
    }
    let checkpoint = Checkpoint::read(path)?;
    let detected = detect(&checkpoint, options)?;
    let tables = read_tables(&checkpoint, &detected)?;
    let tokenizer = load_tokenizer(&checkpoint, options, &tables.token, &detected.token)?;

    let mut detection: Vec<String> = CachedSnapshot::of(path)
        .map(|snapshot| snapshot.sentence())
        .into_iter()
        .collect();
    detection.push(checkpoint.note.clone());
    detection.extend(detected.sentences());
    detection.extend(tables.sentences);
    detection.push(tokenizer.sentence);
    let mut warnings = checkpoint.warnings.clone();
    warnings.extend(detected.warnings());
    warnings.extend(tokenizer.warning);

    let provenance = Provenance {
        family: detected.family,
        block: tables.block,
        detection,
        warnings,
        source: Some(path.to_owned()),
        position_offset: detected.position_offset,
        padding_id: detected.padding_id,
    };
    Ok(EmbeddingModel::new(
        label_of(path),
        tokenizer.tokenizer,
        tables.token,
        tables.position,
    )
    .with_provenance(provenance))
}
