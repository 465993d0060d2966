//! Position information: the vector each scheme adds for a position.

use ndarray::{Array1, ArrayView1};

use super::table::Table;
use std::fmt;

/// How position information reaches the input vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum PositionScheme {
    /// No position information: the input vector is the token vector.
    None,
    /// A learned table with one row per position, up to the context length.
    Learned,
    /// The original Transformer's fixed sine and cosine waves (base 10000).
    Sinusoidal,
}

impl PositionScheme {
    /// The name used on the command line and on screen.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Learned => "learned",
            Self::Sinusoidal => "sinusoidal",
        }
    }

    /// The next scheme that adds vectors, as `m` cycles them (`None` is the overlay's off state).
    #[must_use]
    pub fn next_additive(self) -> Self {
        match self {
            Self::None | Self::Sinusoidal => Self::Learned,
            Self::Learned => Self::Sinusoidal,
        }
    }
}

impl fmt::Display for PositionScheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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
}

impl PositionVector {
    /// The added vector, if there is one.
    #[must_use]
    pub fn vector(&self) -> Option<ArrayView1<'_, f32>> {
        match self {
            Self::Added(vector) => Some(vector.view()),
            Self::Absent | Self::NoLearnedTable | Self::BeyondContext { .. } => None,
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
            Self::Absent | Self::Added(_) => None,
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
    fn schemes_cycle_between_the_additive_ones() {
        assert_eq!(
            PositionScheme::Learned.next_additive(),
            PositionScheme::Sinusoidal
        );
        assert_eq!(
            PositionScheme::Sinusoidal.next_additive(),
            PositionScheme::Learned
        );
    }
}
