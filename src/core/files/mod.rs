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
//! the tokenizer, and [`inspect`] lists what a file holds. [`open`] and [`inspect()`] are the
//! ways in: each finds and reads a model's files once, and [`open`] builds both the model and
//! its layer 0 from what it read.

pub mod access;
mod build;
mod detect;
pub mod gguf;
pub mod hub_cache;
mod inspect;
mod locate;
mod ollama;
mod other_formats;
mod safetensors;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;

use crate::core::analysis::layer0::{Layer0, Unavailable};
use crate::core::tables::weights::EmbeddingModel;
use gguf::GgufFile;
use hub_cache::{CacheEnv, resolve_model_path};
use ollama::{locate_ollama, ollama_reference};
use safetensors::checkpoint::Checkpoint;

pub use detect::{LearnedOrigin, NoPositions, PositionSource, padding_position_offset};
pub use inspect::{Inspection, TensorSummary};

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

/// A model as the user names it: a folder (`model.safetensors` or shards named by
/// `model.safetensors.index.json`, with `tokenizer.json` and `config.json` when present), a
/// single `.safetensors` file, a `*.safetensors.index.json`, a GGUF file (told by its first
/// bytes, whatever its name), `ollama:NAME[:TAG]` (a model Ollama has pulled), or `ORG/NAME`
/// in the Hugging Face cache when no such path exists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileSource {
    /// What the user named.
    pub name: PathBuf,
    /// The revision of an `ORG/NAME` model in the cache (`main` when not given).
    pub revision: Option<String>,
    /// The environment that says where the Hugging Face cache is.
    pub cache: CacheEnv,
}

impl FileSource {
    /// A model named by its path, with no revision and no cache to look in.
    #[must_use]
    pub fn path(name: impl Into<PathBuf>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }
}

/// A model opened from its files: its tables and tokenizer, and its own first attention layer
/// read from the same mapped files, or why that cannot be computed.
pub struct Opened {
    /// What the name stands for: the path given, or an `ORG/NAME`'s snapshot folder.
    pub path: PathBuf,
    /// The embedding tables and the tokenizer.
    pub model: EmbeddingModel,
    /// The model's own layer 0, or why it has none that embedlens computes.
    pub layer0: Result<Layer0, Unavailable>,
}

/// A model's files, found and read once: its headers parsed, its tensors mapped.
enum ModelFiles {
    /// A GGUF file, also an Ollama model's blob: the label to title it and, when it was not
    /// named by its path, where it was found.
    Gguf {
        file: Arc<GgufFile>,
        label: String,
        found: Option<String>,
    },
    /// A safetensors checkpoint: its files by path, and its config.
    Safetensors(Checkpoint),
}

impl ModelFiles {
    /// Reads the files `path` stands for, deciding the format once.
    fn read(path: &Path) -> Result<Self> {
        if let Some(reference) = ollama_reference(path) {
            let found = locate_ollama(reference)?;
            return Ok(Self::Gguf {
                file: Arc::new(GgufFile::open(&found.blob)?),
                label: found.label,
                found: Some(found.note),
            });
        }
        // A file named .gguf is read as GGUF even without the magic, so that an empty or
        // damaged one is told what is wrong with it as GGUF.
        let named_gguf = path
            .extension()
            .is_some_and(|extension| extension.eq_ignore_ascii_case("gguf"));
        if path.is_file() && (named_gguf || gguf::is_gguf(path)) {
            return Ok(Self::Gguf {
                file: Arc::new(GgufFile::open(path)?),
                label: gguf::model::gguf_label(path),
                found: None,
            });
        }
        Ok(Self::Safetensors(Checkpoint::read(path)?))
    }
}

/// Opens a model: finds its files (in the Hugging Face cache for `ORG/NAME`, in Ollama's
/// models folder for `ollama:NAME`), reads them once, and builds from what was read both the
/// model and its layer 0.
///
/// The files are memory-mapped and only their headers are parsed, so opening does not depend
/// on their size. The embedding tables are found by the names GPT-2, BERT and Llama-style
/// checkpoints use; [`EmbeddingModel::detection`] says what was found and why.
///
/// # Errors
/// When `ORG/NAME` is not in the cache, a file is missing, truncated or corrupt, a table is not
/// a two-dimensional f32, f16 or bf16 tensor (or, in GGUF, one of the quantized types
/// embedlens dequantizes), an Ollama model is not in Ollama's models folder, the tables
/// disagree in width, the tokenizer's ids outrun the table, or `config.json` is malformed.
/// Every message names the file. A model without a usable layer 0 opens, and says why.
pub fn open(source: &FileSource, options: &OpenOptions) -> Result<Opened> {
    let path = resolve_model_path(&source.name, source.revision.as_deref(), &source.cache)?;
    let (model, layer0) = match ModelFiles::read(&path)? {
        ModelFiles::Gguf { file, label, found } => (
            gguf::model::open_gguf(&file, label, found, options)?,
            gguf::layer0::gguf_layer0(&file),
        ),
        ModelFiles::Safetensors(checkpoint) => (
            safetensors::model::checkpoint_model(&path, &checkpoint, options)?,
            safetensors::layer0::checkpoint_layer0(&checkpoint),
        ),
    };
    Ok(Opened {
        path,
        model,
        layer0,
    })
}

/// Lists every tensor of a model's files (name, dtype, shape, file) and what opening them
/// would find; a GGUF file (or `ollama:NAME[:TAG]`) also lists its metadata.
///
/// A checkpoint without a usable embedding table still lists; the detection says why not.
///
/// # Errors
/// When `ORG/NAME` is not in the cache, a file is missing, truncated or corrupt, or
/// `config.json` is malformed.
pub fn inspect(source: &FileSource) -> Result<Inspection> {
    let path = resolve_model_path(&source.name, source.revision.as_deref(), &source.cache)?;
    Ok(match ModelFiles::read(&path)? {
        ModelFiles::Gguf { file, found, .. } => gguf::model::inspect_gguf(&file, &path, found),
        ModelFiles::Safetensors(checkpoint) => inspect::inspect_checkpoint(&path, &checkpoint),
    })
}
