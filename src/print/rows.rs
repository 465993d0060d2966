//! The weight matrix's rows formatted on every core and written in id order: formatting the
//! numbers is nearly all of `matrix`'s work, and each row's text depends on that row alone.

use std::io::{self, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use crate::core::tables::weights::EmbeddingModel;

/// Numbers formatted in one batch: a few hundred kilobytes of text, enough that handing a
/// batch from one thread to another costs nothing beside its formatting.
const NUMBERS_PER_BATCH: usize = 1 << 14;

/// The most threads that format at once.
const MAX_THREADS: usize = 4;

/// Batches a thread may have formatted ahead of the writer.
const AHEAD: usize = 2;

/// Writes every row of the weight matrix, in id order, as `format_row` appends it to a line
/// buffer (given the row's id and numbers); whether `format_row` said `true` for any row.
///
/// The rows go in batches to a thread each in turn, and the batches are written in order as
/// they come back, so the text is what one thread formatting the rows one after another
/// would write. Each thread reuses the buffers the writer hands back.
pub(super) fn write_rows(
    model: &EmbeddingModel,
    out: &mut impl Write,
    format_row: impl Fn(&mut Vec<u8>, usize, &[f32]) -> bool + Sync,
) -> io::Result<bool> {
    model.wait_until_ready();
    let table = model.token_table();
    let rows = table.rows();
    let batch_rows = (NUMBERS_PER_BATCH / table.cols().max(1)).max(1);
    let batches = rows.div_ceil(batch_rows);
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, MAX_THREADS)
        .min(batches.max(1));
    let format_row = &format_row;
    std::thread::scope(|scope| {
        let mut workers: Vec<(Receiver<Batch>, SyncSender<Vec<u8>>)> = Vec::new();
        for first in 0..threads {
            let (formatted, written) = sync_channel::<Batch>(AHEAD);
            let (empty_sender, empties) = sync_channel::<Vec<u8>>(AHEAD + 1);
            workers.push((written, empty_sender));
            scope.spawn(move || {
                for batch in (first..batches).step_by(threads) {
                    let mut text = empties.try_recv().unwrap_or_default();
                    text.clear();
                    let mut said = false;
                    let start = batch * batch_rows;
                    table.for_each_row_in(start..start + batch_rows, |id, row| {
                        said |= format_row(&mut text, id, row);
                    });
                    if formatted.send(Batch { text, said }).is_err() {
                        // The writer stopped (a write failed): nobody wants the rest.
                        return;
                    }
                }
            });
        }
        let mut said = false;
        for batch in 0..batches {
            let (written, empty_sender) = &workers[batch % threads];
            // A thread that ends early has panicked; the scope passes its panic on.
            let Ok(Batch { text, said: this }) = written.recv() else {
                break;
            };
            said |= this;
            out.write_all(&text)?;
            let _ = empty_sender.try_send(text);
        }
        Ok(said)
    })
}

/// One batch of rows as text, and whether its rows' formatter said `true` for any of them.
struct Batch {
    text: Vec<u8>,
    said: bool,
}
