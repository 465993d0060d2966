//! Which model to build: the one decision the command line and the explorer share.

use std::path::PathBuf;

use anyhow::Result;

use crate::core::files::{OpenOptions, open_model};
use crate::core::tables::weights::EmbeddingModel;
use crate::core::text::vocabulary::VocabKind;

/// A model by where it comes from, before it is built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSource {
    /// A built-in vocabulary with generated (or, for `gpt2`, generated in the background) tables.
    Builtin(VocabKind),
    /// An unnamed table of a given shape, read by id.
    Shaped {
        /// How many rows (token ids).
        rows: usize,
        /// How many dimensions.
        dims: usize,
        /// How many rows its learned position table has.
        context_length: usize,
    },
    /// A model opened from files (see [`open_model`]).
    File {
        /// What the user named: a file or a folder.
        path: PathBuf,
        /// Overrides of what the files would give.
        options: OpenOptions,
    },
}

impl ModelSource {
    /// Builds the model: generates a built-in or shaped table with `seed` (the built-in `gpt2`
    /// one `gpt2_dims` wide), or opens the files.
    ///
    /// # Errors
    /// When a shape is empty or too large, or a model file cannot be read; the message names
    /// the problem.
    pub fn build(&self, seed: u64, gpt2_dims: usize) -> Result<EmbeddingModel> {
        match self {
            Self::Builtin(VocabKind::Gpt2) => Ok(EmbeddingModel::gpt2(seed, gpt2_dims)),
            Self::Builtin(kind) => Ok(EmbeddingModel::builtin(*kind, seed)),
            Self::Shaped {
                rows,
                dims,
                context_length,
            } => EmbeddingModel::shaped(*rows, *dims, *context_length, seed),
            Self::File { path, options } => open_model(path, options),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tables::weights::DEFAULT_SEED;

    #[test]
    fn each_source_builds_its_model() {
        let seed = ModelSource::Builtin(VocabKind::Seed)
            .build(DEFAULT_SEED, 4)
            .unwrap();
        assert_eq!((seed.rows(), seed.dims()), (6, 3));
        let gpt2 = ModelSource::Builtin(VocabKind::Gpt2)
            .build(DEFAULT_SEED, 4)
            .unwrap();
        assert_eq!(gpt2.dims(), 4);
        let shaped = ModelSource::Shaped {
            rows: 7,
            dims: 2,
            context_length: 5,
        }
        .build(1, 4)
        .unwrap();
        assert_eq!((shaped.rows(), shaped.dims()), (7, 2));
        let missing = ModelSource::File {
            path: PathBuf::from("/no/such/model"),
            options: OpenOptions::default(),
        }
        .build(1, 4)
        .unwrap_err();
        assert!(missing.to_string().contains("/no/such/model"));
    }
}
