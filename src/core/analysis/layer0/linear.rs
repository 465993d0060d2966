//! `x @ W^T + b` for every token: the query, key and value projections.
//!
//! The weight stays where it is (mapped from the file); each of its rows is converted to f32
//! once and met by every token while it is at hand. Every output number is computed by the
//! same arithmetic whichever token it belongs to and wherever that token stands, so a
//! reordering of the tokens reorders the outputs without changing a bit: products are added
//! to eight float32 lanes by fused multiply-adds over blocks of 512 numbers (64 a lane), each
//! block's lanes are carried into f64, and the result is rounded once to f32 (within a few
//! float32 roundings of the exact sum; PyTorch's own float32 matrix product sums in an order
//! of its own).

use std::ops::Range;

use anyhow::{Result, bail};
use ndarray::Array1;

use crate::core::tables::simd::with_features;
use crate::core::tables::table::{Dtype, Table, widen_bf16};

/// Numbers summed in float32 before being carried into f64.
const BLOCK: usize = 512;
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
        let [result] = apply_all([self], inputs);
        result
    }

    /// The outputs of weight rows `range` for every token, row by row (`range.len() × tokens`).
    ///
    /// The rows are taken [`SUPER`] at a time, each pair of row and token keeping its f64
    /// lanes while the numbers are walked a block at a time, so that the tokens' numbers of
    /// one block stay in the core's second cache while every row of the super group meets
    /// them; [`GROUP`] rows at a time have the block widened to f32 and met by the tokens
    /// ([`dot_tiles`]), the next group's stored bytes fetched meanwhile. Each pair's blocks
    /// are still added in order, so the arithmetic is [`dot`]'s.
    fn rows_times(&self, range: Range<usize>, inputs: &Blocks<'_>) -> Vec<f32> {
        let width = self.inputs();
        let tokens = inputs.count;
        let blocks = width / BLOCK;
        let whole = blocks * BLOCK;
        let mut sums = Vec::with_capacity(range.len() * tokens);
        let mut wide = vec![[0.0f64; LANES]; SUPER * tokens];
        let mut group = vec![0.0f32; GROUP * BLOCK];
        let mut row_tail = vec![0.0f32; width - whole];
        for first in range.clone().step_by(SUPER) {
            let rows = SUPER.min(range.end - first);
            let source = RowSource::new(&self.weight, first..first + rows);
            let wide = &mut wide[..rows * tokens];
            wide.fill([0.0; LANES]);
            for block in 0..blocks {
                for start in (0..rows).step_by(GROUP) {
                    let members = GROUP.min(rows - start);
                    source.widen_group(start..start + members, block * BLOCK, &mut group);
                    let next = start + GROUP;
                    let ahead = if next < rows {
                        source.stored(next..rows.min(next + GROUP), block * BLOCK, BLOCK)
                    } else {
                        Vec::new()
                    };
                    dot_tiles(
                        &Blocks::new(&group, GROUP, members, BLOCK),
                        inputs,
                        block,
                        &ahead,
                        &mut wide[start * tokens..(start + members) * tokens],
                    );
                }
            }
            for (row, by_token) in wide.chunks_exact(tokens.max(1)).enumerate() {
                source.widen(row, whole, &mut row_tail);
                let bias = self
                    .bias
                    .as_ref()
                    .map_or(0.0, |bias| f64::from(bias[first + row]));
                sums.extend(by_token.iter().enumerate().map(|(token, &lanes)| {
                    round_to_f32(finish(lanes, inputs.tail(token), &row_tail) + bias)
                }));
            }
        }
        sums
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
        let width = table.cols();
        if table.dtype() == Some(Dtype::BF16)
            && let Some(bytes) = table.stored_bytes(range.clone())
        {
            return Self::Bf16 { bytes, width };
        }
        let mut numbers = vec![0.0f32; range.len() * width];
        let first = range.start;
        table.for_each_stored_row_in(range, |row, stored| {
            stored.widen_into(&mut numbers[(row - first) * width..][..width]);
        });
        Self::Widened { numbers, width }
    }

    /// Numbers `start..start + BLOCK` of each of rows `rows`, as float32 side by side in
    /// `group`; compiled for AVX2 where the processor has it (widening is exact either way).
    fn widen_group(&self, rows: Range<usize>, start: usize, group: &mut [f32]) {
        with_features!(
            ["avx2"],
            self.widen_group_avx2(rows, start, group),
            self.widen_rows(rows, start, group),
        );
    }

    /// [`RowSource::widen_rows`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn widen_group_avx2(&self, rows: Range<usize>, start: usize, group: &mut [f32]) {
        self.widen_rows(rows, start, group);
    }

    /// Numbers `start..start + BLOCK` of each of rows `rows`, side by side in `group`.
    #[expect(
        clippy::inline_always,
        reason = "inlined into the AVX2-compiled caller, so it is compiled with AVX2 too"
    )]
    #[inline(always)]
    fn widen_rows(&self, rows: Range<usize>, start: usize, group: &mut [f32]) {
        for (row, out) in rows.zip(group.chunks_exact_mut(BLOCK)) {
            self.widen(row, start, out);
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
    let mut laid_out = vec![0.0f32; tokens * width];
    for (token, numbers) in inputs.chunks_exact(width).enumerate() {
        Blocks::write(&mut laid_out, tokens, token, numbers);
    }
    let inputs = Blocks::new(&laid_out, tokens, tokens, width);
    let work: usize = layers
        .iter()
        .map(|layer| tokens * width * layer.outputs())
        .sum();
    let threads = if work >= THREAD_WORK {
        std::thread::available_parallelism().map_or(1, usize::from)
    } else {
        1
    };
    // Thread `share` computes rows `share × step ..` of every layer.
    let share_of = |share: usize| {
        layers.map(|layer| {
            let step = layer.outputs().div_ceil(threads);
            let range =
                (share * step).min(layer.outputs())..((share + 1) * step).min(layer.outputs());
            (range.clone(), layer.rows_times(range, &inputs))
        })
    };
    let shares: Vec<[(Range<usize>, Vec<f32>); N]> = if threads > 1 {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (1..threads)
                .map(|share| scope.spawn(move || share_of(share)))
                .collect();
            let mut shares = vec![share_of(0)];
            shares.extend(
                handles
                    .into_iter()
                    .map(|handle| handle.join().expect("a projection thread does not panic")),
            );
            shares
        })
    } else {
        vec![share_of(0)]
    };
    std::array::from_fn(|index| {
        let outputs = layers[index].outputs();
        let mut result = vec![0.0f32; tokens * outputs];
        for share in &shares {
            let (range, by_row) = &share[index];
            for (row, sums) in range.clone().zip(by_row.chunks_exact(tokens.max(1))) {
                for (token, &sum) in sums.iter().enumerate() {
                    result[token * outputs + row] = sum;
                }
            }
        }
        result
    })
}

/// Vectors of `width` numbers laid out block by block for the tiles: block `b` ([`BLOCK`]
/// numbers) of every vector side by side, `slots` of them, then each vector's tail past its
/// last whole block. The blocks the tiles meet together are then neighbours in memory, so
/// the core's caches and prefetchers take them as one stream; rows a power of two apart
/// (4096 numbers: 16 KiB) would instead fall on the same few sets of its first cache.
#[derive(Clone, Copy)]
struct Blocks<'a> {
    /// The numbers, `slots × width` of them.
    data: &'a [f32],
    /// Vectors the layout has room for.
    slots: usize,
    /// Vectors in use: the first `count` slots.
    count: usize,
    /// Numbers in each vector.
    width: usize,
}

impl<'a> Blocks<'a> {
    /// `count` of the `slots` vectors laid out in `data`.
    fn new(data: &'a [f32], slots: usize, count: usize, width: usize) -> Self {
        assert!(
            count <= slots && data.len() >= slots * width,
            "a layout of whole vectors"
        );
        Self {
            data,
            slots,
            count,
            width,
        }
    }

    /// One vector alone: its layout is the vector itself.
    fn one(vector: &'a [f32]) -> Self {
        Self::new(vector, 1, 1, vector.len())
    }

    /// Where block `block` of vector `index` starts in a layout of `slots` vectors.
    fn offset(slots: usize, index: usize, block: usize) -> usize {
        (block * slots + index) * BLOCK
    }

    /// Where the tail of vector `index` starts in a layout of `slots` vectors of `width`.
    fn tail_offset(slots: usize, width: usize, index: usize) -> usize {
        let whole = width / BLOCK * BLOCK;
        whole * slots + index * (width - whole)
    }

    /// Writes `vector` into slot `index` of a layout of `slots` vectors.
    fn write(data: &mut [f32], slots: usize, index: usize, vector: &[f32]) {
        for (block, numbers) in vector.chunks_exact(BLOCK).enumerate() {
            data[Self::offset(slots, index, block)..][..BLOCK].copy_from_slice(numbers);
        }
        let whole = vector.len() / BLOCK * BLOCK;
        data[Self::tail_offset(slots, vector.len(), index)..][..vector.len() - whole]
            .copy_from_slice(&vector[whole..]);
    }

    /// Block `block` ([`BLOCK`] numbers) of vector `index`.
    #[expect(
        clippy::inline_always,
        reason = "inlined into the AVX2-compiled caller with the tiles"
    )]
    #[inline(always)]
    fn block(&self, index: usize, block: usize) -> &'a [f32] {
        &self.data[Self::offset(self.slots, index, block)..][..BLOCK]
    }

    /// The numbers of vector `index` past its last whole block.
    fn tail(&self, index: usize) -> &'a [f32] {
        &self.data[Self::tail_offset(self.slots, self.width, index)..][..self.width % BLOCK]
    }
}

/// Weight rows widened and met by the tokens together: enough to share each token's load
/// among several rows, few enough to stay in the core's first cache.
const GROUP: usize = 8;

/// Rows whose f64 lanes are kept while the numbers are walked a panel at a time.
const SUPER: usize = 64;

/// Adds blocks `first..` of the inputs, met by the weight rows' blocks `0..` (as many as
/// `weights` has), to each pair's f64 lanes (`wide` is `rows × tokens`); the `ahead` bytes
/// are fetched into the core's cache meanwhile (they change no number).
fn dot_tiles(
    weights: &Blocks<'_>,
    inputs: &Blocks<'_>,
    first: usize,
    ahead: &[&[u8]],
    wide: &mut [[f64; LANES]],
) {
    with_features!(
        ["avx2", "fma"],
        dot_tiles_fma(weights, inputs, first, ahead, wide),
        dot_tiles_portable(weights, inputs, first, ahead, wide),
    );
}

/// [`dot_tiles`] compiled for AVX2 and FMA: [`tiles`] with [`block_fma`], the same arithmetic
/// as [`block_portable`] lane for lane, so the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn dot_tiles_fma(
    weights: &Blocks<'_>,
    inputs: &Blocks<'_>,
    first: usize,
    ahead: &[&[u8]],
    wide: &mut [[f64; LANES]],
) {
    tiles(weights, inputs, first, ahead, wide, TileKind::Fma);
}

/// [`dot_tiles`] without vector instructions.
fn dot_tiles_portable(
    weights: &Blocks<'_>,
    inputs: &Blocks<'_>,
    first: usize,
    ahead: &[&[u8]],
    wide: &mut [[f64; LANES]],
) {
    tiles(weights, inputs, first, ahead, wide, TileKind::Portable);
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
fn tiles(
    weights: &Blocks<'_>,
    inputs: &Blocks<'_>,
    offset: usize,
    ahead: &[&[u8]],
    wide: &mut [[f64; LANES]],
    kind: TileKind,
) {
    let rows = weights.count;
    let tokens = inputs.count;
    let blocks = weights.width / BLOCK;
    // The `ahead` bytes' cache lines spread over the steps below, a few a step.
    let steps = tokens.div_ceil(TOKEN_BLOCK) * blocks;
    let lines: usize = ahead.iter().map(|bytes| bytes.len().div_ceil(64)).sum();
    let mut fetching = ahead.iter().flat_map(|bytes| bytes.chunks(64));
    let per_step = lines.div_ceil(steps.max(1));
    for first in (0..tokens).step_by(TOKEN_BLOCK) {
        let last = (first + TOKEN_BLOCK).min(tokens);
        for start in 0..blocks {
            for line in fetching.by_ref().take(per_step) {
                fetch(line, kind);
            }
            let row = |index: usize| weights.block(index, start);
            let token = |index: usize| inputs.block(index, offset + start);
            let mut r = 0;
            while r < rows {
                let quad = rows - r >= 4;
                let mut t = first;
                while t < last {
                    // Three tokens a tile; a remainder of four or two goes as pairs, so that a
                    // tile of one token is left only where a block has a single token.
                    let width = match last - t {
                        4 | 2 => 2,
                        1 => 1,
                        _ => TILE_TOKENS,
                    };
                    if quad {
                        tile::<4>(wide, tokens, (r, t), width, (&row, &token), kind);
                    } else {
                        tile::<1>(wide, tokens, (r, t), width, (&row, &token), kind);
                    }
                    t += width;
                }
                r += if quad { 4 } else { 1 };
            }
        }
    }
}

/// One tile: rows `r..r + R` by `width` tokens from `t` (three, two or one), its block's
/// products carried into their f64 lanes. Every pair's arithmetic is the same whatever the
/// tile's shape.
#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX2-compiled caller, so the tiles are compiled with AVX2 too"
)]
#[inline(always)]
fn tile<'a, const R: usize>(
    wide: &mut [[f64; LANES]],
    tokens: usize,
    (r, t): (usize, usize),
    width: usize,
    (row, token): (&impl Fn(usize) -> &'a [f32], &impl Fn(usize) -> &'a [f32]),
    kind: TileKind,
) {
    let rows = std::array::from_fn::<_, R, _>(|i| row(r + i));
    match width {
        TILE_TOKENS => carry(
            wide,
            tokens,
            (r, t),
            &block(
                rows,
                std::array::from_fn::<_, TILE_TOKENS, _>(|i| token(t + i)),
                kind,
            ),
        ),
        2 => carry(
            wide,
            tokens,
            (r, t),
            &block(rows, [token(t), token(t + 1)], kind),
        ),
        _ => carry(wide, tokens, (r, t), &block(rows, [token(t)], kind)),
    }
}

/// Asks the processor to bring the cache line at `bytes` into its second-level cache (on
/// x86-64 with the vector path; elsewhere nothing). No number depends on it.
#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX2-compiled caller with the tiles"
)]
#[inline(always)]
fn fetch(bytes: &[u8], kind: TileKind) {
    #[cfg(target_arch = "x86_64")]
    if let TileKind::Fma = kind {
        use std::arch::x86_64::{_MM_HINT_T1, _mm_prefetch};
        #[expect(unsafe_code, reason = "a prefetch hint reads nothing")]
        // SAFETY: a prefetch never faults and changes no memory; the pointer is in `bytes`.
        unsafe {
            _mm_prefetch::<_MM_HINT_T1>(bytes.as_ptr().cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, kind);
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
    let (w, x) = (Blocks::one(w), Blocks::one(x));
    let mut wide = [[0.0; LANES]];
    tiles(&w, &x, 0, &[], &mut wide, TileKind::Portable);
    finish(wide[0], x.tail(0), w.tail(0))
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

    /// `vectors` (`count × width`, row by row) laid out block by block.
    fn blocked(vectors: &[f32], count: usize, width: usize) -> Vec<f32> {
        let mut data = vec![f32::NAN; count * width];
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
    fn the_vector_path_and_the_portable_path_give_the_same_bits() {
        let width = BLOCK * 3 + 5;
        // Rows and tokens that fill whole tiles and leave some over.
        let (rows, tokens) = (7, 5);
        let (weights, inputs) = (numbers(width * rows, 1), numbers(width * tokens, 2));
        let (laid_weights, laid_inputs) = (
            blocked(&weights, rows, width),
            blocked(&inputs, tokens, width),
        );
        let weights_laid = Blocks::new(&laid_weights, rows, rows, width);
        let inputs_laid = Blocks::new(&laid_inputs, tokens, tokens, width);
        let mut fast = vec![[0.0; LANES]; rows * tokens];
        let mut portable = fast.clone();
        let ahead: &[&[u8]] = &[&[0; 300]];
        dot_tiles(&weights_laid, &inputs_laid, 0, ahead, &mut fast);
        dot_tiles_portable(&weights_laid, &inputs_laid, 0, &[], &mut portable);
        let bits = |v: &[[f64; LANES]]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&fast), bits(&portable));
        // Each one is `dot` of its row and token, alone.
        for r in 0..rows {
            for t in 0..tokens {
                let alone = dot(
                    &inputs[t * width..(t + 1) * width],
                    &weights[r * width..(r + 1) * width],
                );
                let tiled = finish(
                    portable[r * tokens + t],
                    inputs_laid.tail(t),
                    weights_laid.tail(r),
                );
                assert_eq!(alone.to_bits(), tiled.to_bits());
            }
        }
    }

    #[test]
    fn every_output_is_dot_of_its_row_and_token_across_super_groups_and_blocks() {
        // More rows than a super group, several blocks and a tail, more tokens than a token
        // block; weights stored as bfloat16 bytes (widened a piece at a time) and as float32.
        let (rows, width, tokens) = (SUPER + 6, BLOCK * 3 + 7, TOKEN_BLOCK + 4);
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
}
