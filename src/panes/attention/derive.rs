//! The attention pane's derive step: the head over the sentence (the model's own layer 0 when
//! it has one, else the seeded head), and what the seeded head's position scheme does for the
//! current token (`RoPE`'s turn, `ALiBi`'s biases).

use std::sync::Arc;

use crate::app::cell::Cell;
use crate::app::layer0::runs_in_background;
use crate::app::memo::{PaneMemo, Shared};
use crate::app::sources::RealLayer;
use crate::core::analysis::attention::{HeadPattern, MAX_VIEW_TOKENS, Mask, self_attention};
use crate::core::analysis::layer0::Layer0;
use crate::core::analysis::layer0::heads::HeadResult;
use crate::core::analysis::schemes::{AlibiRow, RopeTurn, alibi_row, rope_turn};
use crate::core::explain::layer0::SentenceRun;
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::weights::TokenLookup;

/// What the attention pane derives.
#[derive(Default)]
pub struct Memo {
    /// One head of self-attention over the sentence's first tokens.
    pub pattern: Cell<AttentionKey, HeadPattern>,
    /// The seeded head under `RoPE`: the current token's input vector turned at its position
    /// (none when it has no row). Keyed by the lookups' revision and the current token.
    pub rope: Cell<(u64, usize), RopeTurn>,
    /// The seeded head under `ALiBi`: the biases on the current token's scores. Keyed by the
    /// head's revision and the current token.
    pub alibi: Cell<(u64, usize), AlibiRow>,
    /// The model's own layer 0 over the sentence, keyed by the reading's revision and the
    /// position switch.
    pub layer0: Cell<(u64, bool), Result<Arc<SentenceRun>, String>>,
}

/// What the attention pane's head was computed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttentionKey {
    /// The seeded head over the lookups (their revision) under a mask.
    Seeded {
        /// The lookups' revision.
        lookups: u64,
        /// The mask.
        mask: Mask,
    },
    /// A head of the model's own layer 0, from its run over the sentence (its revision).
    Layer0 {
        /// The run's revision.
        run: u64,
        /// The head shown.
        head: usize,
    },
}

impl PaneMemo for Memo {
    fn derive(&mut self, shared: &mut Shared, open: bool) {
        let inputs = shared.inputs;
        let real = match inputs.layer0 {
            RealLayer::Open(layer) if open => Some(layer),
            _ => None,
        };
        let seeded = open && real.is_none();
        let scheme = inputs.scheme;
        self.layer0.keep_if(real.is_some());
        self.rope.keep_if(seeded && scheme == PositionScheme::Rope);
        self.alibi
            .keep_if(seeded && scheme == PositionScheme::Alibi);
        if !self.pattern.keep_if(open) {
            return;
        }
        if let Some(layer) = real {
            self.derive_layer0(shared, layer);
            return;
        }
        let mask = inputs.settings.mask;
        let key = AttentionKey::Seeded {
            lookups: shared.lookups_revision,
            mask,
        };
        if self.pattern.renew(key) {
            let (vectors, positions) = shared.view_inputs();
            if !vectors.is_empty() {
                let head = shared.seeded_head();
                let pattern = self_attention(&vectors, &positions, &head, mask, scheme);
                self.pattern.set(Some(pattern.into()));
            }
            shared.counts.attention += 1;
        }
        let (lookups, step) = (shared.lookups, shared.step);
        if scheme == PositionScheme::Rope {
            self.rope.update((shared.lookups_revision, step), || {
                lookups.get(step).and_then(rope_turn)
            });
        }
        if scheme == PositionScheme::Alibi {
            let pattern = &self.pattern;
            let key = (pattern.revision(), step);
            self.alibi
                .update(key, || alibi_of(pattern.get()?, lookups, step));
        }
    }
}

impl Memo {
    /// The model's own layer 0 over the sentence, and the head the pane shows.
    fn derive_layer0(&mut self, shared: &mut Shared, layer: &Arc<Layer0>) {
        let inputs = shared.inputs;
        let with_positions = inputs.settings.overlay;
        if self.layer0.renew((shared.tokens_revision, with_positions)) {
            // Nothing from before stays on screen while the new run is computed.
            let tokens = shared.tokens.to_vec();
            let count = tokens.len().min(MAX_VIEW_TOKENS);
            // The sentence and its reversal.
            let background = runs_in_background(layer, 2 * count, inputs.background_layer0_from);
            let layer = Arc::clone(layer);
            let work = move || {
                SentenceRun::compute(&layer, &tokens, MAX_VIEW_TOKENS, with_positions).map(Arc::new)
            };
            if background {
                self.layer0.start(move |_| Some(work()));
            } else {
                self.layer0.set(Some(work()));
            }
            shared.counts.layer0 += 1;
        }
        self.layer0.poll();
        let Some(Ok(view)) = self.layer0.get() else {
            self.pattern.clear();
            return;
        };
        let head = inputs
            .settings
            .head
            .min(view.run.heads.len().saturating_sub(1));
        let key = AttentionKey::Layer0 {
            run: self.layer0.revision(),
            head,
        };
        if self
            .pattern
            .update(key, || view.run.heads.get(head).map(HeadResult::pattern))
        {
            shared.counts.attention += 1;
        }
    }
}

/// `ALiBi`'s biases on the current token's (`step`'s) scores in `attention`, whose rows are
/// the tokens with an input vector, as [`Shared::view_inputs`] takes them.
fn alibi_of(attention: &HeadPattern, lookups: &[TokenLookup], step: usize) -> Option<AlibiRow> {
    let (members, positions): (Vec<usize>, Vec<usize>) = lookups
        .iter()
        .enumerate()
        .filter(|(_, lookup)| lookup.input_vector.is_some())
        .map(|(index, lookup)| (index, lookup.token.position))
        .take(MAX_VIEW_TOKENS.min(attention.scores.nrows()))
        .unzip();
    let row = members.iter().position(|&index| index == step)?;
    alibi_row(attention.scores.row(row), &positions, row)
}
