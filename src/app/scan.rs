//! Whole-matrix work off the key path: the nearest rows of a large table are found on a worker
//! thread, which a newer request cancels.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::thread;

use ndarray::Array1;

use super::derive::{NEAREST_ROWS, Neighbours};
use crate::core::similarity::nearest_rows_unless;
use crate::core::weights::EmbeddingModel;

/// Tables with at least this many numbers are scanned on a worker thread; smaller ones at once.
pub const BACKGROUND_SCAN_FROM: usize = 1 << 22;

/// The nearest rows to a token vector and to its input vector.
pub type NearestPair = (Neighbours, Neighbours);

/// Where a scan is.
pub enum Progress {
    /// Still reading rows.
    Running,
    /// Finished, with its answer.
    Done(NearestPair),
    /// Ended without an answer (the table was not ready).
    Ended,
}

/// A scan running on a worker thread.
pub struct Scan {
    stop: Arc<AtomicBool>,
    answer: Receiver<NearestPair>,
}

impl Scan {
    /// Starts finding the rows of `model`'s table nearest `token` and `input`.
    #[must_use]
    pub fn start(model: &Arc<EmbeddingModel>, token: Array1<f32>, input: Array1<f32>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let (send, answer) = mpsc::channel();
        let (model, flag) = (Arc::clone(model), Arc::clone(&stop));
        thread::spawn(move || {
            let table = model.token_table();
            let Some(from_token) = nearest_rows_unless(table, token.view(), NEAREST_ROWS, &flag)
            else {
                return;
            };
            let Some(from_input) = nearest_rows_unless(table, input.view(), NEAREST_ROWS, &flag)
            else {
                return;
            };
            // Nobody listening means the scan was superseded: nothing to do.
            let _ = send.send((from_token, from_input));
        });
        Self { stop, answer }
    }

    /// Where the worker is now.
    #[must_use]
    pub fn poll(&self) -> Progress {
        match self.answer.try_recv() {
            Ok(pair) => Progress::Done(pair),
            Err(TryRecvError::Empty) => Progress::Running,
            Err(TryRecvError::Disconnected) => Progress::Ended,
        }
    }
}

impl Drop for Scan {
    /// A scan nobody waits for stops at its next look at the flag.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
