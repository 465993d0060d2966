//! The one-hot pane's derive step: the current row as one-hot(id) × W, at once for a small
//! table, on a worker for a large one (cancelling the product it supersedes).

use ndarray::Array1;

use crate::app::cell::Cell;
use crate::app::memo::{PaneMemo, Shared};
use crate::app::scan;
use crate::core::analysis::similarity::one_hot_product;

/// The current row computed as one-hot(id) × W (none when the id has no row). Keyed by the
/// model's revision, whether its tables are ready, and the current token's id.
pub type Memo = Cell<(u64, bool, Option<usize>), Array1<f32>>;

impl PaneMemo for Memo {
    fn derive(&mut self, shared: &mut Shared, open: bool) {
        if !self.keep_if(open) {
            return;
        }
        let id = shared.tokens.get(shared.step).and_then(|token| token.id);
        let inputs = shared.inputs;
        let model = inputs.model;
        // A product finished since the last key: its answer, seen from the next frame on.
        self.poll();
        if self.renew((inputs.model_revision, model.is_ready(), id)) {
            match id {
                Some(id) if inputs.is_large() => self.start(scan::one_hot(model, id)),
                Some(id) => self.set(one_hot_product(model.token_table(), id)),
                None => {}
            }
            shared.counts.one_hot += 1;
        }
    }

    fn busy(&self) -> bool {
        Cell::busy(self)
    }
}
