//! A checkpoint's own first attention layer, read from the same mapped files as its tables.

use std::sync::Arc;

use anyhow::{Result, anyhow};

use super::checkpoint::{Checkpoint, float_dtype};
use crate::core::analysis::layer0::source::{TensorShape, TensorSource};
use crate::core::analysis::layer0::{Layer0, Unavailable, load};
use crate::core::tables::table::{Dtype, Table};

/// Reads layer 0 of an opened checkpoint, or says why it cannot be computed: its weights are
/// read in place from the shards already mapped for its tables.
pub(in crate::core::files) fn checkpoint_layer0(
    checkpoint: &Checkpoint,
) -> Result<Layer0, Unavailable> {
    let settings = checkpoint
        .config
        .as_ref()
        .map(|config| config.settings.clone());
    load(&CheckpointTensors(checkpoint), settings.as_ref())
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
    use std::path::Path;

    use crate::core::files::{FileSource, OpenOptions, open};

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/layer0")
            .join(name)
    }

    #[test]
    fn a_folder_with_config_json_has_its_layer_0() {
        let opened = open(
            &FileSource::path(fixture("llama_gqa_bf16")),
            &OpenOptions::default(),
        )
        .unwrap();
        let layer = opened.layer0.unwrap();
        assert_eq!(
            (layer.heads(), layer.kv_heads(), layer.head_dims()),
            (4, 2, 8)
        );
        assert!(layer.is_causal());
    }

    #[test]
    fn a_lone_file_says_why_its_heads_are_unknown() {
        let opened = open(
            &FileSource::path(fixture("bert").join("model.safetensors")),
            &OpenOptions::default(),
        )
        .unwrap();
        let why = opened.layer0.unwrap_err();
        assert!(why.to_string().contains("without config.json"), "{why}");
    }
}
