//! What a model's embedding block really hands to its first layer.
//!
//! GPT-2 adds a learned position row to the token row; BERT adds a token-type row too and then
//! normalises the sum with `LayerNorm`; Llama-style (rotary) models hand on the token row alone
//! and bring position in later, by rotating queries and keys inside attention (RoPE).

use std::fmt;

use anyhow::{Result, bail};
use ndarray::{Array1, ArrayView1};

/// The family of model a checkpoint belongs to, judged by its tensor names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelFamily {
    /// GPT-2 and its kin: `wte` token table plus `wpe` learned position table.
    Gpt2,
    /// BERT and its kin (`RoBERTa`, `DistilBERT`, ...): token, position and token-type tables, then
    /// `LayerNorm`.
    Bert,
    /// Llama, Mistral, Qwen and kin: a token table only; position is a rotation inside attention.
    Rotary,
    /// Tables chosen by name that match no layout embedlens knows.
    Unknown,
    /// A built-in or `--shape` table generated with PyTorch's seeded initialisation.
    Generated,
}

impl ModelFamily {
    /// A short name for titles and JSON.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Gpt2 => "GPT-2",
            Self::Bert => "BERT",
            Self::Rotary => "rotary (Llama-style)",
            Self::Unknown => "unknown",
            Self::Generated => "generated",
        }
    }
}

impl fmt::Display for ModelFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// PyTorch's `nn.LayerNorm` over the last dimension, with its learned scale and shift.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerNorm {
    weight: Array1<f32>,
    bias: Array1<f32>,
    eps: f32,
}

impl LayerNorm {
    /// A `LayerNorm` with its scale (`weight`, once called `gamma`), shift (`bias`, once `beta`)
    /// and the small number added to the variance.
    ///
    /// # Errors
    /// When the scale and shift differ in width or are empty.
    pub fn new(weight: Array1<f32>, bias: Array1<f32>, eps: f32) -> Result<Self> {
        if weight.len() != bias.len() {
            bail!(
                "a LayerNorm's weight has {} numbers but its bias has {}",
                weight.len(),
                bias.len()
            );
        }
        if weight.is_empty() {
            bail!("a LayerNorm needs at least one number");
        }
        Ok(Self { weight, bias, eps })
    }

    /// The learned scale, one number per dimension.
    #[must_use]
    pub fn weight(&self) -> &Array1<f32> {
        &self.weight
    }

    /// The learned shift, one number per dimension.
    #[must_use]
    pub fn bias(&self) -> &Array1<f32> {
        &self.bias
    }

    /// Added to the variance before the square root, so a constant vector does not divide by 0.
    #[must_use]
    pub fn eps(&self) -> f32 {
        self.eps
    }

    /// How many numbers the `LayerNorm` expects.
    #[must_use]
    pub fn width(&self) -> usize {
        self.weight.len()
    }

    /// `(x - mean) / sqrt(var + eps) * weight + bias`, with the mean and the biased variance
    /// (divided by n, not n - 1) taken over the whole vector, as PyTorch does.
    ///
    /// Every step runs in f64 and each output is rounded once to f32. PyTorch's CPU kernel
    /// works in f32 with a vectorised Welford pass, so its last bit can differ from ours;
    /// the f64 route is the nearest f32 to the exact answer, which is within an ulp or so of
    /// PyTorch's. `None` when `x` is not as wide as the `LayerNorm`.
    #[must_use]
    pub fn apply(&self, x: ArrayView1<f32>) -> Option<Array1<f32>> {
        if x.len() != self.width() {
            return None;
        }
        #[expect(clippy::cast_precision_loss, reason = "widths are far below 2^52")]
        let count = x.len() as f64;
        let mean = x.iter().map(|&v| f64::from(v)).sum::<f64>() / count;
        let variance = x
            .iter()
            .map(|&v| (f64::from(v) - mean).powi(2))
            .sum::<f64>()
            / count;
        let inverse_std = 1.0 / (variance + f64::from(self.eps)).sqrt();
        Some(
            x.iter()
                .zip(self.weight.iter().zip(self.bias.iter()))
                .map(|(&v, (&w, &b))| {
                    let normalised = (f64::from(v) - mean) * inverse_std;
                    #[expect(
                        clippy::cast_possible_truncation,
                        reason = "rounded once to f32, the dtype PyTorch returns"
                    )]
                    let out = (normalised * f64::from(w) + f64::from(b)) as f32;
                    out
                })
                .collect(),
        )
    }
}

/// What the model's embedding block outputs for a token, the vector its first layer receives.
#[derive(Clone, Debug, PartialEq)]
pub enum EmbeddingBlock {
    /// Token row plus learned position row: GPT-2 and the built-in tables.
    Sum,
    /// BERT: `LayerNorm((token row + token-type row) + position row)`.
    Bert {
        /// Row 0 of `token_type_embeddings` (every token in "sentence A"); zeros for models
        /// without token types, such as `DistilBERT`, which add nothing.
        token_type_row: Array1<f32>,
        /// The embeddings' `LayerNorm`.
        norm: LayerNorm,
    },
    /// Rotary models: the block outputs the token row; position enters inside attention.
    TokenOnly,
    /// Gemma: the token row times √width, both rounded to the precision the model computes in
    /// (`normalizer = torch.tensor(hidden_size ** 0.5, dtype=hidden_states.dtype)`); position
    /// enters inside attention.
    ScaledToken {
        /// √width, rounded to `precision`.
        scale: f32,
        /// The precision each product is rounded to.
        precision: Precision,
    },
}

/// A floating-point precision a model computes in, for rounding an f32 result to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// IEEE single precision.
    F32,
    /// IEEE half precision.
    F16,
    /// bfloat16.
    BF16,
}

impl Precision {
    /// `x` rounded to this precision (to nearest, ties to even), widened back to f32.
    #[must_use]
    pub fn round(self, x: f64) -> f32 {
        match self {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "rounding to f32 is the point"
            )]
            Self::F32 => x as f32,
            Self::F16 => half::f16::from_f64(x).to_f32(),
            Self::BF16 => half::bf16::from_f64(x).to_f32(),
        }
    }

    /// Its name as PyTorch prints a dtype.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::F32 => "float32",
            Self::F16 => "float16",
            Self::BF16 => "bfloat16",
        }
    }
}

impl EmbeddingBlock {
    /// Gemma's block for a table `width` wide whose model computes in `precision`.
    #[must_use]
    pub fn gemma(width: usize, precision: Precision) -> Self {
        #[expect(clippy::cast_precision_loss, reason = "widths are far below 2^52")]
        let scale = precision.round((width as f64).sqrt());
        Self::ScaledToken { scale, precision }
    }
}

impl EmbeddingBlock {
    /// The block's output for one token, given its token row and the model's own learned
    /// position row at its position.
    ///
    /// The additions run in the order the Hugging Face modules write them, so each f32 sum
    /// rounds as PyTorch's does. `None` when a needed position row is missing or the widths
    /// disagree.
    #[must_use]
    pub fn output(
        &self,
        token_vector: &Array1<f32>,
        learned_position: Option<&Array1<f32>>,
    ) -> Option<Array1<f32>> {
        let same_width = |other: &Array1<f32>| other.len() == token_vector.len();
        match self {
            Self::TokenOnly => Some(token_vector.clone()),
            // The product of two numbers of at most 24 significant bits is exact in f64, so
            // one rounding to the model's precision gives the bits PyTorch's multiply gives.
            Self::ScaledToken { scale, precision } => {
                Some(token_vector.mapv(|v| precision.round(f64::from(v) * f64::from(*scale))))
            }
            Self::Sum => {
                let position = learned_position.filter(|p| same_width(p))?;
                Some(token_vector + position)
            }
            Self::Bert {
                token_type_row,
                norm,
            } => {
                let position = learned_position.filter(|p| same_width(p))?;
                if !same_width(token_type_row) {
                    return None;
                }
                // BertEmbeddings: inputs_embeds + token_type_embeddings, then += position_embeddings.
                let sum = &(token_vector + token_type_row) + position;
                norm.apply(sum.view())
            }
        }
    }

    /// The block as a formula, for headings.
    #[must_use]
    pub fn formula(&self) -> String {
        match self {
            Self::Sum => "token + position".to_owned(),
            Self::Bert { .. } => "LayerNorm(token + token type + position)".to_owned(),
            Self::TokenOnly => "token (position is applied inside attention)".to_owned(),
            Self::ScaledToken { scale, precision } => format!(
                "token × {scale} (Gemma's √width in {}; position is applied inside attention)",
                precision.name()
            ),
        }
    }

    /// Whether the block reads a learned position row.
    #[must_use]
    pub fn uses_position_row(&self) -> bool {
        !matches!(self, Self::TokenOnly | Self::ScaledToken { .. })
    }
}

/// A sentence about NaN or infinite numbers in a vector, or `None` when every number is finite.
#[must_use]
pub fn non_finite_summary(values: ArrayView1<f32>) -> Option<String> {
    let nan = values.iter().filter(|v| v.is_nan()).count();
    let infinite = values.iter().filter(|v| v.is_infinite()).count();
    let count = |n: usize, what: &str| match n {
        0 => None,
        1 => Some(format!("1 {what} value")),
        n => Some(format!("{n} {what} values")),
    };
    let parts: Vec<String> = [count(nan, "NaN"), count(infinite, "infinite")]
        .into_iter()
        .flatten()
        .collect();
    (!parts.is_empty()).then(|| parts.join(" and "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::arr1;

    fn close(got: &Array1<f32>, want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!((f64::from(*g) - w).abs() < 1e-6, "{got} vs {want:?}");
        }
    }

    #[test]
    fn layer_norm_matches_a_hand_computation() {
        // x = [1, 2, 3, 4]: mean 2.5, biased variance 1.25, eps 1e-5.
        // (x - 2.5) / sqrt(1.25001) = [-1.3416354, -0.4472118, 0.4472118, 1.3416354].
        let norm = LayerNorm::new(
            arr1(&[1.0, 1.0, 2.0, 0.5]),
            arr1(&[0.0, 0.5, 0.0, -1.0]),
            1e-5,
        )
        .unwrap();
        let out = norm.apply(arr1(&[1.0f32, 2.0, 3.0, 4.0]).view()).unwrap();
        close(
            &out,
            &[-1.341_635_4, 0.052_788_2, 0.894_423_6, -0.329_182_3],
        );
        assert_eq!(norm.apply(arr1(&[1.0f32]).view()), None);
    }

    #[test]
    fn layer_norm_of_a_constant_vector_is_its_bias() {
        let norm = LayerNorm::new(arr1(&[3.0, 3.0]), arr1(&[0.25, -0.5]), 1e-12).unwrap();
        assert_eq!(
            norm.apply(arr1(&[7.0f32, 7.0]).view()).unwrap().to_vec(),
            [0.25, -0.5]
        );
    }

    #[test]
    fn layer_norm_rejects_mismatched_parts() {
        assert!(LayerNorm::new(arr1(&[1.0]), arr1(&[1.0, 2.0]), 1e-12).is_err());
        assert!(LayerNorm::new(arr1(&[]), arr1(&[]), 1e-12).is_err());
    }

    #[test]
    fn each_block_outputs_what_its_model_does() {
        let token = arr1(&[1.0f32, 2.0]);
        let position = arr1(&[0.5f32, -1.0]);
        assert_eq!(
            EmbeddingBlock::Sum.output(&token, Some(&position)),
            Some(arr1(&[1.5, 1.0]))
        );
        assert_eq!(EmbeddingBlock::Sum.output(&token, None), None);
        assert_eq!(
            EmbeddingBlock::Sum.output(&token, Some(&arr1(&[1.0]))),
            None
        );
        assert_eq!(
            EmbeddingBlock::TokenOnly.output(&token, None),
            Some(token.clone())
        );
        let bert = EmbeddingBlock::Bert {
            token_type_row: arr1(&[0.25, 0.0]),
            norm: LayerNorm::new(arr1(&[1.0, 1.0]), arr1(&[0.0, 0.0]), 1e-12).unwrap(),
        };
        // Sum [1.75, 1.0]: mean 1.375, variance 0.140625, so ±0.375 / sqrt(0.140625 + 1e-12).
        close(
            &bert.output(&token, Some(&position)).unwrap(),
            &[0.999_999_999_996, -0.999_999_999_996],
        );
        assert_eq!(bert.output(&token, None), None);
        assert!(bert.uses_position_row() && !EmbeddingBlock::TokenOnly.uses_position_row());
    }

    #[test]
    fn non_finite_numbers_are_counted() {
        assert_eq!(non_finite_summary(arr1(&[1.0f32, 2.0]).view()), None);
        assert_eq!(
            non_finite_summary(arr1(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY]).view())
                .as_deref(),
            Some("1 NaN value and 2 infinite values")
        );
    }
}
