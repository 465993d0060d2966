//! A two-dimensional table of numbers (a weight matrix), wherever its numbers live: in memory,
//! in a memory-mapped model file (f32, f16, bf16, or one of ggml's quantized block formats), or
//! still being generated.
//!
//! Rows are read one at a time and converted to f32 on the way out, so opening a table costs
//! the same whatever its size: only the rows that are looked at are ever touched. A row of a
//! quantized table is a whole number of blocks, dequantized as ggml does, bit for bit.

mod k_quants;
mod small_blocks;

use std::fmt;
use std::sync::{Arc, OnceLock};

use anyhow::{Result, bail};
use ndarray::{Array1, Array2};

/// How the numbers of a table are stored.
///
/// Beside the three float formats, ggml's quantized formats (as GGUF files hold them) store a
/// block of numbers as small integers with one or two f16 scales; the `_K` formats group 256
/// numbers in a super-block of sub-blocks, each with its own scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// IEEE single precision, 4 bytes.
    F32,
    /// IEEE half precision, 2 bytes.
    F16,
    /// bfloat16: f32's exponent with 7 bits of fraction, 2 bytes.
    BF16,
    /// ggml `Q8_0`: 32 numbers as signed bytes times one f16 scale (34 bytes).
    Q8_0,
    /// ggml `Q4_0`: 32 numbers as 4-bit integers less 8, times one f16 scale (18 bytes).
    Q4_0,
    /// ggml `Q4_1`: 32 numbers as 4-bit integers times a scale plus a minimum (20 bytes).
    Q4_1,
    /// ggml `Q5_0`: 32 numbers as 5-bit integers less 16, times one f16 scale (22 bytes).
    Q5_0,
    /// ggml `Q5_1`: 32 numbers as 5-bit integers times a scale plus a minimum (24 bytes).
    Q5_1,
    /// ggml `Q2_K`: 256 numbers as 2-bit integers, 16 sub-blocks with 4-bit scales and mins.
    Q2K,
    /// ggml `Q3_K`: 256 numbers as 3-bit integers, 16 sub-blocks with 6-bit scales.
    Q3K,
    /// ggml `Q4_K`: 256 numbers as 4-bit integers, 8 sub-blocks with 6-bit scales and mins.
    Q4K,
    /// ggml `Q5_K`: 256 numbers as 5-bit integers, 8 sub-blocks with 6-bit scales and mins.
    Q5K,
    /// ggml `Q6_K`: 256 numbers as 6-bit integers less 32, 16 sub-blocks with 8-bit scales.
    Q6K,
}

impl Dtype {
    /// How many numbers one block holds: 1 for the float formats.
    #[must_use]
    pub fn block_len(self) -> usize {
        match self {
            Self::F32 | Self::F16 | Self::BF16 => 1,
            Self::Q8_0 | Self::Q4_0 | Self::Q4_1 | Self::Q5_0 | Self::Q5_1 => small_blocks::LEN,
            Self::Q2K | Self::Q3K | Self::Q4K | Self::Q5K | Self::Q6K => k_quants::LEN,
        }
    }

    /// How many bytes one block takes.
    #[must_use]
    pub fn block_bytes(self) -> usize {
        match self {
            Self::F32 => 4,
            Self::F16 | Self::BF16 => 2,
            Self::Q8_0 => small_blocks::Q8_0_BYTES,
            Self::Q4_0 => small_blocks::Q4_0_BYTES,
            Self::Q4_1 => small_blocks::Q4_1_BYTES,
            Self::Q5_0 => small_blocks::Q5_0_BYTES,
            Self::Q5_1 => small_blocks::Q5_1_BYTES,
            Self::Q2K => k_quants::Q2_K_BYTES,
            Self::Q3K => k_quants::Q3_K_BYTES,
            Self::Q4K => k_quants::Q4_K_BYTES,
            Self::Q5K => k_quants::Q5_K_BYTES,
            Self::Q6K => k_quants::Q6_K_BYTES,
        }
    }

    /// Whether the numbers are stored as blocks of small integers with scales.
    #[must_use]
    pub fn is_quantized(self) -> bool {
        self.block_len() > 1
    }

    /// The bytes a row of `cols` numbers takes, or `None` when `cols` is not a whole number of
    /// blocks (or the count overflows).
    #[must_use]
    pub fn row_bytes(self, cols: usize) -> Option<usize> {
        if !cols.is_multiple_of(self.block_len()) {
            return None;
        }
        (cols / self.block_len()).checked_mul(self.block_bytes())
    }

    /// Appends the numbers of whole blocks of little-endian bytes to `out`, widened or
    /// dequantized to f32 exactly as ggml does.
    fn decode(self, bytes: &[u8], out: &mut Vec<f32>) {
        let blocks = bytes.chunks_exact(self.block_bytes());
        match self {
            Self::F32 => out.extend(blocks.map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
            Self::F16 => {
                out.extend(blocks.map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32()));
            }
            Self::BF16 => {
                // bfloat16 is the top half of a float32: widening is a shift, exactly. Written
                // into place (not `extend`), so the compiler widens many numbers at once.
                let start = out.len();
                out.resize(start + blocks.len(), 0.0);
                for (number, b) in out[start..].iter_mut().zip(blocks) {
                    *number = f32::from_bits(u32::from(u16::from_le_bytes([b[0], b[1]])) << 16);
                }
            }
            Self::Q8_0 => blocks.for_each(|b| small_blocks::q8_0(b, out)),
            Self::Q4_0 => blocks.for_each(|b| small_blocks::q4_0(b, out)),
            Self::Q4_1 => blocks.for_each(|b| small_blocks::q4_1(b, out)),
            Self::Q5_0 => blocks.for_each(|b| small_blocks::q5_0(b, out)),
            Self::Q5_1 => blocks.for_each(|b| small_blocks::q5_1(b, out)),
            Self::Q2K => blocks.for_each(|b| k_quants::q2_k(b, out)),
            Self::Q3K => blocks.for_each(|b| k_quants::q3_k(b, out)),
            Self::Q4K => blocks.for_each(|b| k_quants::q4_k(b, out)),
            Self::Q5K => blocks.for_each(|b| k_quants::q5_k(b, out)),
            Self::Q6K => blocks.for_each(|b| k_quants::q6_k(b, out)),
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::F32 => "f32",
            Self::F16 => "f16",
            Self::BF16 => "bf16",
            Self::Q8_0 => "q8_0",
            Self::Q4_0 => "q4_0",
            Self::Q4_1 => "q4_1",
            Self::Q5_0 => "q5_0",
            Self::Q5_1 => "q5_1",
            Self::Q2K => "q2_k",
            Self::Q3K => "q3_k",
            Self::Q4K => "q4_k",
            Self::Q5K => "q5_k",
            Self::Q6K => "q6_k",
        })
    }
}

/// Bytes that stay put for as long as a table needs them: a memory-mapped file, or a buffer.
pub trait Bytes: Send + Sync {
    /// All the bytes.
    fn bytes(&self) -> &[u8];

    /// Copies the bytes from `offset` on into `buffer`, as many as fit and there are: how many.
    /// A mapped file reads them from the file instead, for bytes read once that need not be
    /// mapped.
    fn read_at(&self, offset: usize, buffer: &mut [u8]) -> usize {
        let from = self.bytes().get(offset..).unwrap_or_default();
        let len = from.len().min(buffer.len());
        buffer[..len].copy_from_slice(&from[..len]);
        len
    }

    /// Whether [`Bytes::read_at`] reads the file (`pread`) rather than copying from
    /// [`Bytes::bytes`]: then a pass over many bytes that reads each once can copy them into a
    /// small buffer instead of mapping every page (see [`Table::read_stored_rows`]).
    fn reads_from_file(&self) -> bool {
        false
    }
}

impl Bytes for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }
}

impl Bytes for memmap2::Mmap {
    fn bytes(&self) -> &[u8] {
        self
    }
}

#[derive(Clone)]
enum Storage {
    Owned(Arc<Array2<f32>>),
    Mapped {
        source: Arc<dyn Bytes>,
        offset: usize,
        dtype: Dtype,
    },
    Deferred(Arc<OnceLock<Array2<f32>>>),
}

/// A rows × cols matrix whose rows can be read as f32 vectors.
#[derive(Clone)]
pub struct Table {
    rows: usize,
    cols: usize,
    storage: Storage,
}

impl fmt::Debug for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Table({}×{}, {})",
            self.rows,
            self.cols,
            self.storage_name()
        )
    }
}

impl PartialEq for Table {
    /// Equal when the shapes match and every row reads the same bits (for tests; reads all rows).
    fn eq(&self, other: &Self) -> bool {
        self.rows == other.rows
            && self.cols == other.cols
            && (0..self.rows).all(|r| {
                let (a, b) = (self.row(r), other.row(r));
                match (a, b) {
                    (Some(a), Some(b)) => a
                        .iter()
                        .zip(b.iter())
                        .all(|(x, y)| x.to_bits() == y.to_bits()),
                    (None, None) => true,
                    _ => false,
                }
            })
    }
}

impl From<Array2<f32>> for Table {
    fn from(array: Array2<f32>) -> Self {
        Self {
            rows: array.nrows(),
            cols: array.ncols(),
            storage: Storage::Owned(Arc::new(array)),
        }
    }
}

/// A row as the table stores it (see [`Table::for_each_stored_row_in`]).
#[derive(Clone, Copy, Debug)]
pub enum StoredRow<'a> {
    /// Float32 numbers.
    F32(&'a [f32]),
    /// The little-endian bytes of bfloat16 numbers, two a number.
    Bf16(&'a [u8]),
}

impl StoredRow<'_> {
    /// How many numbers the row holds.
    #[must_use]
    pub fn len(self) -> usize {
        match self {
            Self::F32(numbers) => numbers.len(),
            Self::Bf16(bytes) => bytes.len() / 2,
        }
    }

    /// Whether the row holds no numbers.
    #[must_use]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Rows `range` of rows side by side, each `width` numbers wide.
    ///
    /// # Panics
    /// When the rows are not there.
    #[must_use]
    pub fn rows(self, range: std::ops::Range<usize>, width: usize) -> Self {
        match self {
            Self::F32(numbers) => Self::F32(&numbers[range.start * width..range.end * width]),
            Self::Bf16(bytes) => Self::Bf16(&bytes[2 * range.start * width..2 * range.end * width]),
        }
    }

    /// The row's numbers as float32, written into `out` (exactly: widening bfloat16 is a
    /// shift).
    ///
    /// # Panics
    /// When `out` does not have one place for each number of the row.
    pub fn widen_into(self, out: &mut [f32]) {
        match self {
            Self::F32(numbers) => out.copy_from_slice(numbers),
            Self::Bf16(bytes) => {
                assert_eq!(bytes.len(), out.len() * 2, "one place for each number");
                widen_bf16(bytes, out);
            }
        }
    }
}

/// Little-endian bfloat16 bytes widened into float32 numbers, exactly.
#[expect(
    clippy::inline_always,
    reason = "an AVX2 caller is vectorised only when this is inlined into it"
)]
#[inline(always)]
pub fn widen_bf16(bytes: &[u8], out: &mut [f32]) {
    for (number, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        *number = f32::from_bits(u32::from(u16::from_le_bytes([pair[0], pair[1]])) << 16);
    }
}

/// A buffer rows are read into, kept from one read to the next ([`Table::read_stored_rows`]).
#[derive(Default)]
pub struct RowBuffer {
    /// The bytes as read.
    bytes: CacheLines<u8>,
    /// The numbers of a dtype other than bfloat16, widened to float32.
    widened: Vec<f32>,
}

/// Numbers that start on a cache line (64 bytes), as layer 0's tiles and rows read into a
/// [`RowBuffer`] use them: from an allocation's own start (16 bytes past a line here) every
/// other 32-byte load, and every 64-byte f64 sum, straddled two lines. Kept from one call to
/// the next.
#[derive(Default)]
pub struct CacheLines<T> {
    /// The numbers, a cache line's worth more than in use.
    data: Vec<T>,
    /// Where the first line starts in `data`.
    start: usize,
}

impl<T: Copy + Default> CacheLines<T> {
    /// Bytes in a cache line.
    const LINE: usize = 64;

    /// The first `len` numbers, the first on a cache line's start: those of the last call, or
    /// zeros (`T::default()`) where there were fewer.
    pub fn numbers(&mut self, len: usize) -> &mut [T] {
        if self.data.len() < self.start + len {
            let spare = Self::LINE / size_of::<T>();
            self.data = vec![T::default(); len + spare];
            // Never past the spare numbers: at worst (an alignment it cannot reach) from the
            // start.
            let start = Some(self.data.as_ptr().align_offset(Self::LINE)).filter(|&at| at <= spare);
            self.start = start.unwrap_or(0);
        }
        &mut self.data[self.start..][..len]
    }
}

/// The widest row a table read from a file may have: 2^20 numbers, 64 times the widest real
/// model's, so that a crafted file cannot make one row's vectors and text take gigabytes.
pub const MAX_ROW_WIDTH: usize = 1 << 20;

impl Table {
    /// A table read in place from `rows × cols` little-endian numbers at `offset` in `source`.
    ///
    /// For a quantized dtype each row must be a whole number of its blocks, as ggml stores
    /// them: a row never starts inside a block.
    ///
    /// # Errors
    /// When a row is not a whole number of blocks, or the numbers would run past the end of the
    /// bytes.
    pub fn mapped(
        source: Arc<dyn Bytes>,
        offset: usize,
        dtype: Dtype,
        rows: usize,
        cols: usize,
    ) -> Result<Self> {
        if cols > MAX_ROW_WIDTH {
            bail!(
                "a {rows}×{cols} table's rows are {cols} numbers wide; embedlens reads rows of \
                 at most {MAX_ROW_WIDTH} numbers (real models' are at most tens of thousands)"
            );
        }
        if !cols.is_multiple_of(dtype.block_len()) {
            bail!(
                "a {rows}×{cols} {dtype} table cannot be read by rows: {dtype} stores blocks of \
                 {} numbers, and {cols} is not a multiple of {}",
                dtype.block_len(),
                dtype.block_len()
            );
        }
        let needed = dtype
            .row_bytes(cols)
            .and_then(|row| row.checked_mul(rows))
            .and_then(|n| n.checked_add(offset));
        match needed {
            Some(end) if end <= source.bytes().len() => Ok(Self {
                rows,
                cols,
                storage: Storage::Mapped {
                    source,
                    offset,
                    dtype,
                },
            }),
            _ => bail!(
                "a {rows}×{cols} {dtype} table at byte {offset} needs more bytes than the {} there are",
                source.bytes().len()
            ),
        }
    }

    /// A table whose numbers another thread is still making; rows read as `None` until then.
    #[must_use]
    pub fn deferred(rows: usize, cols: usize, cell: Arc<OnceLock<Array2<f32>>>) -> Self {
        Self {
            rows,
            cols,
            storage: Storage::Deferred(cell),
        }
    }

    /// How many rows.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// How many numbers in a row.
    #[must_use]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// How the numbers are stored in the file, for a mapped table.
    #[must_use]
    pub fn dtype(&self) -> Option<Dtype> {
        match &self.storage {
            Storage::Mapped { dtype, .. } => Some(*dtype),
            Storage::Owned(_) | Storage::Deferred(_) => None,
        }
    }

    /// Whether every row can be read now (false while a deferred table is being made).
    #[must_use]
    pub fn is_ready(&self) -> bool {
        match &self.storage {
            Storage::Deferred(cell) => cell.get().is_some(),
            Storage::Owned(_) | Storage::Mapped { .. } => true,
        }
    }

    /// Blocks until every row can be read (returns at once unless the table is being made).
    pub fn wait(&self) {
        if let Storage::Deferred(cell) = &self.storage {
            cell.wait();
        }
    }

    fn storage_name(&self) -> String {
        match &self.storage {
            Storage::Owned(_) => "in memory".to_owned(),
            Storage::Mapped { dtype, .. } => format!("{dtype}, mapped"),
            Storage::Deferred(_) => "generated".to_owned(),
        }
    }

    /// Row `index` as f32, or `None` past the last row or while the table is being made.
    #[must_use]
    pub fn row(&self, index: usize) -> Option<Array1<f32>> {
        if index >= self.rows {
            return None;
        }
        match &self.storage {
            Storage::Owned(array) => Some(array.row(index).to_owned()),
            Storage::Deferred(cell) => cell.get().map(|array| array.row(index).to_owned()),
            Storage::Mapped {
                source,
                offset,
                dtype,
            } => {
                let row_bytes = self.row_bytes(*dtype);
                let start = offset + index * row_bytes;
                let mut row = Vec::with_capacity(self.cols);
                dtype.decode(&source.bytes()[start..start + row_bytes], &mut row);
                Some(Array1::from(row))
            }
        }
    }

    /// The stored bytes of rows `range` (clipped to the table) of a table read in place, or
    /// `None` for a table held in memory: what a reader can ask the processor to fetch
    /// before it needs them.
    #[must_use]
    pub fn stored_bytes(&self, range: std::ops::Range<usize>) -> Option<&[u8]> {
        let (source, _, bytes) = self.stored_span(range)?;
        source.bytes().get(bytes)
    }

    /// Where rows `range` (clipped to the table) of a table read in place are: its bytes, its
    /// dtype and the span of the bytes they take. `None` for a table held in memory.
    fn stored_span(
        &self,
        range: std::ops::Range<usize>,
    ) -> Option<(&dyn Bytes, Dtype, std::ops::Range<usize>)> {
        let Storage::Mapped {
            source,
            offset,
            dtype,
        } = &self.storage
        else {
            return None;
        };
        let row_bytes = self.row_bytes(*dtype);
        let (start, end) = (range.start.min(self.rows), range.end.min(self.rows));
        let span = offset + start * row_bytes..offset + end.max(start) * row_bytes;
        Some((source.as_ref(), *dtype, span))
    }

    /// Rows `range` (clipped to the table) side by side as the table stores them, as one
    /// [`StoredRow`] of all their numbers, where that needs no copy: a mapped bfloat16 table's
    /// bytes, or a float32 table held in memory in row order. `None` for any other table
    /// (whose rows are decoded one by one: see [`Table::for_each_stored_row_in`]), and while a
    /// table is not made yet.
    #[must_use]
    pub fn stored_rows_in(&self, range: std::ops::Range<usize>) -> Option<StoredRow<'_>> {
        let (start, end) = (range.start.min(self.rows), range.end.min(self.rows));
        let numbers = start * self.cols..end.max(start) * self.cols;
        let array = match &self.storage {
            Storage::Mapped {
                dtype: Dtype::BF16, ..
            } => return self.stored_bytes(range).map(StoredRow::Bf16),
            Storage::Mapped { .. } => return None,
            Storage::Owned(array) => array.as_ref(),
            Storage::Deferred(cell) => cell.get()?,
        };
        Some(StoredRow::F32(array.as_slice()?.get(numbers)?))
    }

    /// Whether a pass over every row can read them from the file in chunks
    /// ([`Table::read_stored_rows`]) rather than through the map: a table read in place from
    /// a file that [`Bytes::reads_from_file`]. (When that is faster: see
    /// [`crate::core::analysis::similarity::Pass`].)
    #[must_use]
    pub fn reads_from_file(&self) -> bool {
        matches!(&self.storage, Storage::Mapped { source, .. } if source.reads_from_file())
    }

    /// The bytes one row takes in a [`Table::read_stored_rows`] buffer: as read, and as
    /// widened to float32 for every dtype but bfloat16 (which is summed as read). A table read
    /// in place only.
    #[must_use]
    pub fn read_row_bytes(&self) -> Option<usize> {
        let dtype = self.dtype()?;
        let widened = if dtype == Dtype::BF16 {
            0
        } else {
            self.cols * size_of::<f32>()
        };
        Some(self.row_bytes(dtype) + widened)
    }

    /// Rows `range` (clipped to the table) of a table read in place, read from its bytes
    /// ([`Bytes::read_at`]: `pread` for a file) into `buffer` and given as one [`StoredRow`]
    /// of all their numbers: a bfloat16 table's bytes as read, any other dtype's numbers
    /// widened or dequantized to float32 as [`Table::row`] gives them. `None` for a table held
    /// in memory or being made.
    pub fn read_stored_rows<'b>(
        &self,
        range: std::ops::Range<usize>,
        buffer: &'b mut RowBuffer,
    ) -> Option<StoredRow<'b>> {
        let (source, dtype, span) = self.stored_span(range)?;
        let RowBuffer { bytes, widened } = buffer;
        let bytes = bytes.numbers(span.len());
        let read = source.read_at(span.start, bytes);
        debug_assert_eq!(
            read,
            bytes.len(),
            "the table's bytes are checked to be there"
        );
        if dtype == Dtype::BF16 {
            return Some(StoredRow::Bf16(bytes));
        }
        widened.clear();
        dtype.decode(bytes, widened);
        Some(StoredRow::F32(widened))
    }

    /// The bytes one row of a mapped table takes (checked in [`Self::mapped`]).
    fn row_bytes(&self, dtype: Dtype) -> usize {
        dtype.row_bytes(self.cols).unwrap_or_default()
    }

    /// Calls `visit(id, row)` for every row in id order, without allocating a vector per row:
    /// what a pass over a whole 50,257-row table needs.
    ///
    /// Returns false, visiting nothing, while a deferred table is still being made.
    pub fn for_each_row(&self, visit: impl FnMut(usize, &[f32])) -> bool {
        self.for_each_row_in(0..self.rows, visit)
    }

    /// Visits rows `range` as they are stored where that saves a copy: a mapped bfloat16
    /// table's rows as their bytes (widening them is exact, so a reader that widens as it goes
    /// sees the same numbers), every other table's rows as float32, as
    /// [`Table::for_each_row_in`] gives them. `false` while the table is not made yet.
    pub fn for_each_stored_row_in(
        &self,
        range: std::ops::Range<usize>,
        mut visit: impl FnMut(usize, StoredRow),
    ) -> bool {
        if let Storage::Mapped {
            source,
            offset,
            dtype: Dtype::BF16,
        } = &self.storage
        {
            let row_bytes = self.row_bytes(Dtype::BF16);
            for index in range.start.min(self.rows)..range.end.min(self.rows) {
                let start = offset + index * row_bytes;
                visit(
                    index,
                    StoredRow::Bf16(&source.bytes()[start..start + row_bytes]),
                );
            }
            return true;
        }
        self.for_each_row_in(range, |index, row| visit(index, StoredRow::F32(row)))
    }

    /// [`Table::for_each_row`] over the rows in `range` only (clipped to the table), so that
    /// threads can share out the rows of one matrix.
    pub fn for_each_row_in(
        &self,
        range: std::ops::Range<usize>,
        mut visit: impl FnMut(usize, &[f32]),
    ) -> bool {
        let range = range.start.min(self.rows)..range.end.min(self.rows);
        let array = match &self.storage {
            Storage::Owned(array) => array.as_ref(),
            Storage::Deferred(cell) => match cell.get() {
                Some(array) => array,
                None => return false,
            },
            Storage::Mapped {
                source,
                offset,
                dtype,
            } => {
                let row_bytes = self.row_bytes(*dtype);
                let mut row = Vec::with_capacity(self.cols);
                for index in range {
                    let start = offset + index * row_bytes;
                    row.clear();
                    dtype.decode(&source.bytes()[start..start + row_bytes], &mut row);
                    visit(index, &row);
                }
                return true;
            }
        };
        let mut copy = Vec::new();
        for (index, row) in array
            .rows()
            .into_iter()
            .enumerate()
            .skip(range.start)
            .take(range.len())
        {
            if let Some(slice) = row.as_slice() {
                visit(index, slice);
            } else {
                copy.clear();
                copy.extend(row.iter().copied());
                visit(index, &copy);
            }
        }
        true
    }
}

/// `50257×768`, `768`, or `scalar`: a tensor's shape in a listing or a message, for either
/// format's dimensions.
#[must_use]
pub fn shape_text<N: ToString>(shape: &[N]) -> String {
    if shape.is_empty() {
        return "scalar".to_owned();
    }
    shape
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("×")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_of(values: &[f32], dtype: Dtype) -> Vec<u8> {
        values
            .iter()
            .flat_map(|&v| match dtype {
                Dtype::F32 => v.to_le_bytes().to_vec(),
                Dtype::F16 => half::f16::from_f32(v).to_le_bytes().to_vec(),
                Dtype::BF16 => half::bf16::from_f32(v).to_le_bytes().to_vec(),
                _ => unreachable!("the tests write only float tables"),
            })
            .collect()
    }

    #[test]
    fn mapped_rows_read_every_dtype() {
        let values = [1.0f32, -2.5, 0.375, 4.0, 0.5, -0.25];
        for dtype in [Dtype::F32, Dtype::F16, Dtype::BF16] {
            let mut bytes = vec![0xAB; 3];
            bytes.extend(bytes_of(&values, dtype));
            let table = Table::mapped(Arc::new(bytes), 3, dtype, 2, 3).unwrap();
            assert_eq!(table.row(1).unwrap().to_vec(), [4.0, 0.5, -0.25], "{dtype}");
            assert_eq!(table.row(2), None);
            assert_eq!(table.dtype(), Some(dtype));
        }
    }

    #[test]
    fn a_table_cannot_claim_more_bytes_than_there_are() {
        let error = Table::mapped(Arc::new(vec![0u8; 20]), 0, Dtype::F32, 2, 3)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("needs more bytes than the 20 there are"),
            "{error}"
        );
        assert!(Table::mapped(Arc::new(vec![0u8; 8]), 0, Dtype::F32, usize::MAX, 2).is_err());
    }

    #[test]
    fn deferred_tables_fill_in_later() {
        let cell = Arc::new(OnceLock::new());
        let table = Table::deferred(2, 2, Arc::clone(&cell));
        assert!(!table.is_ready());
        assert_eq!(table.row(0), None);
        let maker = std::thread::spawn(move || cell.set(Array2::from_elem((2, 2), 1.5)).unwrap());
        table.wait();
        maker.join().unwrap();
        assert!(table.is_ready());
        assert_eq!(table.row(1).unwrap().to_vec(), [1.5, 1.5]);
    }

    #[test]
    fn every_row_is_visited_in_order_whatever_the_storage() {
        let values = [1.0f32, -2.5, 0.375, 4.0, 0.5, -0.25];
        let collect = |table: &Table| {
            let mut rows = Vec::new();
            let ready = table.for_each_row(|id, row| rows.push((id, row.to_vec())));
            (ready, rows)
        };
        let expected = vec![(0, vec![1.0, -2.5, 0.375]), (1, vec![4.0, 0.5, -0.25])];
        let owned = Table::from(Array2::from_shape_vec((2, 3), values.to_vec()).unwrap());
        assert_eq!(collect(&owned), (true, expected.clone()));
        let mapped = Table::mapped(
            Arc::new(bytes_of(&values, Dtype::BF16)),
            0,
            Dtype::BF16,
            2,
            3,
        )
        .unwrap();
        assert_eq!(collect(&mapped), (true, expected.clone()));
        let transposed = Table::from(
            Array2::from_shape_vec((3, 2), vec![1.0, 4.0, -2.5, 0.5, 0.375, -0.25])
                .unwrap()
                .reversed_axes(),
        );
        assert_eq!(collect(&transposed), (true, expected));
        let cell = Arc::new(OnceLock::new());
        assert_eq!(collect(&Table::deferred(2, 3, cell)), (false, Vec::new()));
    }

    #[test]
    fn owned_tables_read_their_rows() {
        let table = Table::from(Array2::from_shape_vec((2, 2), vec![1.0, 2.0, 3.0, 4.0]).unwrap());
        assert_eq!(table.row(1).unwrap().to_vec(), [3.0, 4.0]);
        assert_eq!((table.rows(), table.cols()), (2, 2));
    }
}
