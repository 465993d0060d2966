//! What a pane beside the matrix derives, and what it derives from: the [`PaneMemo`] each
//! pane keeps in the derive step's [`Views`](super::Views), and [`Shared`], the values every
//! pane may read. Knows no pane, so a pane's derive step can use it without a loop back.

use std::sync::Arc;

use ndarray::Array1;

use super::cell::Cell;
use super::settings::Settings;
use super::sources::RealLayer;
use crate::core::analysis::attention::{AttentionWeights, MAX_VIEW_TOKENS};
use crate::core::analysis::compare::Comparison;
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::weights::{EmbeddingModel, TokenLookup};
use crate::core::text::vocabulary::Token;

/// A pane's derived data: the cells the derive step keeps for it, and how they are derived.
///
/// The derive step calls [`PaneMemo::derive`] after every update, for every pane: an open
/// pane recomputes what the key of each cell says is stale, a closed one forgets its values
/// (and stops their work). A pane with nothing to derive keeps `()`.
pub trait PaneMemo: Default {
    /// Recomputes what is stale when `open`, else forgets.
    fn derive(&mut self, shared: &mut Shared, open: bool) {
        let _ = (shared, open);
    }

    /// Whether whole-matrix work of the pane runs on a worker (the explorer says it is
    /// scanning).
    fn busy(&self) -> bool {
        false
    }
}

impl PaneMemo for () {}

/// The inputs the derive step reads, borrowed from the app's parts.
pub struct Inputs<'a> {
    /// The model in use.
    pub model: &'a Arc<EmbeddingModel>,
    /// Changes when the model in use changes.
    pub model_revision: u64,
    /// The sentence.
    pub text: &'a str,
    /// Changes when the sentence changes.
    pub text_revision: u64,
    /// The explorer's switches.
    pub settings: &'a Settings,
    /// The position scheme applied to the lookups (the one in force on this model, none with
    /// positions off).
    pub scheme: PositionScheme,
    /// Compare mode's second sentence and its revision, while compare mode is on.
    pub other: Option<(&'a str, u64)>,
    /// The seed of the attention head.
    pub seed: u64,
    /// Tables with at least this many numbers are scanned on a worker thread.
    pub background_scan_from: usize,
    /// The model's own layer 0, if the model in use has one.
    pub layer0: RealLayer<'a>,
    /// Layer 0 runs with at least this many multiply-adds run on a worker thread.
    pub background_layer0_from: usize,
}

impl Inputs<'_> {
    /// Whether the model's table is large enough that work reading all of it goes to a worker.
    #[must_use]
    pub fn is_large(&self) -> bool {
        let model = self.model;
        model.rows().saturating_mul(model.dims()) >= self.background_scan_from
    }
}

/// How many times each derived thing has been computed since the explorer started: what the
/// tests count to show that a key press recomputes only what it must.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recomputations {
    /// The table's typical magnitude.
    pub scale: usize,
    /// The sentence's tokens.
    pub tokens: usize,
    /// Each token's lookup.
    pub lookups: usize,
    /// The seeded attention head.
    pub head: usize,
    /// Compare mode's comparison.
    pub comparison: usize,
    /// The attention pane's head over the sentence.
    pub attention: usize,
    /// The similarity pane's cosine matrix.
    pub cosine: usize,
    /// The similarity pane's nearest rows.
    pub nearest: usize,
    /// The one-hot pane's product.
    pub one_hot: usize,
    /// The model's own layer 0 over the sentence (started, on a worker or at once).
    pub layer0: usize,
    /// The picture's projection.
    pub plane: usize,
}

/// The seeded attention head, drawn once per model width and seed.
pub type SeededHead = Cell<(usize, u64), Arc<AttentionWeights>>;

/// The head for `dims` and `seed` from `cell`, drawn (and counted) only when they changed.
pub fn seeded_head(
    cell: &mut SeededHead,
    counts: &mut Recomputations,
    dims: usize,
    seed: u64,
) -> Arc<AttentionWeights> {
    if let Some(head) = cell.get().filter(|_| cell.key() == Some(&(dims, seed))) {
        return Arc::clone(head);
    }
    counts.head += 1;
    let head = Arc::new(AttentionWeights::seeded(dims, seed));
    cell.update((dims, seed), || Some(Arc::clone(&head)));
    head
}

/// What every pane's derive step may read: the inputs, the current token, and what the
/// derive step made before the panes (the tokens, their lookups, compare mode's comparison),
/// with the seeded head drawn on demand and the counts of what was computed.
pub struct Shared<'a> {
    /// The derive step's inputs.
    pub inputs: &'a Inputs<'a>,
    /// The current token.
    pub step: usize,
    /// The sentence's tokens.
    pub tokens: &'a [Token],
    /// Moves each time the sentence is read anew.
    pub tokens_revision: u64,
    /// Each token's lookup under the scheme in force.
    pub lookups: &'a [TokenLookup],
    /// Moves each time the lookups are made anew.
    pub lookups_revision: u64,
    /// Compare mode's comparison (or why there is none) and its revision, while compare mode
    /// is on and it has been made.
    pub comparison: Option<(Result<&'a Comparison, &'a str>, u64)>,
    /// The seeded attention head, shared with compare mode.
    pub head: &'a mut SeededHead,
    /// How many times each derived thing has been computed.
    pub counts: &'a mut Recomputations,
}

impl Shared<'_> {
    /// The seeded attention head for the model's width.
    pub fn seeded_head(&mut self) -> Arc<AttentionWeights> {
        let inputs = self.inputs;
        seeded_head(self.head, self.counts, inputs.model.dims(), inputs.seed)
    }

    /// The input vectors the attention and similarity panes take (the first
    /// [`MAX_VIEW_TOKENS`] with one), with their positions.
    #[must_use]
    pub fn view_inputs(&self) -> (Vec<Array1<f32>>, Vec<usize>) {
        self.lookups
            .iter()
            .filter_map(|l| l.input_vector.clone().map(|v| (v, l.token.position)))
            .take(MAX_VIEW_TOKENS)
            .unzip()
    }
}
