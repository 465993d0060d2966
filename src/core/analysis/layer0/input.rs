//! What layer 0's attention receives: each family's embedding block and input norm.

use ndarray::{Array1, Array2};

use super::norm::InputNorm;
use crate::core::tables::block::LayerNorm;
use crate::core::tables::table::Table;

/// A family's path from token ids to the vectors the query, key and value layers read.
#[derive(Clone, Debug)]
pub enum InputStage {
    /// BERT: `LayerNorm((token + token type 0) + position)`; the attention reads it as is.
    Bert {
        /// `word_embeddings`.
        token: Table,
        /// `position_embeddings`.
        position: Table,
        /// The row position 0 reads (`RoBERTa` counts from `pad_token_id + 1`).
        position_offset: usize,
        /// Row 0 of `token_type_embeddings`, or zeros.
        token_type: Array1<f32>,
        /// The embeddings' `LayerNorm`.
        norm: LayerNorm,
    },
    /// GPT-2: `ln_1(token + position)`.
    Gpt2 {
        /// `wte`.
        token: Table,
        /// `wpe`.
        position: Table,
        /// `ln_1`.
        norm: LayerNorm,
    },
    /// Llama-style: `input_layernorm(token × multiplier)`; position enters later, as RoPE.
    Rotary {
        /// `embed_tokens`.
        token: Table,
        /// Gemma's `√hidden` in float32; `None` for the others.
        multiplier: Option<f32>,
        /// `input_layernorm`.
        norm: InputNorm,
    },
}

impl InputStage {
    /// The token table.
    #[must_use]
    pub fn token_table(&self) -> &Table {
        match self {
            Self::Bert { token, .. } | Self::Gpt2 { token, .. } | Self::Rotary { token, .. } => {
                token
            }
        }
    }

    /// The learned position table, for the families that add one.
    #[must_use]
    pub fn position_table(&self) -> Option<(&Table, usize)> {
        match self {
            Self::Bert {
                position,
                position_offset,
                ..
            } => Some((position, *position_offset)),
            Self::Gpt2 { position, .. } => Some((position, 0)),
            Self::Rotary { .. } => None,
        }
    }

    /// The vectors the attention reads, one row per token (`tokens × hidden`), with or
    /// without the learned position rows. The additions run in the order the Hugging Face
    /// modules write them, in float32, so each sum rounds as PyTorch's does.
    ///
    /// `None` when an id or a position has no row.
    #[must_use]
    pub fn vectors(&self, ids: &[usize], with_positions: bool) -> Option<Array2<f32>> {
        let hidden = self.token_table().cols();
        let mut rows = Array2::zeros((ids.len(), hidden));
        for (index, (&id, mut out)) in ids.iter().zip(rows.rows_mut()).enumerate() {
            let token = self.token_table().row(id)?;
            let position_row = match self.position_table() {
                Some((table, offset)) if with_positions => Some(table.row(index + offset)?),
                _ => None,
            };
            let vector = match self {
                Self::Bert {
                    token_type, norm, ..
                } => {
                    let mut sum = &token + token_type;
                    if let Some(position) = position_row {
                        sum += &position;
                    }
                    norm.apply(sum.view())?
                }
                Self::Gpt2 { norm, .. } => {
                    let sum = match position_row {
                        Some(position) => &token + &position,
                        None => token,
                    };
                    norm.apply(sum.view())?
                }
                Self::Rotary {
                    multiplier, norm, ..
                } => {
                    let scaled = match multiplier {
                        Some(factor) => token.mapv(|x| x * factor),
                        None => token,
                    };
                    norm.apply(scaled.view())
                }
            };
            out.assign(&vector);
        }
        Some(rows)
    }
}
