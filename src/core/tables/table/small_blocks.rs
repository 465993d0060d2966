//! ggml's 32-number blocks (`Q8_0`, `Q4_0`, `Q4_1`, `Q5_0`, `Q5_1`), dequantized to f32.
//!
//! Each block starts with an f16 scale `d` (and, for the `_1` formats, an f16 minimum `m`);
//! a number is `d × q` (or `d × q + m`) with `q` the block's small integer for it. Each step is
//! one f32 operation in the order ggml's reference code (and the `gguf` Python package) uses,
//! so the results agree bit for bit.
//!
//! The 4-bit formats pack two numbers per byte: the low nibbles of the 16 bytes are numbers
//! 0–15 and the high nibbles numbers 16–31. The 5-bit formats keep the fifth bit of number `j`
//! in bit `j` of a little-endian u32.

/// Numbers in one block.
pub(super) const LEN: usize = 32;
/// Bytes in a `Q8_0` block: the scale and 32 signed bytes.
pub(super) const Q8_0_BYTES: usize = 2 + LEN;
/// Bytes in a `Q4_0` block: the scale and 16 bytes of nibbles.
pub(super) const Q4_0_BYTES: usize = 2 + LEN / 2;
/// Bytes in a `Q4_1` block: the scale, the minimum and 16 bytes of nibbles.
pub(super) const Q4_1_BYTES: usize = 4 + LEN / 2;
/// Bytes in a `Q5_0` block: the scale, the fifth bits and 16 bytes of nibbles.
pub(super) const Q5_0_BYTES: usize = 2 + 4 + LEN / 2;
/// Bytes in a `Q5_1` block: the scale, the minimum, the fifth bits and 16 bytes of nibbles.
pub(super) const Q5_1_BYTES: usize = 4 + 4 + LEN / 2;

/// The little-endian f16 at `at`, widened exactly.
pub(super) fn f16_at(block: &[u8], at: usize) -> f32 {
    half::f16::from_le_bytes([block[at], block[at + 1]]).to_f32()
}

/// Integers 0–15 in block order: the low nibbles, then the high nibbles.
fn nibbles(packed: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let low = packed.iter().map(|byte| byte & 0x0F);
    let high = packed.iter().map(|byte| byte >> 4);
    low.chain(high)
}

/// Integers 0–31: the nibbles with their fifth bit from `high_bits`.
fn five_bits<'a>(high_bits: &[u8], packed: &'a [u8]) -> impl Iterator<Item = u8> + 'a {
    let high = u32::from_le_bytes([high_bits[0], high_bits[1], high_bits[2], high_bits[3]]);
    nibbles(packed)
        .enumerate()
        .map(move |(j, low)| low | (u8::from((high >> j) & 1 == 1) << 4))
}

/// `Q8_0`: `d × q` for 32 signed bytes `q`.
pub(super) fn q8_0(block: &[u8], out: &mut Vec<f32>) {
    let d = f16_at(block, 0);
    out.extend(
        block[2..Q8_0_BYTES]
            .iter()
            .map(|&q| f32::from(q.cast_signed()) * d),
    );
}

/// `Q4_0`: `d × (q − 8)`.
pub(super) fn q4_0(block: &[u8], out: &mut Vec<f32>) {
    let d = f16_at(block, 0);
    out.extend(nibbles(&block[2..Q4_0_BYTES]).map(|q| d * f32::from(q.cast_signed() - 8)));
}

/// `Q4_1`: `d × q + m`.
pub(super) fn q4_1(block: &[u8], out: &mut Vec<f32>) {
    let (d, m) = (f16_at(block, 0), f16_at(block, 2));
    out.extend(nibbles(&block[4..Q4_1_BYTES]).map(|q| d * f32::from(q) + m));
}

/// `Q5_0`: `d × (q − 16)`.
pub(super) fn q5_0(block: &[u8], out: &mut Vec<f32>) {
    let d = f16_at(block, 0);
    out.extend(
        five_bits(&block[2..6], &block[6..Q5_0_BYTES]).map(|q| d * f32::from(q.cast_signed() - 16)),
    );
}

/// `Q5_1`: `d × q + m`.
pub(super) fn q5_1(block: &[u8], out: &mut Vec<f32>) {
    let (d, m) = (f16_at(block, 0), f16_at(block, 2));
    out.extend(five_bits(&block[4..8], &block[8..Q5_1_BYTES]).map(|q| d * f32::from(q) + m));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f16_bytes(value: f32) -> [u8; 2] {
        half::f16::from_f32(value).to_le_bytes()
    }

    #[test]
    fn q8_0_multiplies_each_signed_byte_by_the_scale() {
        let mut block = f16_bytes(0.5).to_vec();
        block.extend((0..32).map(|i: i8| (i - 16).cast_unsigned()));
        let mut out = Vec::new();
        q8_0(&block, &mut out);
        let expected: Vec<f32> = (0..32i8).map(|i| f32::from(i - 16) * 0.5).collect();
        assert_eq!(out, expected);
    }

    #[test]
    fn four_bit_blocks_put_the_low_nibbles_first() {
        let mut block = f16_bytes(2.0).to_vec();
        block.extend([0x1F; 16]);
        let mut out = Vec::new();
        q4_0(&block, &mut out);
        assert_eq!(out[..16], [14.0; 16]);
        assert_eq!(out[16..], [-14.0; 16]);

        let mut block = f16_bytes(1.0).to_vec();
        block.extend(f16_bytes(-3.0));
        block.extend([0x1F; 16]);
        out.clear();
        q4_1(&block, &mut out);
        assert_eq!((out[0], out[31]), (12.0, -2.0));
    }

    #[test]
    fn five_bit_blocks_take_bit_j_of_the_high_word_for_number_j() {
        let mut block = f16_bytes(1.0).to_vec();
        block.extend(0x8000_0001u32.to_le_bytes());
        block.extend([0x00; 16]);
        let mut out = Vec::new();
        q5_0(&block, &mut out);
        assert_eq!((out[0], out[1], out[30], out[31]), (0.0, -16.0, -16.0, 0.0));

        let mut block = f16_bytes(1.0).to_vec();
        block.extend(f16_bytes(0.5));
        block.extend(0x0001_0000u32.to_le_bytes());
        block.extend([0xF0; 16]);
        out.clear();
        q5_1(&block, &mut out);
        assert_eq!((out[0], out[16], out[17]), (0.5, 31.5, 15.5));
    }
}
