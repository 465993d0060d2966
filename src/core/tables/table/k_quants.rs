//! ggml's 256-number super-blocks (`Q2_K` to `Q6_K`), dequantized to f32.
//!
//! A super-block has an f16 scale `d` (and for `Q2_K`, `Q4_K`, `Q5_K` an f16 `dmin`), and its
//! sub-blocks of 16 or 32 numbers each carry a small integer scale (and min). A number is
//! `(d × scale) × q − (dmin × min)`, each product rounded to f32 in that order, as ggml's
//! reference code and the `gguf` Python package compute it, so the results agree bit for bit.
//!
//! The bit layouts follow ggml's `block_q*_K` structs: low bits of 32 consecutive numbers share
//! 32 bytes, one bit-plane (or pair of bits) per group of 32, in the order given below.

use super::small_blocks::f16_at;

/// Numbers in one super-block.
pub(super) const LEN: usize = 256;
/// `Q2_K`: 16 scale/min bytes, 64 bytes of 2-bit values, `d`, `dmin`.
pub(super) const Q2_K_BYTES: usize = LEN / 16 + LEN / 4 + 4;
/// `Q3_K`: 32 bytes of high bits, 64 bytes of 2-bit values, 12 bytes of 6-bit scales, `d`.
pub(super) const Q3_K_BYTES: usize = LEN / 8 + LEN / 4 + 12 + 2;
/// `Q4_K`: `d`, `dmin`, 12 bytes of 6-bit scales and mins, 128 bytes of nibbles.
pub(super) const Q4_K_BYTES: usize = 4 + 12 + LEN / 2;
/// `Q5_K`: as `Q4_K` with 32 bytes of fifth bits before the nibbles.
pub(super) const Q5_K_BYTES: usize = 4 + 12 + LEN / 8 + LEN / 2;
/// `Q6_K`: 128 bytes of low nibbles, 64 bytes of high bit pairs, 16 signed scales, `d`.
pub(super) const Q6_K_BYTES: usize = LEN / 2 + LEN / 4 + LEN / 16 + 2;

/// The 2-bit field `shift / 2` of byte `l` in each 32-byte group: number `n = 128 g + 32 s + l`
/// reads bits `2s` and `2s + 1` of `packed[32 g + l]`.
fn two_bits(packed: &[u8], n: usize) -> u8 {
    let (group, within) = (n / 128, n % 128);
    (packed[32 * group + within % 32] >> (2 * (within / 32))) & 3
}

/// Bit `n / 32` of `bits[n % 32]`: the high-bit planes of `Q3_K` and `Q5_K`.
fn high_bit(bits: &[u8], n: usize) -> u8 {
    (bits[n % 32] >> (n / 32)) & 1
}

/// The 4-bit value of number `n = 64 g + 32 s + l`: nibble `s` of `packed[32 g + l]`.
fn nibble(packed: &[u8], n: usize) -> u8 {
    let (group, within) = (n / 64, n % 64);
    (packed[32 * group + within % 32] >> (4 * (within / 32))) & 0x0F
}

/// The eight 6-bit (scale, min) pairs of `Q4_K` and `Q5_K`, packed in 12 bytes: the first four
/// in the low six bits of bytes 0–3 and 4–7, the last four in the nibbles of bytes 8–11 with
/// their top two bits in the top bits of bytes 0–3 (scales) and 4–7 (mins).
fn scales_and_mins(packed: &[u8]) -> [(u8, u8); 8] {
    std::array::from_fn(|j| {
        if j < 4 {
            (packed[j] & 0x3F, packed[j + 4] & 0x3F)
        } else {
            (
                (packed[j + 4] & 0x0F) | ((packed[j - 4] >> 6) << 4),
                (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4),
            )
        }
    })
}

/// `Q2_K`: sub-blocks of 16 with a 4-bit scale (low nibble) and 4-bit min (high nibble).
pub(super) fn q2_k(block: &[u8], out: &mut Vec<f32>) {
    let (scales, packed) = (&block[..16], &block[16..80]);
    let (d, dmin) = (f16_at(block, 80), f16_at(block, 82));
    out.extend((0..LEN).map(|n| {
        let scale = scales[n / 16];
        let dl = d * f32::from(scale & 0x0F);
        let ml = dmin * f32::from(scale >> 4);
        dl * f32::from(two_bits(packed, n)) - ml
    }));
}

/// `Q3_K`: 2 low bits plus a high bit whose absence subtracts 4; sub-blocks of 16 with 6-bit
/// scales less 32 (low nibbles in bytes 0–7, then their high nibbles; top two bits in bytes
/// 8–11, two bits per sub-block, pair `k / 4` of byte `8 + k % 4`).
pub(super) fn q3_k(block: &[u8], out: &mut Vec<f32>) {
    let (high_bits, packed, scale_bytes) = (&block[..32], &block[32..96], &block[96..108]);
    let d = f16_at(block, 108);
    let scales: [f32; 16] = std::array::from_fn(|k| {
        let low = if k < 8 {
            scale_bytes[k] & 0x0F
        } else {
            scale_bytes[k - 8] >> 4
        };
        let high = (scale_bytes[8 + k % 4] >> (2 * (k / 4))) & 3;
        f32::from((low | (high << 4)).cast_signed() - 32)
    });
    out.extend((0..LEN).map(|n| {
        let dl = d * scales[n / 16];
        let q =
            two_bits(packed, n).cast_signed() - (((high_bit(high_bits, n) ^ 1) << 2).cast_signed());
        dl * f32::from(q)
    }));
}

/// `Q4_K`: nibbles in sub-blocks of 32 with 6-bit scales and mins.
pub(super) fn q4_k(block: &[u8], out: &mut Vec<f32>) {
    let (d, dmin) = (f16_at(block, 0), f16_at(block, 2));
    let pairs = scales_and_mins(&block[4..16]);
    let packed = &block[16..Q4_K_BYTES];
    out.extend((0..LEN).map(|n| {
        let (scale, min) = pairs[n / 32];
        (d * f32::from(scale)) * f32::from(nibble(packed, n)) - dmin * f32::from(min)
    }));
}

/// `Q5_K`: as `Q4_K` with a fifth bit per number.
pub(super) fn q5_k(block: &[u8], out: &mut Vec<f32>) {
    let (d, dmin) = (f16_at(block, 0), f16_at(block, 2));
    let pairs = scales_and_mins(&block[4..16]);
    let (high_bits, packed) = (&block[16..48], &block[48..Q5_K_BYTES]);
    out.extend((0..LEN).map(|n| {
        let (scale, min) = pairs[n / 32];
        let q = nibble(packed, n) | (high_bit(high_bits, n) << 4);
        (d * f32::from(scale)) * f32::from(q) - dmin * f32::from(min)
    }));
}

/// `Q6_K`: a low nibble (number `n = 128 g + 64 s + b` in nibble `s` of byte `64 g + b`) and two
/// high bits (as `Q2_K`'s layout), less 32; sub-blocks of 16 with signed 8-bit scales.
pub(super) fn q6_k(block: &[u8], out: &mut Vec<f32>) {
    let (low, high, scales) = (&block[..128], &block[128..192], &block[192..208]);
    let d = f16_at(block, 208);
    out.extend((0..LEN).map(|n| {
        let (group, within) = (n / 128, n % 128);
        let nibble = (low[64 * group + within % 64] >> (4 * (within / 64))) & 0x0F;
        let q = (nibble | (two_bits(high, n) << 4)).cast_signed() - 32;
        (d * f32::from(scales[n / 16].cast_signed())) * f32::from(q)
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_sizes_are_ggmls() {
        assert_eq!(
            [Q2_K_BYTES, Q3_K_BYTES, Q4_K_BYTES, Q5_K_BYTES, Q6_K_BYTES],
            [84, 110, 144, 176, 210]
        );
    }

    #[test]
    fn six_bit_scales_unpack_as_ggml_packs_them() {
        let packed = [
            0b1100_0001,
            2,
            3,
            4,
            0b0100_0101,
            6,
            7,
            8,
            0x9A,
            0xBC,
            0xDE,
            0xF0,
        ];
        let pairs = scales_and_mins(&packed);
        assert_eq!(pairs[0], (1, 5));
        assert_eq!(pairs[4], (0x0A | (0b11 << 4), 0x09 | (0b01 << 4)));
        assert_eq!(pairs[7], (0x00, 0x0F));
    }

    #[test]
    fn q4_k_subtracts_the_scaled_minimum() {
        let mut block = half::f16::from_f32(0.5).to_le_bytes().to_vec();
        block.extend(half::f16::from_f32(0.25).to_le_bytes());
        block.extend([2, 2, 2, 2, 4, 4, 4, 4, 0x22, 0x22, 0x22, 0x22]);
        block.extend([0x31; 128]);
        let mut out = Vec::new();
        q4_k(&block, &mut out);
        // number 0: (0.5 × 2) × 1 − 0.25 × 4; number 32: high nibble 3.
        assert_eq!((out[0], out[32]), (0.0, 2.0));
        assert_eq!(out.len(), LEN);
    }
}
