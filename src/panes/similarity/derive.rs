//! The similarity pane's derive step: the cosine matrix of the sentence's input vectors, and
//! the current token's nearest rows (at once for a small table, on a worker for a large one,
//! cancelling the scan it supersedes).

use ndarray::Array2;

use crate::app::cell::Cell;
use crate::app::memo::{PaneMemo, Shared};
use crate::app::scan::{self, NEAREST_ROWS, NearestPair};
use crate::core::analysis::similarity::{cosine_matrix, nearest_rows_each};

/// What the similarity pane derives.
#[derive(Default)]
pub struct Memo {
    /// Cosine similarities between the sentence's input vectors, keyed by the lookups'.
    pub cosine: Cell<u64, Array2<f64>>,
    /// The current token's nearest rows by cosine: its token vector, then its input vector.
    /// Keyed by the lookups' revision and the current token.
    pub nearest: Cell<(u64, usize), NearestPair>,
}

impl PaneMemo for Memo {
    fn derive(&mut self, shared: &mut Shared, open: bool) {
        let open = self.cosine.keep_if(open);
        if !self.nearest.keep_if(open) {
            return;
        }
        let lookups = shared.lookups_revision;
        if self.cosine.renew(lookups) {
            let (vectors, _) = shared.view_inputs();
            self.cosine
                .set((!vectors.is_empty()).then(|| cosine_matrix(&vectors)));
            shared.counts.cosine += 1;
        }
        // A scan finished since the last key: its answer, seen from the next frame on.
        self.nearest.poll();
        if self.nearest.renew((lookups, shared.step)) {
            self.start_nearest(shared);
            shared.counts.nearest += 1;
        }
    }

    fn busy(&self) -> bool {
        self.nearest.busy()
    }
}

impl Memo {
    /// Finds the current token's nearest rows.
    fn start_nearest(&mut self, shared: &Shared) {
        let Some(lookup) = shared.lookups.get(shared.step) else {
            return;
        };
        let (Some(token), Some(input)) = (&lookup.token_vector, &lookup.input_vector) else {
            return;
        };
        let model = shared.inputs.model;
        if shared.inputs.is_large() {
            let work = scan::nearest(model, token.clone(), input.clone());
            self.nearest.start(work);
            return;
        }
        let found = nearest_rows_each(
            model.token_table(),
            &[token.view(), input.view()],
            NEAREST_ROWS,
        );
        if let Ok([from_token, from_input]) = <[_; 2]>::try_from(found) {
            self.nearest.set(Some((from_token, from_input)));
        }
    }
}
