//! Whole-matrix work off the key path: the nearest rows, the one-hot product and the typical
//! magnitude of a large table are computed on a worker thread, which a newer request cancels.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::thread;

use ndarray::Array1;

use crate::core::analysis::metrics::typical_magnitude;
use crate::core::analysis::similarity::{nearest_rows_unless, one_hot_product_unless};
use crate::core::tables::weights::EmbeddingModel;

/// Tables with at least this many numbers are scanned on a worker thread; smaller ones at once.
pub const BACKGROUND_SCAN_FROM: usize = 1 << 22;

/// How many nearest rows the similarity pane lists.
pub const NEAREST_ROWS: usize = 5;

/// Rows of the matrix with their cosine similarity to a vector, nearest first.
pub type Neighbours = Vec<(usize, f64)>;

/// The nearest rows to a token vector and to its input vector.
pub type NearestPair = (Neighbours, Neighbours);

/// Where a job is.
pub enum Progress<T> {
    /// Still reading rows.
    Running,
    /// Finished, with its answer.
    Done(T),
    /// Ended without an answer (the table was not ready).
    Ended,
}

/// Work running on a worker thread; dropping it asks the worker to stop.
pub struct Job<T> {
    stop: Arc<AtomicBool>,
    answer: Receiver<T>,
}

impl<T: Send + 'static> Job<T> {
    /// Starts `work` on a worker thread; it looks at the flag it is given now and then and
    /// returns `None` once the flag is set.
    fn start(work: impl FnOnce(&AtomicBool) -> Option<T> + Send + 'static) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let (send, answer) = mpsc::channel();
        let flag = Arc::clone(&stop);
        thread::spawn(move || {
            if let Some(answer) = work(&flag) {
                // Nobody listening means the job was superseded: nothing to do.
                let _ = send.send(answer);
            }
        });
        Self { stop, answer }
    }

    /// Where the worker is now.
    #[must_use]
    pub fn poll(&self) -> Progress<T> {
        match self.answer.try_recv() {
            Ok(answer) => Progress::Done(answer),
            Err(TryRecvError::Empty) => Progress::Running,
            Err(TryRecvError::Disconnected) => Progress::Ended,
        }
    }
}

impl<T> Drop for Job<T> {
    /// A job nobody waits for stops at its next look at the flag.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Finds the rows of `model`'s table nearest `token` and nearest `input`.
#[must_use]
pub fn nearest(
    model: &Arc<EmbeddingModel>,
    token: Array1<f32>,
    input: Array1<f32>,
) -> Job<NearestPair> {
    let model = Arc::clone(model);
    Job::start(move |stop| {
        let table = model.token_table();
        let from_token = nearest_rows_unless(table, token.view(), NEAREST_ROWS, stop)?;
        let from_input = nearest_rows_unless(table, input.view(), NEAREST_ROWS, stop)?;
        Some((from_token, from_input))
    })
}

/// Computes `one_hot(id) · W` over `model`'s whole table (`None` inside when it has no row
/// `id` or is not ready).
#[must_use]
pub fn one_hot(model: &Arc<EmbeddingModel>, id: usize) -> Job<Option<Array1<f32>>> {
    let model = Arc::clone(model);
    Job::start(move |stop| one_hot_product_unless(model.token_table(), id, stop))
}

/// The typical magnitude of `model`'s token table and of its position table, if it has one.
#[must_use]
pub fn scales(model: &Arc<EmbeddingModel>) -> Job<Scales> {
    let model = Arc::clone(model);
    Job::start(move |_| Some(Scales::of(&model)))
}

/// The tables' typical magnitudes, which colours and strips are drawn relative to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scales {
    /// The token table's.
    pub token: f32,
    /// The learned position table's, when the model has one.
    pub position: Option<f32>,
}

impl Default for Scales {
    fn default() -> Self {
        Self {
            token: 1.0,
            position: None,
        }
    }
}

impl Scales {
    /// Both magnitudes, sampled from the tables (1 when a table has no size to speak of).
    #[must_use]
    pub fn of(model: &EmbeddingModel) -> Self {
        Self {
            token: typical_magnitude(model.token_table()).unwrap_or(1.0),
            position: model
                .position_table()
                .map(|table| typical_magnitude(table).unwrap_or(1.0)),
        }
    }
}
