//! `x @ W^T + b` for every token: the query, key and value projections.
//!
//! The weight stays where it is (mapped from the file); each of its rows is converted to f32
//! once and met by every token while it is at hand. Every output number is computed by the
//! same arithmetic whichever token it belongs to and wherever that token stands, so a
//! reordering of the tokens reorders the outputs without changing a bit: products are
//! summed in eight float32 lanes over blocks of 64 numbers, each block's lanes are carried
//! into f64, and the result is rounded once to f32 (within a few float32 roundings of the
//! exact sum; PyTorch's own float32 matrix product sums in an order of its own).

use std::ops::Range;

use anyhow::{Result, bail};
use ndarray::Array1;

use crate::core::table::Table;

/// Numbers summed in float32 before being carried into f64.
const BLOCK: usize = 64;
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
    fn rows_times(&self, range: Range<usize>, inputs: &[f32]) -> Vec<f32> {
        let width = self.inputs();
        let tokens = inputs.len() / width;
        let mut sums = Vec::with_capacity(range.len() * tokens);
        let mut exact = vec![0.0f64; tokens];
        self.weight.for_each_row_in(range, |row, weight| {
            let bias = self.bias.as_ref().map_or(0.0, |bias| f64::from(bias[row]));
            dot_all(weight, inputs, &mut exact);
            sums.extend(exact.iter().map(|&sum| round_to_f32(sum + bias)));
        });
        sums
    }
}

/// Each token's dot product with one weight row, in f64 (`inputs` is `tokens × width`).
fn dot_all(weight: &[f32], inputs: &[f32], out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[expect(
            unsafe_code,
            reason = "calling a function compiled for AVX2 needs the CPU to have it"
        )]
        // SAFETY: AVX2 was detected just above.
        unsafe {
            dot_all_avx2(weight, inputs, out);
        }
        return;
    }
    dot_all_portable(weight, inputs, out);
}

/// [`dot_all_portable`]'s arithmetic written with AVX2 instructions: the same float32
/// multiplications and additions in each lane, the same carries into f64, so the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[expect(
    unsafe_code,
    reason = "unaligned vector loads take raw pointers into slices whose bounds are checked"
)]
fn dot_all_avx2(weight: &[f32], inputs: &[f32], out: &mut [f64]) {
    use std::arch::x86_64::{
        _mm256_add_pd, _mm256_add_ps, _mm256_castps256_ps128, _mm256_cvtps_pd,
        _mm256_extractf128_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_setzero_pd,
        _mm256_setzero_ps, _mm256_storeu_pd,
    };
    let width = weight.len();
    let whole = width / BLOCK * BLOCK;
    // Four tokens at a time: four independent sums keep the adder busy, and each load of
    // the weight row serves all four. Each token's arithmetic is the same as alone.
    let groups = inputs.chunks_exact(4 * width);
    let rest = groups.remainder();
    let mut sums = out.chunks_exact_mut(4);
    for (group, four) in groups.zip(&mut sums) {
        let xs: [&[f32]; 4] = std::array::from_fn(|t| &group[t * width..(t + 1) * width]);
        let mut wide_low = [_mm256_setzero_pd(); 4];
        let mut wide_high = [_mm256_setzero_pd(); 4];
        for start in (0..whole).step_by(BLOCK) {
            let mut lanes = [_mm256_setzero_ps(); 4];
            for chunk in (start..start + BLOCK).step_by(LANES) {
                let w8 = &weight[chunk..chunk + LANES];
                // SAFETY: the slice holds exactly LANES (8) float32s.
                let w8 = unsafe { _mm256_loadu_ps(w8.as_ptr()) };
                for (lane, x) in lanes.iter_mut().zip(xs) {
                    let x8 = &x[chunk..chunk + LANES];
                    // SAFETY: the slice holds exactly LANES (8) float32s.
                    let x8 = unsafe { _mm256_loadu_ps(x8.as_ptr()) };
                    *lane = _mm256_add_ps(*lane, _mm256_mul_ps(x8, w8));
                }
            }
            for t in 0..4 {
                wide_low[t] = _mm256_add_pd(
                    wide_low[t],
                    _mm256_cvtps_pd(_mm256_castps256_ps128(lanes[t])),
                );
                wide_high[t] = _mm256_add_pd(
                    wide_high[t],
                    _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(lanes[t])),
                );
            }
        }
        for t in 0..4 {
            let mut wide = [0.0f64; LANES];
            // SAFETY: `wide` holds 8 f64s: 4 from each store.
            unsafe {
                _mm256_storeu_pd(wide.as_mut_ptr(), wide_low[t]);
                _mm256_storeu_pd(wide.as_mut_ptr().add(4), wide_high[t]);
            }
            four[t] = finish(wide, &xs[t][whole..], &weight[whole..]);
        }
    }
    for (input, sum) in rest
        .chunks_exact(width)
        .zip(sums.into_remainder().iter_mut())
    {
        let (mut wide_low, mut wide_high) = (_mm256_setzero_pd(), _mm256_setzero_pd());
        for (x_block, w_block) in input[..whole]
            .chunks_exact(BLOCK)
            .zip(weight[..whole].chunks_exact(BLOCK))
        {
            let mut lanes = _mm256_setzero_ps();
            for (x8, w8) in x_block.chunks_exact(LANES).zip(w_block.chunks_exact(LANES)) {
                // SAFETY: each chunk holds exactly LANES (8) float32s.
                let (x8, w8) =
                    unsafe { (_mm256_loadu_ps(x8.as_ptr()), _mm256_loadu_ps(w8.as_ptr())) };
                lanes = _mm256_add_ps(lanes, _mm256_mul_ps(x8, w8));
            }
            wide_low = _mm256_add_pd(wide_low, _mm256_cvtps_pd(_mm256_castps256_ps128(lanes)));
            wide_high = _mm256_add_pd(
                wide_high,
                _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(lanes)),
            );
        }
        let mut wide = [0.0f64; LANES];
        // SAFETY: `wide` holds 8 f64s: 4 from each store.
        unsafe {
            _mm256_storeu_pd(wide.as_mut_ptr(), wide_low);
            _mm256_storeu_pd(wide.as_mut_ptr().add(4), wide_high);
        }
        *sum = finish(wide, &input[whole..], &weight[whole..]);
    }
}

/// Four tokens at a time share each load of the weight row; the rest one by one. Either way
/// each token's sum is [`dot`]'s arithmetic exactly.
fn dot_all_portable(weight: &[f32], inputs: &[f32], out: &mut [f64]) {
    let width = weight.len();
    let groups = inputs.chunks_exact(4 * width);
    let rest = groups.remainder();
    let mut sums = out.chunks_exact_mut(4);
    for (group, four) in groups.zip(&mut sums) {
        let (a, others) = group.split_at(width);
        let (b, others) = others.split_at(width);
        let (c, d) = others.split_at(width);
        four.copy_from_slice(&dot_many([a, b, c, d], weight));
    }
    for (input, sum) in rest
        .chunks_exact(width)
        .zip(sums.into_remainder().iter_mut())
    {
        *sum = dot_many([input], weight)[0];
    }
}

/// `x · w` as every projection computes it: products summed in [`LANES`] float32 lanes over
/// blocks of [`BLOCK`] numbers, each block's lanes added into f64 lanes, the tail past the
/// last whole block summed in f64, then the lanes added pairwise.
#[must_use]
pub fn dot(x: &[f32], w: &[f32]) -> f64 {
    dot_many([x], w)[0]
}

#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX2-compiled caller, so it is compiled with AVX2 too"
)]
#[inline(always)]
fn dot_many<const N: usize>(xs: [&[f32]; N], w: &[f32]) -> [f64; N] {
    let whole = w.len() / BLOCK * BLOCK;
    let mut wide = [[0.0f64; LANES]; N];
    for (block, w_block) in w[..whole].chunks_exact(BLOCK).enumerate() {
        let start = block * BLOCK;
        for (x, wide) in xs.iter().zip(wide.iter_mut()) {
            let x_block = &x[start..start + BLOCK];
            let mut lanes = [0.0f32; LANES];
            for (x8, w8) in x_block.chunks_exact(LANES).zip(w_block.chunks_exact(LANES)) {
                let x8: &[f32; LANES] = x8.try_into().expect("chunks of LANES");
                let w8: &[f32; LANES] = w8.try_into().expect("chunks of LANES");
                for l in 0..LANES {
                    lanes[l] += x8[l] * w8[l];
                }
            }
            for l in 0..LANES {
                wide[l] += f64::from(lanes[l]);
            }
        }
    }
    let mut result = [0.0f64; N];
    for ((x, wide), result) in xs.iter().zip(wide).zip(result.iter_mut()) {
        *result = finish(wide, &x[whole..], &w[whole..]);
    }
    result
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
        let (rows, cols, tokens) = (5, 200, 7);
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
                assert!((got - exact).abs() <= 1e-7 * size, "{got} {exact} {size}");
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
        #[expect(clippy::cast_precision_loss, reason = "small indices")]
        let weight: Vec<f32> = (0..width)
            .map(|i| ((i * 7919) % 211) as f32 / 97.0 - 1.1)
            .collect();
        #[expect(clippy::cast_precision_loss, reason = "small indices")]
        let inputs: Vec<f32> = (0..width * 7)
            .map(|i| ((i * 104_729) % 307) as f32 / 61.0 - 2.4)
            .collect();
        let (mut fast, mut portable) = (vec![0.0; 7], vec![0.0; 7]);
        dot_all(&weight, &inputs, &mut fast);
        dot_all_portable(&weight, &inputs, &mut portable);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&fast), bits(&portable));
    }
}
