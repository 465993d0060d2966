//! The AVX-512 tiles of the projections: eight weight rows met by six, four, three, two or
//! one tokens, rows `2p` and `2p + 1` sharing a register, with the arithmetic of
//! [`block_portable`](super::block_portable) lane for lane (so the same bits).

use std::arch::x86_64::__m512;

use super::{LANES, PAIRED_ROWS, TILE_TOKENS, WIDE_TILE_TOKENS, block_fma, block_length, carry};

/// [`block_portable`]'s arithmetic for [`PAIRED_ROWS`] rows in AVX-512 instructions, carried
/// into `wide` as [`carry`](super::carry) carries it, straight from the registers: rows
/// `2p` and `2p + 1` share a register, the low eight lanes one row's and the high eight the
/// other's, and each token's eight numbers fill both halves, so every register lane takes the
/// fused multiply-adds of one row, token and lane in order: the same bits.
///
/// The rows of a tile lie one stride apart in their layout, and so do its tokens, so the loop
/// keeps one base and one stride for each: with a pointer a row and a token, the compiler ran
/// short of registers and reloaded pointers, and one running sum, from the stack inside the
/// loop (perf annotate). Slices that are not one stride apart take [`block_fma`] (same bits).
///
/// The tile's float32 sums go from its registers to its f64 lanes in `wide` (`rows × tokens`,
/// from row `r` and token `t`): written out as float32s first and read back to be carried,
/// they cost a store and a load each, and the carry around the tiles was the hottest code
/// outside them (perf at 4096 wide).
///
/// Every tile keeps its running sums in named variables ([`paired_tile`], and assembly for
/// six tokens): held in an array, eleven of the six-token tile's 24 lived on the stack,
/// loaded and stored at every step of the loop (perf annotate), though the 32 registers hold
/// them all.
///
/// # Safety
/// The CPU must have AVX-512F, AVX2 and FMA; the caller is compiled for them.
#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX-512-compiled caller, so it is compiled with AVX-512 too"
)]
#[inline(always)]
#[expect(
    unsafe_code,
    reason = "vector loads from raw pointers into slices whose lengths and places are checked first"
)]
pub(super) unsafe fn carry_avx512<const R: usize, const T: usize>(
    w: [&[f32]; R],
    x: [&[f32]; T],
    wide: &mut [[f64; LANES]],
    tokens: usize,
    (r, t): (usize, usize),
) {
    assert!(R == PAIRED_ROWS, "eight rows, in four pairs");
    assert!(
        t + T <= tokens && (r + R) * tokens <= wide.len(),
        "the tile's sums are in `wide`"
    );
    let len = block_length(&w, &x);
    let (Some(row_stride), Some(token_stride)) = (stride(&w), stride(&x)) else {
        // SAFETY: AVX2 and FMA are there (the caller's contract).
        return carry(wide, tokens, (r, t), &unsafe { block_fma(w, x) });
    };
    let rows = (w[0].as_ptr(), row_stride);
    let inputs = (x[0].as_ptr(), token_stride);
    let out = (wide[r * tokens + t..].as_mut_ptr(), tokens);
    // SAFETY: AVX-512F is there (the caller's contract); row `i` starts at `rows + i ×
    // row_stride` and token `j` at `inputs + j × token_stride` (checked by `stride`), each
    // with `len` float32s, a multiple of LANES (checked by `block_length`); rows `r..r + R`
    // and tokens `t..t + T` of `wide` are in it (checked above), so `out` holds the tile's
    // sums.
    unsafe {
        match T {
            WIDE_TILE_TOKENS => paired_tile_6(rows, inputs, len, out),
            4 => paired_tile_4(rows, inputs, len, out),
            TILE_TOKENS => paired_tile_3(rows, inputs, len, out),
            2 => paired_tile_2(rows, inputs, len, out),
            1 => paired_tile_1(rows, inputs, len, out),
            // No tile has five tokens, or more than six.
            _ => carry(wide, tokens, (r, t), &block_fma(w, x)),
        }
    }
}

/// A function for [`carry_avx512`]'s tile of [`PAIRED_ROWS`] rows and the tokens listed,
/// its running sums in named variables (one a pair of rows and a token: `token: its numbers
/// => its sums with pairs 0 to 3`), each pair's two rows loaded into one register and met by
/// each token's numbers in both halves, the sums carried at the end into `out` ([`carry_pairs`]).
///
/// A function of its own, compiled for AVX-512 and never inlined into the tiles: inlined,
/// the compiler kept eleven to twenty-one of the six-token tile's 24 running sums on the
/// stack, loading and storing each at every step of the loop (perf annotate), whether they
/// were held in an array or in named variables; compiled alone it keeps them in registers.
/// (Rust drops `#[inline(never)]` from a function with `#[target_feature]`, so the function
/// compiled for AVX-512 sits inside one that is not, which keeps it; and a function with
/// those features cannot be inlined into one without them.) Two calls cost nothing beside a
/// block's thousands of multiply-adds.
macro_rules! paired_tile {
    ($name:ident, $compiled:ident, $count:literal;
     $($token:literal: $x:ident => $s0:ident $s1:ident $s2:ident $s3:ident),+) => {
        /// [`paired_tile`] for this many tokens.
        ///
        /// # Safety
        /// The CPU must have AVX-512F, AVX2 and FMA; row `i` of the tile starts at
        /// `rows + i × row_stride` and token `t` at `tokens + t × token_stride`, each with
        /// `len` float32s (a multiple of [`LANES`]); `out` holds the tile's f64 sums (see
        /// [`Sums`]).
        #[inline(never)]
        #[expect(unsafe_code, reason = "calling the AVX-512 tile on the caller's contract")]
        unsafe fn $name(
            rows: (*const f32, usize),
            tokens: (*const f32, usize),
            len: usize,
            out: Sums,
        ) {
            // SAFETY: the caller's contract.
            unsafe { $compiled(rows, tokens, len, out) }
        }

        /// The tile of [`paired_tile`], compiled for AVX-512.
        #[target_feature(enable = "avx512f,avx2,fma")]
        #[expect(unsafe_code, reason = "vector loads and stores through raw pointers")]
        unsafe fn $compiled(
            (rows, row_stride): (*const f32, usize),
            (tokens, token_stride): (*const f32, usize),
            len: usize,
            out: Sums,
        ) {
            use std::arch::x86_64::{
                _mm256_loadu_pd, _mm512_broadcast_f64x4, _mm512_castpd_ps, _mm512_castpd256_pd512,
                _mm512_fmadd_ps, _mm512_insertf64x4, _mm512_setzero_ps,
            };
            // SAFETY (for the block below): the caller's contract; every load reads LANES
            // float32s at `chunk <= len - LANES` of a row or a token, every store LANES
            // float32s into `out`.
            unsafe {
                $(
                    let (mut $s0, mut $s1, mut $s2, mut $s3) = (
                        _mm512_setzero_ps(),
                        _mm512_setzero_ps(),
                        _mm512_setzero_ps(),
                        _mm512_setzero_ps(),
                    );
                )+
                for chunk in (0..len).step_by(LANES) {
                    // Each token's eight numbers in both halves of a register, then rows 2p
                    // and 2p + 1 in one register, met by every token: the bits moved as
                    // float64s, unchanged.
                    $(
                        let $x = _mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_loadu_pd(
                            tokens.add($token * token_stride + chunk).cast(),
                        )));
                    )+
                    let pair = |p: usize| {
                        let low = _mm256_loadu_pd(rows.add(2 * p * row_stride + chunk).cast());
                        let high =
                            _mm256_loadu_pd(rows.add((2 * p + 1) * row_stride + chunk).cast());
                        _mm512_castpd_ps(_mm512_insertf64x4::<1>(_mm512_castpd256_pd512(low), high))
                    };
                    let w = pair(0);
                    $( $s0 = _mm512_fmadd_ps($x, w, $s0); )+
                    let w = pair(1);
                    $( $s1 = _mm512_fmadd_ps($x, w, $s1); )+
                    let w = pair(2);
                    $( $s2 = _mm512_fmadd_ps($x, w, $s2); )+
                    let w = pair(3);
                    $( $s3 = _mm512_fmadd_ps($x, w, $s3); )+
                }
                carry_pairs(&[$($s0, $s1, $s2, $s3),+], out);
            }
        }
    };
}

// The tiles [`carry_avx512`] hands to these.
const _: () = assert!(WIDE_TILE_TOKENS == 6 && TILE_TOKENS == 3);
paired_tile!(paired_tile_3, paired_tile_3_avx512, 3;
    0: x0 => s00 s01 s02 s03, 1: x1 => s10 s11 s12 s13, 2: x2 => s20 s21 s22 s23);
// The tiles of what is left of a token block past its tiles of six.
paired_tile!(paired_tile_4, paired_tile_4_avx512, 4;
    0: x0 => s00 s01 s02 s03, 1: x1 => s10 s11 s12 s13, 2: x2 => s20 s21 s22 s23,
    3: x3 => s30 s31 s32 s33);
paired_tile!(paired_tile_2, paired_tile_2_avx512, 2;
    0: x0 => s00 s01 s02 s03, 1: x1 => s10 s11 s12 s13);
paired_tile!(paired_tile_1, paired_tile_1_avx512, 1;
    0: x0 => s00 s01 s02 s03);

/// [`paired_tile`]'s tile for six tokens, its loop written in assembly: its 24 running sums
/// need 24 of the 32 registers, and the compiler, however the sums were held, kept six to
/// twenty-one of them on the stack (perf annotate, `objdump`), loading and storing each at
/// every step. Here the sums stay in `zmm0`–`zmm23` (pair `p` and token `t` in `zmm(4t + p)`),
/// the tokens' numbers in `zmm24`–`zmm29` and a pair of rows in `zmm30`/`zmm31`. The
/// instructions are the intrinsics' of [`paired_tile`]: each token's eight numbers broadcast
/// to both halves, rows `2p` and `2p + 1` in the two halves of one register, and one fused
/// multiply-add `sum = row × token + sum` a lane (the product is the same either way round),
/// in the same order of steps: the same bits.
///
/// # Safety
/// As [`paired_tile`]'s functions: the CPU must have AVX-512F, AVX2 and FMA; row `i` of the
/// tile starts at `rows + i × row_stride` and token `t` at `tokens + t × token_stride`, each
/// with `len` float32s (a multiple of [`LANES`]); `out` holds the tile's f64 sums (see
/// [`Sums`]).
#[inline(never)]
#[expect(
    unsafe_code,
    reason = "calling the AVX-512 tile on the caller's contract"
)]
unsafe fn paired_tile_6(
    rows: (*const f32, usize),
    tokens: (*const f32, usize),
    len: usize,
    out: Sums,
) {
    // SAFETY: the caller's contract.
    unsafe { paired_tile_6_avx512(rows, tokens, len, out) }
}

/// [`paired_tile_6`]'s tile, compiled for AVX-512.
#[target_feature(enable = "avx512f,avx2,fma")]
#[expect(
    unsafe_code,
    reason = "a vector loop in assembly, and vector stores through a raw pointer"
)]
#[expect(
    clippy::too_many_lines,
    reason = "one loop in assembly, an instruction a line"
)]
unsafe fn paired_tile_6_avx512(
    (rows, row_stride): (*const f32, usize),
    (tokens, token_stride): (*const f32, usize),
    len: usize,
    out: Sums,
) {
    use std::arch::x86_64::_mm512_setzero_ps;
    const TOKENS: usize = 6;
    let mut sums: [__m512; PAIRED_ROWS / 2 * TOKENS] = [_mm512_setzero_ps(); 24];
    let steps = len / LANES;
    if steps > 0 {
        let [
            s0,
            s1,
            s2,
            s3,
            s4,
            s5,
            s6,
            s7,
            s8,
            s9,
            s10,
            s11,
            s12,
            s13,
            s14,
            s15,
            s16,
            s17,
            s18,
            s19,
            s20,
            s21,
            s22,
            s23,
        ] = &mut sums;
        let (row_bytes, token_bytes) = (row_stride * 4, token_stride * 4);
        // SAFETY: AVX-512F is there (the caller's contract); each step reads eight float32s
        // at `chunk <= len - LANES` of rows 0 to 7 (`rows`, `rows + 3 × row_stride` and
        // `rows + 6 × row_stride`, plus one or two strides) and of tokens 0 to 5 (`tokens` and
        // `tokens + 3 × token_stride`, plus one or two strides), then moves every pointer on
        // by eight float32s; it writes only the registers named.
        unsafe {
            std::arch::asm!(
                "2:",
                "vbroadcastf64x4 zmm24, ymmword ptr [{t0}]",
                "vbroadcastf64x4 zmm25, ymmword ptr [{t0} + {ts}]",
                "vbroadcastf64x4 zmm26, ymmword ptr [{t0} + {ts} * 2]",
                "vbroadcastf64x4 zmm27, ymmword ptr [{t3}]",
                "vbroadcastf64x4 zmm28, ymmword ptr [{t3} + {ts}]",
                "vbroadcastf64x4 zmm29, ymmword ptr [{t3} + {ts} * 2]",
                "vmovups ymm30, ymmword ptr [{r0}]",
                "vinsertf64x4 zmm30, zmm30, ymmword ptr [{r0} + {rs}], 1",
                "vmovups ymm31, ymmword ptr [{r0} + {rs} * 2]",
                "vinsertf64x4 zmm31, zmm31, ymmword ptr [{r3}], 1",
                "vfmadd231ps zmm0, zmm30, zmm24",
                "vfmadd231ps zmm4, zmm30, zmm25",
                "vfmadd231ps zmm8, zmm30, zmm26",
                "vfmadd231ps zmm12, zmm30, zmm27",
                "vfmadd231ps zmm16, zmm30, zmm28",
                "vfmadd231ps zmm20, zmm30, zmm29",
                "vfmadd231ps zmm1, zmm31, zmm24",
                "vfmadd231ps zmm5, zmm31, zmm25",
                "vfmadd231ps zmm9, zmm31, zmm26",
                "vfmadd231ps zmm13, zmm31, zmm27",
                "vfmadd231ps zmm17, zmm31, zmm28",
                "vfmadd231ps zmm21, zmm31, zmm29",
                "vmovups ymm30, ymmword ptr [{r3} + {rs}]",
                "vinsertf64x4 zmm30, zmm30, ymmword ptr [{r3} + {rs} * 2], 1",
                "vmovups ymm31, ymmword ptr [{r6}]",
                "vinsertf64x4 zmm31, zmm31, ymmword ptr [{r6} + {rs}], 1",
                "vfmadd231ps zmm2, zmm30, zmm24",
                "vfmadd231ps zmm6, zmm30, zmm25",
                "vfmadd231ps zmm10, zmm30, zmm26",
                "vfmadd231ps zmm14, zmm30, zmm27",
                "vfmadd231ps zmm18, zmm30, zmm28",
                "vfmadd231ps zmm22, zmm30, zmm29",
                "vfmadd231ps zmm3, zmm31, zmm24",
                "vfmadd231ps zmm7, zmm31, zmm25",
                "vfmadd231ps zmm11, zmm31, zmm26",
                "vfmadd231ps zmm15, zmm31, zmm27",
                "vfmadd231ps zmm19, zmm31, zmm28",
                "vfmadd231ps zmm23, zmm31, zmm29",
                "add {t0}, 32",
                "add {t3}, 32",
                "add {r0}, 32",
                "add {r3}, 32",
                "add {r6}, 32",
                "dec {steps}",
                "jnz 2b",
                t0 = inout(reg) tokens => _,
                t3 = inout(reg) tokens.add(3 * token_stride) => _,
                ts = in(reg) token_bytes,
                r0 = inout(reg) rows => _,
                r3 = inout(reg) rows.add(3 * row_stride) => _,
                r6 = inout(reg) rows.add(6 * row_stride) => _,
                rs = in(reg) row_bytes,
                steps = inout(reg) steps => _,
                inout("zmm0") *s0, inout("zmm1") *s1, inout("zmm2") *s2, inout("zmm3") *s3,
                inout("zmm4") *s4, inout("zmm5") *s5, inout("zmm6") *s6, inout("zmm7") *s7,
                inout("zmm8") *s8, inout("zmm9") *s9, inout("zmm10") *s10, inout("zmm11") *s11,
                inout("zmm12") *s12, inout("zmm13") *s13, inout("zmm14") *s14,
                inout("zmm15") *s15, inout("zmm16") *s16, inout("zmm17") *s17,
                inout("zmm18") *s18, inout("zmm19") *s19, inout("zmm20") *s20,
                inout("zmm21") *s21, inout("zmm22") *s22, inout("zmm23") *s23,
                out("zmm24") _, out("zmm25") _, out("zmm26") _, out("zmm27") _,
                out("zmm28") _, out("zmm29") _, out("zmm30") _, out("zmm31") _,
                options(nostack, readonly),
            );
        }
    }
    // SAFETY: AVX-512F is there, and `out` holds the tile's sums (the caller's contract).
    unsafe { carry_pairs(&sums, out) };
}

/// Where a tile's f64 sums are: the lanes of row `r` and token `t` of the tile at
/// `first + r × stride + t` (the layout of `wide` in [`carry`](super::carry), from the tile's
/// first row and token).
type Sums = (*mut [f64; LANES], usize);

/// Carries a tile's float32 running sums, given token by token (the four pairs of rows of
/// token 0, then of token 1, …), into its f64 sums `out`, straight from the registers: the
/// low half of pair `p`'s register is row `2p`, the high half row `2p + 1`, and each lane is
/// widened to f64 exactly and added to its f64 lane, as [`carry`](super::carry) adds them.
///
/// # Safety
/// The CPU must have AVX-512F; `out` holds [`PAIRED_ROWS`] rows of the tile's tokens.
#[target_feature(enable = "avx512f,avx2,fma")]
#[expect(unsafe_code, reason = "vector loads and stores through a raw pointer")]
unsafe fn carry_pairs(sums: &[__m512], (first, stride): Sums) {
    use std::arch::x86_64::{
        _mm256_castpd_ps, _mm512_add_pd, _mm512_castps_pd, _mm512_castps512_ps256, _mm512_cvtps_pd,
        _mm512_extractf64x4_pd, _mm512_loadu_pd, _mm512_storeu_pd,
    };
    const PAIRS: usize = PAIRED_ROWS / 2;
    for (index, &sum) in sums.iter().enumerate() {
        let (token, pair) = (index / PAIRS, index % PAIRS);
        let low = _mm512_castps512_ps256(sum);
        let high = _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(sum)));
        for (row, lanes) in [(2 * pair, low), (2 * pair + 1, high)] {
            // SAFETY: row `row` and token `token` of the tile are in `out` (the caller's
            // contract): eight f64s.
            unsafe {
                let at = first.add(row * stride + token).cast::<f64>();
                _mm512_storeu_pd(
                    at,
                    _mm512_add_pd(_mm512_loadu_pd(at), _mm512_cvtps_pd(lanes)),
                );
            }
        }
    }
}

/// The distance in float32s from each slice's start to the next's, when it is one distance
/// for them all (slice `i` starts `i` distances after the first); `None` otherwise.
#[expect(
    clippy::inline_always,
    reason = "inlined into the vector-compiled tiles"
)]
#[inline(always)]
fn stride(slices: &[&[f32]]) -> Option<usize> {
    let first = slices[0].as_ptr().addr();
    let bytes = match slices.get(1) {
        Some(second) => second.as_ptr().addr().checked_sub(first)?,
        None => 0,
    };
    let evenly = slices.iter().enumerate().all(|(i, slice)| {
        Some(slice.as_ptr().addr()) == i.checked_mul(bytes).and_then(|b| first.checked_add(b))
    });
    (evenly && bytes.is_multiple_of(size_of::<f32>())).then_some(bytes / size_of::<f32>())
}
