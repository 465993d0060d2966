//! `x @ W^T + b` for every token: the query, key and value projections.
//!
//! The weight stays where it is (mapped from the file); each of its rows is converted to f32
//! once and met by every token while it is at hand. Every output number is computed by the
//! same arithmetic whichever token it belongs to and wherever that token stands, so a
//! reordering of the tokens reorders the outputs without changing a bit: products are added
//! to eight float32 lanes by fused multiply-adds over blocks of 512 numbers (64 a lane; the
//! last block shorter, padded with zeros to whole lanes), each block's lanes are carried into
//! f64, and the result is rounded once to f32 (within a few
//! float32 roundings of the exact sum; PyTorch's own float32 matrix product sums in an order
//! of its own).

pub mod kernel;

use std::cell::RefCell;
use std::ops::Range;
use std::sync::Mutex;

use anyhow::{Result, bail};
use ndarray::Array1;

use super::workers::{on_threads, threads};
use crate::core::tables::simd::with_features;
use crate::core::tables::table::{CacheLines, Dtype, Table, widen_bf16};
use kernel::{BLOCK, Blocks, GROUP, LANES, SUPER, dot_tiles, finish, padded};

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
        let [result] = apply_all([self], inputs);
        result
    }

    /// The outputs of weight rows `range` for every token, written into `outputs` (one slice a
    /// token, its outputs of these rows).
    ///
    /// The rows are taken [`super_rows`] at a time (one group, or [`SUPER`] when the tokens
    /// are wide), each pair of row and token keeping its f64 lanes while the numbers are
    /// walked a block at a time; [`GROUP`] rows at a time have the block widened to f32 and
    /// met by the tokens ([`dot_tiles`]), the next group's (or block's) stored bytes fetched
    /// meanwhile. Each pair's blocks are still added in order, so the arithmetic is
    /// [`dot`]'s.
    fn rows_times(
        &self,
        range: Range<usize>,
        inputs: &Blocks<'_>,
        workspace: &mut Workspace,
        outputs: &mut [&mut [f32]],
    ) {
        let width = self.inputs();
        let tokens = inputs.count;
        let Workspace { wide, group } = workspace;
        let super_rows = super_rows(tokens, width);
        let (wide_all, _) = wide
            .numbers(super_rows * tokens * LANES)
            .as_chunks_mut::<LANES>();
        let group = group.numbers(GROUP * BLOCK);
        let blocks = width.div_ceil(BLOCK);
        // The last block is shorter when the width is not a whole number of blocks.
        let numbers = |block: usize| (block * BLOCK, BLOCK.min(width - block * BLOCK));
        for first in range.clone().step_by(super_rows) {
            let rows = super_rows.min(range.end - first);
            let source = RowSource::new(&self.weight, first..first + rows);
            let wide = &mut wide_all[..rows * tokens];
            wide.fill([0.0; LANES]);
            for block in 0..blocks {
                let (from, count) = numbers(block);
                for start in (0..rows).step_by(GROUP) {
                    let members = GROUP.min(rows - start);
                    source.widen_group(start..start + members, from, count, group);
                    // The bytes the next group widens: the next group's of this block, else the
                    // first group's of the next block, else the next super group's first (the
                    // widening was 17 % of the projections' samples at 768 wide, nearly all
                    // of it waiting on the stored bytes: perf annotate).
                    let next = start + GROUP;
                    let ahead = if next < rows {
                        source.stored(next..rows.min(next + GROUP), from, count)
                    } else if block + 1 < blocks {
                        let (from, count) = numbers(block + 1);
                        source.stored(0..rows.min(GROUP), from, count)
                    } else {
                        let (after, (from, count)) = (first + rows, numbers(0));
                        RowSource::bf16(&self.weight, after..range.end.min(after + GROUP))
                            .map(|source| {
                                source.stored(0..GROUP.min(range.end - after), from, count)
                            })
                            .unwrap_or_default()
                    };
                    dot_tiles(
                        &Blocks::new(group, GROUP, members, count),
                        inputs,
                        block,
                        &ahead,
                        &mut wide[start * tokens..(start + members) * tokens],
                    );
                }
            }
            // Token by token, so each token's outputs of these rows are written side by side
            // (written one row at a time, a token's outputs apart, the stores missed the
            // cache at nearly every one: perf, a tenth of the projections' time).
            for (token, out) in outputs.iter_mut().enumerate() {
                let out = &mut out[first - range.start..][..rows];
                for (row, out) in out.iter_mut().enumerate() {
                    let bias = self
                        .bias
                        .as_ref()
                        .map_or(0.0, |bias| f64::from(bias[first + row]));
                    *out = round_to_f32(finish(wide[row * tokens + token]) + bias);
                }
            }
        }
    }
}

/// Rows whose f64 sums are kept while the numbers are walked a block at a time: one group
/// when the tokens' numbers all fit the core's second cache with room to spare (each group's
/// f64 sums, 32 KiB at 64 tokens, then stay in its first cache from block to block), else
/// [`SUPER`], so that the tokens' numbers of one block stay in the second cache while every
/// row of the super group meets them.
fn super_rows(tokens: usize, width: usize) -> usize {
    if tokens * padded(width) * size_of::<f32>() <= 256 << 10 {
        GROUP
    } else {
        SUPER
    }
}

/// Where a super group's weight rows are read from: the stored bfloat16 bytes, widened a
/// piece at a time as the panels need them, or (any other table) the rows widened once.
enum RowSource<'a> {
    /// The rows' bfloat16 bytes, row after row.
    Bf16 {
        /// The bytes.
        bytes: &'a [u8],
        /// Numbers in a row.
        width: usize,
    },
    /// The rows as float32, row after row.
    Widened {
        /// The numbers.
        numbers: Vec<f32>,
        /// Numbers in a row.
        width: usize,
    },
}

impl<'a> RowSource<'a> {
    /// Rows `range` of `table`.
    fn new(table: &'a Table, range: Range<usize>) -> Self {
        if let Some(source) = Self::bf16(table, range.clone()) {
            return source;
        }
        let width = table.cols();
        let mut numbers = vec![0.0f32; range.len() * width];
        let first = range.start;
        table.for_each_stored_row_in(range, |row, stored| {
            stored.widen_into(&mut numbers[(row - first) * width..][..width]);
        });
        Self::Widened { numbers, width }
    }

    /// Rows `range` of `table` as their stored bytes, when it stores bfloat16 (else `None`).
    fn bf16(table: &'a Table, range: Range<usize>) -> Option<Self> {
        let bytes = table.stored_bytes(range)?;
        let width = table.cols();
        (table.dtype() == Some(Dtype::BF16)).then_some(Self::Bf16 { bytes, width })
    }

    /// Numbers `start..start + count` of each of rows `rows`, as float32 side by side in
    /// `group`, each padded with zeros to whole lanes (the block layout of [`Blocks`]);
    /// compiled for AVX-512 or AVX2 where the processor has it (widening is exact either way).
    fn widen_group(&self, rows: Range<usize>, start: usize, count: usize, group: &mut [f32]) {
        with_features!(
            ["avx512f", "avx512bw"] => self.widen_group_avx512(rows, start, count, group),
            ["avx2"] => self.widen_group_avx2(rows, start, count, group),
            else self.widen_rows(rows, start, count, group),
        );
    }

    /// [`RowSource::widen_rows`] compiled for AVX-512.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn widen_group_avx512(
        &self,
        rows: Range<usize>,
        start: usize,
        count: usize,
        group: &mut [f32],
    ) {
        self.widen_rows(rows, start, count, group);
    }

    /// [`RowSource::widen_rows`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn widen_group_avx2(&self, rows: Range<usize>, start: usize, count: usize, group: &mut [f32]) {
        self.widen_rows(rows, start, count, group);
    }

    /// Numbers `start..start + count` of each of rows `rows`, side by side in `group`, each
    /// padded with zeros to whole lanes.
    #[expect(
        clippy::inline_always,
        reason = "inlined into the AVX2-compiled caller, so it is compiled with AVX2 too"
    )]
    #[inline(always)]
    fn widen_rows(&self, rows: Range<usize>, start: usize, count: usize, group: &mut [f32]) {
        for (row, out) in rows.zip(group.chunks_exact_mut(padded(count))) {
            let (numbers, padding) = out.split_at_mut(count);
            self.widen(row, start, numbers);
            padding.fill(0.0);
        }
    }

    /// Numbers `start..start + out.len()` of row `row` (counted from the super group's
    /// first), as float32.
    #[expect(
        clippy::inline_always,
        reason = "inlined into the AVX2-compiled caller, so it is compiled with AVX2 too"
    )]
    #[inline(always)]
    fn widen(&self, row: usize, start: usize, out: &mut [f32]) {
        match self {
            Self::Bf16 { bytes, width } => {
                widen_bf16(&bytes[(row * width + start) * 2..][..out.len() * 2], out);
            }
            Self::Widened { numbers, width } => {
                out.copy_from_slice(&numbers[row * width + start..][..out.len()]);
            }
        }
    }

    /// The stored bytes of numbers `start..start + count` of each of rows `rows`: what the
    /// next group will widen (nothing for rows already widened).
    fn stored(&self, rows: Range<usize>, start: usize, count: usize) -> Vec<&'a [u8]> {
        match self {
            Self::Bf16 { bytes, width } => rows
                .map(|row| &bytes[(row * width + start) * 2..][..count * 2])
                .collect(),
            Self::Widened { .. } => Vec::new(),
        }
    }
}

/// Several layers applied to the same inputs (the query, key and value projections): the
/// inputs are laid out once, and each layer's rows are shared out among the threads, so both
/// cores stay busy to the end. `results[i]` is `layers[i].apply(inputs)`, bit for bit.
///
/// # Panics
/// When `inputs` is not a whole number of input vectors, or the layers take inputs of
/// different widths.
#[must_use]
pub fn apply_all<const N: usize>(layers: [&Linear; N], inputs: &[f32]) -> [Vec<f32>; N] {
    let mut results = std::array::from_fn(|_| Vec::new());
    apply_all_into(layers, inputs, &mut results);
    results
}

/// [`apply_all`] into vectors the caller keeps from one call to the next: `results[i]`
/// becomes `layers[i].apply(inputs)`, in the memory it already has where that is enough
/// (fresh memory each call cost a page fault every 4 KiB: at 768 wide, 144 a call).
///
/// # Panics
/// As [`apply_all`].
pub fn apply_all_into<const N: usize>(
    layers: [&Linear; N],
    inputs: &[f32],
    results: &mut [Vec<f32>; N],
) {
    let width = layers.first().map_or(1, |layer| layer.inputs());
    assert!(
        layers.iter().all(|layer| layer.inputs() == width),
        "the layers take inputs of one width"
    );
    assert!(
        width > 0 && inputs.len().is_multiple_of(width),
        "inputs hold whole vectors"
    );
    let tokens = inputs.len() / width;
    LAID_OUT.with_borrow_mut(|laid_out| {
        let laid_out = laid_out.numbers(tokens * padded(width));
        apply_all_in(layers, (inputs, width, tokens), laid_out, results);
    });
}

/// [`apply_all_into`] of `tokens` inputs of `width` numbers, laid out in `laid_out`; each
/// thread works in its own kept [`Workspace`].
fn apply_all_in<const N: usize>(
    layers: [&Linear; N],
    (inputs, width, tokens): (&[f32], usize, usize),
    laid_out: &mut [f32],
    results: &mut [Vec<f32>; N],
) {
    for (token, numbers) in inputs.chunks_exact(width).enumerate() {
        Blocks::write(laid_out, tokens, token, numbers);
    }
    let inputs = Blocks::new(laid_out, tokens, tokens, width);
    let work: usize = layers
        .iter()
        .map(|layer| tokens * width * layer.outputs())
        .sum();
    let threads = if work >= THREAD_WORK { threads() } else { 1 };
    for (result, layer) in results.iter_mut().zip(layers) {
        let len = tokens * layer.outputs();
        if result.capacity() < len {
            // Zeroed by the allocator (fresh pages need no writing).
            *result = vec![0.0; len];
        } else {
            result.clear();
            result.resize(len, 0.0);
        }
    }
    // Share `share` computes rows `share × step ..` of every layer, each token's outputs of
    // them written into its own piece of the token's output vector.
    let steps = layers.map(|layer| layer.outputs().div_ceil(threads));
    let mut pieces: Vec<Pieces<'_, N>> = (0..threads)
        .map(|_| std::array::from_fn(|_| Vec::with_capacity(tokens)))
        .collect();
    for (index, result) in results.iter_mut().enumerate() {
        let outputs = layers[index].outputs();
        for mut rest in result.chunks_exact_mut(outputs.max(1)) {
            for share in &mut pieces {
                let (piece, after) = rest.split_at_mut(steps[index].min(rest.len()));
                share[index].push(piece);
                rest = after;
            }
        }
    }
    // Each share's pieces, taken by whichever thread runs it.
    let pieces: Vec<Mutex<Option<Pieces<'_, N>>>> = pieces
        .into_iter()
        .map(|share| Mutex::new(Some(share)))
        .collect();
    on_threads(threads, &|share| {
        let mut pieces = pieces[share]
            .lock()
            .ok()
            .and_then(|mut pieces| pieces.take())
            .expect("each share runs once");
        WORKSPACE.with_borrow_mut(|workspace| {
            for ((layer, step), pieces) in layers.iter().zip(steps).zip(&mut pieces) {
                let range =
                    (share * step).min(layer.outputs())..((share + 1) * step).min(layer.outputs());
                layer.rows_times(range, &inputs, workspace, pieces);
            }
        });
    });
}

/// One share's pieces of the result vectors: for each layer, a piece of each token's vector.
type Pieces<'a, const N: usize> = [Vec<&'a mut [f32]>; N];

thread_local! {
    /// The inputs' layout, kept on the calling thread from one call of [`apply_all`] to the
    /// next: made afresh each call, the buffers were fresh pages of memory each time, and the
    /// kernel's page faults and zeroing of them were a tenth of the projections' time at 768
    /// wide (perf). What they hold is written before it is read.
    static LAID_OUT: RefCell<CacheLines<f32>> = RefCell::default();
    /// Each thread's [`Workspace`], kept on the thread that works in it (the caller, and the
    /// long-lived workers), as [`LAID_OUT`] is.
    static WORKSPACE: RefCell<Workspace> = RefCell::default();
}

/// What one thread's share of the projections works in.
#[derive(Default)]
struct Workspace {
    /// Each pair of row and token's f64 lanes, for a super group.
    wide: CacheLines<f64>,
    /// A group's rows, widened, for one block.
    group: CacheLines<f32>,
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
    use super::kernel::{PAIRED_ROWS, TOKEN_BLOCK, WIDE_TILE_TOKENS, dot, dot_tiles_portable};
    #[cfg(target_arch = "x86_64")]
    use super::kernel::{dot_tiles_avx512, dot_tiles_fma};
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
        // Under one block, a block and a short last block, and BERT's and GPT-2's width; rows
        // in tiles of four (and one), and of eight met by every width of token tile.
        for cols in [384, 600, 768] {
            for (rows, tokens) in [(5, 7), (2 * PAIRED_ROWS + 3, 29)] {
                a_layer_of_width_agrees_with_an_f64_sum_in_any_order(cols, rows, tokens);
            }
        }
    }

    fn a_layer_of_width_agrees_with_an_f64_sum_in_any_order(
        cols: usize,
        rows: usize,
        tokens: usize,
    ) {
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
        let bits = |numbers: &[f32]| numbers.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&out), "width {cols}");
        // Every token moved on by one and by three places, so each lands in another tile.
        for places in [1, 3] {
            let turned: Vec<f32> = inputs[places * cols..]
                .iter()
                .chain(&inputs[..places * cols])
                .copied()
                .collect();
            let out_turned = layer.apply(&turned);
            let back: Vec<f32> = out_turned[(tokens - places) * rows..]
                .iter()
                .chain(&out_turned[..(tokens - places) * rows])
                .copied()
                .collect();
            assert_eq!(bits(&back), bits(&out), "width {cols}, turned by {places}");
        }
    }

    /// The projections' arithmetic written out one number at a time: lane `i % LANES` of each
    /// block of [`BLOCK`] numbers takes the fused multiply-adds in order, the lanes are
    /// carried into f64 after each block, and the f64 lanes are added pairwise.
    fn scalar_dot(x: &[f32], w: &[f32]) -> f64 {
        let mut wide = [0.0f64; LANES];
        for (x, w) in x.chunks(BLOCK).zip(w.chunks(BLOCK)) {
            let mut lanes = [0.0f32; LANES];
            for (i, (&a, &b)) in x.iter().zip(w).enumerate() {
                lanes[i % LANES] = a.mul_add(b, lanes[i % LANES]);
            }
            for (wide, lane) in wide.iter_mut().zip(lanes) {
                *wide += f64::from(lane);
            }
        }
        ((wide[0] + wide[1]) + (wide[2] + wide[3])) + ((wide[4] + wide[5]) + (wide[6] + wide[7]))
    }

    #[test]
    fn the_short_last_block_goes_through_the_kernel_as_the_scalar_reference_sums_it() {
        // Widths under a block, of whole blocks, and with a last block of whole lanes or not.
        for (width, tokens) in [1, 5, 8, 256, 384, 389, 512, 600, 768, 896, 1029]
            .into_iter()
            .flat_map(|width| [(width, 4), (width, 5)])
        {
            let rows = GROUP + 3;
            let (weights, inputs) = (numbers(width * rows, 6), numbers(width * tokens, 7));
            let bias = numbers(rows, 8);
            let layer = Linear::new(
                table(rows, width, |r, c| weights[r * width + c]),
                Some(Array1::from(bias.clone())),
            )
            .unwrap();
            let out = layer.apply(&inputs);
            for t in 0..tokens {
                let token = &inputs[t * width..(t + 1) * width];
                for r in 0..rows {
                    let row = &weights[r * width..(r + 1) * width];
                    let reference = scalar_dot(token, row);
                    assert_eq!(dot(token, row).to_bits(), reference.to_bits(), "{width}");
                    let expected = round_to_f32(reference + f64::from(bias[r]));
                    assert_eq!(out[t * rows + r].to_bits(), expected.to_bits(), "{width}");
                }
            }
        }
    }

    /// `vectors` (`count × width`, row by row) laid out block by block.
    fn blocked(vectors: &[f32], count: usize, width: usize) -> Vec<f32> {
        let mut data = vec![f32::NAN; count * padded(width)];
        for (index, vector) in vectors.chunks_exact(width).enumerate() {
            Blocks::write(&mut data, count, index, vector);
        }
        data
    }

    #[expect(clippy::cast_precision_loss, reason = "small indices")]
    fn numbers(count: usize, salt: usize) -> Vec<f32> {
        (0..count)
            .map(|i| ((i * 7919 + salt * 104_729) % 211) as f32 / 97.0 - 1.1)
            .collect()
    }

    #[test]
    fn every_vector_path_the_machine_has_gives_the_portable_bits() {
        // Widths under a lane, under a block, of whole blocks and with a short last block;
        // rows that fill whole tiles of every height and leave some over, and tokens that
        // leave every remainder past the tiles of six.
        for width in [1, 5, 8, 389, BLOCK, 768, 1029, BLOCK * 3 + 5] {
            for tokens in WIDE_TILE_TOKENS..=2 * WIDE_TILE_TOKENS {
                every_vector_path_gives_the_portable_bits(width, PAIRED_ROWS + 7, tokens);
            }
        }
    }

    fn every_vector_path_gives_the_portable_bits(width: usize, rows: usize, tokens: usize) {
        let (weights, inputs) = (numbers(width * rows, 1), numbers(width * tokens, 2));
        let (laid_weights, laid_inputs) = (
            blocked(&weights, rows, width),
            blocked(&inputs, tokens, width),
        );
        let weights_laid = Blocks::new(&laid_weights, rows, rows, width);
        let inputs_laid = Blocks::new(&laid_inputs, tokens, tokens, width);
        let mut portable = vec![[0.0; LANES]; rows * tokens];
        let (mut chosen, mut avx512, mut avx2) =
            (portable.clone(), portable.clone(), portable.clone());
        let ahead: &[&[u8]] = &[&[0; 300]];
        let (w, x) = (&weights_laid, &inputs_laid);
        dot_tiles_portable(w, x, 0, &[], &mut portable);
        dot_tiles(w, x, 0, ahead, &mut chosen);
        // Each path where the processor has it (else the portable one again).
        with_features!(
            ["avx512f", "avx2", "fma"] => dot_tiles_avx512(w, x, 0, ahead, &mut avx512),
            else dot_tiles_portable(w, x, 0, ahead, &mut avx512),
        );
        with_features!(
            ["avx2", "fma"] => dot_tiles_fma(w, x, 0, ahead, &mut avx2),
            else dot_tiles_portable(w, x, 0, ahead, &mut avx2),
        );
        let bits = |v: &[[f64; LANES]]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
        for path in [&chosen, &avx512, &avx2] {
            assert_eq!(bits(path), bits(&portable), "{width} wide, {tokens} tokens");
        }
        // Each one is `dot` of its row and token, alone.
        for r in 0..rows {
            for t in 0..tokens {
                let alone = dot(
                    &inputs[t * width..(t + 1) * width],
                    &weights[r * width..(r + 1) * width],
                );
                let tiled = finish(portable[r * tokens + t]);
                assert_eq!(alone.to_bits(), tiled.to_bits());
            }
        }
    }

    #[test]
    fn every_output_is_dot_of_its_row_and_token_across_super_groups_and_blocks() {
        // More rows than a super group, several blocks and a tail, more tokens than a token
        // block: the rows a group at a time (tokens that fit the second cache) and a super
        // group at a time (wider), on one thread and shared between two.
        let (rows, tokens) = (SUPER + 6, TOKEN_BLOCK + 4);
        for (width, walked) in [(BLOCK * 3 + 7, GROUP), (BLOCK * 6 + 5, SUPER)] {
            assert_eq!(super_rows(tokens, width), walked);
            every_output_is_dot_of_its_row_and_token(rows, width, tokens);
        }
    }

    /// Weights stored as bfloat16 bytes (widened a piece at a time) and as float32.
    fn every_output_is_dot_of_its_row_and_token(rows: usize, width: usize, tokens: usize) {
        let weights: Vec<f32> = numbers(rows * width, 3)
            .into_iter()
            .map(|x| half::bf16::from_f32(x).to_f32())
            .collect();
        let inputs = numbers(tokens * width, 4);
        let bias = numbers(rows, 5);
        let bytes: Vec<u8> = weights
            .iter()
            .flat_map(|&x| half::bf16::from_f32(x).to_le_bytes())
            .collect();
        let mapped =
            Table::mapped(std::sync::Arc::new(bytes), 0, Dtype::BF16, rows, width).unwrap();
        let owned = table(rows, width, |r, c| weights[r * width + c]);
        for weight in [mapped, owned] {
            let layer = Linear::new(weight, Some(Array1::from(bias.clone()))).unwrap();
            let out = layer.apply(&inputs);
            for t in 0..tokens {
                for r in 0..rows {
                    let alone = dot(
                        &inputs[t * width..(t + 1) * width],
                        &weights[r * width..(r + 1) * width],
                    );
                    let expected = round_to_f32(alone + f64::from(bias[r]));
                    assert_eq!(out[t * rows + r].to_bits(), expected.to_bits(), "{r} {t}");
                }
            }
        }
    }

    #[test]
    fn results_kept_from_an_earlier_call_are_refilled_to_the_same_bits() {
        // Kept vectors longer, shorter and empty, holding numbers from before.
        let width = 389;
        let layers = [(5, 1), (GROUP + 3, 2), (2, 3)].map(|(rows, salt)| {
            let weights = numbers(rows * width, salt);
            Linear::new(table(rows, width, |r, c| weights[r * width + c]), None).unwrap()
        });
        let inputs = numbers(7 * width, 4);
        let [a, b, c] = &layers;
        let fresh = apply_all([a, b, c], &inputs);
        let mut kept = [vec![f32::NAN; 1000], vec![7.0; 3], Vec::new()];
        for _ in 0..2 {
            apply_all_into([a, b, c], &inputs, &mut kept);
            assert_eq!(kept, fresh);
        }
    }

    #[test]
    fn rows_shared_between_threads_give_one_threads_bits_from_two_callers_at_once() {
        // Enough work for two threads (the tokens together), against each token alone (one
        // thread), from two calling threads at once (one then finds the workers busy).
        let (rows, width, tokens) = (2 * SUPER + 9, BLOCK + 389, 40);
        assert!(tokens * width * rows >= THREAD_WORK && width * rows < THREAD_WORK);
        let weights = numbers(rows * width, 1);
        let layer = Linear::new(
            table(rows, width, |r, c| weights[r * width + c]),
            Some(Array1::from(numbers(rows, 9))),
        )
        .unwrap();
        let inputs = numbers(tokens * width, 10);
        let alone: Vec<u32> = inputs
            .chunks(width)
            .flat_map(|token| layer.apply(token))
            .map(f32::to_bits)
            .collect();
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    for _ in 0..20 {
                        let together: Vec<u32> =
                            layer.apply(&inputs).into_iter().map(f32::to_bits).collect();
                        assert_eq!(together, alone);
                    }
                });
            }
        });
    }
}
