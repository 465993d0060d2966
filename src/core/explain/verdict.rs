//! Judgements about numbers, made next to the maths so that every screen and print command
//! says the same thing: whether two vectors are identical, how much they differ (in
//! significant digits, never "by 0.0000"), and the words for a cosine or a distance.
//!
//! Each judgement is a value first; its sentence is made from the value, so words can never
//! drift from the numbers they describe.

use std::fmt;

use ndarray::ArrayView1;

/// How two vectors of the same width compare, bit by bit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VectorMatch {
    /// Every number is the same (the same bits, or zeros of either sign).
    Identical,
    /// Some numbers differ, each by at most one unit in the last place of float32: rounding,
    /// not meaning. The largest difference is kept.
    LastBit(f64),
    /// The numbers differ by up to this much (the largest absolute difference).
    DiffersBy(f64),
    /// One of the vectors holds NaN or infinity: equal bits would say nothing, so they are
    /// never called identical.
    NotNumbers,
}

impl VectorMatch {
    /// Compares two vectors number by number.
    ///
    /// Vectors of different widths differ by infinity: they are not the same kind of thing.
    #[must_use]
    pub fn of(a: ArrayView1<f32>, b: ArrayView1<f32>) -> Self {
        if a.len() != b.len() {
            return Self::DiffersBy(f64::INFINITY);
        }
        if !a.iter().chain(b.iter()).all(|x| x.is_finite()) {
            return Self::NotNumbers;
        }
        let mut largest = 0.0f64;
        let mut beyond_last_bit = false;
        for (&x, &y) in a.iter().zip(b.iter()) {
            // The same bits, or +0 against -0: the same number.
            if x.to_bits() == y.to_bits() || (x == 0.0 && y == 0.0) {
                continue;
            }
            let difference = (f64::from(x) - f64::from(y)).abs();
            largest = largest.max(if difference.is_nan() {
                f64::INFINITY
            } else {
                difference
            });
            beyond_last_bit |= ulps_apart(x, y) != Some(1);
        }
        if largest == 0.0 {
            Self::Identical
        } else if beyond_last_bit {
            Self::DiffersBy(largest)
        } else {
            Self::LastBit(largest)
        }
    }

    /// Whether every number of one vector is the same as the other's.
    #[must_use]
    pub fn is_identical(self) -> bool {
        self == Self::Identical
    }

    /// The largest difference between two numbers; 0 when identical, NaN when one holds
    /// non-numbers.
    #[must_use]
    pub fn largest_difference(self) -> f64 {
        match self {
            Self::Identical => 0.0,
            Self::LastBit(difference) | Self::DiffersBy(difference) => difference,
            Self::NotNumbers => f64::NAN,
        }
    }

    /// How much they differ, to follow a subject: `not at all`, `only in the last bit`,
    /// `by up to 0.31`.
    #[must_use]
    pub fn extent(self) -> String {
        match self {
            Self::Identical => "not at all".to_owned(),
            Self::LastBit(_) => "only in the last bit".to_owned(),
            Self::DiffersBy(difference) => format!("by up to {}", significant(difference)),
            Self::NotNumbers => "unknowably: they hold non-numbers (NaN or infinity)".to_owned(),
        }
    }

    /// The difference as a table's Δ column says it: `0 bit for bit` when every number is
    /// the same, else the largest difference in significant digits (`0.31`, `6.0e-8 last
    /// bit`), never rounded to zero. `short` leaves the words out (`0`, `6.0e-8`) where the
    /// column is narrow; the table's header then says what 0 means.
    #[must_use]
    pub fn delta(self, short: bool) -> String {
        match (self, short) {
            (Self::Identical, false) => "0 bit for bit".to_owned(),
            (Self::Identical, true) => "0".to_owned(),
            (Self::LastBit(difference), false) => format!("{} last bit", significant(difference)),
            (Self::LastBit(difference) | Self::DiffersBy(difference), _) => significant(difference),
            (Self::NotNumbers, false) => "NaN: not comparable".to_owned(),
            (Self::NotNumbers, true) => "NaN".to_owned(),
        }
    }

    /// A short machine-readable name: `identical`, `last_bit`, `differs` or `not_numbers`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Identical => "identical",
            Self::LastBit(_) => "last_bit",
            Self::DiffersBy(_) => "differs",
            Self::NotNumbers => "not_numbers",
        }
    }
}

impl fmt::Display for VectorMatch {
    /// `identical`, `differ only in the last bit`, or `differ by up to 0.31`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Identical => f.write_str("identical"),
            Self::LastBit(_) => f.write_str("differ only in the last bit"),
            Self::DiffersBy(difference) => {
                write!(f, "differ by up to {}", significant(*difference))
            }
            Self::NotNumbers => f.write_str("hold non-numbers (NaN or infinity), not comparable"),
        }
    }
}

/// How many representable float32 steps lie between two finite numbers of the same sign;
/// `None` across signs or for non-finite numbers.
fn ulps_apart(x: f32, y: f32) -> Option<u32> {
    if !x.is_finite() || !y.is_finite() || x.is_sign_negative() != y.is_sign_negative() {
        return None;
    }
    Some(x.to_bits().abs_diff(y.to_bits()))
}

/// Significant digits a difference is shown with.
const SIGNIFICANT_DIGITS: i32 = 2;

/// A positive number with two significant digits, never rounded to zero: `0.31`, `0.0042`,
/// `0.000017`, and below a millionth `3.1e-9`.
#[must_use]
pub fn significant(value: f64) -> String {
    if value == 0.0 {
        return "0".to_owned();
    }
    if !value.is_finite() {
        return value.to_string();
    }
    let magnitude = value.abs();
    if !(1e-6..1e6).contains(&magnitude) {
        return format!("{value:.1e}");
    }
    #[expect(
        clippy::cast_possible_truncation,
        reason = "the exponent of a number between 1e-6 and 1e6"
    )]
    let exponent = magnitude.log10().floor() as i32;
    let decimals = usize::try_from(SIGNIFICANT_DIGITS - 1 - exponent).unwrap_or(0);
    format!("{value:.decimals$}")
}

/// Which way one vector points compared with another, from their cosine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Cosine 1 to print precision: the same direction.
    Same,
    /// Cosine at least 0.9.
    NearlySame,
    /// Cosine at least 0.5.
    Similar,
    /// Cosine between 0.2 and 0.5.
    Loosely,
    /// Cosine between -0.2 and 0.2: about a right angle apart.
    Unrelated,
    /// Cosine between -0.5 and -0.2.
    Away,
    /// Cosine at most -0.5: the other way.
    Opposite,
}

impl Direction {
    /// The direction a cosine describes.
    #[must_use]
    pub fn of_cosine(cosine: f64) -> Self {
        match cosine {
            c if c >= 0.999_95 => Self::Same,
            c if c >= 0.9 => Self::NearlySame,
            c if c >= 0.5 => Self::Similar,
            c if c > 0.2 => Self::Loosely,
            c if c >= -0.2 => Self::Unrelated,
            c if c > -0.5 => Self::Away,
            _ => Self::Opposite,
        }
    }

    /// How the two vectors point, as the end of a sentence about them ("they point …").
    #[must_use]
    pub fn phrase(self) -> &'static str {
        match self {
            Self::Same => "the same way",
            Self::NearlySame => "nearly the same way",
            Self::Similar => "in a similar direction",
            Self::Loosely => "only loosely the same way",
            Self::Unrelated => "about a right angle apart, in unrelated directions",
            Self::Away => "somewhat away from each other",
            Self::Opposite => "largely the other way",
        }
    }
}

/// How far apart two vectors are, measured against how long they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Separation {
    /// Distance 0: the same point.
    None,
    /// Less than a tenth of the vectors' length apart.
    Slight,
    /// Less than half their length apart.
    Moderate,
    /// Less than their length apart.
    Large,
    /// Further apart than the vectors are long.
    Larger,
}

impl Separation {
    /// The separation of two vectors `distance` apart whose lengths average `length`.
    #[must_use]
    pub fn of(distance: f64, length: f64) -> Self {
        if distance == 0.0 {
            return Self::None;
        }
        let relative = if length > 0.0 {
            distance / length
        } else {
            f64::INFINITY
        };
        match relative {
            r if r < 0.1 => Self::Slight,
            r if r < 0.5 => Self::Moderate,
            r if r < 1.0 => Self::Large,
            _ => Self::Larger,
        }
    }

    /// The separation in words ("they are …").
    #[must_use]
    pub fn phrase(self) -> &'static str {
        match self {
            Self::None => "the same point",
            Self::Slight => "slightly apart (under a tenth of their length)",
            Self::Moderate => "moderately apart (under half their length)",
            Self::Large => "far apart (nearly their own length)",
            Self::Larger => "further apart than they are long",
        }
    }
}

/// `word` with its first letter in capitals, to open a sentence.
#[must_use]
pub fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::arr1;

    #[test]
    fn vectors_holding_non_numbers_are_never_identical() {
        let nan = arr1(&[f32::NAN, 1.0]);
        let same_bits = VectorMatch::of(nan.view(), nan.view());
        assert_eq!(same_bits, VectorMatch::NotNumbers);
        assert!(!same_bits.is_identical());
        assert!(same_bits.to_string().contains("non-numbers"));
        let infinite = arr1(&[f32::INFINITY, 1.0]);
        assert_eq!(
            VectorMatch::of(infinite.view(), infinite.view()),
            VectorMatch::NotNumbers
        );
    }

    #[test]
    fn identical_vectors_are_identical() {
        let a = arr1(&[1.2753f32, -0.2010, -0.1606]);
        assert_eq!(VectorMatch::of(a.view(), a.view()), VectorMatch::Identical);
        assert_eq!(VectorMatch::Identical.to_string(), "identical");
    }

    #[test]
    fn one_step_of_float32_is_the_last_bit() {
        let x = 0.3f32;
        let next = f32::from_bits(x.to_bits() + 1);
        let a = arr1(&[x, 1.0]);
        let b = arr1(&[next, 1.0]);
        let found = VectorMatch::of(a.view(), b.view());
        assert!(matches!(found, VectorMatch::LastBit(_)), "{found:?}");
        assert_eq!(found.to_string(), "differ only in the last bit");
        let two_steps = arr1(&[f32::from_bits(x.to_bits() + 2), 1.0]);
        assert!(matches!(
            VectorMatch::of(a.view(), two_steps.view()),
            VectorMatch::DiffersBy(_)
        ));
    }

    #[test]
    fn a_difference_is_never_shown_as_zero() {
        let a = arr1(&[0.5f32, 0.25]);
        let b = arr1(&[0.500_03f32, 0.25]);
        let found = VectorMatch::of(a.view(), b.view());
        assert_eq!(found.to_string(), "differ by up to 0.000030");
        assert_eq!(significant(0.3141), "0.31");
        assert_eq!(significant(2.75), "2.8");
        assert_eq!(significant(31.4), "31");
        assert_eq!(significant(0.004_21), "0.0042");
        assert_eq!(significant(3.1e-9), "3.1e-9");
        assert_eq!(significant(0.0), "0");
    }

    #[test]
    fn the_delta_column_says_zero_bit_for_bit_or_the_difference_in_significant_digits() {
        assert_eq!(VectorMatch::Identical.delta(false), "0 bit for bit");
        assert_eq!(VectorMatch::Identical.delta(true), "0");
        assert_eq!(VectorMatch::DiffersBy(0.3141).delta(false), "0.31");
        assert_eq!(VectorMatch::DiffersBy(0.000_042_1).delta(true), "0.000042");
        assert_eq!(
            VectorMatch::LastBit(5.96e-8).delta(false),
            "6.0e-8 last bit"
        );
        assert_eq!(VectorMatch::LastBit(5.96e-8).delta(true), "6.0e-8");
    }

    #[test]
    fn vectors_of_other_widths_differ() {
        let a = arr1(&[1.0f32]);
        let b = arr1(&[1.0f32, 2.0]);
        assert_eq!(
            VectorMatch::of(a.view(), b.view()),
            VectorMatch::DiffersBy(f64::INFINITY)
        );
    }

    #[test]
    fn a_negative_cosine_points_the_other_way() {
        assert_eq!(Direction::of_cosine(-0.59), Direction::Opposite);
        assert_eq!(Direction::of_cosine(-0.3), Direction::Away);
        assert_eq!(Direction::of_cosine(0.05), Direction::Unrelated);
        assert_eq!(Direction::of_cosine(0.95), Direction::NearlySame);
        assert_eq!(Direction::of_cosine(1.0), Direction::Same);
        assert_eq!(Direction::of_cosine(0.6), Direction::Similar);
        assert_eq!(Direction::of_cosine(0.3), Direction::Loosely);
        assert_eq!(Direction::Opposite.phrase(), "largely the other way");
    }

    #[test]
    fn separations_are_measured_against_length() {
        assert_eq!(Separation::of(0.0, 1.0), Separation::None);
        assert_eq!(Separation::of(0.05, 1.0), Separation::Slight);
        assert_eq!(Separation::of(0.3, 1.0), Separation::Moderate);
        assert_eq!(Separation::of(0.9, 1.0), Separation::Large);
        assert_eq!(Separation::of(3.0, 1.0), Separation::Larger);
        assert_eq!(Separation::of(1.0, 0.0), Separation::Larger);
    }
}
