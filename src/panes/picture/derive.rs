//! The picture's derive step: the sentence's vectors (compare mode: both sentences') on their
//! top two principal axes. Kept while the pane is open, and on a roomy terminal for the space
//! beside the readout.

use crate::app::cell::Cell;
use crate::app::memo::{PaneMemo, Shared};
use crate::core::analysis::attention::MAX_VIEW_TOKENS;
use crate::core::analysis::plane::{Plane, Sentence, Side, plane};

/// The picture, keyed by the lookups' revision, the comparison's, and the current token.
pub type Memo = Cell<(u64, Option<u64>, usize), Plane>;

impl PaneMemo for Memo {
    fn derive(&mut self, shared: &mut Shared, open: bool) {
        if !self.keep_if(open || shared.inputs.settings.roomy()) {
            return;
        }
        let comparison = shared.comparison.map(|(_, revision)| revision);
        if self.renew((shared.lookups_revision, comparison, shared.step)) {
            self.set(picture(shared));
            shared.counts.plane += 1;
        }
    }
}

/// The picture: compare mode's two sentences, else the explorer's (its first
/// [`MAX_VIEW_TOKENS`] tokens), with input vectors when positions add vectors.
fn picture(shared: &Shared) -> Option<Plane> {
    if shared.inputs.other.is_some() {
        let (Ok(comparison), _) = shared.comparison? else {
            return None;
        };
        let [a, b] = &comparison.sentences;
        let sentences = [
            Sentence {
                side: Side::A,
                lookups: &a.lookups,
                current: None,
            },
            Sentence {
                side: Side::B,
                lookups: &b.lookups,
                current: None,
            },
        ];
        return plane(&sentences, comparison.scheme.is_additive());
    }
    let lookups = shared.lookups;
    let shown = lookups.len().min(MAX_VIEW_TOKENS);
    let step = shared.step;
    let sentence = Sentence {
        side: Side::Only,
        lookups: &lookups[..shown],
        current: (step < shown).then_some(step),
    };
    plane(&[sentence], shared.inputs.scheme.is_additive())
}
