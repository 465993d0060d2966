//! Numbers written at formatting speed, in the very text `std::fmt` writes.
//!
//! The print subcommands write millions of float32s (`matrix --vocab gpt2 --format csv` writes
//! 38.6 million). `write!(out, "{value}")` goes through `std::fmt` once a number; here the
//! shortest digits come from `zmij` (the shortest-round-trip formatter `serde_json` itself
//! uses, a successor of `ryu`) into a line buffer, and only the layout is redone to match
//! `Display`: no exponent, no `.0` on a whole number. The tests compare with `std` over many
//! values, subnormals, NaN and the infinities included.

use std::io::Write as _;

/// Appends `value` exactly as `format!("{value}")` writes it: the shortest digits that read
/// back as the same float32, in plain decimal notation (`NaN`, `inf`, `-inf` for the rest).
pub(super) fn push_display(line: &mut Vec<u8>, value: f32) {
    if !value.is_finite() {
        line.extend_from_slice(non_finite(value).as_bytes());
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

/// `NaN`, `inf` or `-inf`, as `std` writes them.
fn non_finite(value: f32) -> &'static str {
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
