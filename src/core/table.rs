//! A two-dimensional table of numbers (a weight matrix), wherever its numbers live: in memory,
//! in a memory-mapped model file (f32, f16 or bf16), or still being generated.
//!
//! Rows are read one at a time and converted to f32 on the way out, so opening a table costs
//! the same whatever its size: only the rows that are looked at are ever touched.

use std::fmt;
use std::sync::{Arc, OnceLock};

use anyhow::{Result, bail};
use ndarray::{Array1, Array2};

/// How the numbers of a table are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// IEEE single precision, 4 bytes.
    F32,
    /// IEEE half precision, 2 bytes.
    F16,
    /// bfloat16: f32's exponent with 7 bits of fraction, 2 bytes.
    BF16,
}

impl Dtype {
    /// Bytes per number.
    #[must_use]
    pub fn size(self) -> usize {
        match self {
            Self::F32 => 4,
            Self::F16 | Self::BF16 => 2,
        }
    }

    /// Reads one little-endian number and widens it to f32 exactly.
    fn read(self, bytes: &[u8]) -> f32 {
        match self {
            Self::F32 => f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
            Self::F16 => half::f16::from_le_bytes([bytes[0], bytes[1]]).to_f32(),
            Self::BF16 => half::bf16::from_le_bytes([bytes[0], bytes[1]]).to_f32(),
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::F32 => "f32",
            Self::F16 => "f16",
            Self::BF16 => "bf16",
        })
    }
}

/// Bytes that stay put for as long as a table needs them: a memory-mapped file, or a buffer.
pub trait Bytes: Send + Sync {
    /// All the bytes.
    fn bytes(&self) -> &[u8];
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

impl Table {
    /// A table read in place from `rows × cols` little-endian numbers at `offset` in `source`.
    ///
    /// # Errors
    /// When the numbers would run past the end of the bytes.
    pub fn mapped(
        source: Arc<dyn Bytes>,
        offset: usize,
        dtype: Dtype,
        rows: usize,
        cols: usize,
    ) -> Result<Self> {
        let needed = rows
            .checked_mul(cols)
            .and_then(|n| n.checked_mul(dtype.size()))
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
                let size = dtype.size();
                let start = offset + index * self.cols * size;
                let bytes = &source.bytes()[start..start + self.cols * size];
                Some(
                    bytes
                        .chunks_exact(size)
                        .map(|chunk| dtype.read(chunk))
                        .collect(),
                )
            }
        }
    }

    /// Calls `visit(id, row)` for every row in id order, without allocating a vector per row:
    /// what a pass over a whole 50,257-row table needs.
    ///
    /// Returns false, visiting nothing, while a deferred table is still being made.
    pub fn for_each_row(&self, mut visit: impl FnMut(usize, &[f32])) -> bool {
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
                let size = dtype.size();
                let row_bytes = self.cols * size;
                let mut row = Vec::with_capacity(self.cols);
                for index in 0..self.rows {
                    let start = offset + index * row_bytes;
                    row.clear();
                    row.extend(
                        source.bytes()[start..start + row_bytes]
                            .chunks_exact(size)
                            .map(|chunk| dtype.read(chunk)),
                    );
                    visit(index, &row);
                }
                return true;
            }
        };
        let mut copy = Vec::new();
        for (index, row) in array.rows().into_iter().enumerate() {
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
