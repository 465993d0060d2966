//! The derive step: everything computed from the explorer's inputs, recomputed after each
//! `update` exactly where an input it depends on has changed.
//!
//! Each derived thing remembers the key it was computed for (revisions of the text and the
//! model, the switches it reads); when the key is unchanged it is not touched. Nothing outside
//! this file computes lookups, comparisons or pane data, and no mutator asks for a refresh.

use std::sync::Arc;

use ndarray::{Array1, Array2};

use super::job::{Job, Progress, Worker};
use super::layer0::runs_in_background;
use super::scan::{self, NEAREST_ROWS, NearestPair, Neighbours, Scales};
use super::settings::Settings;
use super::sources::RealLayer;
use crate::core::analysis::attention::{AttentionWeights, HeadPattern, Mask, self_attention};
use crate::core::analysis::compare::{Comparison, MAX_COMPARED_TOKENS, compare_with_head};
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
/// What the lesson panes show; only the open pane's data is kept (and the current word's
/// copies under `RoPE`, which the lesson shows too).
#[derive(Default)]
pub struct Views {
    /// One head of self-attention over the sentence's first tokens.
    pub attention: Option<HeadPattern>,
    /// The seeded head under `RoPE`: the current token's input vector turned at its position.
    pub rope: Option<RopeTurn>,
    /// The seeded head under `ALiBi`: the biases on the current token's scores.
    pub alibi: Option<AlibiRow>,
    /// The current word and its first other copy, before and after `RoPE` turns them.
    pub rope_copies: Option<TurnedCopies>,
    /// Cosine similarities between the sentence's input vectors.
    pub cosine: Option<Array2<f64>>,
    /// The current token's nearest rows by cosine: its token vector, then its input vector.
    pub nearest: Option<(Neighbours, Neighbours)>,
    /// The current row computed as one-hot(id) × W.
    pub one_hot: Option<Array1<f32>>,
    /// The sentence's vectors (compare mode: both sentences') on their top two principal axes.
    pub plane: Option<Plane>,
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

/// The key something was last computed for, and a revision that moves each time it is.
struct Stamp<K> {
    key: Option<K>,
    revision: u64,
}

impl<K: PartialEq> Stamp<K> {
    /// Records `key`; whether it differs from the last one (so the thing must be recomputed).
    fn renew(&mut self, key: K) -> bool {
        if self.key.as_ref() == Some(&key) {
            return false;
        }
        self.key = Some(key);
        self.revision += 1;
        true
    }

    fn clear(&mut self) {
        self.key = None;
    }
}

impl<K> Default for Stamp<K> {
    fn default() -> Self {
        Self {
            key: None,
            revision: 0,
        }
    }
}

/// Everything derived from the inputs, with the keys it was computed for.
#[derive(Default)]
pub struct Derived {
    scale_stamp: Stamp<(u64, bool)>,
    scales: Scales,
    /// The tables' typical magnitudes being sampled on a worker (a large table).
    scales_job: Option<Job<Scales>>,
    tokens_stamp: Stamp<(u64, u64, bool, bool)>,
    /// Moves when the tokens change (not when only the unread tail of a long text does).
    tokens_revision: u64,
    read: ReadSentence,
    used_rows: Vec<usize>,
    lookups_stamp: Stamp<(u64, PositionScheme, bool)>,
    lookups: Vec<TokenLookup>,
    lookups_pending: bool,
    head: Option<Arc<AttentionWeights>>,
    comparison_stamp: Stamp<(u64, u64, Mask)>,
    comparison: Option<Result<Comparison, String>>,
    attention_stamp: Stamp<(u64, Mask)>,
    schemes_stamp: Stamp<(u64, usize)>,
    rope_copies_stamp: Stamp<(u64, usize)>,
    cosine_stamp: Stamp<u64>,
    nearest_stamp: Stamp<(u64, usize)>,
    one_hot_stamp: Stamp<(u64, bool, Option<usize>)>,
    layer0_stamp: Stamp<(u64, bool)>,
    layer0_worker: Worker<Result<Arc<SentenceRun>, String>>,
    layer0_view: Option<Result<Arc<SentenceRun>, String>>,
    head_stamp: Stamp<(u64, usize)>,
    real_comparison_stamp: Stamp<(u64, u64, bool, bool)>,
    real_comparison_worker: Worker<Result<SentencePair, String>>,
    real_comparison: Option<Result<SentencePair, String>>,
    plane_stamp: Stamp<(u64, Option<u64>, usize)>,
    scan: Option<Job<NearestPair>>,
    /// The one-hot product of a large table being computed on a worker.
    one_hot_job: Option<Job<Option<Array1<f32>>>>,
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
        if self.scale_stamp.renew((inputs.model_revision, ready)) {
            // Drawn at scale 1 for the moment a large table's sample takes on the worker.
            self.scales = Scales::default();
            self.scales_job = None;
            if is_large(inputs) {
                self.scales_job = Some(scan::scales(model));
            } else {
                self.scales = Scales::of(model);
            }
            self.counts.scale += 1;
        }
        if let Some(job) = &self.scales_job {
            match job.poll() {
                Progress::Done(scales) => (self.scales, self.scales_job) = (scales, None),
                Progress::Running => {}
                Progress::Ended => self.scales_job = None,
            }
        }
        let tokens = self.derive_tokens(inputs);
        let scheme = inputs.settings.active_scheme();
        if self
            .lookups_stamp
            .renew((self.tokens_revision, scheme, ready))
        {
            self.lookups = model.embed(&self.read.tokens, scheme);
            self.lookups_pending = !ready;
            self.counts.lookups += 1;
        }
        self.derive_comparison(inputs);
        Changed { tokens }
    }

    /// Reads the sentence anew when the text, the model or a reading switch changed; says
    /// whether it did.
    fn derive_tokens(&mut self, inputs: &Inputs) -> bool {
        let model = inputs.model;
        let settings = inputs.settings;
        let key = (
            inputs.text_revision,
            inputs.model_revision,
            settings.special_tokens,
            settings.ids,
        );
        // The same model and switches: an edit of the text alone may leave the tokens as read.
        let same_reading = self
            .tokens_stamp
            .key
            .is_some_and(|(_, model, special, ids)| (model, special, ids) == (key.1, key.2, key.3));
        let renewed = self.tokens_stamp.renew(key);
        let unchanged = renewed && same_reading && self.reread_tail(inputs.text);
        if renewed && !unchanged {
            self.read = sentence::read(model, inputs.text, settings.special_tokens, settings.ids)
                .unwrap_or_default();
            self.tokens_revision += 1;
            self.used_rows = self
                .read
                .tokens
                .iter()
                .filter_map(|token| token.id)
                .collect();
            self.used_rows.sort_unstable();
            self.used_rows.dedup();
            self.counts.tokens += 1;
        }
        renewed
    }

    /// Whether an edit of the text left the tokens read as they were (it only touched the
    /// unread tail of a long text); if so, the unread part is counted anew.
    fn reread_tail(&mut self, text: &str) -> bool {
        match self.read.reread(text) {
            Some(unread) => {
                self.read.unread = Some(unread);
                true
            }
            None => false,
        }
    }

    /// The attention head for the model's width, drawn once per width from the seed.
    fn head(&mut self, dims: usize, seed: u64) -> Arc<AttentionWeights> {
        match &self.head {
            Some(head) if head.input_dims() == dims => Arc::clone(head),
            _ => {
                self.counts.head += 1;
                Arc::clone(
                    self.head
                        .insert(Arc::new(AttentionWeights::seeded(dims, seed))),
                )
            }
        }
    }

    fn derive_comparison(&mut self, inputs: &Inputs) {
        let model = inputs.model;
        let Some((other, other_revision)) = inputs.other.filter(|_| model.is_ready()) else {
            // Off, or the tables are not made yet: no comparison, and none left from before.
            self.comparison = None;
            self.comparison_stamp.clear();
            self.clear_real_comparison();
            return;
        };
        self.derive_real_comparison(inputs, other, other_revision);
        let mask = inputs.settings.mask;
        let key = (self.lookups_stamp.revision, other_revision, mask);
        if self.comparison_stamp.renew(key) {
            let head = self.head(model.dims(), inputs.seed);
            let scheme = inputs.settings.active_scheme();
            self.comparison = Some(
                compare_with_head(model, inputs.text, other, scheme, mask, &head)
                    .map_err(|error| format!("{error:#}")),
            );
            self.counts.comparison += 1;
        }
    }

    /// Compare mode on the model's own layer 0: both sentences, without or with its positions.
    fn derive_real_comparison(&mut self, inputs: &Inputs, other: &str, other_revision: u64) {
        let RealLayer::Open(layer) = inputs.layer0 else {
            self.clear_real_comparison();
            return;
        };
        let settings = inputs.settings;
        let key = (
            self.tokens_revision,
            other_revision,
            settings.overlay,
            settings.special_tokens,
        );
        if self.real_comparison_stamp.renew(key) {
            self.real_comparison = None;
            let model = Arc::clone(inputs.model);
            let a = self.read.tokens.clone();
            let b = model
                .tokenize_with(other, settings.special_tokens)
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
                self.real_comparison_worker
                    .request(self.real_comparison_stamp.revision, work);
            } else {
                self.real_comparison_worker.cancel();
                self.real_comparison = Some(work());
            }
        }
        if let Some((revision, result)) = self.real_comparison_worker.poll()
            && revision == self.real_comparison_stamp.revision
        {
            self.real_comparison = Some(result);
        }
    }

    fn clear_real_comparison(&mut self) {
        self.real_comparison = None;
        self.real_comparison_stamp.clear();
        self.real_comparison_worker.cancel();
    }

    /// The model's own layer 0 over the sentence, and the head the pane shows.
    fn derive_layer0(
        &mut self,
        inputs: &Inputs,
        layer: &Arc<crate::core::analysis::layer0::Layer0>,
    ) {
        let with_positions = inputs.settings.overlay;
        if self
            .layer0_stamp
            .renew((self.tokens_revision, with_positions))
        {
            // Nothing from before stays on screen while the new run is computed.
            self.layer0_view = None;
            self.views.attention = None;
            self.head_stamp.clear();
            let tokens = self.read.tokens.clone();
            let count = tokens.len().min(MAX_VIEW_TOKENS);
            // The sentence and its reversal.
            let background = runs_in_background(layer, 2 * count, inputs.background_layer0_from);
            let layer = Arc::clone(layer);
            let work = move || {
                SentenceRun::compute(&layer, &tokens, MAX_VIEW_TOKENS, with_positions).map(Arc::new)
            };
            if background {
                self.layer0_worker.request(self.layer0_stamp.revision, work);
            } else {
                self.layer0_worker.cancel();
                self.layer0_view = Some(work());
            }
            self.counts.layer0 += 1;
        }
        if let Some((revision, view)) = self.layer0_worker.poll()
            && revision == self.layer0_stamp.revision
        {
            self.layer0_view = Some(view);
        }
        if let Some(Ok(view)) = &self.layer0_view {
            let head = inputs
                .settings
                .head
                .min(view.run.heads.len().saturating_sub(1));
            if self.head_stamp.renew((self.layer0_stamp.revision, head)) {
                self.views.attention = view.run.heads.get(head).map(HeadResult::pattern);
                self.counts.attention += 1;
            }
        }
    }

    fn clear_layer0(&mut self) {
        self.layer0_view = None;
        self.layer0_stamp.clear();
        self.head_stamp.clear();
        self.layer0_worker.cancel();
    }

    /// Recomputes the open panes' views for the current token `step`.
    pub fn derive_views(&mut self, inputs: &Inputs, step: usize) {
        let detail = inputs.settings.detail;
        let lookups_revision = self.lookups_stamp.revision;
        let real = match inputs.layer0 {
            RealLayer::Open(layer) if detail == Detail::Attention => Some(layer),
            _ => None,
        };
        if detail != Detail::Attention || real.is_some() {
            self.attention_stamp.clear();
            self.schemes_stamp.clear();
            (self.views.rope, self.views.alibi) = (None, None);
        }
        if self.rope_copies_stamp.renew((lookups_revision, step)) {
            self.views.rope_copies = turned_copies(&self.read.tokens, &self.lookups, step);
        }
        if detail != Detail::Attention {
            self.views.attention = None;
        }
        if real.is_none() {
            self.clear_layer0();
        }
        if detail != Detail::Similarity {
            (self.views.cosine, self.views.nearest) = (None, None);
            self.cosine_stamp.clear();
            self.nearest_stamp.clear();
            self.scan = None;
        }
        if detail != Detail::OneHot {
            self.views.one_hot = None;
            self.one_hot_stamp.clear();
            self.one_hot_job = None;
        }
        // The picture is kept for its pane, and on a roomy terminal for the space beside the
        // readout.
        let picture = detail == Detail::Picture || inputs.settings.roomy();
        if picture {
            let comparison = self
                .comparison
                .as_ref()
                .filter(|_| inputs.other.is_some())
                .map(|_| self.comparison_stamp.revision);
            if self.plane_stamp.renew((lookups_revision, comparison, step)) {
                self.views.plane = self.plane(inputs, step);
                self.counts.plane += 1;
            }
        } else {
            self.views.plane = None;
            self.plane_stamp.clear();
        }
        match detail {
            Detail::Attention if real.is_some() => {
                if let Some(layer) = real {
                    self.derive_layer0(inputs, layer);
                }
            }
            Detail::Attention => {
                let mask = inputs.settings.mask;
                if self.attention_stamp.renew((lookups_revision, mask)) {
                    let (vectors, positions) = self.view_inputs();
                    self.views.attention = if vectors.is_empty() {
                        None
                    } else {
                        let head = self.head(inputs.model.dims(), inputs.seed);
                        let scheme = inputs.settings.active_scheme();
                        Some(self_attention(&vectors, &positions, &head, mask, scheme).into())
                    };
                    self.counts.attention += 1;
                }
                let key = (self.attention_stamp.revision, step);
                if self.schemes_stamp.renew(key) {
                    self.derive_schemes(inputs, step);
                }
            }
            Detail::Similarity => {
                if self.cosine_stamp.renew(lookups_revision) {
                    let (vectors, _) = self.view_inputs();
                    self.views.cosine = (!vectors.is_empty()).then(|| cosine_matrix(&vectors));
                    self.counts.cosine += 1;
                }
                // A scan finished since the last key: its answer, seen from the next frame on.
                self.collect_scan();
                if self.nearest_stamp.renew((lookups_revision, step)) {
                    self.start_nearest(inputs, step);
                    self.counts.nearest += 1;
                }
            }
            Detail::OneHot => self.derive_one_hot(inputs, step),
            Detail::Lookups | Detail::PositionTable | Detail::Picture => {}
        }
    }

    /// What the seeded head's position scheme does for the current token: `RoPE`'s turn of
    /// its input vector, `ALiBi`'s biases on its scores.
    fn derive_schemes(&mut self, inputs: &Inputs, step: usize) {
        let scheme = inputs.settings.active_scheme();
        self.views.rope = match scheme {
            PositionScheme::Rope => self.lookups.get(step).and_then(rope_turn),
            _ => None,
        };
        self.views.alibi = match (scheme, &self.views.attention) {
            (PositionScheme::Alibi, Some(attention)) => {
                // The head's rows: the tokens with an input vector, as `view_inputs` takes them.
                let (members, positions): (Vec<usize>, Vec<usize>) = self
                    .lookups
                    .iter()
                    .enumerate()
                    .filter(|(_, lookup)| lookup.input_vector.is_some())
                    .map(|(index, lookup)| (index, lookup.token.position))
                    .take(MAX_VIEW_TOKENS.min(attention.scores.nrows()))
                    .unzip();
                members
                    .iter()
                    .position(|&index| index == step)
                    .and_then(|row| alibi_row(attention.scores.row(row), &positions, row))
            }
            _ => None,
        };
    }

    /// The current row as one-hot(id) × W: at once for a small table, on a worker for a
    /// large one (cancelling the product it supersedes).
    fn derive_one_hot(&mut self, inputs: &Inputs, step: usize) {
        let id = self.read.tokens.get(step).and_then(|token| token.id);
        let model = inputs.model;
        // A product finished since the last key: its answer, seen from the next frame on.
        if let Some(job) = &self.one_hot_job {
            match job.poll() {
                Progress::Done(product) => {
                    (self.views.one_hot, self.one_hot_job) = (product, None);
                }
                Progress::Running => {}
                Progress::Ended => self.one_hot_job = None,
            }
        }
        if self
            .one_hot_stamp
            .renew((inputs.model_revision, model.is_ready(), id))
        {
            // The product reads every row: a large table's on a worker, which the next
            // token's supersedes.
            self.one_hot_job = None;
            self.views.one_hot = None;
            match id {
                Some(id) if is_large(inputs) => {
                    self.one_hot_job = Some(scan::one_hot(model, id));
                }
                Some(id) => self.views.one_hot = one_hot_product(model.token_table(), id),
                None => {}
            }
            self.counts.one_hot += 1;
        }
    }

    /// The picture: compare mode's two sentences, else the explorer's (its first
    /// [`MAX_VIEW_TOKENS`] tokens), with input vectors when positions add vectors.
    fn plane(&self, inputs: &Inputs, step: usize) -> Option<Plane> {
        if inputs.other.is_some() {
            let comparison = self.comparison.as_ref()?.as_ref().ok()?;
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
        let shown = self.lookups.len().min(MAX_VIEW_TOKENS);
        let sentence = Sentence {
            side: Side::Only,
            lookups: &self.lookups[..shown],
            current: (step < shown).then_some(step),
        };
        plane(&[sentence], inputs.settings.active_scheme().is_additive())
    }

    /// Finds the current token's nearest rows: at once for a small table, on a worker for a
    /// large one (cancelling the scan it supersedes).
    fn start_nearest(&mut self, inputs: &Inputs, step: usize) {
        self.scan = None;
        self.views.nearest = None;
        let Some(lookup) = self.lookups.get(step) else {
            return;
        };
        let (Some(token), Some(input)) = (&lookup.token_vector, &lookup.input_vector) else {
            return;
        };
        let model = inputs.model;
        if is_large(inputs) {
            self.scan = Some(scan::nearest(model, token.clone(), input.clone()));
            return;
        }
        let table = model.token_table();
        self.views.nearest = Some((
            nearest_rows(table, token.view(), NEAREST_ROWS),
            nearest_rows(table, input.view(), NEAREST_ROWS),
        ));
    }

    /// Takes a finished scan's answer.
    fn collect_scan(&mut self) {
        let Some(scan) = &self.scan else {
            return;
        };
        match scan.poll() {
            Progress::Done(pair) => {
                self.views.nearest = Some(pair);
                self.scan = None;
            }
            Progress::Running => {}
            Progress::Ended => self.scan = None,
        }
    }

    /// Whether the model's own layer 0 is being computed on a worker.
    #[must_use]
    pub fn computing_layer0(&self) -> bool {
        self.layer0_worker.busy() || self.real_comparison_worker.busy()
    }

    /// The model's own layer 0 over the sentence: `None` while it is computed (or when the
    /// attention pane is closed or there is no such layer), else the run or why there is none.
    #[must_use]
    pub fn layer0_view(&self) -> Option<Result<&SentenceRun, &str>> {
        self.layer0_view
            .as_ref()
            .map(|view| view.as_deref().map_err(String::as_str))
    }

    /// Compare mode on the model's own layer 0: `None` while it is computed or when there is
    /// no such layer.
    #[must_use]
    pub fn real_comparison(&self) -> Option<Result<&SentencePair, &str>> {
        self.real_comparison
            .as_ref()
            .map(|result| result.as_ref().map_err(String::as_str))
    }

    /// Whether whole-matrix work is running on a worker: the similarity pane's nearest rows,
    /// the one-hot pane's product, or the tables' typical magnitudes.
    #[must_use]
    pub fn scanning(&self) -> bool {
        self.scan.is_some() || self.one_hot_job.is_some() || self.scales_job.is_some()
    }

    /// The input vectors the attention and similarity panes take, with their positions.
    fn view_inputs(&self) -> (Vec<Array1<f32>>, Vec<usize>) {
        self.lookups
            .iter()
            .filter_map(|l| l.input_vector.clone().map(|v| (v, l.token.position)))
            .take(MAX_VIEW_TOKENS)
            .unzip()
    }

    /// The sentence's tokens.
    #[must_use]
    pub fn tokens(&self) -> &[Token] {
        &self.read.tokens
    }

    /// The text after the last token read, when the sentence is longer than the explorer reads.
    #[must_use]
    pub fn unread(&self) -> Option<&Unread> {
        self.read.unread.as_ref()
    }

    /// Whether some token of the sentence looks up row `id` (a binary search, not a scan).
    #[must_use]
    pub fn uses_row(&self, id: usize) -> bool {
        self.used_rows.binary_search(&id).is_ok()
    }

    /// Each token's lookup under the active scheme.
    #[must_use]
    pub fn lookups(&self) -> &[TokenLookup] {
        &self.lookups
    }

    /// Whether the lookups wait for a table that is still being generated.
    #[must_use]
    pub fn lookups_pending(&self) -> bool {
        self.lookups_pending
    }

    /// The table's typical magnitude.
    #[must_use]
    pub fn value_scale(&self) -> f32 {
        self.scales.token
    }

    /// The learned position table's typical magnitude, when the model has one.
    #[must_use]
    pub fn position_scale(&self) -> Option<f32> {
        self.scales.position
    }

    /// Compare mode's comparison: `Err("")` before there is one.
    ///
    /// # Errors
    /// Why there is none, such as a word without a row.
    pub fn comparison(&self) -> Result<&Comparison, &str> {
        match &self.comparison {
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
