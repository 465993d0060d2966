//! Which vectors point the same way: cosine similarities, nearest rows, and why a lookup is a
//! one-hot matrix product.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::sync::atomic::{self, AtomicBool};

use ndarray::{Array1, Array2, ArrayView1};

use crate::core::tables::table::Table;

mod source;
mod sums;
pub use source::Pass;
use source::{RowReader, RowSource};
use sums::{dot, dots_and_norms_squared};

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
///
/// For a session that scans again and again (the explorer): a table in a file is read through
/// its map (see [`Pass`]).
#[must_use]
pub fn nearest_rows(table: &Table, vector: ArrayView1<f32>, k: usize) -> Vec<(usize, f64)> {
    nearest_rows_unless(table, vector, k, &AtomicBool::new(false)).unwrap_or_default()
}

/// [`nearest_rows`] as the one pass of a process that then ends (`embedlens nearest`): the
/// same rows and the same bits, a table in a file read from it in chunks (see [`Pass`]).
#[must_use]
pub fn nearest_rows_once(table: &Table, vector: ArrayView1<f32>, k: usize) -> Vec<(usize, f64)> {
    let from = RowSource::for_pass(table, Pass::Once);
    nearest_rows_from(table, vector, k, &AtomicBool::new(false), from).unwrap_or_default()
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
    let from = RowSource::for_pass(table, Pass::Repeated);
    nearest_rows_from(table, vector, k, stop, from)
}

/// The nearest rows to each of `vectors`, as [`nearest_rows`] finds them for each alone (the
/// same rows, the same bits), in one pass over the table: each group of rows is summed against
/// every vector while it is in the processor's cache, so a large table is read from memory once
/// rather than once a vector (the similarity pane asks for a token vector's and its input
/// vector's nearest rows at every step).
#[must_use]
pub fn nearest_rows_each(
    table: &Table,
    vectors: &[ArrayView1<f32>],
    k: usize,
) -> Vec<Vec<(usize, f64)>> {
    nearest_rows_each_unless(table, vectors, k, &AtomicBool::new(false))
        .unwrap_or_else(|| vec![Vec::new(); vectors.len()])
}

/// [`nearest_rows_each`], looking at `stop` every few thousand rows: `None` once it is set.
#[must_use]
pub fn nearest_rows_each_unless(
    table: &Table,
    vectors: &[ArrayView1<f32>],
    k: usize,
    stop: &AtomicBool,
) -> Option<Vec<Vec<(usize, f64)>>> {
    let from = RowSource::for_pass(table, Pass::Repeated);
    nearest_rows_many(table, vectors, k, stop, from)
}

/// [`nearest_rows_unless`] with the rows from `from`: the same bits from every source.
fn nearest_rows_from(
    table: &Table,
    vector: ArrayView1<f32>,
    k: usize,
    stop: &AtomicBool,
    from: RowSource,
) -> Option<Vec<(usize, f64)>> {
    let mut found = nearest_rows_many(table, &[vector], k, stop, from)?;
    Some(found.pop().unwrap_or_default())
}

/// A vector the rows are compared with: widened once, not once a row (the same products, so
/// the same bits), and its length.
struct Query {
    wide: Vec<f64>,
    norm: f64,
}

impl Query {
    /// `vector` as a query of a table `cols` wide; `None` when it has the wrong width or no
    /// length to divide by (no row is nearest it).
    fn new(vector: ArrayView1<f32>, cols: usize) -> Option<Self> {
        let narrow: Vec<f32> = vector.to_vec();
        let norm = dot(&narrow, &narrow).sqrt();
        (narrow.len() == cols && norm > 0.0 && norm.is_finite()).then(|| Self {
            wide: narrow.into_iter().map(f64::from).collect(),
            norm,
        })
    }
}

/// The nearest rows to each of `vectors`, the rows from `from`, in one pass.
fn nearest_rows_many(
    table: &Table,
    vectors: &[ArrayView1<f32>],
    k: usize,
    stop: &AtomicBool,
    from: RowSource,
) -> Option<Vec<Vec<(usize, f64)>>> {
    let queries: Vec<Option<Query>> = vectors
        .iter()
        .map(|vector| Query::new(vector.view(), table.cols()))
        .collect();
    if k == 0 || queries.iter().all(Option::is_none) {
        return Some(vec![Vec::new(); vectors.len()]);
    }
    // The rows shared out among the cores in contiguous runs; each run keeps its own best k,
    // and the best of those are the best of all (ties go to the lower id, whoever found it).
    let rows = table.rows();
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, MAX_SCAN_THREADS)
        .min(rows.div_ceil(ROWS_BETWEEN_LOOKS).max(1));
    let run = rows.div_ceil(threads);
    let queries = &queries;
    let found: Vec<Scanned> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|index| {
                let range = index * run..((index + 1) * run).min(rows);
                scope.spawn(move || scan_rows(table, queries, k, range, stop, from))
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
    let mut best: Vec<Best> = queries.iter().map(|_| Best::with_capacity(k + 1)).collect();
    for part in found {
        let parts = match part {
            Scanned::Stopped => return None,
            Scanned::NotReady => return Some(vec![Vec::new(); vectors.len()]),
            Scanned::Best(parts) => parts,
        };
        for (best, part) in best.iter_mut().zip(parts) {
            for Reverse(candidate) in part {
                keep(best, candidate, k);
            }
        }
    }
    // Sorting Reverse(candidate) ascending puts the best candidate first.
    Some(
        best.into_iter()
            .map(|best| {
                best.into_sorted_vec()
                    .into_iter()
                    .map(|Reverse(candidate)| (candidate.id, candidate.cosine))
                    .collect()
            })
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
    /// The best rows of its share, a heap a query (empty for a query with no nearest rows).
    Best(Vec<Best>),
}

/// Rows summed in one call of [`dots_and_norms_squared`]: enough that choosing its path
/// costs nothing, few enough that their sums stay in the nearest cache.
const ROWS_SUMMED_TOGETHER: usize = 64;

/// The best `k` rows of `range` by cosine with each of `queries`: each group of rows summed
/// against every query while it is in the nearest cache.
fn scan_rows(
    table: &Table,
    queries: &[Option<Query>],
    k: usize,
    range: std::ops::Range<usize>,
    stop: &AtomicBool,
    from: RowSource,
) -> Scanned {
    let width = table.cols();
    let mut best: Vec<Best> = queries.iter().map(|_| Best::with_capacity(k + 1)).collect();
    let mut sums = [(0.0, 0.0); ROWS_SUMMED_TOGETHER];
    let mut rows_of = RowReader::new(from);
    let chunk_rows = from.chunk_rows(table).max(1);
    for start in range.clone().step_by(ROWS_BETWEEN_LOOKS) {
        if stop.load(atomic::Ordering::Relaxed) {
            return Scanned::Stopped;
        }
        let end = (start + ROWS_BETWEEN_LOOKS).min(range.end);
        for chunk_start in (start..end).step_by(chunk_rows) {
            let chunk = chunk_start..(chunk_start + chunk_rows).min(end);
            let Some(stored) = rows_of.rows(table, chunk.clone()) else {
                return Scanned::NotReady;
            };
            for first in chunk.clone().step_by(ROWS_SUMMED_TOGETHER) {
                let rows = first..(first + ROWS_SUMMED_TOGETHER).min(chunk.end);
                let sums = &mut sums[..rows.len()];
                let group = stored.rows(first - chunk.start..rows.end - chunk.start, width);
                for (query, best) in queries.iter().zip(best.iter_mut()) {
                    let Some(query) = query else { continue };
                    dots_and_norms_squared(&query.wide, group, sums);
                    for (id, &(dot, row_norm_squared)) in rows.clone().zip(sums.iter()) {
                        if row_norm_squared <= 0.0 {
                            continue;
                        }
                        let cosine = dot / (query.norm * row_norm_squared.sqrt());
                        if !cosine.is_nan() {
                            keep(best, Candidate { cosine, id }, k);
                        }
                    }
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::files::{FileSource, OpenOptions};
    use crate::core::tables::torch_init::TorchGenerator;
    use crate::core::test_fixtures::TempDir;
    use ndarray::arr1;

    fn table(rows: &[&[f32]]) -> Table {
        let cols = rows[0].len();
        let values = rows.iter().flat_map(|row| row.iter().copied()).collect();
        Table::from(Array2::from_shape_vec((rows.len(), cols), values).unwrap())
    }

    /// The ids and the bits of the cosines of a scan's rows.
    fn bits(found: &[(usize, f64)]) -> Vec<(usize, u64)> {
        found
            .iter()
            .map(|&(id, cosine)| (id, cosine.to_bits()))
            .collect()
    }

    /// A seeded table cut to bfloat16, as a mapped table (three bytes before its rows) and as
    /// the same numbers widened to float32 and held in memory.
    fn mapped_and_held(rows: usize, cols: usize, seed: u64) -> (Table, Table) {
        let numbers = TorchGenerator::manual_seed(seed).embedding(rows, cols);
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
        let held = Table::from(Array2::from_shape_vec((rows, cols), widened).unwrap());
        (mapped, held)
    }

    #[test]
    fn a_mapped_bfloat16_table_scans_to_the_same_bits_as_its_widened_numbers() {
        // 37 numbers a row: two chunks of sixteen and a tail of five.
        let (mapped, owned) = mapped_and_held(300, 37, 7);
        for id in [0, 150, 299] {
            let query = owned.row(id).unwrap();
            let from_bytes = nearest_rows(&mapped, query.view(), 8);
            let from_numbers = nearest_rows(&owned, query.view(), 8);
            assert_eq!(bits(&from_bytes), bits(&from_numbers));
            assert_eq!(from_bytes[0].0, id);
        }
    }

    /// A `rows × cols` table written as a safetensors file in `dtype` ("BF16", "F16" or
    /// "F32"), its rows from 56 bytes past a cache line, and opened as `embedlens` opens it.
    fn written_table(folder: &TempDir, dtype: &str, rows: usize, cols: usize) -> Table {
        let numbers = TorchGenerator::manual_seed(5).embedding(rows, cols);
        let bytes: Vec<u8> = numbers
            .iter()
            .flat_map(|&number| match dtype {
                "BF16" => half::bf16::from_f32(number).to_le_bytes().to_vec(),
                "F16" => half::f16::from_f32(number).to_le_bytes().to_vec(),
                _ => number.to_le_bytes().to_vec(),
            })
            .collect();
        let mut header = format!(
            "{{\"model.embed_tokens.weight\":{{\"dtype\":\"{dtype}\",\"shape\":[{rows},{cols}],\
             \"data_offsets\":[0,{}]}}}}",
            bytes.len()
        );
        while (8 + header.len()) % 64 != 56 {
            header.push(' ');
        }
        let path = folder.join(&format!("{dtype}-{rows}x{cols}.safetensors"));
        let mut file = (header.len() as u64).to_le_bytes().to_vec();
        file.extend(header.as_bytes());
        file.extend(bytes);
        std::fs::write(&path, file).unwrap();
        let source = FileSource::path(&path);
        let opened = crate::core::files::open(&source, &OpenOptions::default()).unwrap();
        opened.model.token_table().clone()
    }

    #[test]
    fn rows_read_from_the_file_in_chunks_give_the_bits_of_rows_read_through_its_map() {
        let folder = TempDir::new("read-scan");
        // 37 numbers a row: rows a whole number of neither a cache line nor a chunk.
        let (rows, cols) = (300, 37);
        for dtype in ["BF16", "F16", "F32"] {
            let table = written_table(&folder, dtype, rows, cols);
            assert!(table.reads_from_file(), "{dtype}: a file read with pread");
            // A row's bytes as read, and as widened but for bfloat16, which is summed as read.
            let row_bytes = table.read_row_bytes().unwrap();
            let per_number = match dtype {
                "BF16" => 2,
                "F16" => 2 + 4,
                _ => 4 + 4,
            };
            assert_eq!(row_bytes, per_number * cols, "{dtype}");
            let chunk = RowSource::Read { bytes: 256 << 10 }.chunk_rows(&table);
            assert_eq!(chunk, (256 << 10) / row_bytes, "{dtype}");
            assert_eq!(
                RowSource::for_pass(&table, Pass::Once),
                RowSource::Read { bytes: 256 << 10 }
            );
            for id in [0, 123, 299] {
                let query = table.row(id).unwrap();
                let mapped = nearest_rows(&table, query.view(), rows);
                assert_eq!(mapped.len(), rows);
                // A read of one row (fewer bytes than a row), a chunk ending mid-row (three
                // rows and a half: three rows a read, the last read shorter), one of 64 rows
                // and a bit, and one larger than the whole table.
                for bytes in [
                    1,
                    3 * row_bytes + row_bytes / 2,
                    64 * row_bytes + 5,
                    1 << 20,
                ] {
                    let read = nearest_rows_from(
                        &table,
                        query.view(),
                        rows,
                        &AtomicBool::new(false),
                        RowSource::Read { bytes },
                    )
                    .unwrap();
                    assert_eq!(
                        bits(&read),
                        bits(&mapped),
                        "{dtype}, row {id}, {bytes} bytes"
                    );
                }
            }
            let query = table.row(7).unwrap();
            assert_eq!(
                bits(&nearest_rows_once(&table, query.view(), 5)),
                bits(&nearest_rows(&table, query.view(), 5))
            );
        }
        // A table with no file to read is read in place, whatever the pass.
        let (mapped, held) = mapped_and_held(10, 3, 1);
        for table in [&mapped, &held] {
            assert_eq!(RowSource::for_pass(table, Pass::Once), RowSource::InPlace);
        }
    }

    #[test]
    fn one_pass_for_several_vectors_finds_what_a_pass_for_each_finds() {
        // Rows enough for two threads' shares, 37 numbers a row (chunks of sixteen and a tail).
        let (mapped, held) = mapped_and_held(9_000, 37, 3);
        let wide = Array1::from(vec![1.0f32; 38]);
        let zero = Array1::from(vec![0.0f32; 37]);
        let sum = &held.row(8_999).unwrap() + &held.row(4).unwrap();
        for table in [&mapped, &held] {
            let row = held.row(4_500).unwrap();
            let vectors = [row.view(), zero.view(), sum.view(), wide.view(), row.view()];
            let each = nearest_rows_each(table, &vectors, 7);
            assert_eq!(each.len(), vectors.len());
            for (vector, found) in vectors.iter().zip(&each) {
                assert_eq!(bits(found), bits(&nearest_rows(table, vector.view(), 7)));
            }
            assert_eq!(each[0][0].0, 4_500);
            assert!(
                each[1].is_empty() && each[3].is_empty(),
                "no length, wrong width"
            );
            assert_eq!(bits(&each[0]), bits(&each[4]));
        }
        assert!(nearest_rows_each(&held, &[], 3).is_empty());
        let stopped = nearest_rows_each_unless(&held, &[zero.view()], 3, &AtomicBool::new(true));
        assert_eq!(
            stopped,
            Some(vec![Vec::new()]),
            "nothing to scan: an answer at once"
        );
    }

    #[test]
    fn tables_of_a_few_rows_rank_every_row_by_the_cosine_matrix() {
        // Fewer rows than the AVX-512 path sums at once, and one more than a group of them,
        // mapped as bfloat16 and held as float32.
        for rows in [1, 2, 3, 5] {
            let (mapped, owned) = mapped_and_held(rows, 37, 11);
            let query = owned.row(rows - 1).unwrap();
            let mut vectors = vec![query.clone()];
            vectors.extend((0..rows).map(|id| owned.row(id).unwrap()));
            let cosines = cosine_matrix(&vectors);
            let mut expected: Vec<(usize, u64)> = (0..rows)
                .map(|id| (id, cosines[[0, id + 1]].to_bits()))
                .collect();
            expected.sort_by(|a, b| {
                f64::from_bits(b.1)
                    .total_cmp(&f64::from_bits(a.1))
                    .then(a.0.cmp(&b.0))
            });
            for table in [&mapped, &owned] {
                let found: Vec<(usize, u64)> = nearest_rows(table, query.view(), rows)
                    .into_iter()
                    .map(|(id, cosine)| (id, cosine.to_bits()))
                    .collect();
                assert_eq!(found, expected, "{rows} rows, {table:?}");
            }
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

    #[test]
    fn rows_shared_among_threads_give_the_rows_one_thread_finds() {
        let rows = 3 * ROWS_BETWEEN_LOOKS + 17;
        let table = Table::from(Array2::from_shape_fn((rows, 8), |(i, j)| {
            f32::from(u8::try_from((i * 31 + j * 7) % 101).unwrap()) - 50.0
        }));
        let query = arr1(&[1.0f32, -2.0, 3.0, 0.5, 0.0, 1.0, -1.0, 2.0]);
        let queries = [Query::new(query.view(), 8)];
        let Scanned::Best(mut one) = scan_rows(
            &table,
            &queries,
            9,
            0..rows,
            &AtomicBool::new(false),
            RowSource::InPlace,
        ) else {
            panic!("a whole scan");
        };
        let one: Vec<(usize, f64)> = one
            .pop()
            .unwrap()
            .into_sorted_vec()
            .into_iter()
            .map(|Reverse(candidate)| (candidate.id, candidate.cosine))
            .collect();
        assert_eq!(nearest_rows(&table, query.view(), 9), one);
    }
}
