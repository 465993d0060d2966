//! The derive step: everything computed from the explorer's inputs, recomputed after each
//! `update` exactly where an input it depends on has changed.
//!
//! Every derived value is a [`Cell`]: it remembers the key it was computed for (revisions of
//! the text, the model and the values it is made from, the switches it reads); when the key is
//! unchanged it is not touched, and a closed pane's cells are cleared. Nothing outside this
//! file computes lookups, comparisons or pane data, and no mutator asks for a refresh. A new
//! pane adds a cell to [`Views`], a function that derives it and that function's call in
//! [`Derived::derive_views`].

use std::sync::Arc;

use ndarray::{Array1, Array2};

use super::cell::Cell;
use super::layer0::runs_in_background;
use super::scan::{self, NEAREST_ROWS, NearestPair, Scales};
use super::settings::Settings;
use super::sources::RealLayer;
use crate::core::analysis::attention::{AttentionWeights, HeadPattern, Mask, self_attention};
use crate::core::analysis::compare::{Comparison, MAX_COMPARED_TOKENS, compare_with_head};
use crate::core::analysis::layer0::Layer0;
use crate::core::analysis::layer0::heads::HeadResult;
use crate::core::analysis::plane::{Plane, Sentence, Side, plane};
use crate::core::analysis::schemes::{
    AlibiRow, RopeTurn, TurnedCopies, alibi_row, rope_turn, turned_copies,
};
use crate::core::analysis::similarity::{cosine_matrix, nearest_rows, one_hot_product};
use crate::core::explain::layer0::{PairError, SentencePair, SentenceRun};
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::weights::{EmbeddingModel, TokenLookup};
use crate::core::text::sentence::{self, ReadSentence, Unread};
use crate::core::text::vocabulary::Token;
use crate::view_state::Detail;

pub use crate::core::analysis::attention::MAX_VIEW_TOKENS;

/// What the lesson panes show, a cell each; only the open pane's cells hold values (and the
/// current word's copies under `RoPE`, which the lesson shows too).
#[derive(Default)]
pub struct Views {
    /// One head of self-attention over the sentence's first tokens.
    pub attention: Cell<AttentionKey, HeadPattern>,
    /// The seeded head under `RoPE`: the current token's input vector turned at its position
    /// (none when it has no row). Keyed by the lookups' revision and the current token.
    pub rope: Cell<(u64, usize), RopeTurn>,
    /// The seeded head under `ALiBi`: the biases on the current token's scores. Keyed by the
    /// head's revision and the current token.
    pub alibi: Cell<(u64, usize), AlibiRow>,
    /// The current word and its first other copy, before and after `RoPE` turns them. Keyed
    /// by the lookups' revision and the current token.
    pub rope_copies: Cell<(u64, usize), TurnedCopies>,
    /// Cosine similarities between the sentence's input vectors, keyed by the lookups'.
    pub cosine: Cell<u64, Array2<f64>>,
    /// The current token's nearest rows by cosine: its token vector, then its input vector.
    /// Keyed by the lookups' revision and the current token.
    pub nearest: Cell<(u64, usize), NearestPair>,
    /// The current row computed as one-hot(id) × W (none when the id has no row). Keyed by
    /// the model's revision, whether its tables are ready, and the current token's id.
    pub one_hot: Cell<(u64, bool, Option<usize>), Array1<f32>>,
    /// The sentence's vectors (compare mode: both sentences') on their top two principal axes.
    /// Keyed by the lookups' revision, the comparison's, and the current token.
    pub plane: Cell<(u64, Option<u64>, usize), Plane>,
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

/// The sentence as read, and the rows its tokens look up.
struct Reading {
    read: ReadSentence,
    /// Sorted, without repeats.
    used_rows: Vec<usize>,
}

impl Reading {
    fn of(read: ReadSentence) -> Self {
        let mut used_rows: Vec<usize> = read.tokens.iter().filter_map(|token| token.id).collect();
        used_rows.sort_unstable();
        used_rows.dedup();
        Self { read, used_rows }
    }
}

/// Everything derived from the inputs, a cell each.
#[derive(Default)]
pub struct Derived {
    /// The tables' typical magnitudes (a large table's sampled on a worker), keyed by the
    /// model's revision and whether its tables are ready.
    scales: Cell<(u64, bool), Scales>,
    /// The sentence read, keyed by the text's and the model's revisions and the reading
    /// switches; its revision moves when the tokens change (not when only the unread tail of
    /// a long text does).
    reading: Cell<(u64, u64, bool, bool, bool), Reading>,
    /// Each token's lookup, keyed by the reading's revision, the scheme and whether the tables
    /// are ready.
    lookups: Cell<(u64, PositionScheme, bool), Vec<TokenLookup>>,
    /// The seeded attention head, keyed by the model's width and the seed.
    head: Cell<(usize, u64), Arc<AttentionWeights>>,
    /// Compare mode's comparison, keyed by the lookups' revision, the second sentence's and
    /// the mask.
    comparison: Cell<(u64, u64, Mask), Result<Comparison, String>>,
    /// Compare mode on the model's own layer 0, keyed by the reading's revision, the second
    /// sentence's, and the position and special-token switches.
    real_comparison: Cell<(u64, u64, bool, bool), Result<SentencePair, String>>,
    /// The model's own layer 0 over the sentence, keyed by the reading's revision and the
    /// position switch.
    layer0: Cell<(u64, bool), Result<Arc<SentenceRun>, String>>,
    views: Views,
    counts: Recomputations,
}

/// What a derive step changed that the rest of the explorer follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct Changed {
    /// The sentence was read anew: its tokens may differ.
    pub tokens: bool,
}

impl Derived {
    /// Recomputes what depends on an input that changed since the last call, and nothing else,
    /// up to the panes' views ([`Derived::derive_views`], which depend on the current token
    /// too); says what changed, so the navigation can follow new tokens.
    pub fn derive(&mut self, inputs: &Inputs) -> Changed {
        let model = inputs.model;
        let ready = model.is_ready();
        if self.scales.renew((inputs.model_revision, ready)) {
            // Drawn at scale 1 for the moment a large table's sample takes on the worker.
            if is_large(inputs) {
                self.scales.start(scan::scales(model));
            } else {
                self.scales.set(Some(Scales::of(model)));
            }
            self.counts.scale += 1;
        }
        self.scales.poll();
        let tokens = self.derive_tokens(inputs);
        let scheme = inputs.settings.active_scheme();
        let key = (self.reading.revision(), scheme, ready);
        let read = &self.reading;
        if self
            .lookups
            .update(key, || Some(model.embed(tokens_of(read), scheme)))
        {
            self.counts.lookups += 1;
        }
        self.derive_comparison(inputs);
        Changed { tokens }
    }

    /// Reads the sentence anew when the text, the model or a reading switch changed; says
    /// whether any of them did.
    fn derive_tokens(&mut self, inputs: &Inputs) -> bool {
        let settings = inputs.settings;
        // While the tokenizer is built on its worker there are no tokens yet; read when it is.
        let waiting = !settings.ids && inputs.model.text_pending();
        let key = (
            inputs.text_revision,
            inputs.model_revision,
            settings.special_tokens,
            settings.ids,
            waiting,
        );
        if self.reading.key() == Some(&key) {
            return false;
        }
        // The same model and switches: an edit of the text alone may leave the tokens as read
        // (it only touched the unread tail of a long text); if so, the unread part is counted
        // anew.
        let same_reading = self
            .reading
            .key()
            .is_some_and(|&(_, model, special, ids, waited)| {
                (model, special, ids, waited) == (key.1, key.2, key.3, key.4)
            });
        if same_reading
            && let Some(reading) = self.reading.get_mut()
            && let Some(unread) = reading.read.reread(inputs.text)
        {
            reading.read.unread = Some(unread);
            self.reading.rekey(key);
            return true;
        }
        self.reading.update(key, || {
            if waiting {
                return Some(Reading::of(ReadSentence::default()));
            }
            let read = sentence::read(
                inputs.model,
                inputs.text,
                settings.special_tokens,
                settings.ids,
            );
            Some(Reading::of(read.unwrap_or_default()))
        });
        self.counts.tokens += 1;
        true
    }

    /// The attention head for the model's width, drawn once per width from the seed.
    fn head(&mut self, dims: usize, seed: u64) -> Arc<AttentionWeights> {
        if let Some(head) = self
            .head
            .get()
            .filter(|_| self.head.key() == Some(&(dims, seed)))
        {
            return Arc::clone(head);
        }
        self.counts.head += 1;
        let head = Arc::new(AttentionWeights::seeded(dims, seed));
        self.head.update((dims, seed), || Some(Arc::clone(&head)));
        head
    }

    fn derive_comparison(&mut self, inputs: &Inputs) {
        let model = inputs.model;
        let Some((other, other_revision)) = inputs.other.filter(|_| model.is_ready()) else {
            // Off, or the tables are not made yet: no comparison, and none left from before.
            self.comparison.clear();
            self.real_comparison.clear();
            return;
        };
        self.derive_real_comparison(inputs, other, other_revision);
        let mask = inputs.settings.mask;
        if self
            .comparison
            .renew((self.lookups.revision(), other_revision, mask))
        {
            let head = self.head(model.dims(), inputs.seed);
            let scheme = inputs.settings.active_scheme();
            self.comparison.set(Some(
                compare_with_head(
                    model,
                    inputs.text,
                    other,
                    scheme,
                    mask,
                    &head,
                    inputs.settings.ids,
                )
                .map_err(|error| format!("{error:#}")),
            ));
            self.counts.comparison += 1;
        }
    }

    /// Compare mode on the model's own layer 0: both sentences, without or with its positions.
    fn derive_real_comparison(&mut self, inputs: &Inputs, other: &str, other_revision: u64) {
        let RealLayer::Open(layer) = inputs.layer0 else {
            self.real_comparison.clear();
            return;
        };
        let settings = inputs.settings;
        let key = (
            self.reading.revision(),
            other_revision,
            settings.overlay,
            settings.special_tokens,
        );
        if self.real_comparison.renew(key) {
            let model = Arc::clone(inputs.model);
            let a = tokens_of(&self.reading).to_vec();
            // B is read as A is: as ids when they were asked for or the model reads no text.
            let b = sentence::read(&model, other, settings.special_tokens, settings.ids)
                .map(|read| read.tokens)
                .unwrap_or_default();
            let with_positions = settings.overlay;
            let tokens = a.len().max(b.len()).min(MAX_COMPARED_TOKENS);
            let background = runs_in_background(layer, 2 * tokens, inputs.background_layer0_from);
            let layer = Arc::clone(layer);
            let work = move || {
                SentencePair::compute(
                    &layer,
                    [&a, &b],
                    MAX_COMPARED_TOKENS.min(layer.token_limit().tokens()),
                    with_positions,
                )
                .map_err(|error| pair_error(&error))
            };
            if background {
                self.real_comparison.start(move |_| Some(work()));
            } else {
                self.real_comparison.set(Some(work()));
            }
        }
        self.real_comparison.poll();
    }

    /// Recomputes the open panes' views for the current token `step`, clearing the closed
    /// panes'.
    pub fn derive_views(&mut self, inputs: &Inputs, step: usize) {
        let detail = inputs.settings.detail;
        self.derive_rope_copies(step);
        // The picture is kept for its pane, and on a roomy terminal for the space beside the
        // readout.
        self.derive_plane(
            inputs,
            step,
            detail == Detail::Picture || inputs.settings.roomy(),
        );
        self.derive_attention(inputs, step, detail == Detail::Attention);
        self.derive_similarity(inputs, step, detail == Detail::Similarity);
        self.derive_one_hot(inputs, step, detail == Detail::OneHot);
    }

    /// The current word's copies before and after `RoPE`'s turns.
    fn derive_rope_copies(&mut self, step: usize) {
        let (read, lookups) = (&self.reading, &self.lookups);
        self.views
            .rope_copies
            .update((lookups.revision(), step), || {
                turned_copies(tokens_of(read), lookups_of(lookups), step)
            });
    }

    /// The attention pane's head: the model's own layer 0 when it has one, else the seeded
    /// head, with what its position scheme does for the current token.
    fn derive_attention(&mut self, inputs: &Inputs, step: usize, open: bool) {
        let real = match inputs.layer0 {
            RealLayer::Open(layer) if open => Some(layer),
            _ => None,
        };
        let seeded = open && real.is_none();
        let scheme = inputs.settings.active_scheme();
        self.layer0.keep_if(real.is_some());
        self.views
            .rope
            .keep_if(seeded && scheme == PositionScheme::Rope);
        self.views
            .alibi
            .keep_if(seeded && scheme == PositionScheme::Alibi);
        if !self.views.attention.keep_if(open) {
            return;
        }
        if let Some(layer) = real {
            self.derive_layer0(inputs, layer);
            return;
        }
        let mask = inputs.settings.mask;
        let key = AttentionKey::Seeded {
            lookups: self.lookups.revision(),
            mask,
        };
        if self.views.attention.renew(key) {
            let (vectors, positions) = self.view_inputs();
            if !vectors.is_empty() {
                let head = self.head(inputs.model.dims(), inputs.seed);
                let pattern = self_attention(&vectors, &positions, &head, mask, scheme);
                self.views.attention.set(Some(pattern.into()));
            }
            self.counts.attention += 1;
        }
        let lookups = &self.lookups;
        if scheme == PositionScheme::Rope {
            self.views.rope.update((lookups.revision(), step), || {
                lookups_of(lookups).get(step).and_then(rope_turn)
            });
        }
        if scheme == PositionScheme::Alibi {
            let attention = &self.views.attention;
            let key = (attention.revision(), step);
            self.views.alibi.update(key, || {
                alibi_of(attention.get()?, lookups_of(lookups), step)
            });
        }
    }

    /// The model's own layer 0 over the sentence, and the head the pane shows.
    fn derive_layer0(&mut self, inputs: &Inputs, layer: &Arc<Layer0>) {
        let with_positions = inputs.settings.overlay;
        if self.layer0.renew((self.reading.revision(), with_positions)) {
            // Nothing from before stays on screen while the new run is computed.
            let tokens = tokens_of(&self.reading).to_vec();
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
            self.counts.layer0 += 1;
        }
        self.layer0.poll();
        let Some(Ok(view)) = self.layer0.get() else {
            self.views.attention.clear();
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
            .views
            .attention
            .update(key, || view.run.heads.get(head).map(HeadResult::pattern))
        {
            self.counts.attention += 1;
        }
    }

    /// The similarity pane's cosine matrix and the current token's nearest rows: at once for
    /// a small table, on a worker for a large one (cancelling the scan it supersedes).
    fn derive_similarity(&mut self, inputs: &Inputs, step: usize, open: bool) {
        let open = self.views.cosine.keep_if(open);
        if !self.views.nearest.keep_if(open) {
            return;
        }
        let lookups = self.lookups.revision();
        if self.views.cosine.renew(lookups) {
            let (vectors, _) = self.view_inputs();
            self.views
                .cosine
                .set((!vectors.is_empty()).then(|| cosine_matrix(&vectors)));
            self.counts.cosine += 1;
        }
        // A scan finished since the last key: its answer, seen from the next frame on.
        self.views.nearest.poll();
        if self.views.nearest.renew((lookups, step)) {
            self.start_nearest(inputs, step);
            self.counts.nearest += 1;
        }
    }

    /// Finds the current token's nearest rows.
    fn start_nearest(&mut self, inputs: &Inputs, step: usize) {
        let Some(lookup) = lookups_of(&self.lookups).get(step) else {
            return;
        };
        let (Some(token), Some(input)) = (&lookup.token_vector, &lookup.input_vector) else {
            return;
        };
        let model = inputs.model;
        if is_large(inputs) {
            let work = scan::nearest(model, token.clone(), input.clone());
            self.views.nearest.start(work);
            return;
        }
        let table = model.token_table();
        self.views.nearest.set(Some((
            nearest_rows(table, token.view(), NEAREST_ROWS),
            nearest_rows(table, input.view(), NEAREST_ROWS),
        )));
    }

    /// The current row as one-hot(id) × W: at once for a small table, on a worker for a
    /// large one (cancelling the product it supersedes).
    fn derive_one_hot(&mut self, inputs: &Inputs, step: usize, open: bool) {
        if !self.views.one_hot.keep_if(open) {
            return;
        }
        let id = tokens_of(&self.reading)
            .get(step)
            .and_then(|token| token.id);
        let model = inputs.model;
        // A product finished since the last key: its answer, seen from the next frame on.
        self.views.one_hot.poll();
        if self
            .views
            .one_hot
            .renew((inputs.model_revision, model.is_ready(), id))
        {
            match id {
                Some(id) if is_large(inputs) => self.views.one_hot.start(scan::one_hot(model, id)),
                Some(id) => self
                    .views
                    .one_hot
                    .set(one_hot_product(model.token_table(), id)),
                None => {}
            }
            self.counts.one_hot += 1;
        }
    }

    /// The picture, when `wanted`.
    fn derive_plane(&mut self, inputs: &Inputs, step: usize, wanted: bool) {
        if !self.views.plane.keep_if(wanted) {
            return;
        }
        let comparison = self
            .comparison
            .get()
            .filter(|_| inputs.other.is_some())
            .map(|_| self.comparison.revision());
        if self
            .views
            .plane
            .renew((self.lookups.revision(), comparison, step))
        {
            let plane = self.plane(inputs, step);
            self.views.plane.set(plane);
            self.counts.plane += 1;
        }
    }

    /// The picture: compare mode's two sentences, else the explorer's (its first
    /// [`MAX_VIEW_TOKENS`] tokens), with input vectors when positions add vectors.
    fn plane(&self, inputs: &Inputs, step: usize) -> Option<Plane> {
        if inputs.other.is_some() {
            let comparison = self.comparison.get()?.as_ref().ok()?;
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
        let lookups = self.lookups();
        let shown = lookups.len().min(MAX_VIEW_TOKENS);
        let sentence = Sentence {
            side: Side::Only,
            lookups: &lookups[..shown],
            current: (step < shown).then_some(step),
        };
        plane(&[sentence], inputs.settings.active_scheme().is_additive())
    }

    /// Whether the model's own layer 0 is being computed on a worker.
    #[must_use]
    pub fn computing_layer0(&self) -> bool {
        self.layer0.busy() || self.real_comparison.busy()
    }

    /// The model's own layer 0 over the sentence: `None` while it is computed (or when the
    /// attention pane is closed or there is no such layer), else the run or why there is none.
    #[must_use]
    pub fn layer0_view(&self) -> Option<Result<&SentenceRun, &str>> {
        self.layer0
            .get()
            .map(|view| view.as_deref().map_err(String::as_str))
    }

    /// Compare mode on the model's own layer 0: `None` while it is computed or when there is
    /// no such layer.
    #[must_use]
    pub fn real_comparison(&self) -> Option<Result<&SentencePair, &str>> {
        self.real_comparison
            .get()
            .map(|result| result.as_ref().map_err(String::as_str))
    }

    /// Whether whole-matrix work is running on a worker: the similarity pane's nearest rows,
    /// the one-hot pane's product, or the tables' typical magnitudes.
    #[must_use]
    pub fn scanning(&self) -> bool {
        self.views.nearest.busy() || self.views.one_hot.busy() || self.scales.busy()
    }

    /// The input vectors the attention and similarity panes take, with their positions.
    fn view_inputs(&self) -> (Vec<Array1<f32>>, Vec<usize>) {
        self.lookups()
            .iter()
            .filter_map(|l| l.input_vector.clone().map(|v| (v, l.token.position)))
            .take(MAX_VIEW_TOKENS)
            .unzip()
    }

    /// The sentence's tokens.
    #[must_use]
    pub fn tokens(&self) -> &[Token] {
        tokens_of(&self.reading)
    }

    /// The text after the last token read, when the sentence is longer than the explorer reads.
    #[must_use]
    pub fn unread(&self) -> Option<&Unread> {
        self.reading.get()?.read.unread.as_ref()
    }

    /// Whether some token of the sentence looks up row `id` (a binary search, not a scan).
    #[must_use]
    pub fn uses_row(&self, id: usize) -> bool {
        self.reading
            .get()
            .is_some_and(|reading| reading.used_rows.binary_search(&id).is_ok())
    }

    /// Each token's lookup under the active scheme.
    #[must_use]
    pub fn lookups(&self) -> &[TokenLookup] {
        lookups_of(&self.lookups)
    }

    /// Whether the lookups wait for a table that is still being generated.
    #[must_use]
    pub fn lookups_pending(&self) -> bool {
        self.lookups.key().is_some_and(|&(_, _, ready)| !ready)
    }

    /// The table's typical magnitude.
    #[must_use]
    pub fn value_scale(&self) -> f32 {
        self.scales.get().copied().unwrap_or_default().token
    }

    /// The learned position table's typical magnitude, when the model has one.
    #[must_use]
    pub fn position_scale(&self) -> Option<f32> {
        self.scales.get().copied().unwrap_or_default().position
    }

    /// Compare mode's comparison: `Err("")` before there is one.
    ///
    /// # Errors
    /// Why there is none, such as a word without a row.
    pub fn comparison(&self) -> Result<&Comparison, &str> {
        match self.comparison.get() {
            Some(result) => result.as_ref().map_err(String::as_str),
            None => Err(""),
        }
    }

    /// What the lesson panes show.
    #[must_use]
    pub fn views(&self) -> &Views {
        &self.views
    }

    /// How many times each derived thing has been computed.
    #[must_use]
    pub fn counts(&self) -> Recomputations {
        self.counts
    }
}

/// The tokens read (none before the first reading).
fn tokens_of<K>(reading: &Cell<K, Reading>) -> &[Token] {
    reading.get().map_or(&[], |reading| &reading.read.tokens)
}

/// The lookups made (none before the first).
fn lookups_of<K>(lookups: &Cell<K, Vec<TokenLookup>>) -> &[TokenLookup] {
    lookups.get().map_or(&[], Vec::as_slice)
}

/// `ALiBi`'s biases on the current token's (`step`'s) scores in `attention`, whose rows are
/// the tokens with an input vector, as [`Derived::view_inputs`] takes them.
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

/// Whether the model's table is large enough that work reading all of it goes to a worker.
fn is_large(inputs: &Inputs) -> bool {
    let model = inputs.model;
    model.rows().saturating_mul(model.dims()) >= inputs.background_scan_from
}

/// Why compare mode's sentences cannot go through the model's own layer 0, as the compare pane
/// says it.
fn pair_error(error: &PairError) -> String {
    let name = |sentence: usize| if sentence == 0 { "A" } else { "B" };
    match error {
        PairError::NoTokens { sentence } => format!("sentence {} has no tokens", name(*sentence)),
        PairError::MissingRow { sentence, missing } => format!(
            "'{}' in sentence {} has no row in the model's table",
            missing.text,
            name(*sentence)
        ),
        PairError::Run(why) => why.clone(),
    }
}
