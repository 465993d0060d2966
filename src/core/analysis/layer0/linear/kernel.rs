//! The arithmetic of the projections: vectors laid out block by block, weight rows met in
//! tiles of rows and tokens, products summed in eight float32 lanes over blocks of 512 numbers
//! and carried into f64, with the AVX-512 or AVX2/FMA kernel chosen at run time where the
//! processor has it. Every output number gets the same arithmetic wherever its token stands
//! and whichever path computes it.

use crate::core::tables::simd::with_features;

#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
use avx512::carry_avx512;

/// Numbers summed in float32 before being carried into f64.
pub(super) const BLOCK: usize = 512;
/// Float32 lanes in a block.
pub(super) const LANES: usize = 8;

/// Numbers block `block` of a vector of `width` numbers holds as laid out: [`BLOCK`], or, for
/// the last, shorter block, the numbers past the last whole block rounded up to whole lanes
/// (the padding is zeros, whose products add nothing to any lane).
pub(super) fn block_len(width: usize, block: usize) -> usize {
    if block < width / BLOCK {
        BLOCK
    } else {
        (width % BLOCK).next_multiple_of(LANES)
    }
}

/// Numbers one vector of `width` takes in a layout: its width padded to whole lanes.
pub(super) fn padded(width: usize) -> usize {
    width.next_multiple_of(LANES)
}

/// Vectors of `width` numbers laid out block by block for the tiles: block `b` ([`BLOCK`]
/// numbers) of every vector side by side, `slots` of them, then each vector's shorter last
/// block (padded with zeros to whole lanes). The blocks the tiles meet together are then
/// neighbours in memory, so the core's caches and prefetchers take them as one stream; rows a
/// power of two apart (4096 numbers: 16 KiB) would instead fall on the same few sets of its
/// first cache.
#[derive(Clone, Copy)]
pub(super) struct Blocks<'a> {
    /// The numbers, `slots × padded(width)` of them.
    data: &'a [f32],
    /// Vectors the layout has room for.
    slots: usize,
    /// Vectors in use: the first `count` slots.
    pub(super) count: usize,
    /// Numbers in each vector.
    width: usize,
}

impl<'a> Blocks<'a> {
    /// `count` of the `slots` vectors laid out in `data`.
    pub(super) fn new(data: &'a [f32], slots: usize, count: usize, width: usize) -> Self {
        assert!(
            count <= slots && data.len() >= slots * padded(width),
            "a layout of whole vectors"
        );
        Self {
            data,
            slots,
            count,
            width,
        }
    }

    /// Blocks in each vector, the shorter last one included.
    pub(super) fn blocks(&self) -> usize {
        self.width.div_ceil(BLOCK)
    }

    /// Where block `block` of vector `index` starts in a layout of `slots` vectors of `width`.
    pub(super) fn offset(slots: usize, width: usize, index: usize, block: usize) -> usize {
        block * slots * BLOCK + index * block_len(width, block)
    }

    /// Writes `vector` into slot `index` of a layout of `slots` vectors, padding included.
    pub(super) fn write(data: &mut [f32], slots: usize, index: usize, vector: &[f32]) {
        let width = vector.len();
        for (block, numbers) in vector.chunks(BLOCK).enumerate() {
            let laid = &mut data[Self::offset(slots, width, index, block)..];
            let (laid, padding) = laid[..block_len(width, block)].split_at_mut(numbers.len());
            laid.copy_from_slice(numbers);
            padding.fill(0.0);
        }
    }

    /// Block `block` of vector `index`: [`BLOCK`] numbers, or fewer for the last.
    #[expect(
        clippy::inline_always,
        reason = "inlined into the AVX2-compiled caller with the tiles"
    )]
    #[inline(always)]
    pub(super) fn block(&self, index: usize, block: usize) -> &'a [f32] {
        &self.data[Self::offset(self.slots, self.width, index, block)..]
            [..block_len(self.width, block)]
    }
}

/// Weight rows widened and met by the tokens together: enough to share each token's load
/// among several rows, few enough to stay in the core's first cache.
pub(super) const GROUP: usize = 8;

/// Rows whose f64 lanes are kept while the numbers are walked a panel at a time.
pub(super) const SUPER: usize = 64;

/// Adds blocks `first..` of the inputs, met by the weight rows' blocks `0..` (as many as
/// `weights` has), to each pair's f64 lanes (`wide` is `rows × tokens`); the `ahead` bytes
/// are fetched into the core's cache meanwhile (they change no number).
pub(super) fn dot_tiles(
    weights: &Blocks<'_>,
    inputs: &Blocks<'_>,
    first: usize,
    ahead: &[&[u8]],
    wide: &mut [[f64; LANES]],
) {
    with_features!(
        ["avx512f", "avx2", "fma"] => dot_tiles_avx512(weights, inputs, first, ahead, wide),
        ["avx2", "fma"] => dot_tiles_fma(weights, inputs, first, ahead, wide),
        else dot_tiles_portable(weights, inputs, first, ahead, wide),
    );
}

/// [`dot_tiles`] compiled for AVX-512: [`tiles`] with [`carry_avx512`] for eight rows at a
/// time (and [`block_fma`] for rows left over), the same arithmetic as [`block_portable`]
/// lane for lane, so the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
pub(super) fn dot_tiles_avx512(
    weights: &Blocks<'_>,
    inputs: &Blocks<'_>,
    first: usize,
    ahead: &[&[u8]],
    wide: &mut [[f64; LANES]],
) {
    tiles(weights, inputs, first, ahead, wide, TileKind::Avx512);
}

/// [`dot_tiles`] compiled for AVX2 and FMA: [`tiles`] with [`block_fma`], the same arithmetic
/// as [`block_portable`] lane for lane, so the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
pub(super) fn dot_tiles_fma(
    weights: &Blocks<'_>,
    inputs: &Blocks<'_>,
    first: usize,
    ahead: &[&[u8]],
    wide: &mut [[f64; LANES]],
) {
    tiles(weights, inputs, first, ahead, wide, TileKind::Fma);
}

/// [`dot_tiles`] without vector instructions.
pub(super) fn dot_tiles_portable(
    weights: &Blocks<'_>,
    inputs: &Blocks<'_>,
    first: usize,
    ahead: &[&[u8]],
    wide: &mut [[f64; LANES]],
) {
    tiles(weights, inputs, first, ahead, wide, TileKind::Portable);
}

/// Which tile arithmetic [`tiles`] uses (all give the same bits).
#[derive(Clone, Copy)]
pub(super) enum TileKind {
    /// AVX-512 instructions: two rows' eight lanes in one register.
    Avx512,
    /// AVX2 and FMA instructions.
    Fma,
    /// Plain Rust.
    Portable,
}

/// Walks the tokens [`TOKEN_BLOCK`] at a time and each block of [`BLOCK`] numbers, so that the
/// rows' and tokens' numbers in use stay in the core's first cache; within it, the rows eight
/// at a time with AVX-512 and the tokens six at a time (the rest in one tile), else the rows
/// four at a time and the tokens three at a time (the rest in pairs or one by one). Each
/// pair's lanes are carried into its f64 lanes after each block, then finished: the
/// arithmetic of [`dot`] exactly.
#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX2-compiled caller, so the tiles are compiled with AVX2 too"
)]
#[inline(always)]
pub(super) fn tiles(
    weights: &Blocks<'_>,
    inputs: &Blocks<'_>,
    offset: usize,
    ahead: &[&[u8]],
    wide: &mut [[f64; LANES]],
    kind: TileKind,
) {
    let rows = weights.count;
    let tokens = inputs.count;
    let blocks = weights.blocks();
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
                let height = match kind {
                    TileKind::Avx512 if rows - r >= PAIRED_ROWS => PAIRED_ROWS,
                    _ if rows - r >= 4 => 4,
                    _ => 1,
                };
                let mut t = first;
                while t < last {
                    let width = match (height, last - t) {
                        // Six tokens a tile, and what is left in one tile of its own width,
                        // but five as three and two: compiled, a five-token tile kept some of
                        // its 20 sums on the stack (objdump), which the narrower ones do not.
                        (PAIRED_ROWS, 5) => TILE_TOKENS,
                        (PAIRED_ROWS, left) => left.min(WIDE_TILE_TOKENS),
                        // Three tokens a tile; a remainder of four or two goes as pairs, so
                        // that a tile of one token is left only where a block has a single
                        // token.
                        (_, 4 | 2) => 2,
                        (_, 1) => 1,
                        _ => TILE_TOKENS,
                    };
                    match height {
                        PAIRED_ROWS => {
                            tile::<PAIRED_ROWS>(wide, tokens, (r, t), width, (&row, &token), kind);
                        }
                        4 => tile::<4>(wide, tokens, (r, t), width, (&row, &token), kind),
                        _ => tile::<1>(wide, tokens, (r, t), width, (&row, &token), kind),
                    }
                    t += width;
                }
                r += height;
            }
        }
    }
}

/// One tile: rows `r..r + R` by `width` tokens from `t` (six, or four to one), its block's
/// products carried into their f64 lanes. Every pair's arithmetic is the same whatever the
/// tile's shape.
#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX2-compiled caller, so the tiles are compiled with AVX2 too"
)]
#[inline(always)]
pub(super) fn tile<'a, const R: usize>(
    wide: &mut [[f64; LANES]],
    tokens: usize,
    (r, t): (usize, usize),
    width: usize,
    (row, token): (&impl Fn(usize) -> &'a [f32], &impl Fn(usize) -> &'a [f32]),
    kind: TileKind,
) {
    let rows = std::array::from_fn::<_, R, _>(|i| row(r + i));
    let at = (wide, tokens, (r, t));
    match width {
        WIDE_TILE_TOKENS => tile_of::<R, WIDE_TILE_TOKENS>(at, rows, token, kind),
        4 => tile_of::<R, 4>(at, rows, token, kind),
        TILE_TOKENS => tile_of::<R, TILE_TOKENS>(at, rows, token, kind),
        2 => tile_of::<R, 2>(at, rows, token, kind),
        _ => tile_of::<R, 1>(at, rows, token, kind),
    }
}

/// [`tile`] of `T` tokens from `t`: the block of `rows` and those tokens, carried into the
/// f64 lanes of `wide` (`rows × tokens`) from row `r` and token `t`.
#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX2-compiled caller, so the tiles are compiled with AVX2 too"
)]
#[inline(always)]
fn tile_of<'a, const R: usize, const T: usize>(
    (wide, tokens, (r, t)): (&mut [[f64; LANES]], usize, (usize, usize)),
    rows: [&'a [f32]; R],
    token: &impl Fn(usize) -> &'a [f32],
    kind: TileKind,
) {
    let numbers = std::array::from_fn::<_, T, _>(|i| token(t + i));
    #[cfg(target_arch = "x86_64")]
    if let (TileKind::Avx512, PAIRED_ROWS) = (kind, R) {
        #[expect(
            unsafe_code,
            reason = "only reached from dot_tiles_avx512, compiled for AVX-512, AVX2 and FMA"
        )]
        // SAFETY: `TileKind::Avx512` is only used after AVX-512, AVX2 and FMA were detected.
        unsafe {
            carry_avx512(rows, numbers, wide, tokens, (r, t));
        }
        return;
    }
    carry(wide, tokens, (r, t), &block(rows, numbers, kind));
}

/// Asks the processor to bring the cache line at `bytes` into its second-level cache (on
/// x86-64 with the vector path; elsewhere nothing). No number depends on it.
#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX2-compiled caller with the tiles"
)]
#[inline(always)]
pub(super) fn fetch(bytes: &[u8], kind: TileKind) {
    #[cfg(target_arch = "x86_64")]
    if let TileKind::Avx512 | TileKind::Fma = kind {
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
pub(super) const TILE_TOKENS: usize = 3;

/// Rows of an AVX-512 tile: four pairs, each pair's two rows of eight lanes in one register.
pub(super) const PAIRED_ROWS: usize = 8;

/// Tokens in an AVX-512 tile of [`PAIRED_ROWS`] rows: its 32 registers hold the 24 running
/// sums, the six tokens' numbers and a pair of rows, so each pair loaded meets six tokens.
pub(super) const WIDE_TILE_TOKENS: usize = 6;

/// Tokens met together by one block of a row group: their numbers in use fit the first cache,
/// and they are whole tiles of [`WIDE_TILE_TOKENS`].
pub(super) const TOKEN_BLOCK: usize = 18;

/// Adds one block's float32 lanes of rows `r..` and tokens `t..` into their f64 lanes.
#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX2-compiled caller, so it is compiled with AVX2 too"
)]
#[inline(always)]
pub(super) fn carry<const R: usize, const T: usize>(
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
pub(super) fn block<const R: usize, const T: usize>(
    w: [&[f32]; R],
    x: [&[f32]; T],
    kind: TileKind,
) -> [[[f32; LANES]; T]; R] {
    match kind {
        // AVX-512's tiles of eight rows carry their sums themselves ([`tile_of`]).
        #[cfg(target_arch = "x86_64")]
        #[expect(
            unsafe_code,
            reason = "only reached from dot_tiles_fma and dot_tiles_avx512, compiled for AVX2 and FMA"
        )]
        // SAFETY: `TileKind::Fma` and `TileKind::Avx512` are only used after AVX2 and FMA were
        // detected.
        TileKind::Fma | TileKind::Avx512 => unsafe { block_fma(w, x) },
        #[cfg(not(target_arch = "x86_64"))]
        TileKind::Fma | TileKind::Avx512 => block_portable(w, x),
        TileKind::Portable => block_portable(w, x),
    }
}

/// `x · w` as every projection computes it: products added to [`LANES`] float32 lanes by a
/// fused multiply-add over blocks of [`BLOCK`] numbers (the last block shorter, padded with
/// zeros to whole lanes), each block's lanes added into f64 lanes, then the lanes added
/// pairwise.
///
/// # Panics
/// When the vectors differ in length.
#[must_use]
pub fn dot(x: &[f32], w: &[f32]) -> f64 {
    assert_eq!(x.len(), w.len(), "vectors of one width");
    let width = x.len();
    let lay_out = |vector: &[f32]| {
        let mut data = vec![0.0; padded(width)];
        Blocks::write(&mut data, 1, 0, vector);
        data
    };
    let (w, x) = (lay_out(w), lay_out(x));
    let mut wide = [[0.0; LANES]];
    tiles(
        &Blocks::new(&w, 1, 1, width),
        &Blocks::new(&x, 1, 1, width),
        0,
        &[],
        &mut wide,
        TileKind::Portable,
    );
    finish(wide[0])
}

/// [`block`] in plain Rust.
#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX2-compiled caller, so it is compiled with AVX2 too"
)]
#[inline(always)]
pub(super) fn block_portable<const R: usize, const T: usize>(
    w: [&[f32]; R],
    x: [&[f32]; T],
) -> [[[f32; LANES]; T]; R] {
    let mut lanes = [[[0.0f32; LANES]; T]; R];
    for chunk in (0..w[0].len()).step_by(LANES) {
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

/// The numbers in one block of rows `w` and tokens `x`, checked to be whole lanes and the
/// same in every row and token, as the vector loads need.
#[expect(
    clippy::inline_always,
    reason = "inlined into the vector-compiled tiles"
)]
#[inline(always)]
pub(super) fn block_length(w: &[&[f32]], x: &[&[f32]]) -> usize {
    let len = w[0].len();
    assert!(
        len.is_multiple_of(LANES)
            && w.iter().all(|row| row.len() == len)
            && x.iter().all(|token| token.len() == len),
        "one block of whole lanes, as long in every row and token"
    );
    len
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
pub(super) unsafe fn block_fma<const R: usize, const T: usize>(
    w: [&[f32]; R],
    x: [&[f32]; T],
) -> [[[f32; LANES]; T]; R] {
    use std::arch::x86_64::{
        __m256, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    };
    let len = block_length(&w, &x);
    // SAFETY (for the block below): AVX2 and FMA are there (the caller's contract); every
    // load reads LANES float32s at `chunk <= len - LANES` of a slice of `len` numbers.
    unsafe {
        let mut lanes: [[__m256; T]; R] = [[_mm256_setzero_ps(); T]; R];
        for chunk in (0..len).step_by(LANES) {
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

/// The f64 lanes added pairwise.
pub(super) fn finish(wide: [f64; LANES]) -> f64 {
    let pairs = [
        wide[0] + wide[1],
        wide[2] + wide[3],
        wide[4] + wide[5],
        wide[6] + wide[7],
    ];
    (pairs[0] + pairs[1]) + (pairs[2] + pairs[3])
}
