//! PyTorch-compatible seeded initialisation.
//!
//! `torch.manual_seed(s); torch.nn.Embedding(rows, cols)` fills a float32 matrix with
//! `normal_(0, 1)` drawn from PyTorch's CPU generator (an MT19937). This module reproduces
//! that generator and both of PyTorch's normal-sampling paths bit for bit, so a learner's
//! notebook and this program show the same digits. The specification is PyTorch's x86-64
//! kernel (AVX2): a scalar double-precision Box-Muller for fewer than 16 values and a
//! vectorised single-precision one with Cephes-style `log` and `sincos` otherwise.

use ndarray::Array2;
use rand::RngCore;

use crate::core::tables::simd::with_features;

const MT_N: usize = 624;
const MT_M: usize = 397;
const MATRIX_A: u32 = 0x9908_B0DF;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7FFF_FFFF;

/// A 32-bit Mersenne Twister (MT19937), seeded as `torch.manual_seed` seeds it.
#[derive(Clone)]
pub struct Mt19937 {
    state: [u32; MT_N],
    index: usize,
}

impl Mt19937 {
    /// Seeds the twister with the standard `init_genrand`.
    #[must_use]
    pub fn new(seed: u32) -> Self {
        let mut state = [0u32; MT_N];
        state[0] = seed;
        for i in 1..MT_N {
            let previous = state[i - 1];
            #[expect(
                clippy::cast_possible_truncation,
                reason = "i < 624 always fits in u32"
            )]
            let index = i as u32;
            state[i] = 1_812_433_253u32
                .wrapping_mul(previous ^ (previous >> 30))
                .wrapping_add(index);
        }
        Self { state, index: MT_N }
    }

    /// Regenerates all 624 words, in the reference implementation's three runs (no modulo in
    /// the loops, which keeps it quick for the 50-million-value tables).
    fn twist(&mut self) {
        let mix = |upper: u32, lower: u32, far: u32| {
            let y = (upper & UPPER_MASK) | (lower & LOWER_MASK);
            far ^ (y >> 1) ^ if y & 1 == 0 { 0 } else { MATRIX_A }
        };
        let state = &mut self.state;
        for i in 0..MT_N - MT_M {
            state[i] = mix(state[i], state[i + 1], state[i + MT_M]);
        }
        for i in MT_N - MT_M..MT_N - 1 {
            state[i] = mix(state[i], state[i + 1], state[i + MT_M - MT_N]);
        }
        state[MT_N - 1] = mix(state[MT_N - 1], state[0], state[MT_M - 1]);
        self.index = 0;
    }

    /// The next tempered 32-bit output.
    pub fn next_word(&mut self) -> u32 {
        if self.index >= MT_N {
            self.twist();
        }
        let word = temper(self.state[self.index]);
        self.index += 1;
        word
    }

    /// Fills `out` with the next outputs, each passed through `map`: the same sequence as
    /// calling [`Mt19937::next_word`] for each, a state buffer at a time.
    fn fill_with(&mut self, out: &mut [f32], map: impl Fn(u32) -> f32) {
        let mut done = 0;
        while done < out.len() {
            if self.index >= MT_N {
                self.twist();
            }
            let take = (MT_N - self.index).min(out.len() - done);
            let words = &self.state[self.index..self.index + take];
            for (slot, &word) in out[done..done + take].iter_mut().zip(words) {
                *slot = map(temper(word));
            }
            self.index += take;
            done += take;
        }
    }
}

/// MT19937's tempering of a state word into an output.
#[inline]
fn temper(mut y: u32) -> u32 {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9D2C_5680;
    y ^= (y << 15) & 0xEFC6_0000;
    y ^ (y >> 18)
}

/// PyTorch's float32 uniform in [0, 1) from one 32-bit output: its low 24 bits × 2⁻²⁴.
#[inline]
fn uniform_from_word(word: u32) -> f32 {
    #[expect(
        clippy::cast_precision_loss,
        reason = "a 24-bit integer is exact in f32"
    )]
    let numerator = (word & 0x00FF_FFFF) as f32;
    numerator * (1.0 / 16_777_216.0)
}

impl RngCore for Mt19937 {
    fn next_u32(&mut self) -> u32 {
        self.next_word()
    }

    /// PyTorch's 64-bit draw: the first 32-bit output is the high half.
    fn next_u64(&mut self) -> u64 {
        let high = u64::from(self.next_word());
        let low = u64::from(self.next_word());
        (high << 32) | low
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(4) {
            let bytes = self.next_word().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }
}

/// PyTorch's CPU generator: the twister plus the cached second Box-Muller sample.
///
/// Create one per `torch.manual_seed` call and draw layers from it in the order the
/// notebook creates them; the cache carries over between layers as it does in PyTorch.
#[derive(Clone)]
pub struct TorchGenerator {
    twister: Mt19937,
    cached_normal: Option<f64>,
}

impl TorchGenerator {
    /// The state `torch.manual_seed(seed)` leaves behind.
    #[must_use]
    pub fn manual_seed(seed: u64) -> Self {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "PyTorch seeds the twister with the low 32 bits"
        )]
        let low_bits = seed as u32;
        Self {
            twister: Mt19937::new(low_bits),
            cached_normal: None,
        }
    }

    fn uniform_f32(&mut self) -> f32 {
        uniform_from_word(self.twister.next_word())
    }

    /// Fills `values` with [`TorchGenerator::uniform_f32`] draws, in order.
    fn fill_uniform_f32(&mut self, values: &mut [f32]) {
        self.twister.fill_with(values, uniform_from_word);
    }

    fn uniform_f64(&mut self) -> f64 {
        #[expect(
            clippy::cast_precision_loss,
            reason = "a 53-bit integer is exact in f64"
        )]
        let numerator = (self.twister.next_u64() & ((1u64 << 53) - 1)) as f64;
        numerator * (1.0 / 9_007_199_254_740_992.0)
    }

    fn normal_f64(&mut self) -> f64 {
        if let Some(cached) = self.cached_normal.take() {
            return cached;
        }
        let u1 = self.uniform_f64();
        let u2 = self.uniform_f64();
        let radius = (-2.0 * (-u2).ln_1p()).sqrt();
        let theta = 2.0 * std::f64::consts::PI * u1;
        self.cached_normal = Some(radius * theta.sin());
        radius * theta.cos()
    }

    /// Fills `values` as `tensor.normal_(mean, std)` does on the CPU.
    pub fn normal_fill(&mut self, values: &mut [f32], mean: f32, std: f32) {
        let n = values.len();
        if n < 16 {
            for value in values.iter_mut() {
                #[expect(
                    clippy::cast_possible_truncation,
                    reason = "PyTorch rounds the double sample to float32"
                )]
                let sample = (self.normal_f64() * f64::from(std) + f64::from(mean)) as f32;
                *value = sample;
            }
            return;
        }
        self.fill_uniform_f32(values);
        transform_blocks(values, mean, std);
        if !n.is_multiple_of(16) {
            let tail = &mut values[n - 16..];
            self.fill_uniform_f32(tail);
            fill16(tail, mean, std);
        }
    }

    /// The weight matrix of `nn.Embedding(rows, cols)` created next from this generator.
    ///
    /// # Panics
    /// Never: the buffer always holds `rows * cols` values.
    #[must_use]
    pub fn embedding(&mut self, rows: usize, cols: usize) -> Array2<f32> {
        let mut values = vec![0.0f32; rows * cols];
        self.normal_fill(&mut values, 0.0, 1.0);
        Array2::from_shape_vec((rows, cols), values).expect("rows * cols values were made")
    }

    /// `torch.rand(rows, cols)` drawn next from this generator: uniform numbers in [0, 1).
    ///
    /// PyTorch's CPU `uniform_` for float32 takes one 32-bit draw per element, in order, and
    /// keeps its low 24 bits: `(u32 & 0xFFFFFF) * 2^-24`. It neither reads nor changes the
    /// cached normal sample.
    ///
    /// # Panics
    /// Never: the buffer always holds `rows * cols` values.
    #[must_use]
    pub fn rand(&mut self, rows: usize, cols: usize) -> Array2<f32> {
        let values = (0..rows * cols).map(|_| self.uniform_f32()).collect();
        Array2::from_shape_vec((rows, cols), values).expect("rows * cols values were made")
    }
    /// The weight of `nn.Linear(d_in, d_out, bias=False)` created next from this generator,
    /// laid out as PyTorch holds it: `d_out` rows of `d_in` numbers (the layer computes
    /// `x @ weight.T`).
    ///
    /// PyTorch's default initialisation is `kaiming_uniform_(weight, a=sqrt(5))`, which is
    /// `uniform_(-bound, bound)` with `bound = 1/sqrt(d_in)` (computed in double precision as
    /// `sqrt(3) * sqrt(2 / (1 + sqrt(5)²)) / sqrt(d_in)`, then rounded to float32). Each element takes
    /// one 32-bit draw, in memory order, and becomes `u * (to - from) + from` in float32 with
    /// one rounding (a fused multiply-add, as PyTorch's AVX2 kernel computes it), where `u` is
    /// the draw's low 24 bits times 2^-24.
    ///
    /// # Panics
    /// Never: the buffer always holds `d_out * d_in` values.
    #[must_use]
    pub fn linear(&mut self, d_in: usize, d_out: usize) -> Array2<f32> {
        let bound = linear_bound(d_in);
        let (from, to) = (-bound, bound);
        let span = to - from;
        let values = (0..d_out * d_in)
            .map(|_| self.uniform_f32().mul_add(span, from))
            .collect();
        Array2::from_shape_vec((d_out, d_in), values).expect("d_out * d_in values were made")
    }
}

/// `1/sqrt(d_in)` as `kaiming_uniform_(a=sqrt(5))` computes it, rounded to float32.
fn linear_bound(d_in: usize) -> f32 {
    // calculate_gain("leaky_relu", sqrt(5)): sqrt(5) squared is a hair above 5 in doubles.
    let slope = 5.0f64.sqrt();
    let gain = (2.0 / (1.0 + slope * slope)).sqrt();
    #[expect(clippy::cast_precision_loss, reason = "widths are far below 2^52")]
    let std = gain / (d_in as f64).sqrt();
    #[expect(
        clippy::cast_possible_truncation,
        reason = "PyTorch passes the bound to a float32 tensor"
    )]
    let bound = (3.0f64.sqrt() * std) as f32;
    bound
}

/// Box-Muller over every whole block of 16, with the fastest exact code the CPU allows.
///
/// Every operation is the same single-precision operation either way, and `mul_add` is a
/// correctly rounded fused multiply-add either way (a hardware instruction, or the C library's
/// `fmaf`), so both paths give the same bits; the hardware one is several times faster.
fn transform_blocks(values: &mut [f32], mean: f32, std: f32) {
    with_features!(
        ["fma", "avx2"],
        transform_blocks_fma(values, mean, std),
        for block in values.chunks_exact_mut(16) {
            fill16(block, mean, std);
        },
    );
}

/// [`transform_blocks`] compiled with FMA and AVX2, as PyTorch's own kernel is.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma,avx2")]
fn transform_blocks_fma(values: &mut [f32], mean: f32, std: f32) {
    for block in values.chunks_exact_mut(16) {
        fill16(block, mean, std);
    }
}

/// One 16-value Box-Muller block of PyTorch's vectorised kernel.
#[expect(
    clippy::inline_always,
    reason = "inlined into the FMA-compiled caller, so it is compiled with FMA too"
)]
#[inline(always)]
fn fill16(block: &mut [f32], mean: f32, std: f32) {
    for j in 0..8 {
        let u1 = 1.0 - block[j];
        let u2 = block[j + 8];
        let radius = (-2.0 * log_f32(u1)).sqrt();
        let (sin, cos) = sincos_f32(6.283_185_5_f32 * u2);
        block[j] = (radius * cos).mul_add(std, mean);
        block[j + 8] = (radius * sin).mul_add(std, mean);
    }
}

/// Cephes-style single-precision natural logarithm, as in PyTorch's AVX kernel.
#[expect(
    clippy::excessive_precision,
    reason = "the constants are written as the kernel's source writes them"
)]
#[expect(
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss,
    reason = "the exponent field is 8 bits; the kernel converts it as a signed int"
)]
#[inline(always)]
fn log_f32(x: f32) -> f32 {
    const P: [f32; 9] = [
        7.037_683_629_2e-2,
        -1.151_461_031_0e-1,
        1.167_699_874_0e-1,
        -1.242_014_084_6e-1,
        1.424_932_278_7e-1,
        -1.666_805_766_5e-1,
        2.000_071_476_5e-1,
        -2.499_999_399_3e-1,
        3.333_333_117_4e-1,
    ];
    const Q1: f32 = -2.121_944_40e-4;
    const Q2: f32 = 0.693_359_375;
    const SQRT_HALF: f32 = 0.707_106_77;

    let x = x.max(f32::from_bits(0x0080_0000));
    let bits = x.to_bits();
    let mut exponent = (((bits >> 23) as i32) - 127) as f32 + 1.0;
    let mantissa = f32::from_bits((bits & 0x807F_FFFF) | 0x3F00_0000);
    let x = if mantissa < SQRT_HALF {
        exponent -= 1.0;
        (mantissa - 1.0) + mantissa
    } else {
        mantissa - 1.0
    };
    let z = x * x;
    let mut y = P[0];
    for &coefficient in &P[1..] {
        y = y.mul_add(x, coefficient);
    }
    y *= x;
    y = y.mul_add(z, exponent * Q1);
    y = (-z).mul_add(0.5, y);
    exponent.mul_add(Q2, x + y)
}

/// Cephes-style single-precision sine and cosine, as in PyTorch's AVX kernel.
#[expect(
    clippy::excessive_precision,
    reason = "the constants are written as the kernel's source writes them"
)]
#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss,
    reason = "the kernel truncates to int and converts back, as written here"
)]
#[expect(
    clippy::many_single_char_names,
    reason = "the names of the kernel's source"
)]
#[inline(always)]
fn sincos_f32(t: f32) -> (f32, f32) {
    const FOUR_OVER_PI: f32 = 1.273_239_544_735_16;
    let mut x = t.abs();
    let mut sin_negative = t.is_sign_negative();
    let j = (((x * FOUR_OVER_PI) as i32) + 1) & !1;
    let y = j as f32;
    sin_negative ^= (j & 4) != 0;
    let cos_negative = (!(j - 2) & 4) != 0;
    x = y.mul_add(-0.785_156_25, x);
    x = y.mul_add(-2.418_756_484_985_351_562_5e-4, x);
    x = y.mul_add(-3.774_894_977_445_941_08e-8, x);
    let z = x * x;
    let cos_poly = 2.443_315_711_809_948e-5_f32
        .mul_add(z, -1.388_731_625_493_765e-3)
        .mul_add(z, 4.166_664_568_298_827e-2);
    let cos_poly = (cos_poly * z).mul_add(z, -(z * 0.5)) + 1.0;
    let sin_poly = (-1.951_529_589_1e-4_f32)
        .mul_add(z, 8.332_160_873_6e-3)
        .mul_add(z, -1.666_665_461_1e-1);
    let sin_poly = (sin_poly * z).mul_add(x, x);
    let (sin, cos) = if j & 2 == 0 {
        (sin_poly, cos_poly)
    } else {
        (cos_poly, sin_poly)
    };
    let sin = if sin_negative { -sin } else { sin };
    let cos = if cos_negative { -cos } else { cos };
    (sin, cos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    const REFERENCE: &str = include_str!("../../../tests/fixtures/torch-embedding-init.json");
    const LINEAR_REFERENCE: &str = include_str!("../../../tests/fixtures/torch-linear-init.json");

    /// Runs a recipe such as `manual_seed(42); Embedding(5,3); Embedding(4,3)`.
    fn run_recipe(recipe: &str) -> Vec<Array2<f32>> {
        let mut generator = None;
        let mut layers = Vec::new();
        for step in recipe.split(';').map(str::trim) {
            let inside = &step[step.find('(').unwrap() + 1..step.len() - 1];
            if step.starts_with("manual_seed") {
                generator = Some(TorchGenerator::manual_seed(inside.parse().unwrap()));
            } else {
                let (rows, cols) = inside.split_once(',').unwrap();
                let generator = generator.as_mut().unwrap();
                layers.push(generator.embedding(rows.parse().unwrap(), cols.parse().unwrap()));
            }
        }
        layers
    }

    #[test]
    fn every_reference_case_matches_pytorch_bit_for_bit() {
        let reference: Value = serde_json::from_str(REFERENCE).unwrap();
        let cases = reference["cases"].as_object().unwrap();
        assert!(cases.len() >= 6);
        for (name, case) in cases {
            let layers = run_recipe(case["recipe"].as_str().unwrap());
            let expected = case["bits"].as_array().unwrap();
            assert_eq!(layers.len(), expected.len(), "{name}: layer count");
            for (layer, expected_layer) in layers.iter().zip(expected) {
                for (r, expected_row) in expected_layer.as_array().unwrap().iter().enumerate() {
                    for (c, bits) in expected_row.as_array().unwrap().iter().enumerate() {
                        let expected_bits = u32::try_from(bits.as_u64().unwrap()).unwrap();
                        assert_eq!(
                            layer[[r, c]].to_bits(),
                            expected_bits,
                            "{name}: element [{r}, {c}] is {} but PyTorch gives {}",
                            layer[[r, c]],
                            f32::from_bits(expected_bits)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn linear_layers_match_pytorch_bit_for_bit() {
        let reference: Value = serde_json::from_str(LINEAR_REFERENCE).unwrap();
        let cases = reference["cases"].as_object().unwrap();
        assert!(cases.len() >= 5);
        for (name, case) in cases {
            let number = |key: &str| usize::try_from(case[key].as_u64().unwrap()).unwrap();
            let mut generator = TorchGenerator::manual_seed(case["seed"].as_u64().unwrap());
            for (layer, expected) in case["bits"].as_array().unwrap().iter().enumerate() {
                let weight = generator.linear(number("d_in"), number("d_out"));
                for (r, expected_row) in expected.as_array().unwrap().iter().enumerate() {
                    for (c, bits) in expected_row.as_array().unwrap().iter().enumerate() {
                        let expected_bits = u32::try_from(bits.as_u64().unwrap()).unwrap();
                        assert_eq!(
                            weight[[r, c]].to_bits(),
                            expected_bits,
                            "{name}, layer {layer}: [{r}, {c}] is {} but PyTorch gives {}",
                            weight[[r, c]],
                            f32::from_bits(expected_bits)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_fast_and_portable_paths_agree_bit_for_bit() {
        let mut generator = TorchGenerator::manual_seed(7);
        let mut fast = vec![0.0f32; 4096];
        for value in &mut fast {
            *value = generator.uniform_f32();
        }
        let mut portable = fast.clone();
        transform_blocks(&mut fast, 0.0, 1.0);
        for block in portable.chunks_exact_mut(16) {
            fill16(block, 0.0, 1.0);
        }
        let bits = |values: &[f32]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&fast), bits(&portable));
    }

    #[test]
    fn the_article_rows_come_out_of_seed_123() {
        let mut generator = TorchGenerator::manual_seed(123);
        let table = generator.embedding(6, 3);
        let row = |id: usize| {
            table
                .row(id)
                .iter()
                .map(|v| format!("{v:.4}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(row(2), "1.2753 -0.2010 -0.1606");
        assert_eq!(row(5), "-2.8400 -0.7849 -1.4096");
    }

    #[test]
    fn twister_matches_the_reference_sequence() {
        // The first outputs of init_genrand(5489), from the MT19937 reference implementation.
        let mut twister = Mt19937::new(5489);
        assert_eq!(twister.next_u32(), 3_499_211_612);
        assert_eq!(twister.next_u32(), 581_869_302);
        assert_eq!(twister.next_u32(), 3_890_346_734);
    }

    #[test]
    fn u64_draws_take_the_first_word_as_the_high_half() {
        let mut words = Mt19937::new(7);
        let mut pairs = Mt19937::new(7);
        let high = u64::from(words.next_u32());
        let low = u64::from(words.next_u32());
        assert_eq!(pairs.next_u64(), (high << 32) | low);
    }

    #[test]
    fn seeds_use_only_their_low_32_bits() {
        let mut small = TorchGenerator::manual_seed(9);
        let mut large = TorchGenerator::manual_seed(9 + (1 << 32));
        assert_eq!(small.embedding(2, 9), large.embedding(2, 9));
    }

    /// Four decimals of each value, row by row, as PyTorch prints them.
    fn printed(matrix: &Array2<f32>) -> Vec<String> {
        matrix.iter().map(|value| format!("{value:.4}")).collect()
    }

    #[test]
    fn rand_matches_the_attention_chapter() {
        // torch.manual_seed(123); W_query, W_key, W_value = torch.rand(3, 2) three times, as
        // printed in chapter 3 of "Build a Large Language Model (From Scratch)".
        let mut generator = TorchGenerator::manual_seed(123);
        let (query, key, value) = (
            generator.rand(3, 2),
            generator.rand(3, 2),
            generator.rand(3, 2),
        );
        assert_eq!(
            printed(&query),
            ["0.2961", "0.5166", "0.2517", "0.6886", "0.0740", "0.8665"]
        );
        assert_eq!(
            printed(&key),
            ["0.1366", "0.1025", "0.1841", "0.7264", "0.3153", "0.6871"]
        );
        assert_eq!(
            printed(&value),
            ["0.0756", "0.1966", "0.3164", "0.4017", "0.1186", "0.8274"]
        );
        // The draws run on across shapes: rand(4, 4) is the same sixteen numbers in order.
        let square = TorchGenerator::manual_seed(123).rand(4, 4);
        let sequence: Vec<f32> = query.iter().chain(&key).chain(&value).copied().collect();
        assert_eq!(
            square.iter().take(16).copied().collect::<Vec<_>>(),
            sequence[..16]
        );
    }

    #[expect(
        clippy::float_cmp,
        reason = "a 24-bit fraction is exact in both widths"
    )]
    #[test]
    fn rand_is_the_low_24_bits_of_each_draw() {
        let mut twister = Mt19937::new(7);
        let values = TorchGenerator::manual_seed(7).rand(2, 5);
        for value in values {
            let expected = f64::from(twister.next_u32() & 0x00FF_FFFF) / 16_777_216.0;
            assert_eq!(f64::from(value), expected);
            assert!((0.0..1.0).contains(&value));
        }
    }

    #[test]
    fn log_and_sincos_are_close_to_the_library_functions() {
        for i in 1..1000u16 {
            let x = f32::from(i) / 1000.0;
            assert!((log_f32(x) - x.ln()).abs() < 1e-6, "log({x})");
            let t = x * 6.283_185_5;
            let (s, c) = sincos_f32(t);
            assert!((s - t.sin()).abs() < 1e-6, "sin({t})");
            assert!((c - t.cos()).abs() < 1e-6, "cos({t})");
        }
    }
}
