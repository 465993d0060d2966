//! Whole-matrix work off the key path: the nearest rows, the one-hot product and the typical
//! magnitude of a large table are computed as a [`Job`] on a worker thread, which a newer
//! request cancels.

use std::sync::Arc;

use ndarray::Array1;

use super::job::Job;
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
