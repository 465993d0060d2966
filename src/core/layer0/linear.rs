//! `x @ W^T + b` for every token: the query, key and value projections.
//!
//! The weight stays where it is (mapped from the file); each of its rows is converted to f32
//! once and met by every token while it is at hand. Every output number is computed by the
//! same arithmetic whichever token it belongs to and wherever that token stands, so a
//! reordering of the tokens reorders the outputs without changing a bit: products are added
//! to eight float32 lanes by fused multiply-adds over blocks of 256 numbers (32 a lane), each
//! block's lanes are carried into f64, and the result is rounded once to f32 (within a few
//! float32 roundings of the exact sum; PyTorch's own float32 matrix product sums in an order
//! of its own).

use std::ops::Range;

use anyhow::{Result, bail};
use ndarray::Array1;

use crate::core::table::Table;

/// Numbers summed in float32 before being carried into f64.
const BLOCK: usize = 256;
/// Float32 lanes in a block.
const LANES: usize = 8;
/// Below this many multiply-adds a second thread costs more than it saves.
const THREAD_WORK: usize = 1 << 22;

/// A linear layer as PyTorch's `nn.Linear` stores it: `weight` is `outputs × inputs`.
#[derive(Clone, Debug)]
pub struct Linear {
    weight: Table,
    bias: Option<Array1<f32>>,
}

impl Linear {
    /// A layer from its `outputs × inputs` weight and optional bias.
    ///
    /// # Errors
    /// When the bias does not have one number per output.
    pub fn new(weight: Table, bias: Option<Array1<f32>>) -> Result<Self> {
        if let Some(bias) = &bias
            && bias.len() != weight.rows()
        {
            bail!(
                "a bias of {} numbers for a layer with {} outputs",
                bias.len(),
                weight.rows()
            );
        }
        Ok(Self { weight, bias })
    }

    /// How many numbers each input vector has.
    #[must_use]
    pub fn inputs(&self) -> usize {
        self.weight.cols()
    }

    /// How many numbers each output vector has.
    #[must_use]
    pub fn outputs(&self) -> usize {
        self.weight.rows()
    }

    /// Whether the layer adds a bias.
    #[must_use]
    pub fn has_bias(&self) -> bool {
        self.bias.is_some()
    }

    /// `x @ W^T + b` for every token of `inputs` (`tokens × inputs`, row-major); the result is
    /// `tokens × outputs`, row-major.
    ///
    /// # Panics
    /// When `inputs` is not a whole number of input vectors.
    #[must_use]
    pub fn apply(&self, inputs: &[f32]) -> Vec<f32> {
        let width = self.inputs();
        assert!(
            width > 0 && inputs.len().is_multiple_of(width),
            "inputs hold whole vectors"
        );
        let tokens = inputs.len() / width;
        let outputs = self.outputs();
        let work = tokens * width * outputs;
        let threads = if work >= THREAD_WORK {
            std::thread::available_parallelism().map_or(1, usize::from)
        } else {
            1
        };
        // Each share is the outputs of a range of weight rows, laid out row by row.
        let shares: Vec<(Range<usize>, Vec<f32>)> = if threads > 1 {
            let step = outputs.div_ceil(threads);
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|share| {
                        let range = share * step..((share + 1) * step).min(outputs);
                        scope.spawn(move || (range.clone(), self.rows_times(range, inputs)))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|handle| handle.join().expect("a projection thread does not panic"))
                    .collect()
            })
        } else {
            vec![(0..outputs, self.rows_times(0..outputs, inputs))]
        };
        let mut result = vec![0.0f32; tokens * outputs];
        for (range, by_row) in shares {
            for (row, sums) in range.zip(by_row.chunks_exact(tokens.max(1))) {
                for (token, &sum) in sums.iter().enumerate() {
                    result[token * outputs + row] = sum;
                }
            }
        }
        result
    }

    /// The outputs of weight rows `range` for every token, row by row (`range.len() × tokens`).
    ///
    /// Rows are widened to f32 [`GROUP`] at a time and met by every token while they are at
    /// hand, two tokens and four rows at a time ([`dot_tiles`]).
    fn rows_times(&self, range: Range<usize>, inputs: &[f32]) -> Vec<f32> {
        let width = self.inputs();
        let tokens = inputs.len() / width;
        let mut sums = Vec::with_capacity(range.len() * tokens);
        let mut group = Vec::with_capacity(GROUP * width);
        let mut exact = vec![0.0f64; GROUP * tokens];
        let mut first = range.start;
        let mut flush = |first: usize, group: &mut Vec<f32>, sums: &mut Vec<f32>| {
            let rows = group.len() / width;
            let exact = &mut exact[..rows * tokens];
            dot_tiles(group, inputs, width, exact);
            for (row, by_token) in (first..first + rows).zip(exact.chunks_exact(tokens.max(1))) {
                let bias = self.bias.as_ref().map_or(0.0, |bias| f64::from(bias[row]));
                sums.extend(by_token.iter().map(|&sum| round_to_f32(sum + bias)));
            }
            group.clear();
        };
        self.weight.for_each_row_in(range, |row, weight| {
            if group.is_empty() {
                first = row;
            }
            group.extend_from_slice(weight);
            if group.len() == GROUP * width {
                flush(first, &mut group, &mut sums);
            }
        });
        if !group.is_empty() {
            flush(first, &mut group, &mut sums);
        }
        sums
    }
}

/// Weight rows widened and met by the tokens together: enough to share each token's load
/// among several rows, few enough to stay in the core's own cache.
const GROUP: usize = 16;

/// Each weight row's dot product with each token, in f64: `weights` is `rows × width`,
/// `inputs` is `tokens × width`, `out` is `rows × tokens`.
fn dot_tiles(weights: &[f32], inputs: &[f32], width: usize, out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        #[expect(
            unsafe_code,
            reason = "calling a function compiled for AVX2 and FMA needs the CPU to have them"
        )]
        // SAFETY: AVX2 and FMA were detected just above.
        unsafe {
            dot_tiles_fma(weights, inputs, width, out);
        }
        return;
    }
    dot_tiles_portable(weights, inputs, width, out);
}

/// [`dot_tiles`] compiled for AVX2 and FMA: [`tiles`] with [`tile_fma`], the same arithmetic
/// as [`tile_portable`] lane for lane, so the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn dot_tiles_fma(weights: &[f32], inputs: &[f32], width: usize, out: &mut [f64]) {
    tiles(weights, inputs, width, out, TileKind::Fma);
}

/// [`dot_tiles`] without vector instructions.
fn dot_tiles_portable(weights: &[f32], inputs: &[f32], width: usize, out: &mut [f64]) {
    tiles(weights, inputs, width, out, TileKind::Portable);
}

/// Which tile arithmetic [`tiles`] uses (both give the same bits).
#[derive(Clone, Copy)]
enum TileKind {
    /// AVX2 and FMA instructions.
    Fma,
    /// Plain Rust.
    Portable,
}

/// Walks the tokens [`TOKEN_BLOCK`] at a time and each block of [`BLOCK`] numbers, so that the
/// rows' and tokens' numbers in use stay in the core's first cache; within it, the rows four
/// at a time and the tokens two at a time (the rest one by one). Each pair's lanes are carried
/// into its f64 lanes after each block, then finished: the arithmetic of [`dot`] exactly.
#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX2-compiled caller, so the tiles are compiled with AVX2 too"
)]
#[inline(always)]
fn tiles(weights: &[f32], inputs: &[f32], width: usize, out: &mut [f64], kind: TileKind) {
    let rows = weights.len() / width;
    let tokens = inputs.len() / width;
    let whole = width / BLOCK * BLOCK;
    let mut wide = vec![[0.0f64; LANES]; rows * tokens];
    for first in (0..tokens).step_by(TOKEN_BLOCK) {
        let last = (first + TOKEN_BLOCK).min(tokens);
        for start in (0..whole).step_by(BLOCK) {
            let row = |index: usize| &weights[index * width + start..][..BLOCK];
            let token = |index: usize| &inputs[index * width + start..][..BLOCK];
            let mut r = 0;
            while r < rows {
                let quad = rows - r >= 4;
                let mut t = first;
                while t < last {
                    let pair = last - t >= TILE_TOKENS;
                    match (quad, pair) {
                        (true, true) => carry(
                            &mut wide,
                            tokens,
                            (r, t),
                            &block(
                                std::array::from_fn::<_, 4, _>(|i| row(r + i)),
                                std::array::from_fn::<_, TILE_TOKENS, _>(|i| token(t + i)),
                                kind,
                            ),
                        ),
                        (true, false) => carry(
                            &mut wide,
                            tokens,
                            (r, t),
                            &block(
                                std::array::from_fn::<_, 4, _>(|i| row(r + i)),
                                [token(t)],
                                kind,
                            ),
                        ),
                        (false, true) => carry(
                            &mut wide,
                            tokens,
                            (r, t),
                            &block(
                                [row(r)],
                                std::array::from_fn::<_, TILE_TOKENS, _>(|i| token(t + i)),
                                kind,
                            ),
                        ),
                        (false, false) => carry(
                            &mut wide,
                            tokens,
                            (r, t),
                            &block([row(r)], [token(t)], kind),
                        ),
                    }
                    t += if pair { TILE_TOKENS } else { 1 };
                }
                r += if quad { 4 } else { 1 };
            }
        }
    }
    for r in 0..rows {
        let row = &weights[r * width..(r + 1) * width];
        for t in 0..tokens {
            let token = &inputs[t * width..(t + 1) * width];
            out[r * tokens + t] = finish(wide[r * tokens + t], &token[whole..], &row[whole..]);
        }
    }
}

/// Tokens in one tile: with four rows, twelve running sums and the three tokens' numbers fill
/// the sixteen vector registers.
const TILE_TOKENS: usize = 3;

/// Tokens met together by one block of a row group: their numbers in use fit the first cache.
const TOKEN_BLOCK: usize = 15;

/// Adds one block's float32 lanes of rows `r..` and tokens `t..` into their f64 lanes.
#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX2-compiled caller, so it is compiled with AVX2 too"
)]
#[inline(always)]
fn carry<const R: usize, const T: usize>(
    wide: &mut [[f64; LANES]],
    tokens: usize,
    (r, t): (usize, usize),
    lanes: &[[[f32; LANES]; T]; R],
) {
    for (i, by_token) in lanes.iter().enumerate() {
        for (j, lane) in by_token.iter().enumerate() {
            let wide = &mut wide[(r + i) * tokens + t + j];
            for l in 0..LANES {
                wide[l] += f64::from(lane[l]);
            }
        }
    }
}

/// One block of `R` rows by `T` tokens: each pair's products added to its float32 lanes, by
/// the arithmetic `kind` names.
#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX2-compiled caller, so the tiles are compiled with AVX2 too"
)]
#[inline(always)]
fn block<const R: usize, const T: usize>(
    w: [&[f32]; R],
    x: [&[f32]; T],
    kind: TileKind,
) -> [[[f32; LANES]; T]; R] {
    match kind {
        #[cfg(target_arch = "x86_64")]
        #[expect(
            unsafe_code,
            reason = "only reached from dot_tiles_fma, compiled for AVX2 and FMA"
        )]
        // SAFETY: `TileKind::Fma` is only used after AVX2 and FMA were detected.
        TileKind::Fma => unsafe { block_fma(w, x) },
        #[cfg(not(target_arch = "x86_64"))]
        TileKind::Fma => block_portable(w, x),
        TileKind::Portable => block_portable(w, x),
    }
}

/// `x · w` as every projection computes it: products added to [`LANES`] float32 lanes by a
/// fused multiply-add over blocks of [`BLOCK`] numbers, each block's lanes added into f64
/// lanes, the tail past the last whole block summed in f64, then the lanes added pairwise.
#[must_use]
pub fn dot(x: &[f32], w: &[f32]) -> f64 {
    let mut out = [0.0];
    tiles(w, x, w.len().max(1), &mut out, TileKind::Portable);
    out[0]
}

/// [`block`] in plain Rust.
#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX2-compiled caller, so it is compiled with AVX2 too"
)]
#[inline(always)]
fn block_portable<const R: usize, const T: usize>(
    w: [&[f32]; R],
    x: [&[f32]; T],
) -> [[[f32; LANES]; T]; R] {
    let mut lanes = [[[0.0f32; LANES]; T]; R];
    for chunk in (0..BLOCK).step_by(LANES) {
        for (row, by_token) in w.iter().zip(lanes.iter_mut()) {
            let w8 = &row[chunk..chunk + LANES];
            for (token, lane) in x.iter().zip(by_token.iter_mut()) {
                let x8 = &token[chunk..chunk + LANES];
                for l in 0..LANES {
                    lane[l] = x8[l].mul_add(w8[l], lane[l]);
                }
            }
        }
    }
    lanes
}

/// [`block_portable`]'s arithmetic in AVX2 and FMA instructions: the same fused multiply-adds
/// in each float32 lane, so the same bits.
///
/// # Safety
/// The CPU must have AVX2 and FMA; the caller is compiled for them.
#[cfg(target_arch = "x86_64")]
// Inlined into the AVX2-compiled caller, so it is compiled with AVX2 too.
#[inline(always)]
#[expect(
    unsafe_code,
    reason = "vector loads from raw pointers into slices whose lengths are checked first"
)]
unsafe fn block_fma<const R: usize, const T: usize>(
    w: [&[f32]; R],
    x: [&[f32]; T],
) -> [[[f32; LANES]; T]; R] {
    use std::arch::x86_64::{
        __m256, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    };
    assert!(
        w.iter().all(|row| row.len() == BLOCK) && x.iter().all(|token| token.len() == BLOCK),
        "one block of every row and token"
    );
    // SAFETY (for the block below): AVX2 and FMA are there (the caller's contract); every
    // load reads LANES float32s at `chunk <= BLOCK - LANES` of a slice of BLOCK numbers.
    unsafe {
        let mut lanes: [[__m256; T]; R] = [[_mm256_setzero_ps(); T]; R];
        for chunk in (0..BLOCK).step_by(LANES) {
            let xs: [__m256; T] =
                std::array::from_fn(|t| _mm256_loadu_ps(x[t].as_ptr().add(chunk)));
            for (row, by_token) in w.iter().zip(lanes.iter_mut()) {
                let w8 = _mm256_loadu_ps(row.as_ptr().add(chunk));
                for (lane, x8) in by_token.iter_mut().zip(xs) {
                    *lane = _mm256_fmadd_ps(x8, w8, *lane);
                }
            }
        }
        let mut result = [[[0.0f32; LANES]; T]; R];
        for (out, by_token) in result.iter_mut().zip(&lanes) {
            for (out, lane) in out.iter_mut().zip(by_token) {
                _mm256_storeu_ps(out.as_mut_ptr(), *lane);
            }
        }
        result
    }
}

/// The lanes added pairwise, then the tail past the last whole block, summed in f64.
fn finish(wide: [f64; LANES], x_tail: &[f32], w_tail: &[f32]) -> f64 {
    let tail: f64 = x_tail
        .iter()
        .zip(w_tail)
        .map(|(&a, &b)| f64::from(a) * f64::from(b))
        .sum();
    let pairs = [
        wide[0] + wide[1],
        wide[2] + wide[3],
        wide[4] + wide[5],
        wide[6] + wide[7],
    ];
    ((pairs[0] + pairs[1]) + (pairs[2] + pairs[3])) + tail
}

/// Rounds an f64 result once to float32.
#[must_use]
pub fn round_to_f32(value: f64) -> f32 {
    #[expect(
        clippy::cast_possible_truncation,
        reason = "rounded once to float32 on purpose"
    )]
    let value = value as f32;
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, arr1};

    fn table(rows: usize, cols: usize, values: impl Fn(usize, usize) -> f32) -> Table {
        Table::from(Array2::from_shape_fn((rows, cols), |(r, c)| values(r, c)))
    }

    #[test]
    fn a_small_layer_is_x_times_w_transposed_plus_b() {
        let layer = Linear::new(
            table(2, 3, |r, c| [[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]][r][c]),
            Some(arr1(&[0.25, -0.25])),
        )
        .unwrap();
        let out = layer.apply(&[1.0, 1.0, 1.0, 2.0, 0.0, -1.0]);
        assert_eq!(out, [6.25, -0.75, -0.75, 0.75]);
        assert!(Linear::new(table(2, 3, |_, _| 0.0), Some(arr1(&[1.0]))).is_err());
    }

    #[test]
    fn wide_layers_agree_with_an_f64_sum_and_with_themselves_in_any_order() {
        let (rows, cols, tokens) = (5, 600, 7);
        #[expect(clippy::cast_precision_loss, reason = "small indices")]
        let weight = table(rows, cols, |r, c| {
            ((r * 31 + c * 17) % 23) as f32 / 7.0 - 1.5
        });
        let layer = Linear::new(weight.clone(), None).unwrap();
        #[expect(clippy::cast_precision_loss, reason = "small indices")]
        let inputs: Vec<f32> = (0..tokens * cols)
            .map(|i| ((i * 13) % 29) as f32 / 5.0 - 2.5)
            .collect();
        let out = layer.apply(&inputs);
        for t in 0..tokens {
            for r in 0..rows {
                let row = weight.row(r).unwrap();
                let terms: Vec<f64> = (0..cols)
                    .map(|c| f64::from(inputs[t * cols + c]) * f64::from(row[c]))
                    .collect();
                let exact: f64 = terms.iter().sum();
                let size: f64 = terms.iter().map(|term| term.abs()).sum();
                let got = f64::from(out[t * rows + r]);
                // Float32 lanes: within a few float32 roundings of the terms' total size.
                assert!((got - exact).abs() <= 1e-6 * size, "{got} {exact} {size}");
            }
        }
        // The last token alone, and the tokens reversed: the same bits for the same token.
        let last = layer.apply(&inputs[(tokens - 1) * cols..]);
        assert_eq!(last, out[(tokens - 1) * rows..]);
        let reversed: Vec<f32> = inputs.chunks(cols).rev().flatten().copied().collect();
        let out_reversed = layer.apply(&reversed);
        let back: Vec<f32> = out_reversed.chunks(rows).rev().flatten().copied().collect();
        assert_eq!(back, out);
    }

    #[test]
    fn the_vector_path_and_the_portable_path_give_the_same_bits() {
        let width = 64 * 3 + 5;
        // Rows and tokens that fill whole tiles and leave some over.
        let (rows, tokens) = (7, 5);
        #[expect(clippy::cast_precision_loss, reason = "small indices")]
        let weights: Vec<f32> = (0..width * rows)
            .map(|i| ((i * 7919) % 211) as f32 / 97.0 - 1.1)
            .collect();
        #[expect(clippy::cast_precision_loss, reason = "small indices")]
        let inputs: Vec<f32> = (0..width * tokens)
            .map(|i| ((i * 104_729) % 307) as f32 / 61.0 - 2.4)
            .collect();
        let (mut fast, mut portable) = (vec![0.0; rows * tokens], vec![0.0; rows * tokens]);
        dot_tiles(&weights, &inputs, width, &mut fast);
        dot_tiles_portable(&weights, &inputs, width, &mut portable);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&fast), bits(&portable));
        // Each one is `dot` of its row and token, alone.
        for r in 0..rows {
            for t in 0..tokens {
                let alone = dot(
                    &inputs[t * width..(t + 1) * width],
                    &weights[r * width..(r + 1) * width],
                );
                assert_eq!(alone.to_bits(), portable[r * tokens + t].to_bits());
            }
        }
    }
}
