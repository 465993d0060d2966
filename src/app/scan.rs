//! Whole-matrix work off the key path: the nearest rows, the one-hot product and the typical
//! magnitude of a large table, as work a [`super::cell::Cell`] runs on its job, which a newer
//! request stops.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use ndarray::Array1;

use crate::core::analysis::metrics::typical_magnitude;
use crate::core::analysis::similarity::{nearest_rows_each_unless, one_hot_product_unless};
use crate::core::tables::weights::EmbeddingModel;

/// Tables with at least this many numbers are scanned on a worker thread; smaller ones at once.
pub const BACKGROUND_SCAN_FROM: usize = 1 << 22;

/// How many nearest rows the similarity pane lists.
pub const NEAREST_ROWS: usize = 5;

/// Rows of the matrix with their cosine similarity to a vector, nearest first.
pub type Neighbours = Vec<(usize, f64)>;

/// The nearest rows to a token vector and to its input vector.
pub type NearestPair = (Neighbours, Neighbours);

/// Finds the rows of `model`'s table nearest `token` and nearest `input`, in one pass over
/// the table (`None` once `stop` is set).
pub fn nearest(
    model: &Arc<EmbeddingModel>,
    token: Array1<f32>,
    input: Array1<f32>,
) -> impl FnOnce(&AtomicBool) -> Option<NearestPair> + Send + 'static {
    let model = Arc::clone(model);
    move |stop| {
        let vectors = [token.view(), input.view()];
        let found = nearest_rows_each_unless(model.token_table(), &vectors, NEAREST_ROWS, stop)?;
        let [from_token, from_input]: [Neighbours; 2] = found.try_into().ok()?;
        Some((from_token, from_input))
    }
}

/// Computes `one_hot(id) · W` over `model`'s whole table (`None` when it has no row `id`, is
/// not ready, or once `stop` is set).
pub fn one_hot(
    model: &Arc<EmbeddingModel>,
    id: usize,
) -> impl FnOnce(&AtomicBool) -> Option<Array1<f32>> + Send + 'static {
    let model = Arc::clone(model);
    move |stop| one_hot_product_unless(model.token_table(), id, stop).flatten()
}

/// The typical magnitude of `model`'s token table and of its position table, if it has one.
pub fn scales(
    model: &Arc<EmbeddingModel>,
) -> impl FnOnce(&AtomicBool) -> Option<Scales> + Send + 'static {
    let model = Arc::clone(model);
    move |_| Some(Scales::of(&model))
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
