//! Where a nearest-rows scan gets its rows: the one place that chooses between reading a
//! table's file in chunks and reading its map.

use crate::core::tables::table::{RowBuffer, StoredRow, Table};

use super::ROWS_SUMMED_TOGETHER;

/// How often the rows of a table will be scanned: what decides how a table in a file is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Once, by a process that then ends (`embedlens nearest`): a table in a file is read from
    /// it a chunk at a time, which maps no page. Mapping a file's pages costs the kernel a
    /// fault every 16 pages, when the page cache holds the file in 4 KiB pieces, and as much
    /// again to unmap them at exit: on a 1 GiB table, twice the CPU time of copying the file
    /// into a buffer and summing it there (251 against 113 ms), where with the cache in large
    /// pieces the map costs a quarter less than the copy (67 against 91 ms). A read's cost
    /// hardly depends on the pieces, so the process stays within `cat`'s time in either state.
    Once,
    /// Again and again (the explorer, at every key press): through the map, whose pages, once
    /// mapped, cost nothing the next time (a scan over them took 36–47 ms where reading the
    /// same table again took 59–89 ms).
    Repeated,
}

/// The bytes of rows one read puts in its buffer, as read and as widened to float32 (a float16
/// or quantized table's rows take 2–8 times their stored bytes widened): a few hundred KiB,
/// which the sums then read again while they are still in the core's own (second-level) cache.
const READ_BYTES: usize = 256 << 10;

/// Where one scan gets its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RowSource {
    /// Rows as the table holds them ([`Table::stored_rows_in`]): in memory, or through a map,
    /// else widened one by one into a buffer of float32.
    InPlace,
    /// A table in a file, read from it into a buffer ([`Table::read_stored_rows`]) whole rows
    /// at a time (at least one), as many as take `bytes` there, read and widened
    /// ([`Table::read_row_bytes`]).
    Read {
        /// How many bytes of rows one read copies.
        bytes: usize,
    },
}

impl RowSource {
    /// The source for a scan of `table` in `pass`: read from the file for a pass made once by
    /// a table that has a file to read ([`Table::reads_from_file`]), else in place.
    pub(super) fn for_pass(table: &Table, pass: Pass) -> Self {
        match pass {
            Pass::Once if table.reads_from_file() => Self::Read { bytes: READ_BYTES },
            Pass::Once | Pass::Repeated => Self::InPlace,
        }
    }

    /// How many rows one call of [`RowReader::rows`] should ask for.
    pub(super) fn chunk_rows(self, table: &Table) -> usize {
        match self {
            Self::Read { bytes } => bytes / table.read_row_bytes().unwrap_or(bytes).max(1),
            Self::InPlace => ROWS_SUMMED_TOGETHER,
        }
    }
}

/// One thread's reader of rows from a [`RowSource`], with the buffer it reuses.
pub(super) enum RowReader {
    /// [`RowSource::InPlace`], with the float32 rows widened when they are not side by side.
    InPlace(Vec<f32>),
    /// [`RowSource::Read`], with the buffer the rows are read into.
    Read(RowBuffer),
}

impl RowReader {
    pub(super) fn new(source: RowSource) -> Self {
        match source {
            RowSource::InPlace => Self::InPlace(Vec::new()),
            RowSource::Read { .. } => Self::Read(RowBuffer::default()),
        }
    }

    /// Rows `range` of `table` side by side, or `None` while the table is being made.
    pub(super) fn rows<'a>(
        &'a mut self,
        table: &'a Table,
        range: std::ops::Range<usize>,
    ) -> Option<StoredRow<'a>> {
        match self {
            Self::Read(buffer) => table.read_stored_rows(range, buffer),
            Self::InPlace(widened) => {
                if let Some(stored) = table.stored_rows_in(range.clone()) {
                    return Some(stored);
                }
                let width = table.cols();
                widened.resize(range.len() * width, 0.0);
                let first = range.start;
                let ready = table.for_each_stored_row_in(range, |id, row| {
                    row.widen_into(&mut widened[(id - first) * width..][..width]);
                });
                ready.then_some(StoredRow::F32(widened))
            }
        }
    }
}
