//! Which vectors point the same way: cosine similarities, nearest rows, and why a lookup is a
//! one-hot matrix product.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::sync::atomic::{self, AtomicBool};

use ndarray::{Array1, Array2, ArrayView1};

use crate::core::tables::simd::with_features;
use crate::core::tables::table::{StoredRow, Table, widen_bf16};

/// The cosine similarity of every pair of vectors: entry `[i, j]` is `cos(v_i, v_j)`.
///
/// Summed in f64 exactly as [`nearest_rows`] sums, so the two agree to the bit. The matrix is
/// symmetric; a pair with a zero-length vector has no angle and is NaN there.
#[must_use]
pub fn cosine_matrix(vectors: &[Array1<f32>]) -> Array2<f64> {
    let vectors: Vec<Vec<f32>> = vectors.iter().map(|vector| vector.to_vec()).collect();
    let norms: Vec<f64> = vectors.iter().map(|v| dot(v, v).sqrt()).collect();
    let count = vectors.len();
    let mut matrix = Array2::zeros((count, count));
    for i in 0..count {
        for j in i..count {
            let denominator = norms[i] * norms[j];
            let cosine = if denominator > 0.0 {
                dot(&vectors[i], &vectors[j]) / denominator
            } else {
                f64::NAN
            };
            matrix[[i, j]] = cosine;
            matrix[[j, i]] = cosine;
        }
    }
    matrix
}

/// The `k` rows of the table whose cosine similarity with `vector` is highest, best first,
/// as (id, cosine); equal cosines put the lower id first.
///
/// Exact: every row, every dimension, summed in f64, no projection or sampling. Rows of zero
/// length (no angle) and rows whose cosine is not a number are skipped. Empty when `vector`
/// has zero length or the wrong width, or while the table is still being made.
#[must_use]
pub fn nearest_rows(table: &Table, vector: ArrayView1<f32>, k: usize) -> Vec<(usize, f64)> {
    nearest_rows_unless(table, vector, k, &AtomicBool::new(false)).unwrap_or_default()
}

/// Rows read between looks at the stop flag of [`nearest_rows_unless`].
const ROWS_BETWEEN_LOOKS: usize = 4096;

/// [`nearest_rows`], looking at `stop` every few thousand rows: `None` once it is set, so a
/// scan of a large table that nobody waits for any more ends early.
#[must_use]
pub fn nearest_rows_unless(
    table: &Table,
    vector: ArrayView1<f32>,
    k: usize,
    stop: &AtomicBool,
) -> Option<Vec<(usize, f64)>> {
    let query: Vec<f32> = vector.to_vec();
    let query_norm = dot(&query, &query).sqrt();
    if k == 0 || query.len() != table.cols() || !(query_norm > 0.0 && query_norm.is_finite()) {
        return Some(Vec::new());
    }
    // The rows shared out among the cores in contiguous runs; each run keeps its own best k,
    // and the best of those are the best of all (ties go to the lower id, whoever found it).
    let rows = table.rows();
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, MAX_SCAN_THREADS)
        .min(rows.div_ceil(ROWS_BETWEEN_LOOKS).max(1));
    let run = rows.div_ceil(threads);
    // Widened once, not once a row: the same products, so the same bits.
    let wide: Vec<f64> = query.iter().copied().map(f64::from).collect();
    let query = &wide;
    let found: Vec<Scanned> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|index| {
                let range = index * run..((index + 1) * run).min(rows);
                scope.spawn(move || scan_rows(table, query, query_norm, k, range, stop))
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut best = Best::with_capacity(k + 1);
    for part in found {
        let part = match part {
            Scanned::Stopped => return None,
            Scanned::NotReady => return Some(Vec::new()),
            Scanned::Best(part) => part,
        };
        for Reverse(candidate) in part {
            keep(&mut best, candidate, k);
        }
    }
    // Sorting Reverse(candidate) ascending puts the best candidate first.
    Some(
        best.into_sorted_vec()
            .into_iter()
            .map(|Reverse(candidate)| (candidate.id, candidate.cosine))
            .collect(),
    )
}

/// The most threads one nearest-rows scan shares its rows among.
const MAX_SCAN_THREADS: usize = 4;

/// A min-heap of the best k candidates so far: its top is the worst of them, the one to beat.
type Best = BinaryHeap<Reverse<Candidate>>;

/// Adds `candidate` to the best `k` if it beats the worst of them.
fn keep(best: &mut Best, candidate: Candidate, k: usize) {
    if best.len() < k {
        best.push(Reverse(candidate));
    } else if best.peek().is_some_and(|Reverse(worst)| candidate > *worst) {
        best.pop();
        best.push(Reverse(candidate));
    }
}

/// What one thread's share of a scan found.
enum Scanned {
    /// The stop flag was set.
    Stopped,
    /// The table is still being made.
    NotReady,
    /// The best rows of its share.
    Best(Best),
}

/// The best `k` rows of `range` by cosine with `query`.
fn scan_rows(
    table: &Table,
    query: &[f64],
    query_norm: f64,
    k: usize,
    range: std::ops::Range<usize>,
    stop: &AtomicBool,
) -> Scanned {
    let mut best = Best::with_capacity(k + 1);
    for start in range.clone().step_by(ROWS_BETWEEN_LOOKS) {
        if stop.load(atomic::Ordering::Relaxed) {
            return Scanned::Stopped;
        }
        let end = (start + ROWS_BETWEEN_LOOKS).min(range.end);
        let ready = table.for_each_stored_row_in(start..end, |id, row| {
            let (dot, row_norm_squared) = dot_and_norm_squared(query, row);
            if row_norm_squared <= 0.0 {
                return;
            }
            let cosine = dot / (query_norm * row_norm_squared.sqrt());
            if cosine.is_nan() {
                return;
            }
            keep(&mut best, Candidate { cosine, id }, k);
        });
        if !ready {
            return Scanned::NotReady;
        }
    }
    Scanned::Best(best)
}

/// `one_hot(id) · W`, literally: every row of the table times its one-hot entry (1 for row
/// `id`, 0 for the others), all summed, in f32 as a framework's matrix product would be.
///
/// This is what an embedding lookup is equal to, and why no framework computes it this
/// way: it reads every row to keep one. The sum equals row `id` bit for bit, as long as the
/// other rows hold finite numbers (`0 · ∞` is NaN) and row `id` holds no `-0.0` (which the
/// sum turns into `+0.0`).
///
/// `None` when the table has no row `id`, or is still being made.
#[must_use]
pub fn one_hot_product(table: &Table, id: usize) -> Option<Array1<f32>> {
    one_hot_product_unless(table, id, &AtomicBool::new(false)).flatten()
}

/// [`one_hot_product`], stopping early (with `None`) once `stop` is set, as a worker thread
/// whose answer nobody waits for any more should.
#[must_use]
pub fn one_hot_product_unless(
    table: &Table,
    id: usize,
    stop: &AtomicBool,
) -> Option<Option<Array1<f32>>> {
    if id >= table.rows() {
        return Some(None);
    }
    let mut product = vec![0.0f32; table.cols()];
    for start in (0..table.rows()).step_by(ROWS_BETWEEN_LOOKS) {
        if stop.load(atomic::Ordering::Relaxed) {
            return None;
        }
        let ready = table.for_each_row_in(start..start + ROWS_BETWEEN_LOOKS, |row_id, row| {
            let one_hot = if row_id == id { 1.0 } else { 0.0 };
            for (sum, &value) in product.iter_mut().zip(row) {
                *sum += one_hot * value;
            }
        });
        if !ready {
            return Some(None);
        }
    }
    Some(Some(Array1::from(product)))
}

/// One row's score in [`nearest_rows`]: higher cosine is better, then lower id.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    cosine: f64,
    id: usize,
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.cosine
            .total_cmp(&other.cosine)
            .then_with(|| other.id.cmp(&self.id))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}

/// The dot product of two vectors and the squared length of the second, in f64: one pass
/// over the row, and the same bits as [`dot`] would give for each.
///
/// A bfloat16 row is widened as it goes (a bfloat16 is the top half of a float32: widening is
/// exact), with the same sums in the same order, so the same bits as the widened row gives; no
/// row buffer is filled first. With AVX-512 or AVX2 (and FMA) the same arithmetic is written
/// in their instructions, the widening done in registers, the same sums in the same order
/// lane by lane, so the same bits on every machine. They add each product with a fused
/// multiply-add, which rounds once where the portable code rounds the product and then the
/// sum: the same bits, because the product of two float32 numbers is exact in f64 (24 + 24
/// significant bits fit in 53, and its exponent in f64's range), so rounding it changes
/// nothing. One instruction rather than two for each product took a fifth off the scan's CPU
/// time. (Left to the compiler, the AVX-512 copy of the portable loop passed every widened
/// chunk through the stack and took twice as long.)
fn dot_and_norm_squared(query: &[f64], row: StoredRow) -> (f64, f64) {
    with_features!(
        ["avx512f", "avx512bw"] => dot_and_norm_squared_avx512(query, row),
        ["avx2", "fma"] => dot_and_norm_squared_avx2(query, row),
        else dot_and_norm_squared_portable(query, row),
    )
}

/// [`dot_and_norm_squared`] in AVX-512 instructions: the sixteen f64 running sums fill two
/// registers for the dot product and two for the squares, and each chunk of sixteen numbers
/// is widened in registers (bfloat16 → float32 is a shift, float32 → f64 exact), and each
/// product added lane by lane as [`Lanes::add_widened`] and [`Lanes::add`] add it, by a fused
/// multiply-add (the product is exact, so the same bits: see [`dot_and_norm_squared`]). A
/// last, shorter chunk goes through [`Lanes`] itself.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
#[expect(
    unsafe_code,
    reason = "vector loads from raw pointers into slices whose lengths are checked first"
)]
fn dot_and_norm_squared_avx512(query: &[f64], row: StoredRow) -> (f64, f64) {
    use std::arch::x86_64::{
        __m512d, __m512i, _mm256_castpd_ps, _mm256_loadu_si256, _mm512_castps_pd,
        _mm512_castps512_ps256, _mm512_castsi512_ps, _mm512_cvtepu16_epi32, _mm512_cvtps_pd,
        _mm512_extractf64x4_pd, _mm512_fmadd_pd, _mm512_loadu_pd, _mm512_loadu_ps,
        _mm512_setzero_pd, _mm512_slli_epi32, _mm512_storeu_pd,
    };
    let len = row.len();
    assert_eq!(query.len(), len, "a query as wide as the row");
    let whole = len - len % LANES;
    let mut dots = [_mm512_setzero_pd(); 2];
    let mut squares = [_mm512_setzero_pd(); 2];
    for chunk in (0..whole).step_by(LANES) {
        // SAFETY: AVX-512F and BW are there (this function's features, detected by its
        // caller); the load reads LANES numbers at `chunk <= whole - LANES`, inside the row.
        let numbers = unsafe {
            match row {
                StoredRow::F32(numbers) => _mm512_loadu_ps(numbers.as_ptr().add(chunk)),
                StoredRow::Bf16(bytes) => {
                    let halves: __m512i = _mm512_cvtepu16_epi32(_mm256_loadu_si256(
                        bytes.as_ptr().add(2 * chunk).cast(),
                    ));
                    _mm512_castsi512_ps(_mm512_slli_epi32::<16>(halves))
                }
            }
        };
        let wide: [__m512d; 2] = [
            _mm512_cvtps_pd(_mm512_castps512_ps256(numbers)),
            _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(
                _mm512_castps_pd(numbers),
            ))),
        ];
        for half in 0..2 {
            // SAFETY: eight f64s at `chunk + 8 * half <= whole - 8`, inside the query.
            let q = unsafe { _mm512_loadu_pd(query.as_ptr().add(chunk + 8 * half)) };
            dots[half] = _mm512_fmadd_pd(q, wide[half], dots[half]);
            squares[half] = _mm512_fmadd_pd(wide[half], wide[half], squares[half]);
        }
    }
    let mut sums = (Lanes::default(), Lanes::default());
    for half in 0..2 {
        // SAFETY: each store writes eight f64s into eight of the sixteen.
        unsafe {
            _mm512_storeu_pd(sums.0.0[8 * half..].as_mut_ptr(), dots[half]);
            _mm512_storeu_pd(sums.1.0[8 * half..].as_mut_ptr(), squares[half]);
        }
    }
    add_tail(&mut sums, &query[whole..], row, whole);
    (sums.0.total(), sums.1.total())
}
/// [`dot_and_norm_squared_avx512`] in AVX2 and FMA instructions: the sixteen f64 running sums
/// fill four registers for the dot product and four for the squares, with the same fused
/// multiply-adds lane by lane, so the same bits.
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

/// [`dot_and_norm_squared`] in plain Rust: each chunk of sixteen numbers widened into a small
/// buffer (bfloat16 → float32 is exact), then added into the running sums.
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
fn dot(a: &[f32], b: &[f32]) -> f64 {
    let mut sums = Lanes::default();
    let (a_chunks, b_chunks) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (a_tail, b_tail) = (a_chunks.remainder(), b_chunks.remainder());
    for (x, y) in a_chunks.zip(b_chunks) {
        sums.add(x, y);
    }
    sums.add(a_tail, b_tail);
    sums.total()
}

/// How many running sums a dot product keeps: enough that the additions never wait on one
/// another in the vector registers.
const LANES: usize = 16;

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
    use crate::core::tables::torch_init::TorchGenerator;
    use ndarray::arr1;

    fn table(rows: &[&[f32]]) -> Table {
        let cols = rows[0].len();
        let values = rows.iter().flat_map(|row| row.iter().copied()).collect();
        Table::from(Array2::from_shape_vec((rows.len(), cols), values).unwrap())
    }

    #[test]
    fn a_mapped_bfloat16_table_scans_to_the_same_bits_as_its_widened_numbers() {
        // 37 numbers a row: two chunks of sixteen and a tail of five.
        let (rows, cols) = (300, 37);
        let numbers = TorchGenerator::manual_seed(7).embedding(rows, cols);
        let mut bytes = vec![0u8; 3];
        let mut widened = Vec::with_capacity(rows * cols);
        for &number in &numbers {
            let top = u16::try_from(number.to_bits() >> 16).unwrap();
            bytes.extend_from_slice(&top.to_le_bytes());
            widened.push(f32::from_bits(u32::from(top) << 16));
        }
        let mapped = Table::mapped(
            std::sync::Arc::new(bytes),
            3,
            crate::core::tables::table::Dtype::BF16,
            rows,
            cols,
        )
        .unwrap();
        let owned = Table::from(Array2::from_shape_vec((rows, cols), widened).unwrap());
        for id in [0, 150, 299] {
            let query = owned.row(id).unwrap();
            let from_bytes = nearest_rows(&mapped, query.view(), 8);
            let from_numbers = nearest_rows(&owned, query.view(), 8);
            let bits = |found: &[(usize, f64)]| -> Vec<(usize, u64)> {
                found
                    .iter()
                    .map(|&(id, cosine)| (id, cosine.to_bits()))
                    .collect()
            };
            assert_eq!(bits(&from_bytes), bits(&from_numbers));
            assert_eq!(from_bytes[0].0, id);
        }
    }

    #[test]
    fn a_stopped_scan_ends_without_an_answer() {
        let table = Table::from(Array2::from_shape_fn((10_000, 2), |(i, j)| {
            f32::from(u16::try_from(i % 97 + j).unwrap())
        }));
        let query = ndarray::arr1(&[1.0f32, 2.0]);
        let stop = AtomicBool::new(true);
        assert_eq!(nearest_rows_unless(&table, query.view(), 3, &stop), None);
        stop.store(false, atomic::Ordering::Relaxed);
        assert_eq!(
            nearest_rows_unless(&table, query.view(), 3, &stop),
            Some(nearest_rows(&table, query.view(), 3))
        );
    }

    #[expect(clippy::float_cmp, reason = "these cosines are exact")]
    #[test]
    fn cosines_of_parallel_opposite_orthogonal_and_empty_vectors() {
        let matrix = cosine_matrix(&[
            arr1(&[1.0, 0.0]),
            arr1(&[2.0, 0.0]),
            arr1(&[0.0, 5.0]),
            arr1(&[-3.0, 0.0]),
            arr1(&[0.0, 0.0]),
        ]);
        assert_eq!(matrix.dim(), (5, 5));
        assert_eq!(matrix[[0, 1]], 1.0);
        assert_eq!(matrix[[0, 2]], 0.0);
        assert_eq!(matrix[[1, 3]], -1.0);
        assert!(matrix[[4, 0]].is_nan() && matrix[[4, 4]].is_nan());
        assert_eq!(matrix.mapv(f64::to_bits), matrix.t().mapv(f64::to_bits));
    }

    #[expect(clippy::float_cmp, reason = "these cosines are exact")]
    #[test]
    fn nearest_rows_rank_by_cosine_then_by_id() {
        let table = table(&[
            &[0.0, 1.0],
            &[1.0, 0.0],
            &[0.0, 0.0],
            &[2.0, 0.0],
            &[1.0, 1.0],
            &[-1.0, 0.0],
        ]);
        let nearest = nearest_rows(&table, arr1(&[3.0, 0.0]).view(), 4);
        let ids: Vec<usize> = nearest.iter().map(|&(id, _)| id).collect();
        assert_eq!(
            ids,
            [1, 3, 4, 0],
            "1 and 3 tie, so the lower id comes first"
        );
        assert_eq!(nearest[0].1, 1.0);
        assert!((nearest[2].1 - 0.5f64.sqrt()).abs() < 1e-15);
        let everything = nearest_rows(&table, arr1(&[3.0, 0.0]).view(), 100);
        assert_eq!(
            everything.len(),
            5,
            "the zero row has no angle and is skipped"
        );
        assert_eq!(everything[4], (5, -1.0));
        assert!(nearest_rows(&table, arr1(&[0.0, 0.0]).view(), 3).is_empty());
        assert!(nearest_rows(&table, arr1(&[1.0, 0.0]).view(), 0).is_empty());
        assert!(nearest_rows(&table, arr1(&[1.0, 0.0, 1.0]).view(), 3).is_empty());
    }

    #[test]
    fn a_row_is_its_own_nearest_row() {
        let table = Table::from(TorchGenerator::manual_seed(123).embedding(500, 16));
        for id in [0, 7, 499] {
            let row = table.row(id).unwrap();
            let nearest = nearest_rows(&table, row.view(), 3);
            assert_eq!(nearest[0].0, id);
            assert!((nearest[0].1 - 1.0).abs() < 1e-12);
            assert!(nearest[0].1 >= nearest[1].1 && nearest[1].1 >= nearest[2].1);
            let cosines = cosine_matrix(&[row.clone(), table.row(nearest[1].0).unwrap()]);
            assert_eq!(cosines[[0, 1]].to_bits(), nearest[1].1.to_bits());
        }
    }

    #[test]
    fn a_one_hot_product_is_the_lookup_bit_for_bit() {
        let table = Table::from(TorchGenerator::manual_seed(123).embedding(300, 5));
        for id in 0..table.rows() {
            let product = one_hot_product(&table, id).unwrap();
            let row = table.row(id).unwrap();
            assert_eq!(
                product.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                row.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "row {id}"
            );
        }
        assert_eq!(one_hot_product(&table, 300), None);
    }

    #[expect(clippy::float_cmp, reason = "the product is exact")]
    #[test]
    fn one_infinite_number_anywhere_spoils_the_product_but_not_the_lookup() {
        let table = table(&[&[1.0, 2.0], &[f32::INFINITY, 0.5]]);
        let product = one_hot_product(&table, 0).unwrap();
        assert!(product[0].is_nan(), "0 · ∞ is NaN");
        assert_eq!(product[1], 2.0);
        assert_eq!(table.row(0).unwrap().to_vec(), [1.0, 2.0]);
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn nearest_rows_agree_with_sorting_every_cosine(
                (rows, query) in (1usize..=8, 1usize..=20).prop_flat_map(|(dims, count)| (
                    proptest::collection::vec(proptest::collection::vec(-4.0f32..4.0, dims), count),
                    proptest::collection::vec(-4.0f32..4.0, dims),
                )),
                k in 0usize..25,
            ) {
                let dims = query.len();
                let values: Vec<f32> = rows.iter().flatten().copied().collect();
                let table = Table::from(Array2::from_shape_vec((rows.len(), dims), values).unwrap());
                let query = Array1::from(query);
                let mut vectors = vec![query.clone()];
                vectors.extend(rows.iter().map(|row| Array1::from(row.clone())));
                let cosines = cosine_matrix(&vectors);
                let mut expected: Vec<(usize, f64)> = (0..rows.len())
                    .map(|id| (id, cosines[[0, id + 1]]))
                    .filter(|(_, cosine)| !cosine.is_nan())
                    .collect();
                expected.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                expected.truncate(k);
                prop_assert_eq!(nearest_rows(&table, query.view(), k), expected);
            }
        }
    }

    /// Runs every vector path the machine has (else the portable one again) on `query` and
    /// `row`, stored as float32 and as bfloat16, and checks each against the portable path's
    /// bits; returns the float32 row's (dot product, squared length) bits.
    fn assert_every_path_gives_the_portable_bits(query: &[f32], row: &[f32]) -> (u64, u64) {
        let len = row.len();
        let bytes: Vec<u8> = row
            .iter()
            .flat_map(|&x| half::bf16::from_f32(x).to_le_bytes())
            .collect();
        let wide: Vec<f64> = query.iter().copied().map(f64::from).collect();
        let bits = |(dot, norm): (f64, f64)| (dot.to_bits(), norm.to_bits());
        let mut as_float32 = None;
        for stored in [StoredRow::F32(row), StoredRow::Bf16(&bytes)] {
            let portable = bits(dot_and_norm_squared_portable(&wide, stored));
            let avx512 = with_features!(
                ["avx512f", "avx512bw"] => dot_and_norm_squared_avx512(&wide, stored),
                else dot_and_norm_squared_portable(&wide, stored),
            );
            let avx2 = with_features!(
                ["avx2", "fma"] => dot_and_norm_squared_avx2(&wide, stored),
                else dot_and_norm_squared_portable(&wide, stored),
            );
            assert_eq!(bits(avx512), portable, "AVX-512, {len} numbers");
            assert_eq!(bits(avx2), portable, "AVX2, {len} numbers");
            assert_eq!(bits(dot_and_norm_squared(&wide, stored)), portable);
            as_float32.get_or_insert(portable);
        }
        as_float32.expect("the float32 row")
    }

    #[test]
    fn every_vector_path_the_machine_has_gives_the_portable_bits() {
        // Whole chunks of sixteen, none, and every length of a last, shorter chunk.
        for len in (0..=40).chain([2048, 2051]) {
            let query: Vec<f32> = (0..len)
                .map(|i| (f32::from(u16::try_from(i).unwrap()) * 0.37).sin() * 3.1)
                .collect();
            let row: Vec<f32> = (0..len)
                .map(|i| (f32::from(u16::try_from(i).unwrap()) * 1.91).cos() / 7.0)
                .collect();
            let (dot_product, norm) = assert_every_path_gives_the_portable_bits(&query, &row);
            assert_eq!(dot_product, dot(&query, &row).to_bits());
            assert_eq!(norm, dot(&row, &row).to_bits());
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
        let row: Vec<f32> = (0..len)
            .map(|i| extremes[(i * 5 + 2) % extremes.len()])
            .collect();
        let (dot_product, norm) = assert_every_path_gives_the_portable_bits(&query, &row);
        assert!(f64::from_bits(dot_product).is_finite() && f64::from_bits(norm).is_finite());
    }

    #[test]
    fn rows_shared_among_threads_give_the_rows_one_thread_finds() {
        let rows = 3 * ROWS_BETWEEN_LOOKS + 17;
        let table = Table::from(Array2::from_shape_fn((rows, 8), |(i, j)| {
            f32::from(u8::try_from((i * 31 + j * 7) % 101).unwrap()) - 50.0
        }));
        let query = arr1(&[1.0f32, -2.0, 3.0, 0.5, 0.0, 1.0, -1.0, 2.0]);
        let query_norm = dot(query.as_slice().unwrap(), query.as_slice().unwrap()).sqrt();
        let wide: Vec<f64> = query.iter().copied().map(f64::from).collect();
        let Scanned::Best(one) = scan_rows(
            &table,
            &wide,
            query_norm,
            9,
            0..rows,
            &AtomicBool::new(false),
        ) else {
            panic!("a whole scan");
        };
        let one: Vec<(usize, f64)> = one
            .into_sorted_vec()
            .into_iter()
            .map(|Reverse(candidate)| (candidate.id, candidate.cosine))
            .collect();
        assert_eq!(nearest_rows(&table, query.view(), 9), one);
    }
}
