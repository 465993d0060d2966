//! Position information: the vector each scheme adds for a position, or how it acts inside
//! attention.
//!
//! Learned and sinusoidal positions are added to the token vector before attention. `RoPE`
//! and `ALiBi` add nothing there: `RoPE` rotates each query and key by an angle that grows with
//! its position, and `ALiBi` adds a penalty to each attention score that grows with the
//! distance between the two tokens.

use ndarray::{Array1, ArrayView1};

use crate::core::tables::table::Table;
use std::fmt;

/// How position information reaches the input vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PositionScheme {
    /// No position information: the input vector is the token vector.
    None,
    /// A learned table with one row per position, up to the context length.
    Learned,
    /// The original Transformer's fixed sine and cosine waves (base 10000).
    Sinusoidal,
    /// Rotary position embedding: queries and keys are rotated by a position-dependent angle
    /// inside attention; nothing is added to the input vector.
    Rope,
    /// Attention with linear biases: each score is lowered by a slope times the distance
    /// between the tokens; nothing is added to the input vector.
    Alibi,
}

impl PositionScheme {
    /// The name used on the command line and on screen.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Learned => "learned",
            Self::Sinusoidal => "sinusoidal",
            Self::Rope => "rope",
            Self::Alibi => "alibi",
        }
    }

    /// The name as sentences on screen spell it: `RoPE` and `ALiBi` as their papers do, the
    /// others as [`PositionScheme::name`].
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Rope => "RoPE",
            Self::Alibi => "ALiBi",
            other => other.name(),
        }
    }

    /// The next scheme as `m` cycles them: learned, sinusoidal, rope, alibi, learned again.
    ///
    /// `None` is the overlay's off state, not part of the cycle; from it the cycle starts at
    /// learned.
    #[must_use]
    pub fn next(self) -> Self {
        match self {
            Self::None | Self::Alibi => Self::Learned,
            Self::Learned => Self::Sinusoidal,
            Self::Sinusoidal => Self::Rope,
            Self::Rope => Self::Alibi,
        }
    }

    /// Whether the scheme adds a vector to the token vector (learned and sinusoidal do; `RoPE`
    /// and `ALiBi` act inside attention instead, and `None` does nothing).
    #[must_use]
    pub fn is_additive(self) -> bool {
        match self {
            Self::Learned | Self::Sinusoidal => true,
            Self::None | Self::Rope | Self::Alibi => false,
        }
    }
}

impl fmt::Display for PositionScheme {
    /// As sentences spell it ([`PositionScheme::label`]); the command line and JSON use
    /// [`PositionScheme::name`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// What a scheme has for one position.
#[derive(Clone, Debug, PartialEq)]
pub enum PositionVector {
    /// The scheme adds nothing.
    Absent,
    /// The vector added to the token vector.
    Added(Array1<f32>),
    /// The model has no learned position table (it puts position elsewhere, or nowhere).
    NoLearnedTable,
    /// A learned table has no row this far out.
    BeyondContext {
        /// The position asked for.
        position: usize,
        /// How many rows the learned table has.
        context_length: usize,
    },
    /// The scheme (`RoPE` or `ALiBi`) adds nothing here: it acts inside attention, so the input
    /// vector is the token vector.
    InAttention(PositionScheme),
}

impl PositionVector {
    /// The added vector, if there is one.
    #[must_use]
    pub fn vector(&self) -> Option<ArrayView1<'_, f32>> {
        match self {
            Self::Added(vector) => Some(vector.view()),
            Self::Absent
            | Self::NoLearnedTable
            | Self::BeyondContext { .. }
            | Self::InAttention(_) => None,
        }
    }

    /// A sentence for a position the learned table cannot reach.
    #[must_use]
    pub fn warning(&self) -> Option<String> {
        match self {
            Self::BeyondContext {
                position,
                context_length,
            } => Some(format!(
                "position {position} is beyond the context length {context_length}"
            )),
            Self::NoLearnedTable => Some("this model has no learned position table".to_owned()),
            Self::Absent | Self::Added(_) | Self::InAttention(_) => None,
        }
    }
}

/// The position vector of a scheme for `position`, given the learned table if there is one.
#[must_use]
pub fn position_vector(
    scheme: PositionScheme,
    learned: Option<&Table>,
    dims: usize,
    position: usize,
) -> PositionVector {
    match (scheme, learned) {
        (PositionScheme::None, _) => PositionVector::Absent,
        (PositionScheme::Learned, None) => PositionVector::NoLearnedTable,
        (PositionScheme::Learned, Some(table)) => match table.row(position) {
            Some(row) => PositionVector::Added(row),
            None if position >= table.rows() => PositionVector::BeyondContext {
                position,
                context_length: table.rows(),
            },
            None => PositionVector::Absent,
        },
        (PositionScheme::Sinusoidal, _) => PositionVector::Added(sinusoidal(position, dims)),
        (PositionScheme::Rope | PositionScheme::Alibi, _) => PositionVector::InAttention(scheme),
    }
}

/// The sinusoidal position vector: sin in even dimensions, cos in odd ones.
///
/// Dimension pair `i` (dimensions 2i and 2i+1) has the angle `position / 10000^(2i / dims)`;
/// with an odd width the last dimension is a sine without its cosine partner. Computed in
/// f64 and rounded once to f32, as a float64 NumPy table cast to float32 would be.
#[must_use]
pub fn sinusoidal(position: usize, dims: usize) -> Array1<f32> {
    #[expect(
        clippy::cast_precision_loss,
        reason = "positions and widths are far below 2^52"
    )]
    let (position, width) = (position as f64, dims as f64);
    Array1::from_shape_fn(dims, |dim| {
        let pair = (dim / 2) * 2;
        #[expect(clippy::cast_precision_loss, reason = "dims are small")]
        let angle = position / 10_000f64.powf(pair as f64 / width);
        let value = if dim % 2 == 0 {
            angle.sin()
        } else {
            angle.cos()
        };
        #[expect(
            clippy::cast_possible_truncation,
            reason = "rounded once to float32 on purpose"
        )]
        let value = value as f32;
        value
    })
}

/// The base of `RoPE`'s angles, as in `RoFormer` and Llama.
pub const ROPE_BASE: f64 = 10_000.0;

/// How many attention heads the `ALiBi` slopes are laid out for (the pane shows head 1).
pub const ALIBI_HEADS: usize = 8;

/// Rotates a query or key as rotary position embedding (`RoPE`) does at `position`.
///
/// This is the original `RoFormer` form, which Meta's Llama code also uses: neighbouring
/// dimensions form pairs (2i, 2i+1), and pair `i` turns by the angle
/// `position * base^(-2i / d)`, where `d` is the vector's length:
///
/// `x'[2i] = x[2i] cos - x[2i+1] sin`, `x'[2i+1] = x[2i] sin + x[2i+1] cos`.
///
/// (Hugging Face's Llama pairs dimension `i` with `i + d/2` instead, "rotate half"; the
/// angles are the same, the pairs are not.) With an odd length the last dimension has no
/// partner and is left as it is. Worked in f64 and rounded once to f32.
#[must_use]
pub fn rope_rotate(vector: ArrayView1<f32>, position: usize, base: f64) -> Array1<f32> {
    let wide = vector.mapv(f64::from);
    rope_rotate_f64(wide.view(), position, base).mapv(|value| {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "rounded once to float32 on purpose"
        )]
        let value = value as f32;
        value
    })
}

/// [`rope_rotate`] in f64 throughout, so its algebra can be checked without float32 rounding.
fn rope_rotate_f64(vector: ArrayView1<f64>, position: usize, base: f64) -> Array1<f64> {
    let dims = vector.len();
    let mut rotated = vector.to_owned();
    #[expect(
        clippy::cast_precision_loss,
        reason = "positions and widths are far below 2^52"
    )]
    let (position, width) = (position as f64, dims as f64);
    for pair in 0..dims / 2 {
        let (even, odd) = (2 * pair, 2 * pair + 1);
        #[expect(clippy::cast_precision_loss, reason = "dims are small")]
        let frequency = base.powf(-(even as f64) / width);
        let (sin, cos) = (position * frequency).sin_cos();
        let (x, y) = (vector[even], vector[odd]);
        rotated[even] = x * cos - y * sin;
        rotated[odd] = x * sin + y * cos;
    }
    rotated
}

/// The `ALiBi` slope of each of `heads` attention heads, as Press et al.'s reference code
/// computes them.
///
/// For `n` a power of two the slopes are `2^(-8i/n)` for `i = 1..=n` (8 heads: 1/2, 1/4, …,
/// 1/256). Otherwise they are the slopes of the closest power of two below `n`, followed by
/// every other slope of the next power of two, as many as are still missing (6 heads: 1/4,
/// 1/16, 1/64, 1/256, then 1/2 and 1/8).
#[must_use]
pub fn alibi_slopes(heads: usize) -> Vec<f64> {
    if heads == 0 {
        return Vec::new();
    }
    if heads.is_power_of_two() {
        return power_of_two_slopes(heads);
    }
    let below = 1usize << heads.ilog2();
    let mut slopes = power_of_two_slopes(below);
    slopes.extend(
        alibi_slopes(2 * below)
            .into_iter()
            .step_by(2)
            .take(heads - below),
    );
    slopes
}

/// `start * start^i` for `i = 0..n`, with `start = 2^(-2^-(log2(n) - 3))`, written as the
/// reference code writes it so that the floating-point results agree too.
fn power_of_two_slopes(heads: usize) -> Vec<f64> {
    let log2 = f64::from(heads.ilog2());
    let start = 2f64.powf(-(2f64.powf(-(log2 - 3.0))));
    (0..heads)
        .map(|i| {
            #[expect(clippy::cast_precision_loss, reason = "a head count")]
            let power = start.powf(i as f64);
            start * power
        })
        .collect()
}

/// The `ALiBi` bias added to the score of a query at one position for a key at another:
/// `-slope * |query_position - key_position|`, nothing for a token and itself and more the
/// farther apart they stand.
#[must_use]
pub fn alibi_bias(slope: f64, query_position: usize, key_position: usize) -> f64 {
    #[expect(clippy::cast_precision_loss, reason = "positions are far below 2^52")]
    let distance = query_position.abs_diff(key_position) as f64;
    -slope * distance
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    #[test]
    fn sinusoidal_position_zero_is_sin_zero_cos_one() {
        assert_eq!(sinusoidal(0, 4).to_vec(), [0.0, 1.0, 0.0, 1.0]);
    }

    #[test]
    fn sinusoidal_matches_the_formula() {
        let v = sinusoidal(3, 4);
        let expected = [
            3f64.sin(),
            3f64.cos(),
            (3.0 / 100.0f64).sin(),
            (3.0 / 100.0f64).cos(),
        ];
        for (got, want) in v.iter().zip(expected) {
            assert!((f64::from(*got) - want).abs() < 1e-7);
        }
    }

    #[test]
    fn sinusoidal_handles_odd_widths() {
        let v = sinusoidal(5, 3);
        assert_eq!(v.len(), 3);
        #[expect(clippy::cast_possible_truncation, reason = "comparing float32 values")]
        let last = (5.0 / 10_000f64.powf(2.0 / 3.0)).sin() as f32;
        assert_eq!(v[2].to_bits(), last.to_bits());
    }

    #[test]
    fn learned_positions_come_from_the_table_until_the_context_ends() {
        let table = Table::from(Array2::from_shape_fn((2, 3), |(r, c)| {
            #[expect(clippy::cast_precision_loss, reason = "tiny test values")]
            let value = (r * 3 + c) as f32;
            value
        }));
        assert_eq!(
            position_vector(PositionScheme::Learned, Some(&table), 3, 1),
            PositionVector::Added(ndarray::arr1(&[3.0, 4.0, 5.0]))
        );
        let beyond = position_vector(PositionScheme::Learned, Some(&table), 3, 2);
        assert_eq!(
            beyond.warning().as_deref(),
            Some("position 2 is beyond the context length 2")
        );
        assert_eq!(
            position_vector(PositionScheme::None, Some(&table), 3, 0),
            PositionVector::Absent
        );
        let none = position_vector(PositionScheme::Learned, None, 3, 0);
        assert_eq!(none, PositionVector::NoLearnedTable);
        assert!(none.warning().is_some());
        assert!(matches!(
            position_vector(PositionScheme::Sinusoidal, None, 3, 4),
            PositionVector::Added(_)
        ));
    }

    #[test]
    fn m_cycles_learned_sinusoidal_rope_alibi() {
        use PositionScheme::{Alibi, Learned, None, Rope, Sinusoidal};
        assert_eq!(None.next(), Learned);
        assert_eq!(Learned.next(), Sinusoidal);
        assert_eq!(Sinusoidal.next(), Rope);
        assert_eq!(Rope.next(), Alibi);
        assert_eq!(Alibi.next(), Learned);
        assert_eq!(
            [None, Learned, Sinusoidal, Rope, Alibi].map(PositionScheme::is_additive),
            [false, true, true, false, false]
        );
        assert_eq!([Rope, Alibi].map(PositionScheme::name), ["rope", "alibi"]);
    }

    #[test]
    fn rope_and_alibi_add_nothing_to_the_input_vector() {
        for scheme in [PositionScheme::Rope, PositionScheme::Alibi] {
            let position = position_vector(scheme, None, 4, 3);
            assert_eq!(position, PositionVector::InAttention(scheme));
            assert_eq!(position.vector(), Option::None);
            assert_eq!(position.warning(), Option::None);
        }
    }

    #[test]
    fn rope_turns_each_pair_by_its_own_angle() {
        let v = ndarray::arr1(&[1.0f32, 0.0, 1.0, 0.0, 7.0]);
        let rotated = rope_rotate(v.view(), 2, ROPE_BASE);
        // Pair 0 turns by 2 radians, pair 1 by 2 / 10000^(2/5); the odd last dimension stays.
        let second = 2.0 / 10_000f64.powf(2.0 / 5.0);
        let expected = [2f64.cos(), 2f64.sin(), second.cos(), second.sin(), 7.0];
        for (got, want) in rotated.iter().zip(expected) {
            assert!((f64::from(*got) - want).abs() < 1e-7, "{rotated}");
        }
        assert_eq!(
            rope_rotate(v.view(), 0, ROPE_BASE),
            v,
            "position 0 turns by nothing"
        );
    }

    #[expect(clippy::float_cmp, reason = "powers of two are exact")]
    #[test]
    fn alibi_slopes_follow_the_reference_code() {
        let eight: Vec<f64> = (1..=8).map(|i| 0.5f64.powi(i)).collect();
        assert_eq!(alibi_slopes(ALIBI_HEADS), eight);
        assert_eq!(alibi_slopes(8)[0], 0.5, "head 1 has slope 1/2");
        assert_eq!(
            alibi_slopes(6),
            [0.25, 0.0625, 0.015_625, 0.003_906_25, 0.5, 0.125]
        );
        assert_eq!(alibi_slopes(4), [0.25, 0.0625, 0.015_625, 0.003_906_25]);
        assert_eq!(alibi_slopes(1), [0.003_906_25]);
        assert!(alibi_slopes(0).is_empty());
        // 12 heads (BLOOM-560m's 16 would be all powers of 2^-0.5): 8 slopes of 8, then 4 of 16.
        let twelve = alibi_slopes(12);
        assert_eq!(twelve.len(), 12);
        assert_eq!(twelve[..8], eight[..]);
        let sixteen = alibi_slopes(16);
        assert_eq!(
            twelve[8..],
            [sixteen[0], sixteen[2], sixteen[4], sixteen[6]]
        );
        assert!((sixteen[0] - 0.5f64.sqrt()).abs() < 1e-15);
    }

    #[expect(
        clippy::float_cmp,
        reason = "powers of two and their multiples are exact"
    )]
    #[test]
    fn alibi_bias_grows_with_distance_in_either_direction() {
        assert_eq!(alibi_bias(0.5, 3, 3), 0.0);
        assert_eq!(alibi_bias(0.5, 3, 0), -1.5);
        assert_eq!(alibi_bias(0.5, 0, 3), -1.5);
        assert_eq!(alibi_bias(0.25, 1, 5), -1.0);
    }

    mod properties {
        use super::super::*;
        use ndarray::Array1;
        use proptest::prelude::*;

        fn vectors() -> impl Strategy<Value = Vec<f64>> {
            proptest::collection::vec(-4.0f64..4.0, 1..=8)
        }

        fn norm(v: &Array1<f64>) -> f64 {
            v.iter().map(|x| x * x).sum::<f64>().sqrt()
        }

        proptest! {
            #[test]
            fn rope_keeps_every_length(values in vectors(), position in 0usize..2048) {
                let vector = values.iter().map(|&x| {
                    #[expect(clippy::cast_possible_truncation, reason = "test values")]
                    let x = x as f32;
                    x
                }).collect::<Array1<f32>>();
                let rotated = rope_rotate(vector.view(), position, ROPE_BASE);
                let before = norm(&vector.mapv(f64::from));
                let after = norm(&rotated.mapv(f64::from));
                prop_assert!((before - after).abs() <= 1e-5 * before.max(f64::MIN_POSITIVE));
            }

            #[test]
            fn rope_scores_depend_only_on_the_distance(
                (query, key) in (1usize..=8).prop_flat_map(|d| (
                    proptest::collection::vec(-4.0f64..4.0, d),
                    proptest::collection::vec(-4.0f64..4.0, d),
                )),
                m in 0usize..512,
                n in 0usize..512,
                shift in 0usize..512,
            ) {
                let (query, key) = (Array1::from(query), Array1::from(key));
                let score = |m: usize, n: usize| {
                    rope_rotate_f64(query.view(), m, ROPE_BASE)
                        .dot(&rope_rotate_f64(key.view(), n, ROPE_BASE))
                };
                let (unshifted, shifted) = (score(m, n), score(m + shift, n + shift));
                let scale = norm(&query) * norm(&key);
                prop_assert!(
                    (unshifted - shifted).abs() <= 1e-9 * scale.max(f64::MIN_POSITIVE),
                    "{unshifted} vs {shifted}"
                );
            }

            #[expect(clippy::float_cmp, reason = "the bias is exactly this product")]
            #[test]
            fn alibi_bias_is_minus_slope_times_distance(
                heads in 1usize..=64,
                i in 0usize..1024,
                j in 0usize..1024,
            ) {
                let slopes = alibi_slopes(heads);
                prop_assert_eq!(slopes.len(), heads);
                prop_assert!(slopes.iter().all(|&slope| slope > 0.0 && slope < 1.0));
                #[expect(clippy::cast_precision_loss, reason = "small positions")]
                let distance = (i as f64 - j as f64).abs();
                prop_assert_eq!(alibi_bias(slopes[0], i, j), -slopes[0] * distance);
                prop_assert_eq!(alibi_bias(slopes[0], i, j), alibi_bias(slopes[0], j, i));
            }
        }
    }
}
