//! Which built-in model to build: the one decision the command line and the explorer share.
//! A model from files is opened by [`crate::core::files::open`] instead.

use anyhow::Result;

use crate::core::tables::weights::EmbeddingModel;
use crate::core::text::vocabulary::VocabKind;

/// A model generated (or, for `trained`, embedded) rather than read from files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSource {
    /// A built-in vocabulary with generated (or, for `gpt2`, generated in the background)
    /// tables, drawn with `seed`; the built-in `gpt2` one is `gpt2_dims` wide.
    Builtin {
        /// Which vocabulary.
        kind: VocabKind,
        /// The seed of the PyTorch-compatible generator.
        seed: u64,
        /// The width of the built-in `gpt2` tables.
        gpt2_dims: usize,
    },
    /// An unnamed table of a given shape, read by id.
    Shaped {
        /// How many rows (token ids).
        rows: usize,
        /// How many dimensions.
        dims: usize,
        /// How many rows its learned position table has.
        context_length: usize,
        /// The seed of the PyTorch-compatible generator.
        seed: u64,
    },
}

impl ModelSource {
    /// Builds the model: generates a built-in or shaped table.
    ///
    /// # Errors
    /// When a shape is empty or too large; the message names the problem.
    pub fn build(&self) -> Result<EmbeddingModel> {
        match *self {
            Self::Builtin {
                kind: VocabKind::Gpt2,
                seed,
                gpt2_dims,
            } => Ok(EmbeddingModel::gpt2(seed, gpt2_dims)),
            Self::Builtin { kind, seed, .. } => Ok(EmbeddingModel::builtin(kind, seed)),
            Self::Shaped {
                rows,
                dims,
                context_length,
                seed,
            } => EmbeddingModel::shaped(rows, dims, context_length, seed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tables::weights::DEFAULT_SEED;

    #[test]
    fn each_source_builds_its_model() {
        let builtin = |kind| ModelSource::Builtin {
            kind,
            seed: DEFAULT_SEED,
            gpt2_dims: 4,
        };
        let seed = builtin(VocabKind::Seed).build().unwrap();
        assert_eq!((seed.rows(), seed.dims()), (6, 3));
        let gpt2 = builtin(VocabKind::Gpt2).build().unwrap();
        assert_eq!(gpt2.dims(), 4);
        let shaped = ModelSource::Shaped {
            rows: 7,
            dims: 2,
            context_length: 5,
            seed: 1,
        }
        .build()
        .unwrap();
        assert_eq!((shaped.rows(), shaped.dims()), (7, 2));
    }
}
