//! Numbers written at formatting speed, in the very text `std::fmt` writes.
//!
//! The print subcommands write millions of float32s (`matrix --vocab gpt2 --format csv` writes
//! 38.6 million). `write!(out, "{value}")` goes through `std::fmt` once a number; here the
//! shortest digits come from `zmij` (the shortest-round-trip formatter `serde_json` itself
//! uses, a successor of `ryu`) into a line buffer, and only the layout is redone to match
//! `Display`: no exponent, no `.0` on a whole number. The tests compare with `std` over many
//! values, subnormals, NaN and the infinities included. [`Fixed4`] writes the tables' four
//! decimals (`{:.4}`) the same way: `std`'s text, without `std::fmt`.

use std::io::Write as _;

/// Appends `value` exactly as `format!("{value}")` writes it: the shortest digits that read
/// back as the same float32, in plain decimal notation (`NaN`, `inf`, `-inf` for the rest).
pub(super) fn push_display(line: &mut Vec<u8>, value: f32) {
    if !value.is_finite() {
        line.extend_from_slice(non_finite(f64::from(value)).as_bytes());
        return;
    }
    if may_tie(value) {
        // Two shortest numbers equally near: `std` takes the larger digit, `zmij` the even one.
        let _ = write!(line, "{value}");
        return;
    }
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(value).as_bytes();
    // An exponent (`e-7`, `e-45`, `e+38`) is in the last four bytes: look only there.
    let last = text.len().saturating_sub(4);
    match text[last..]
        .iter()
        .position(|&byte| byte == b'e')
        .map(|at| last + at)
    {
        // Plain decimal already, as std writes it, save that a whole number keeps no `.0`.
        None => line.extend_from_slice(text.strip_suffix(b".0").unwrap_or(text)),
        Some(e) => push_without_exponent(line, &text[..e], &text[e + 1..]),
    }
}

/// Appends `value` as `serde_json` writes a float32: its shortest digits (`1.0`, `1e-7`), or
/// `null` for NaN and the infinities, which JSON has no words for.
pub(super) fn push_json(line: &mut Vec<u8>, value: f32) {
    if value.is_finite() {
        line.extend_from_slice(zmij::Buffer::new().format_finite(value).as_bytes());
    } else {
        line.extend_from_slice(b"null");
    }
}

/// Whether two shortest decimals could lie equally near `value`, where `std` and `zmij` part:
/// only when its exact decimal expansion has at most ten digits (the nine a float32 needs at
/// most, then the 5 half-way between two of them), as 1765629.25 has. A float32 is
/// `m`×2^`e`; with `e` ≥ 0 it is a whole number, never half-way at the digit after its
/// shortest; with `e` = −`f` its expansion is the digits of `m`×5^`f`, ending in 5.
fn may_tie(value: f32) -> bool {
    let bits = value.to_bits();
    let biased = (bits >> 23) & 0xff;
    let fraction = bits & 0x007f_ffff;
    let (mantissa, exponent) = if biased == 0 {
        (fraction, -149)
    } else {
        (fraction | 0x0080_0000, biased.cast_signed() - 150)
    };
    if mantissa == 0 {
        return false;
    }
    let zeros = mantissa.trailing_zeros();
    let (odd, exponent) = (mantissa >> zeros, exponent + zeros.cast_signed());
    match usize::try_from(-exponent) {
        Ok(fives @ 1..=14) => u64::from(odd) * POWERS_OF_FIVE[fives] < 10_000_000_000,
        _ => false,
    }
}

/// 5^0 to 5^14, looked up rather than raised once a number.
const POWERS_OF_FIVE: [u64; 15] = {
    let mut powers = [1; 15];
    let mut index = 1;
    while index < powers.len() {
        powers[index] = powers[index - 1] * 5;
        index += 1;
    }
    powers
};

/// Numbers with four decimals, each as `format!("{value:>width$.4}")` writes it (`width` 0:
/// no padding), a space between each two.
pub(super) fn fixed4_row<N: Into<f64>>(
    values: impl IntoIterator<Item = N>,
    width: usize,
) -> String {
    let mut fixed = Fixed4::new();
    let mut line = String::new();
    for (index, value) in values.into_iter().enumerate() {
        if index > 0 {
            line.push(' ');
        }
        let text = fixed.format(value);
        line.extend(std::iter::repeat_n(' ', width.saturating_sub(text.len())));
        line.push_str(text);
    }
    line
}

/// Writes numbers with four decimals exactly as `format!("{value:.4}")` does, at formatting
/// speed: the value rounded to four decimals half to even on its exact binary value (a float
/// is `m`×2^`e`, so ten thousand times it is a whole number over a power of two), `-` for every
/// negative value and for negative zero (`-0.0000`), `NaN`, `inf` and `-inf` as `std` writes
/// them. The text is built in the formatter's own buffer, from the last digit back. A float32
/// is written as the float64 of the same value: `std` rounds the exact value either way.
pub(super) struct Fixed4 {
    bytes: [u8; Self::LONGEST],
    /// The text of a float64 whose whole part passes a u128 (2^128 and more), from `std`.
    spilled: String,
}

impl Fixed4 {
    /// The longest text built in the buffer: a sign, the 39 digits of a u128, the point and
    /// four decimals.
    const LONGEST: usize = 1 + 39 + 1 + 4;

    pub(super) fn new() -> Self {
        Self {
            bytes: [0; Self::LONGEST],
            spilled: String::new(),
        }
    }

    /// `value` as `format!("{value:.4}")` writes it.
    pub(super) fn format(&mut self, value: impl Into<f64>) -> &str {
        let value: f64 = value.into();
        if !value.is_finite() {
            return non_finite(value);
        }
        let bits = value.to_bits();
        let biased = (bits >> 52) & 0x7ff;
        let fraction = bits & 0x000f_ffff_ffff_ffff;
        let (mantissa, exponent) = if biased == 0 {
            (fraction, -1074)
        } else {
            (
                fraction | 1 << 52,
                i32::try_from(biased).unwrap_or(0) - 1075,
            )
        };
        let (whole, mut decimals) = if exponent < 0 {
            let ten_thousandths =
                rounded_shift(u128::from(mantissa) * 10_000, exponent.unsigned_abs());
            (ten_thousandths / 10_000, ten_thousandths % 10_000)
        } else if exponent <= 75 {
            // A mantissa of at most 53 bits, shifted by at most 75: within a u128.
            (u128::from(mantissa) << exponent, 0)
        } else {
            use std::fmt::Write as _;
            self.spilled.clear();
            let _ = write!(self.spilled, "{value:.4}");
            return &self.spilled;
        };
        let mut at = Self::LONGEST;
        for _ in 0..4 {
            at -= 1;
            self.bytes[at] = digit(decimals);
            decimals /= 10;
        }
        at -= 1;
        self.bytes[at] = b'.';
        at = self.push_whole(at, whole);
        if value.is_sign_negative() {
            at -= 1;
            self.bytes[at] = b'-';
        }
        std::str::from_utf8(&self.bytes[at..]).expect("ASCII digits")
    }

    /// Writes the digits of `whole` to end before `at`; returns where they start.
    fn push_whole(&mut self, mut at: usize, mut whole: u128) -> usize {
        // Most numbers' whole parts fit a u64, whose divisions are much cheaper.
        while u64::try_from(whole).is_err() {
            at -= 1;
            self.bytes[at] = digit(whole);
            whole /= 10;
        }
        let mut whole = u64::try_from(whole).unwrap_or_default();
        loop {
            at -= 1;
            self.bytes[at] = digit(u128::from(whole));
            whole /= 10;
            if whole == 0 {
                return at;
            }
        }
    }
}

/// The last decimal digit of `number`, as text.
fn digit(number: u128) -> u8 {
    b"0123456789"[usize::try_from(number % 10).unwrap_or_default()]
}

/// `numerator` / 2^`shift`, rounded to the nearest whole number, half to even.
fn rounded_shift(numerator: u128, shift: u32) -> u128 {
    // The numerator is under 2^67 (a 53-bit mantissa times ten thousand): from a shift of 68
    // on, the quotient is under a half.
    if shift >= 68 {
        return 0;
    }
    let quotient = numerator >> shift;
    let remainder = numerator & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if remainder > half || (remainder == half && quotient % 2 == 1) {
        quotient + 1
    } else {
        quotient
    }
}

/// `NaN`, `inf` or `-inf`, as `std` writes them.
fn non_finite(value: f64) -> &'static str {
    if value.is_nan() {
        "NaN"
    } else if value > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

/// Appends `mantissa`×10^`exponent` (`-1.25`, `+7`) in plain decimal notation, as `std` does.
fn push_without_exponent(line: &mut Vec<u8>, mantissa: &[u8], exponent: &[u8]) {
    let (negative, mantissa) = match mantissa.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, mantissa),
    };
    let digits: Vec<u8> = mantissa
        .iter()
        .copied()
        .filter(u8::is_ascii_digit)
        .collect();
    let exponent = exponent.strip_prefix(b"+").unwrap_or(exponent);
    let (exponent_negative, exponent_digits) = match exponent.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, exponent),
    };
    let magnitude = exponent_digits
        .iter()
        .fold(0_isize, |sum, digit| sum * 10 + isize::from(digit - b'0'));
    // The mantissa is `d.ddd`: the point sits `point` digits from the left of `digits`.
    let point = 1 + if exponent_negative {
        -magnitude
    } else {
        magnitude
    };
    if negative {
        line.push(b'-');
    }
    let count = digits.len().cast_signed();
    if point <= 0 {
        line.extend_from_slice(b"0.");
        line.resize(line.len() + point.unsigned_abs(), b'0');
        line.extend_from_slice(&digits);
    } else if point < count {
        let (whole, fraction) = digits.split_at(point.unsigned_abs());
        line.extend_from_slice(whole);
        line.push(b'.');
        line.extend_from_slice(fraction);
    } else {
        line.extend_from_slice(&digits);
        line.resize(line.len() + (point - count).unsigned_abs(), b'0');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn display(value: f32) -> String {
        let mut line = Vec::new();
        push_display(&mut line, value);
        String::from_utf8(line).unwrap()
    }

    /// A small deterministic generator, so the test needs no seed file.
    fn bits(count: usize) -> impl Iterator<Item = u32> {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        (0..count).map(move |_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 32) as u32
        })
    }

    /// Checks [`Fixed4`] against `format!("{value:.4}")`, and its negative too.
    fn assert_four_decimals_as_std<N>(fixed: &mut Fixed4, value: N)
    where
        N: Into<f64> + std::fmt::Display + std::ops::Neg<Output = N> + Copy,
    {
        for value in [value, -value] {
            let expected = format!("{value:.4}");
            let bits = value.into().to_bits();
            assert_eq!(fixed.format(value), expected, "{bits:#018x}");
        }
    }

    #[test]
    fn four_decimals_are_stds_for_every_kind_of_float32() {
        let mut fixed = Fixed4::new();
        // Decimal ties that binary cannot hold (0.00005 lies just above or below), zero,
        // values that round to zero, large and whole values, the extremes, NaN, infinities.
        let special = [
            0.0,
            0.000_05,
            0.000_15,
            1.000_05,
            2.000_05,
            0.123_45,
            0.999_95,
            9.999_95,
            0.000_01,
            0.000_049_999,
            0.5,
            1.0,
            12_345.678,
            16_777_216.0,
            1e10,
            1e20,
            f32::MAX,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::EPSILON,
            f32::NAN,
            f32::INFINITY,
        ];
        for value in special {
            assert_four_decimals_as_std(&mut fixed, value);
        }
        // Multiples of 2^-20, which fall near the ties of every last decimal.
        for numerator in 0..200_000_u32 {
            #[expect(clippy::cast_precision_loss, reason = "exact below 2^24")]
            let value = numerator as f32 / 1_048_576.0;
            assert_four_decimals_as_std(&mut fixed, value);
        }
        for bits in bits(200_000) {
            // Any bits; then exponents from 2^-20 to 2^20, where four decimals hold most digits.
            let near_one = bits & 0x807f_ffff | (107 + (bits >> 23) % 40) << 23;
            assert_four_decimals_as_std(&mut fixed, f32::from_bits(bits));
            assert_four_decimals_as_std(&mut fixed, f32::from_bits(near_one));
        }
        for exponent in 0..=255_u32 {
            for mantissa in [0, 1, 0x40_0000, 0x7f_ffff, 0x12_3456] {
                let value = f32::from_bits(exponent << 23 | mantissa);
                assert_four_decimals_as_std(&mut fixed, value);
            }
        }
    }

    #[test]
    fn four_decimals_are_stds_for_every_kind_of_float64() {
        let mut fixed = Fixed4::new();
        // Past 2^128 the whole part passes a u128 and `std` writes it.
        let special = [
            0.0,
            0.000_05,
            1.000_05,
            2f64.powi(75) * 1.5,
            2f64.powi(127),
            2f64.powi(128),
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            f64::NAN,
            f64::INFINITY,
        ];
        for value in special {
            assert_four_decimals_as_std(&mut fixed, value);
        }
        // The exact binary ties are the odd multiples of 1/32 (ten thousand times k/32 is
        // k·312.5): each rounds to the even ten-thousandth.
        for numerator in 0..400_000_u32 {
            assert_four_decimals_as_std(&mut fixed, f64::from(numerator) / 32.0);
        }
        assert_eq!(fixed.format(0.031_25), "0.0312");
        assert_eq!(fixed.format(-0.093_75_f32), "-0.0938");
        for pair in bits(400_000).collect::<Vec<_>>().chunks_exact(2) {
            // Any bits; then exponents from 2^-40 to 2^40.
            let bits = u64::from(pair[0]) << 32 | u64::from(pair[1]);
            let near_one = bits & 0x800f_ffff_ffff_ffff | (983 + (bits >> 52) % 80) << 52;
            assert_four_decimals_as_std(&mut fixed, f64::from_bits(bits));
            assert_four_decimals_as_std(&mut fixed, f64::from_bits(near_one));
        }
    }

    #[test]
    fn the_text_is_stds_for_every_kind_of_float32() {
        let special = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            10.0,
            100.0,
            0.1,
            -0.177_777_22,
            1_765_629.2,
            0.5,
            0.25,
            0.125,
            2.5e-5,
            1e7,
            1e15,
            1e16,
            1e17,
            123_456_790.0,
            16_777_216.0,
            1e-5,
            1e-6,
            1e-7,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::from_bits(1),
            -f32::from_bits(1),
            f32::from_bits(0x007f_ffff),
            f32::MAX,
            f32::MIN,
            f32::EPSILON,
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        for value in special {
            assert_eq!(
                display(value),
                value.to_string(),
                "{:#010x}",
                value.to_bits()
            );
        }
        // Every exponent, both signs, random mantissas and random bits: the subnormals, the
        // whole numbers and the ones with exponents alike.
        for bits in bits(200_000) {
            for value in [f32::from_bits(bits), f32::from_bits(bits & 0x807f_ffff)] {
                assert_eq!(display(value), value.to_string(), "{bits:#010x}");
            }
        }
        for whole in (-70_000_i32..70_000).step_by(7) {
            #[expect(clippy::cast_precision_loss, reason = "small whole numbers are exact")]
            let value = whole as f32;
            assert_eq!(display(value), value.to_string());
        }
        for exponent in 0..=255_u32 {
            for mantissa in [0, 1, 0x40_0000, 0x7f_ffff, 0x12_3456] {
                let value = f32::from_bits(exponent << 23 | mantissa);
                assert_eq!(display(value), value.to_string(), "{exponent} {mantissa}");
                assert_eq!(display(-value), (-value).to_string());
            }
        }
    }
}
