//! Rotary position embedding as Hugging Face's Llama code applies it ("rotate half").
//!
//! Dimension `k` of the rotated part pairs with `k + half` (not `2k` with `2k + 1`, the
//! `RoFormer` layout that [`crate::core::tables::positional::rope_rotate`] shows), and the angles are
//! computed in float32 as `transformers` computes them, so a rotated query has PyTorch's bits
//! up to the last bit of `sin` and `cos`.
//!
//! A GGUF file converted from a Llama checkpoint stores each head's query and key rows
//! interleaved (llama.cpp's converter moves row `k + half` beside row `k`), so there the same
//! pairs sit side by side: [`Pairs::Adjacent`] turns them with the same angles, giving the
//! same rotated numbers in another order, which no query·key product can tell apart.

use anyhow::{Result, bail};

use super::linear::round_to_f32;

/// Which numbers of a head turn together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pairs {
    /// Dimension `k` with `k + half`, as Hugging Face's checkpoints lay out a head.
    #[default]
    Halves,
    /// Dimension `2k` with `2k + 1`: the same pairs in a head whose rows llama.cpp's
    /// converter interleaved.
    Adjacent,
}

/// The rotation a model applies to each query and key head.
#[derive(Clone, Debug, PartialEq)]
pub struct Rope {
    /// `rope_theta`: the base of the angles.
    theta: f64,
    /// Which numbers of a head turn together.
    pairs: Pairs,
    /// How many leading dimensions of a head rotate (all of them unless the config says
    /// `partial_rotary_factor`); always even.
    rotary_dims: usize,
    /// One angle per pair of rotated dimensions, per unit of position.
    inverse_frequencies: Vec<f32>,
}

/// `rope_scaling` as `transformers`' Llama 3 models set it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Llama3Scaling {
    /// `factor`.
    pub factor: f64,
    /// `low_freq_factor`.
    pub low_frequency_factor: f64,
    /// `high_freq_factor`.
    pub high_frequency_factor: f64,
    /// `original_max_position_embeddings`.
    pub original_context: f64,
}

impl Rope {
    /// The rotation for heads of `head_dims` numbers, the first `rotary_dims` of which rotate.
    ///
    /// # Errors
    /// When `rotary_dims` is odd, zero or wider than a head, or `theta` is not above 1.
    pub fn new(theta: f64, head_dims: usize, rotary_dims: usize) -> Result<Self> {
        if rotary_dims == 0 || !rotary_dims.is_multiple_of(2) || rotary_dims > head_dims {
            bail!(
                "{rotary_dims} rotated numbers in a head of {head_dims}: RoPE needs an even \
                 number from 2 to the head width"
            );
        }
        if !(theta.is_finite() && theta > 1.0) {
            bail!("rope_theta {theta} is not a number above 1");
        }
        // `1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))`, all float32.
        #[expect(clippy::cast_precision_loss, reason = "widths are far below 2^24")]
        let inverse_frequencies = (0..rotary_dims / 2)
            .map(|pair| {
                let exponent = (2 * pair) as f32 / rotary_dims as f32;
                let power = round_to_f32(f64::from(round_to_f32(theta)).powf(f64::from(exponent)));
                1.0 / power
            })
            .collect();
        Ok(Self {
            theta,
            pairs: Pairs::Halves,
            rotary_dims,
            inverse_frequencies,
        })
    }

    /// The rotation for heads whose pairs are laid out as `pairs` says.
    ///
    /// # Errors
    /// Adjacent pairs with only part of each head rotating: llama.cpp interleaves whole heads,
    /// so the pairs of a partial rotation would not be the model's.
    pub fn with_pairs(mut self, pairs: Pairs, head_dims: usize) -> Result<Self> {
        if pairs == Pairs::Adjacent && self.rotary_dims != head_dims {
            bail!(
                "the file interleaves the query and key rows of whole heads, but only {} of \
                 each head's {head_dims} numbers rotate",
                self.rotary_dims
            );
        }
        self.pairs = pairs;
        Ok(self)
    }

    /// Divides each pair's angle by its divisor: Llama 3's scaling as llama.cpp's converter
    /// stores it in a GGUF file (`rope_freqs.weight`, one number a rotated pair).
    ///
    /// # Errors
    /// When there is not one positive divisor for each rotated pair.
    pub fn with_frequency_divisors(mut self, divisors: &[f32]) -> Result<Self> {
        if divisors.len() != self.inverse_frequencies.len() {
            bail!(
                "{} RoPE frequency divisors for {} rotated pairs",
                divisors.len(),
                self.inverse_frequencies.len()
            );
        }
        if let Some(bad) = divisors.iter().find(|d| !(d.is_finite() && **d > 0.0)) {
            bail!("a RoPE frequency divisor of {bad}: each must be a positive number");
        }
        for (frequency, &divisor) in self.inverse_frequencies.iter_mut().zip(divisors) {
            *frequency = round_to_f32(f64::from(*frequency) / f64::from(divisor));
        }
        Ok(self)
    }

    /// Which numbers of a head turn together.
    #[must_use]
    pub fn pairs(&self) -> Pairs {
        self.pairs
    }

    /// Applies Llama 3's frequency-dependent scaling (`rope_type: llama3`) to the angles.
    #[must_use]
    pub fn with_llama3_scaling(mut self, scaling: Llama3Scaling) -> Self {
        let low_wavelength = scaling.original_context / scaling.low_frequency_factor;
        let high_wavelength = scaling.original_context / scaling.high_frequency_factor;
        for frequency in &mut self.inverse_frequencies {
            let original = f64::from(*frequency);
            let wavelength = 2.0 * std::f64::consts::PI / original;
            let scaled = if wavelength > low_wavelength {
                original / scaling.factor
            } else {
                original
            };
            let smooth = (scaling.original_context / wavelength - scaling.low_frequency_factor)
                / (scaling.high_frequency_factor - scaling.low_frequency_factor);
            let medium = wavelength >= high_wavelength && wavelength <= low_wavelength;
            *frequency = round_to_f32(if medium {
                (1.0 - smooth) * scaled / scaling.factor + smooth * scaled
            } else {
                scaled
            });
        }
        self
    }

    /// `rope_theta`.
    #[must_use]
    pub fn theta(&self) -> f64 {
        self.theta
    }

    /// How many leading dimensions of each head rotate.
    #[must_use]
    pub fn rotary_dims(&self) -> usize {
        self.rotary_dims
    }

    /// `(cos, sin)` of each pair's angle at a position, in float32.
    fn cos_sin(&self, position: usize) -> Vec<(f32, f32)> {
        #[expect(clippy::cast_precision_loss, reason = "positions are far below 2^24")]
        let position = position as f32;
        self.inverse_frequencies
            .iter()
            .map(|&frequency| {
                let angle = f64::from(frequency * position);
                (round_to_f32(angle.cos()), round_to_f32(angle.sin()))
            })
            .collect()
    }

    /// Rotates one head's query or key in place, as `q * cos + rotate_half(q) * sin` on the
    /// rotated part; the rest passes through.
    pub fn rotate(&self, head: &mut [f32], position: usize) {
        self.rotate_by(head, &self.cos_sin(position));
    }

    /// Rotates every head of one token's queries or keys (`heads` holds whole heads of
    /// `head_dims` numbers) by the angles of one position, worked out once for them all.
    pub fn rotate_heads(&self, heads: &mut [f32], head_dims: usize, position: usize) {
        let angles = self.cos_sin(position);
        for head in heads.chunks_exact_mut(head_dims) {
            self.rotate_by(head, &angles);
        }
    }

    fn rotate_by(&self, head: &mut [f32], angles: &[(f32, f32)]) {
        let half = self.rotary_dims / 2;
        for (pair, &(cos, sin)) in angles.iter().enumerate() {
            let (first, second) = match self.pairs {
                Pairs::Halves => (pair, pair + half),
                Pairs::Adjacent => (2 * pair, 2 * pair + 1),
            };
            let (x, y) = (head[first], head[second]);
            head[first] = x * cos + (-y) * sin;
            head[second] = y * cos + x * sin;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[expect(clippy::float_cmp, reason = "turning by nothing changes no bit")]
    #[test]
    fn position_zero_turns_nothing_and_lengths_are_kept() {
        let rope = Rope::new(10_000.0, 6, 4).unwrap();
        let mut head = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        rope.rotate(&mut head, 0);
        assert_eq!(head, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        rope.rotate(&mut head, 7);
        // Pairs (0, 2) and (1, 3) turn; 4 and 5 pass through.
        let length = |a: f32, b: f32| f64::from(a).hypot(f64::from(b));
        assert!((length(head[0], head[2]) - length(1.0, 3.0)).abs() < 1e-6);
        assert!((length(head[1], head[3]) - length(2.0, 4.0)).abs() < 1e-6);
        assert_eq!(head[4..], [5.0, 6.0]);
        // The first pair turns by 7 radians.
        let (x, y) = (1.0f64, 3.0f64);
        assert!((f64::from(head[0]) - (x * 7f64.cos() - y * 7f64.sin())).abs() < 1e-6);
    }

    #[test]
    fn adjacent_pairs_turn_an_interleaved_head_as_halves_turn_the_original() {
        let rope = Rope::new(500.0, 8, 8).unwrap();
        let interleaved = rope.clone().with_pairs(Pairs::Adjacent, 8).unwrap();
        let head = [0.5f32, -1.25, 2.0, 0.75, -3.0, 1.5, 0.25, -0.125];
        // llama.cpp's permute: row 2k holds row k, row 2k + 1 holds row k + 4.
        let order = [0, 4, 1, 5, 2, 6, 3, 7];
        let mut stored: Vec<f32> = order.iter().map(|&row| head[row]).collect();
        let mut original = head;
        rope.rotate(&mut original, 9);
        interleaved.rotate(&mut stored, 9);
        let expected: Vec<f32> = order.iter().map(|&row| original[row]).collect();
        assert_eq!(stored, expected);
        assert!(
            Rope::new(500.0, 8, 4)
                .unwrap()
                .with_pairs(Pairs::Adjacent, 8)
                .is_err()
        );
    }

    #[expect(clippy::float_cmp, reason = "1 and the factor are exact")]
    #[test]
    fn llama_cpp_divisors_turn_as_llama3_scaling_does() {
        let scaling = Llama3Scaling {
            factor: 8.0,
            low_frequency_factor: 1.0,
            high_frequency_factor: 4.0,
            original_context: 256.0,
        };
        let rope = Rope::new(500.0, 8, 8).unwrap();
        // convert_hf_to_gguf.py's rope_factors, for the same settings.
        let divisors: Vec<f32> = rope
            .inverse_frequencies
            .iter()
            .map(|&frequency| {
                let wavelength = 2.0 * std::f64::consts::PI / f64::from(frequency);
                let (low, high) = (256.0 / 1.0, 256.0 / 4.0);
                let divisor = if wavelength < high {
                    1.0
                } else if wavelength > low {
                    8.0
                } else {
                    let smooth = (256.0 / wavelength - 1.0) / (4.0 - 1.0);
                    1.0 / ((1.0 - smooth) / 8.0 + smooth)
                };
                round_to_f32(divisor)
            })
            .collect();
        assert_eq!(divisors[..2], [1.0, 1.0]);
        assert_eq!(divisors[3], 8.0);
        assert!(divisors[2] > 1.0 && divisors[2] < 8.0, "{divisors:?}");
        let scaled = rope.clone().with_llama3_scaling(scaling);
        let divided = rope.with_frequency_divisors(&divisors).unwrap();
        for (a, b) in scaled
            .inverse_frequencies
            .iter()
            .zip(&divided.inverse_frequencies)
        {
            assert!((a - b).abs() <= 1e-6 * a.abs(), "{a} vs {b}");
        }
        assert!(divided.with_frequency_divisors(&[1.0; 3]).is_err());
    }

    #[test]
    fn odd_or_oversized_rotations_are_refused() {
        assert!(Rope::new(10_000.0, 6, 3).is_err());
        assert!(Rope::new(10_000.0, 6, 8).is_err());
        assert!(Rope::new(1.0, 6, 6).is_err());
    }
}
