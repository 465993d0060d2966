//! Where a model's tables came from: trained or drawn, and what its files said about them.

use std::path::PathBuf;

use crate::core::tables::block::{EmbeddingBlock, ModelFamily};

/// Where a table's numbers came from: training, or a seeded random draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TableKind {
    /// Drawn by PyTorch's seeded initialisation, as before any training: which rows lie near
    /// each other is chance, so nearest neighbours say nothing about meaning.
    Random {
        /// The `torch.manual_seed` the table was drawn with.
        seed: u64,
    },
    /// Learned by training: the built-in trained vocabulary, or a checkpoint's own table.
    Trained,
}

impl TableKind {
    /// Whether the numbers were learned by training.
    #[must_use]
    pub fn is_trained(self) -> bool {
        self == Self::Trained
    }

    /// The kind in a few words, for a border beside its similarities.
    #[must_use]
    pub fn short_note(self) -> &'static str {
        match self {
            Self::Random { .. } => "untrained random table: nearness is chance",
            Self::Trained => "trained table",
        }
    }

    /// Its position table, as a noun phrase: a seeded table was never trained, so it is a
    /// learnable table, not a learned one.
    #[must_use]
    pub fn position_table(self) -> &'static str {
        match self {
            Self::Random { .. } => "learnable position table, here randomly initialised",
            Self::Trained => "learned position table",
        }
    }

    /// What its nearest rows mean, in a sentence.
    #[must_use]
    pub fn nearest_rows_note(self) -> &'static str {
        match self {
            Self::Random { .. } => {
                "This is an untrained, randomly initialised table: its nearest rows are noise, \
                 not related words."
            }
            Self::Trained => {
                "This is a trained table: training moved words used alike near each other, so its \
                 nearest rows tend to be related words."
            }
        }
    }
}

/// Where a model came from and what its file says about its embedding block.
#[derive(Clone, Debug, PartialEq)]
pub struct Provenance {
    /// The family its tensor names belong to.
    pub family: ModelFamily,
    /// What its embedding block outputs.
    pub block: EmbeddingBlock,
    /// Sentences saying what was found and why it was read that way.
    pub detection: Vec<String>,
    /// Sentences about anything the learner should not take at face value.
    pub warnings: Vec<String>,
    /// The file or folder it was opened from.
    pub source: Option<PathBuf>,
    /// Which learned position row the model itself reads for position 0 (`RoBERTa` starts at
    /// `pad_token_id + 1`, so 2; everything else at 0).
    pub position_offset: usize,
    /// The padding id the model counts positions from, when it does (`RoBERTa` and kin, as
    /// transformers' `create_position_ids_from_input_ids`): a padding token is not counted and
    /// reads row `padding_id`; the n-th other token reads row `padding_id + n`.
    pub padding_id: Option<usize>,
    /// The model's own name for its kind, `config.json`'s `model_type` (`mpnet`, `roberta`),
    /// when it gives one: the family a learner would look up.
    pub model_type: Option<String>,
    /// Whether it was read from a GGUF file (`transformers` reads one with `gguf_file=`).
    pub gguf: bool,
}

impl Default for Provenance {
    /// A generated table: token + learned position, nothing detected, no file.
    fn default() -> Self {
        Self {
            family: ModelFamily::Generated,
            block: EmbeddingBlock::Sum,
            detection: Vec::new(),
            warnings: Vec::new(),
            source: None,
            position_offset: 0,
            padding_id: None,
            model_type: None,
            gguf: false,
        }
    }
}
