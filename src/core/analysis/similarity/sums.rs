//! The sums a nearest-rows scan takes of every row: its dot product with the query and its
//! squared length, in f64, with the same bits on every path the processor may take.

use crate::core::tables::simd::with_features;
use crate::core::tables::table::{StoredRow, widen_bf16};

/// How many running sums a dot product keeps: enough that the additions never wait on one
/// another in the vector registers.
pub(super) const LANES: usize = 16;

/// Rows the AVX-512 path sums at once. One row's sixteen running sums are four registers, and
/// each chunk of sixteen numbers adds to each of them once, so alone a row waits for the
/// previous chunk's fused multiply-add at every chunk; four rows keep sixteen independent
/// chains, enough to keep both FMA units busy, and share each load of the query.
const ROWS_AT_ONCE: usize = 4;

/// The dot product with `query` and the squared length of each row of `rows` (rows side by
/// side, each as wide as `query`), into `sums`, one (dot product, squared length) a row: the
/// same bits as [`dot`] gives for each.
///
/// A bfloat16 row is widened as it goes (a bfloat16 is the top half of a float32: widening is
/// exact), with the same sums in the same order, so the same bits as the widened row gives; no
/// row buffer is filled first. With AVX-512 or AVX2 (and FMA) the same arithmetic is written
/// in their instructions, the widening done in registers, the same sums in the same order
/// lane by lane, so the same bits on every machine; AVX-512 sums [`ROWS_AT_ONCE`] rows in one
/// loop, each row's sums its own, so the bits of a row do not depend on its neighbours. They
/// add each product with a fused multiply-add, which rounds once where the portable code
/// rounds the product and then the sum: the same bits, because the product of two float32
/// numbers is exact in f64 (24 + 24 significant bits fit in 53, and its exponent in f64's
/// range), so rounding it changes nothing. (Left to the compiler, the AVX-512 copy of the
/// portable loop passed every widened chunk through the stack and took twice as long.)
///
/// # Panics
/// When `rows` does not hold `sums.len()` rows as wide as `query`.
pub(super) fn dots_and_norms_squared(query: &[f64], rows: StoredRow, sums: &mut [(f64, f64)]) {
    with_features!(
        ["avx512f", "avx512bw"] => dots_and_norms_squared_avx512(query, rows, sums),
        ["avx2", "fma"] => dots_and_norms_squared_avx2(query, rows, sums),
        else dots_and_norms_squared_portable(query, rows, sums),
    );
}

/// Row `index` of `rows`, rows side by side `width` numbers each.
fn row_of(rows: StoredRow<'_>, index: usize, width: usize) -> StoredRow<'_> {
    match rows {
        StoredRow::F32(numbers) => StoredRow::F32(&numbers[index * width..][..width]),
        StoredRow::Bf16(bytes) => StoredRow::Bf16(&bytes[2 * index * width..][..2 * width]),
    }
}

/// [`dots_and_norms_squared`] in AVX-512 instructions, [`ROWS_AT_ONCE`] rows at a time (the
/// last few one at a time), the stored type chosen once for all of them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn dots_and_norms_squared_avx512(query: &[f64], rows: StoredRow, sums: &mut [(f64, f64)]) {
    assert_eq!(rows.len(), query.len() * sums.len(), "whole rows");
    match rows {
        StoredRow::F32(_) => groups_avx512::<false>(query, rows, sums),
        StoredRow::Bf16(_) => groups_avx512::<true>(query, rows, sums),
    }
}

/// [`dots_and_norms_squared_avx512`] for rows stored as bfloat16 (`BF16`) or float32.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn groups_avx512<const BF16: bool>(query: &[f64], rows: StoredRow, sums: &mut [(f64, f64)]) {
    let mut groups = sums.chunks_exact_mut(ROWS_AT_ONCE);
    let mut first = 0;
    for group in &mut groups {
        group.copy_from_slice(&rows_avx512::<ROWS_AT_ONCE, BF16>(query, rows, first));
        first += ROWS_AT_ONCE;
    }
    for (index, one) in groups.into_remainder().iter_mut().enumerate() {
        [*one] = rows_avx512::<1, BF16>(query, rows, first + index);
    }
}

/// Rows ahead of the ones being summed whose numbers the AVX-512 path asks the processor to
/// fetch: two groups. Summing several rows at once reads them side by side, and this
/// processor's own prefetcher then fell behind (the scan took longer than a row at a time).
const PREFETCH_ROWS: usize = 2 * ROWS_AT_ONCE;

/// The sums of `N` rows of `rows` from row `first`, in one loop: each row's sixteen f64
/// running sums fill two registers for the dot product and two for the squares, each chunk of
/// sixteen numbers is widened in registers (float32 → f64 is exact, and so is bfloat16 →
/// float32, a bfloat16 being the top half of a float32), and each product is added lane by
/// lane as [`Lanes::add_widened`] and [`Lanes::add`] add it, by a fused multiply-add (the
/// product is exact, so the same bits: see [`dots_and_norms_squared`]). A last, shorter chunk
/// goes through [`Lanes`] itself.
///
/// A bfloat16 chunk is widened by interleaving its numbers with zeros, which works within
/// each half of the register: the two registers of f64 come out holding numbers 0–3 and 8–11,
/// and 4–7 and 12–15. The query's chunk is put in the same order, and the sums back in
/// order at the end, so each running sum still adds the same products in the same order.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
#[expect(
    unsafe_code,
    reason = "vector loads from raw pointers into slices whose lengths are checked first"
)]
fn rows_avx512<const N: usize, const BF16: bool>(
    query: &[f64],
    rows: StoredRow,
    first: usize,
) -> [(f64, f64); N] {
    use std::arch::x86_64::{
        __m512d, _MM_HINT_T0, _mm_prefetch, _mm256_castsi256_ps, _mm256_loadu_ps,
        _mm256_loadu_si256, _mm256_setzero_si256, _mm256_unpackhi_epi16, _mm256_unpacklo_epi16,
        _mm512_cvtps_pd, _mm512_fmadd_pd, _mm512_loadu_pd, _mm512_setzero_pd, _mm512_shuffle_f64x2,
        _mm512_storeu_pd,
    };
    /// The first two quarters of each of two registers (numbers 0–3 and 8–11 of 0–15).
    const FIRST_QUARTERS: i32 = 0x44;
    /// The last two quarters of each of two registers (numbers 4–7 and 12–15 of 0–15).
    const SECOND_QUARTERS: i32 = 0xEE;
    let width = query.len();
    assert!(rows.len() >= (first + N) * width, "{N} whole rows");
    let start: *const u8 = match rows {
        StoredRow::F32(numbers) if !BF16 => numbers.as_ptr().cast(),
        StoredRow::Bf16(bytes) if BF16 => bytes.as_ptr(),
        _ => unreachable!("rows stored as the caller says"),
    };
    let number_bytes = if BF16 { 2 } else { 4 };
    let whole = width - width % LANES;
    // Numbers 0–15 of two registers in the order a widened chunk holds them (4–7 and 8–11
    // swapped for bfloat16), and back again: the same swap.
    let in_widened_order = |[low, high]: [__m512d; 2]| {
        if BF16 {
            [
                _mm512_shuffle_f64x2::<FIRST_QUARTERS>(low, high),
                _mm512_shuffle_f64x2::<SECOND_QUARTERS>(low, high),
            ]
        } else {
            [low, high]
        }
    };
    let zeros = _mm256_setzero_si256();
    let mut dots = [[_mm512_setzero_pd(); 2]; N];
    let mut squares = [[_mm512_setzero_pd(); 2]; N];
    for chunk in (0..whole).step_by(LANES) {
        // SAFETY: eight f64s at `chunk` and at `chunk + 8 <= whole - 8`, inside the query.
        let (low, high) = unsafe {
            (
                _mm512_loadu_pd(query.as_ptr().add(chunk)),
                _mm512_loadu_pd(query.as_ptr().add(chunk + 8)),
            )
        };
        let q = in_widened_order([low, high]);
        for (row, (dots, squares)) in dots.iter_mut().zip(&mut squares).enumerate() {
            let at = number_bytes * ((first + row) * width + chunk);
            let ahead = start.wrapping_add(at + number_bytes * PREFETCH_ROWS * width);
            // SAFETY: AVX-512F and BW are there (this function's features, detected by its
            // caller); the loads read LANES numbers at `chunk <= whole - LANES` of row
            // `first + row < first + N`, inside `rows` (checked above); a prefetch reads
            // nothing and may point anywhere.
            let wide: [__m512d; 2] = unsafe {
                _mm_prefetch::<_MM_HINT_T0>(ahead.cast());
                let at = start.add(at);
                if BF16 {
                    let numbers = _mm256_loadu_si256(at.cast());
                    [
                        _mm512_cvtps_pd(_mm256_castsi256_ps(_mm256_unpacklo_epi16(zeros, numbers))),
                        _mm512_cvtps_pd(_mm256_castsi256_ps(_mm256_unpackhi_epi16(zeros, numbers))),
                    ]
                } else {
                    [
                        _mm512_cvtps_pd(_mm256_loadu_ps(at.cast())),
                        _mm512_cvtps_pd(_mm256_loadu_ps(at.add(32).cast())),
                    ]
                }
            };
            for half in 0..2 {
                dots[half] = _mm512_fmadd_pd(q[half], wide[half], dots[half]);
                squares[half] = _mm512_fmadd_pd(wide[half], wide[half], squares[half]);
            }
        }
    }
    let mut found = [(0.0, 0.0); N];
    for (row, found) in found.iter_mut().enumerate() {
        let mut sums = (Lanes::default(), Lanes::default());
        let (dots, squares) = (in_widened_order(dots[row]), in_widened_order(squares[row]));
        for half in 0..2 {
            // SAFETY: each store writes eight f64s into eight of the sixteen.
            unsafe {
                _mm512_storeu_pd(sums.0.0[8 * half..].as_mut_ptr(), dots[half]);
                _mm512_storeu_pd(sums.1.0[8 * half..].as_mut_ptr(), squares[half]);
            }
        }
        let stored = row_of(rows, first + row, width);
        add_tail(&mut sums, &query[whole..], stored, whole);
        *found = (sums.0.total(), sums.1.total());
    }
    found
}

/// [`dots_and_norms_squared`] in AVX2 and FMA instructions, a row at a time (each row's eight
/// registers of running sums already take a chunk's eight fused multiply-adds side by side).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn dots_and_norms_squared_avx2(query: &[f64], rows: StoredRow, sums: &mut [(f64, f64)]) {
    assert_eq!(rows.len(), query.len() * sums.len(), "whole rows");
    for (index, found) in sums.iter_mut().enumerate() {
        *found = dot_and_norm_squared_avx2(query, row_of(rows, index, query.len()));
    }
}

/// One row's sums in AVX2 and FMA instructions: the sixteen f64 running sums fill four
/// registers for the dot product and four for the squares, with the same fused multiply-adds
/// lane by lane as [`rows_avx512`], so the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[expect(
    unsafe_code,
    reason = "vector loads from raw pointers into slices whose lengths are checked first"
)]
fn dot_and_norm_squared_avx2(query: &[f64], row: StoredRow) -> (f64, f64) {
    use std::arch::x86_64::{
        __m256d, _mm_loadu_si128, _mm256_castps256_ps128, _mm256_castsi256_ps,
        _mm256_cvtepu16_epi32, _mm256_cvtps_pd, _mm256_extractf128_ps, _mm256_fmadd_pd,
        _mm256_loadu_pd, _mm256_loadu_ps, _mm256_setzero_pd, _mm256_slli_epi32, _mm256_storeu_pd,
    };
    /// Float32 numbers in one AVX2 register.
    const EIGHT: usize = 8;
    let len = row.len();
    assert_eq!(query.len(), len, "a query as wide as the row");
    let whole = len - len % LANES;
    let mut dots = [_mm256_setzero_pd(); 4];
    let mut squares = [_mm256_setzero_pd(); 4];
    for chunk in (0..whole).step_by(LANES) {
        for eighth in 0..2 {
            let at = chunk + EIGHT * eighth;
            // SAFETY: AVX2 is there (this function's feature, detected by its caller); the
            // load reads eight numbers at `at <= whole - 8`, inside the row of `len` numbers.
            let numbers = unsafe {
                match row {
                    StoredRow::F32(numbers) => _mm256_loadu_ps(numbers.as_ptr().add(at)),
                    StoredRow::Bf16(bytes) => _mm256_castsi256_ps(_mm256_slli_epi32::<16>(
                        _mm256_cvtepu16_epi32(_mm_loadu_si128(bytes.as_ptr().add(2 * at).cast())),
                    )),
                }
            };
            let wide: [__m256d; 2] = [
                _mm256_cvtps_pd(_mm256_castps256_ps128(numbers)),
                _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(numbers)),
            ];
            for (quarter, wide) in wide.into_iter().enumerate() {
                let lane = 2 * eighth + quarter;
                // SAFETY: four f64s at `at + 4 * quarter <= whole - 4`, inside the query.
                let q = unsafe { _mm256_loadu_pd(query.as_ptr().add(at + 4 * quarter)) };
                dots[lane] = _mm256_fmadd_pd(q, wide, dots[lane]);
                squares[lane] = _mm256_fmadd_pd(wide, wide, squares[lane]);
            }
        }
    }
    let mut sums = (Lanes::default(), Lanes::default());
    for lane in 0..4 {
        // SAFETY: each store writes four f64s into four of the sixteen.
        unsafe {
            _mm256_storeu_pd(sums.0.0[4 * lane..].as_mut_ptr(), dots[lane]);
            _mm256_storeu_pd(sums.1.0[4 * lane..].as_mut_ptr(), squares[lane]);
        }
    }
    add_tail(&mut sums, &query[whole..], row, whole);
    (sums.0.total(), sums.1.total())
}

/// [`dots_and_norms_squared`] in plain Rust, a row at a time.
fn dots_and_norms_squared_portable(query: &[f64], rows: StoredRow, sums: &mut [(f64, f64)]) {
    assert_eq!(rows.len(), query.len() * sums.len(), "whole rows");
    for (index, found) in sums.iter_mut().enumerate() {
        *found = dot_and_norm_squared_portable(query, row_of(rows, index, query.len()));
    }
}

/// One row's sums in plain Rust: each chunk of sixteen numbers widened into a small buffer
/// (bfloat16 → float32 is exact), then added into the running sums.
fn dot_and_norm_squared_portable(query: &[f64], row: StoredRow) -> (f64, f64) {
    let len = row.len();
    assert_eq!(query.len(), len, "a query as wide as the row");
    let whole = len - len % LANES;
    let mut sums = (Lanes::default(), Lanes::default());
    let mut widened = [0.0f32; LANES];
    for chunk in (0..whole).step_by(LANES) {
        let numbers = match row {
            StoredRow::F32(numbers) => &numbers[chunk..chunk + LANES],
            StoredRow::Bf16(bytes) => {
                widen_bf16(&bytes[2 * chunk..2 * (chunk + LANES)], &mut widened);
                &widened
            }
        };
        sums.0.add_widened(&query[chunk..chunk + LANES], numbers);
        sums.1.add(numbers, numbers);
    }
    add_tail(&mut sums, &query[whole..], row, whole);
    (sums.0.total(), sums.1.total())
}

/// Adds the row's numbers from `from` (fewer than [`LANES`]) to the first of the running sums
/// of the dot product with `query_tail` and of the squares.
fn add_tail(sums: &mut (Lanes, Lanes), query_tail: &[f64], row: StoredRow, from: usize) {
    let mut widened = [0.0f32; LANES];
    let tail = &mut widened[..query_tail.len()];
    match row {
        StoredRow::F32(numbers) => tail.copy_from_slice(&numbers[from..]),
        StoredRow::Bf16(bytes) => widen_bf16(&bytes[2 * from..], tail),
    }
    sums.0.add_widened(query_tail, tail);
    sums.1.add(tail, tail);
}

/// The dot product of two float32 vectors in f64, in [`LANES`] running sums.
pub(super) fn dot(a: &[f32], b: &[f32]) -> f64 {
    let mut sums = Lanes::default();
    let (a_chunks, b_chunks) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (a_tail, b_tail) = (a_chunks.remainder(), b_chunks.remainder());
    for (x, y) in a_chunks.zip(b_chunks) {
        sums.add(x, y);
    }
    sums.add(a_tail, b_tail);
    sums.total()
}

/// Running sums of products, dimension `i` going to sum `i % LANES` (a last, shorter chunk
/// fills the first sums): the additions of a long vector need not wait on one another, so the
/// compiler can do many at once, and the order is fixed, so the result is too.
#[derive(Default)]
struct Lanes([f64; LANES]);

impl Lanes {
    fn add(&mut self, a: &[f32], b: &[f32]) {
        for ((sum, &x), &y) in self.0.iter_mut().zip(a).zip(b) {
            *sum += f64::from(x) * f64::from(y);
        }
    }

    /// [`Lanes::add`] with `a` already widened to f64: the same products, so the same bits.
    fn add_widened(&mut self, a: &[f64], b: &[f32]) {
        for ((sum, &x), &y) in self.0.iter_mut().zip(a).zip(b) {
            *sum += x * f64::from(y);
        }
    }

    /// The running sums added pairwise, halves first: a fixed order, so a fixed result.
    fn total(&self) -> f64 {
        let mut sums = self.0;
        let mut width = LANES;
        while width > 1 {
            width /= 2;
            for index in 0..width {
                sums[index] += sums[index + width];
            }
        }
        sums[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One path of [`dots_and_norms_squared`].
    type SumsPath = fn(&[f64], StoredRow, &mut [(f64, f64)]);

    /// `rows` side by side as float32 and as bfloat16 (each number rounded to bfloat16).
    fn stored_both_ways(rows: &[f32]) -> (Vec<f32>, Vec<u8>) {
        let bytes = rows
            .iter()
            .flat_map(|&x| half::bf16::from_f32(x).to_le_bytes())
            .collect();
        (rows.to_vec(), bytes)
    }

    /// The (dot product, squared length) bits of every row of `rows` by every vector path the
    /// machine has (else the portable one again), each checked against the portable path's
    /// bits a row at a time, for the rows as float32 and as bfloat16; returns the float32
    /// rows' bits.
    fn assert_every_path_gives_the_portable_bits(query: &[f32], rows: &[f32]) -> Vec<(u64, u64)> {
        let width = query.len();
        let count = rows.len().checked_div(width).unwrap_or(1);
        let (numbers, bytes) = stored_both_ways(rows);
        let wide: Vec<f64> = query.iter().copied().map(f64::from).collect();
        let bits = |sums: &[(f64, f64)]| -> Vec<(u64, u64)> {
            sums.iter()
                .map(|(dot, norm)| (dot.to_bits(), norm.to_bits()))
                .collect()
        };
        let mut as_float32 = None;
        for stored in [StoredRow::F32(&numbers), StoredRow::Bf16(&bytes)] {
            let one_by_one: Vec<(f64, f64)> = (0..count)
                .map(|index| dot_and_norm_squared_portable(&wide, row_of(stored, index, width)))
                .collect();
            let by = |path: SumsPath| {
                let mut sums = vec![(f64::NAN, f64::NAN); count];
                path(&wide, stored, &mut sums);
                bits(&sums)
            };
            let avx512 = by(|query, rows, sums| {
                with_features!(
                    ["avx512f", "avx512bw"] => dots_and_norms_squared_avx512(query, rows, sums),
                    else dots_and_norms_squared_portable(query, rows, sums),
                );
            });
            let avx2 = by(|query, rows, sums| {
                with_features!(
                    ["avx2", "fma"] => dots_and_norms_squared_avx2(query, rows, sums),
                    else dots_and_norms_squared_portable(query, rows, sums),
                );
            });
            let expected = bits(&one_by_one);
            assert_eq!(avx512, expected, "AVX-512, {count} rows of {width}");
            assert_eq!(avx2, expected, "AVX2, {count} rows of {width}");
            assert_eq!(by(dots_and_norms_squared_portable), expected);
            assert_eq!(by(dots_and_norms_squared), expected);
            as_float32.get_or_insert(expected);
        }
        as_float32.expect("the float32 rows")
    }

    /// `count` numbers of a wave, `step` apart.
    fn wave(count: usize, step: f32, scale: f32) -> Vec<f32> {
        (0..count)
            .map(|i| (f32::from(u16::try_from(i % 60_000).unwrap()) * step).sin() * scale)
            .collect()
    }

    #[test]
    fn every_vector_path_the_machine_has_gives_the_portable_bits() {
        // Whole chunks of sixteen, none, and every length of a last, shorter chunk.
        for len in (0..=40).chain([2048, 2051]) {
            let query = wave(len, 0.37, 3.1);
            let row = wave(len, 1.91, 1.0 / 7.0);
            let found = assert_every_path_gives_the_portable_bits(&query, &row);
            assert_eq!(found[0].0, dot(&query, &row).to_bits());
            assert_eq!(found[0].1, dot(&row, &row).to_bits());
        }
    }

    #[test]
    fn rows_summed_together_give_each_rows_own_bits() {
        // 1, 2, 3 and 5 rows: fewer than one group, and a group and one; 9 and 11: groups and
        // every remainder the AVX-512 path hands to its one-row loop.
        for width in [1, 15, 16, 17, 37, 2051] {
            for count in [1, 2, 3, 4, 5, 7, 9, 11] {
                let query = wave(width, 0.37, 3.1);
                let rows = wave(width * count, 1.91, 1.0 / 7.0);
                let found = assert_every_path_gives_the_portable_bits(&query, &rows);
                for (index, row) in rows.chunks(width).enumerate() {
                    let expected = (dot(&query, row).to_bits(), dot(row, row).to_bits());
                    assert_eq!(
                        found[index], expected,
                        "row {index} of {count}, {width} wide"
                    );
                }
            }
        }
    }

    #[test]
    fn fused_multiply_adds_give_the_portable_bits_at_the_ends_of_float32s_range() {
        // The vector paths round each product once with its sum; that is exact only because a
        // product of two float32 numbers is exact in f64: here the largest, the smallest
        // normal and subnormal numbers, and ones with all 24 significant bits set. (As
        // bfloat16, f32::MAX rounds up to infinity; as float32 every sum is finite.)
        let extremes = [
            f32::MAX,
            -f32::MAX,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            -f32::from_bits(0x007f_ffff),
            f32::from_bits(0x3fff_ffff),
            -f32::from_bits(0x4b7f_ffff),
            1.0e-30,
            3.0e30,
        ];
        let len = 2 * LANES * extremes.len() + 3;
        let query: Vec<f32> = (0..len).map(|i| extremes[i % extremes.len()]).collect();
        // Five rows, each its own shuffle of the extremes: a group of four and one more.
        let rows: Vec<f32> = (0..5 * len)
            .map(|i| extremes[(i * 5 + 2 + i / len) % extremes.len()])
            .collect();
        for (dot_product, norm) in assert_every_path_gives_the_portable_bits(&query, &rows) {
            assert!(f64::from_bits(dot_product).is_finite() && f64::from_bits(norm).is_finite());
        }
    }
}
