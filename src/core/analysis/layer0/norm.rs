//! The normalisation in front of layer 0's attention.
//!
//! Llama-style models use `RMSNorm` (`input_layernorm`), Gemma's with `(1 + weight)`; GPT-2
//! (`ln_1`), Phi and `StableLM` use `LayerNorm`, which [`LayerNorm`] already computes.

use ndarray::{Array1, ArrayView1};

use super::linear::round_to_f32;
use crate::core::tables::block::LayerNorm;

/// Root-mean-square normalisation: `x / sqrt(mean(x²) + eps) * scale`.
#[derive(Clone, Debug, PartialEq)]
pub struct RmsNorm {
    weight: Array1<f32>,
    eps: f64,
    plus_one: bool,
}

impl RmsNorm {
    /// Llama's `RMSNorm`: the scale is `weight`.
    #[must_use]
    pub fn new(weight: Array1<f32>, eps: f64) -> Self {
        Self {
            weight,
            eps,
            plus_one: false,
        }
    }

    /// Gemma's `RMSNorm`: the scale is `1 + weight` (a weight of 0 leaves `x` unscaled).
    #[must_use]
    pub fn gemma(weight: Array1<f32>, eps: f64) -> Self {
        Self {
            weight,
            eps,
            plus_one: true,
        }
    }

    /// How many numbers it normalises.
    #[must_use]
    pub fn width(&self) -> usize {
        self.weight.len()
    }

    /// Normalises one vector. Runs in f64 and rounds each output once to f32; PyTorch runs
    /// in float32, so its last bit can differ.
    #[must_use]
    pub fn apply(&self, x: ArrayView1<f32>) -> Array1<f32> {
        #[expect(clippy::cast_precision_loss, reason = "widths are far below 2^52")]
        let count = x.len() as f64;
        let mean_square = x.iter().map(|&v| f64::from(v).powi(2)).sum::<f64>() / count;
        let inverse_rms = 1.0 / (mean_square + self.eps).sqrt();
        x.iter()
            .zip(&self.weight)
            .map(|(&v, &w)| {
                let scale = if self.plus_one {
                    // Gemma: `1.0 + weight.float()`, a float32 sum.
                    f64::from(1.0 + w)
                } else {
                    f64::from(w)
                };
                // Llama rounds x / rms to the input dtype (float32) before scaling by weight.
                let normalised = round_to_f32(f64::from(v) * inverse_rms);
                round_to_f32(f64::from(normalised) * scale)
            })
            .collect()
    }
}

/// The normalisation a family applies to the hidden state before attention.
#[derive(Clone, Debug, PartialEq)]
pub enum InputNorm {
    /// `RMSNorm` (Llama, Mistral, Qwen2, Gemma).
    Rms(RmsNorm),
    /// `LayerNorm` with weight and bias (GPT-2's `ln_1`, Phi, `StableLM`).
    Layer(LayerNorm),
}

impl InputNorm {
    /// How many numbers it normalises.
    #[must_use]
    pub fn width(&self) -> usize {
        match self {
            Self::Rms(norm) => norm.width(),
            Self::Layer(norm) => norm.width(),
        }
    }

    /// Normalises one vector of the norm's width.
    ///
    /// # Panics
    /// When the vector is not as wide as the norm.
    #[must_use]
    pub fn apply(&self, x: ArrayView1<f32>) -> Array1<f32> {
        match self {
            Self::Rms(norm) => norm.apply(x),
            Self::Layer(norm) => norm
                .apply(x)
                .expect("layer 0 checks the hidden width when it is loaded"),
        }
    }

    /// The formula, for headings.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::Rms(RmsNorm { plus_one: true, .. }) => "RMSNorm with (1 + weight)",
            Self::Rms(_) => "RMSNorm",
            Self::Layer(_) => "LayerNorm",
        }
    }
}

/// Gemma 3's norms of each query and key head (`q_norm`, `k_norm`), applied after the
/// projections and before the rotation.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadNorms {
    /// `q_norm`, as wide as a head.
    pub query: RmsNorm,
    /// `k_norm`, as wide as a head.
    pub key: RmsNorm,
}

impl HeadNorms {
    /// Normalises every head of one or more tokens' queries (`query` true) or keys in place;
    /// `vectors` holds whole heads of the norm's width.
    pub fn apply(&self, vectors: &mut [f32], query: bool) {
        let norm = if query { &self.query } else { &self.key };
        for head in vectors.chunks_exact_mut(norm.width()) {
            let normalised = norm.apply(ndarray::ArrayView1::from(&*head));
            for (out, value) in head.iter_mut().zip(normalised) {
                *out = value;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::arr1;

    #[test]
    fn rms_norm_divides_by_the_root_mean_square() {
        // x = [3, 4]: mean square 12.5, so x / sqrt(12.5) = [0.8485281, 1.1313709].
        let norm = RmsNorm::new(arr1(&[1.0, 2.0]), 0.0);
        let out = norm.apply(arr1(&[3.0f32, 4.0]).view());
        assert!((out[0] - 0.848_528_1).abs() < 1e-6 && (out[1] - 2.262_741_7).abs() < 1e-6);
        let gemma = RmsNorm::gemma(arr1(&[0.0, 1.0]), 0.0);
        let out = gemma.apply(arr1(&[3.0f32, 4.0]).view());
        assert!((out[0] - 0.848_528_1).abs() < 1e-6 && (out[1] - 2.262_741_7).abs() < 1e-6);
        assert_eq!(InputNorm::Rms(gemma).name(), "RMSNorm with (1 + weight)");
    }
}
