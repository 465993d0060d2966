//! A checkpoint's own first attention layer, read from the same mapped files as its tables.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Result, anyhow};

use super::gguf::layer0::open_gguf_layer0;
use super::ollama::{locate_ollama, ollama_reference};
use super::safetensors::checkpoint::Checkpoint;
use super::safetensors::float_dtype;
use crate::core::analysis::layer0::source::{Settings, TensorShape, TensorSource};
use crate::core::analysis::layer0::{Layer0, Unavailable, load};
use crate::core::files::gguf::is_gguf;
use crate::core::tables::table::{Dtype, Table};

/// Reads layer 0 of the checkpoint at `path` (a folder, a `.safetensors` file or an index, a
/// GGUF file or `ollama:NAME[:TAG]`), or says why it cannot be computed.
///
/// The files are mapped again (only their headers are parsed) and the layer's weights are
/// read in place.
///
/// # Errors
/// When the files cannot be read at all; a model without a usable layer 0 is `Ok(Err(why))`.
pub fn open_layer0(path: &Path) -> Result<Result<Layer0, Unavailable>> {
    if let Some(reference) = ollama_reference(path) {
        return open_gguf_layer0(&locate_ollama(reference)?.blob);
    }
    if path.is_file() && is_gguf(path) {
        return open_gguf_layer0(path);
    }
    let checkpoint = Checkpoint::read(path)?;
    let settings = checkpoint
        .config
        .as_ref()
        .map(|config| Settings::new(config.fields.clone()));
    Ok(load(&CheckpointTensors(&checkpoint), settings.as_ref()))
}

/// The checkpoint's tensors, as layer 0 asks for them.
struct CheckpointTensors<'a>(&'a Checkpoint);

impl TensorSource for CheckpointTensors<'_> {
    fn shape(&self, name: &str) -> Option<TensorShape> {
        let entry = self.0.tensors.get(name)?;
        Some(TensorShape {
            shape: entry.shape.clone(),
            dtype: float_dtype(self.0, entry).ok(),
        })
    }

    fn table(&self, name: &str, rows: usize, cols: usize) -> Result<Table> {
        let entry = self.0.require(name)?;
        let file = self.0.file_of(entry);
        let dtype: Dtype = float_dtype(self.0, entry)?;
        let bytes = Arc::clone(&self.0.shards[entry.shard].bytes);
        Table::mapped(bytes, entry.data_start, dtype, rows, cols)
            .map_err(|error| anyhow!("{}: tensor {name}: {error}", file.display()))
    }

    fn display_name(&self) -> String {
        self.0.display_name()
    }

    fn names(&self) -> Vec<String> {
        self.0.tensors.keys().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/layer0")
            .join(name)
    }

    #[test]
    fn a_folder_with_config_json_has_its_layer_0() {
        let layer = open_layer0(&fixture("llama_gqa_bf16")).unwrap().unwrap();
        assert_eq!(
            (layer.heads(), layer.kv_heads(), layer.head_dims()),
            (4, 2, 8)
        );
        assert!(layer.is_causal());
    }

    #[test]
    fn a_lone_file_says_why_its_heads_are_unknown() {
        let why = open_layer0(&fixture("bert").join("model.safetensors"))
            .unwrap()
            .unwrap_err();
        assert!(why.to_string().contains("without config.json"), "{why}");
    }
}
