//! The derive step: everything computed from the explorer's inputs, recomputed after each
//! `update` exactly where an input it depends on has changed.
//!
//! Every derived value is a [`Cell`]: it remembers the key it was computed for (revisions of
//! the text, the model and the values it is made from, the switches it reads); when the key is
//! unchanged it is not touched, and a closed pane's cells are cleared. Nothing outside this
//! step computes lookups, comparisons or pane data, and no mutator asks for a refresh.
//!
//! This file derives what the explorer shares (the tokens, their lookups, compare mode's
//! comparison, the current word's copies under `RoPE`); each pane beside the matrix derives its
//! own data in its own module ([`crate::panes`]), as a [`PaneMemo`] that [`Views`] holds for
//! it. [`Views`] is made from the list of panes: a new pane adds its memo in its own module
//! and its line in `panes::detail_panes!`, and nothing here.

use std::sync::Arc;

use super::cell::Cell;
use super::layer0::runs_in_background;
use super::memo::{PaneMemo, SeededHead, Shared, seeded_head};
use super::scan::{self, Scales};
use super::sources::RealLayer;
use crate::core::analysis::attention::Mask;
use crate::core::analysis::compare::{Comparison, MAX_COMPARED_TOKENS, ReadAs, compare_with_head};
use crate::core::analysis::schemes::{TurnedCopies, turned_copies};
use crate::core::explain::layer0::{PairError, SentencePair, SentenceRun};
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::weights::TokenLookup;
use crate::core::text::sentence::{self, ReadSentence, Unread};
use crate::core::text::vocabulary::Token;
use crate::view_state::Detail;

pub use super::memo::{Inputs, Recomputations};
pub use crate::core::analysis::attention::MAX_VIEW_TOKENS;

/// Makes [`Views`] from the list of panes: a field a pane, named as its module, holding its
/// memo.
macro_rules! pane_memos {
    ($($(#[$doc:meta])* $id:ident => $module:ident,)*) => {
        /// What the panes beside the matrix derive, a memo each (named as the pane's module);
        /// only the open pane's memo holds values (and the picture's on a roomy terminal).
        #[derive(Default)]
        pub struct Views {
            $($(#[$doc])* pub $module: crate::panes::$module::Memo,)*
        }

        impl Views {
            /// Derives every pane's memo: the open pane's anew where it is stale, the closed
            /// panes' forgotten.
            fn derive(&mut self, shared: &mut Shared, open: Detail) {
                $(PaneMemo::derive(&mut self.$module, shared, open == Detail::$id);)*
            }

            /// Whether a pane's whole-matrix work runs on a worker.
            fn busy(&self) -> bool {
                false $(|| PaneMemo::busy(&self.$module))*
            }
        }
    };
}
crate::panes::detail_panes!(pane_memos);

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
    /// The seeded attention head, keyed by the model's width and the seed (compare mode's
    /// and the attention pane's).
    head: SeededHead,
    /// Compare mode's comparison, keyed by the lookups' revision, the second sentence's and
    /// the mask.
    comparison: Cell<(u64, u64, Mask), Result<Comparison, String>>,
    /// Compare mode on the model's own layer 0, keyed by the reading's revision, the second
    /// sentence's, and the position and special-token switches.
    real_comparison: Cell<(u64, u64, bool, bool), Result<SentencePair, String>>,
    /// The current word and its first other copy, before and after `RoPE` turns them (the
    /// attention pane and the lesson show them). Keyed by the lookups' revision and the current
    /// token.
    rope_copies: Cell<(u64, usize), TurnedCopies>,
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
            if inputs.is_large() {
                self.scales.start(scan::scales(model));
            } else {
                self.scales.set(Some(Scales::of(model)));
            }
            self.counts.scale += 1;
        }
        self.scales.poll();
        let tokens = self.derive_tokens(inputs);
        let scheme = inputs.scheme;
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
            let head = seeded_head(&mut self.head, &mut self.counts, model.dims(), inputs.seed);
            let scheme = inputs.scheme;
            self.comparison.set(Some(
                compare_with_head(
                    model,
                    inputs.text,
                    other,
                    scheme,
                    mask,
                    &head,
                    ReadAs {
                        special_tokens: inputs.settings.special_tokens,
                        by_ids: inputs.settings.ids,
                    },
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

    /// Recomputes the panes' views for the current token `step`: the open pane's (and the
    /// current word's copies under `RoPE`, which the lesson shows too), clearing the closed
    /// panes'.
    pub fn derive_views(&mut self, inputs: &Inputs, step: usize) {
        let (read, lookups) = (&self.reading, &self.lookups);
        self.rope_copies.update((lookups.revision(), step), || {
            turned_copies(tokens_of(read), lookups_of(lookups), step)
        });
        let comparison = &self.comparison;
        let mut shared = Shared {
            inputs,
            step,
            tokens: tokens_of(read),
            tokens_revision: read.revision(),
            lookups: lookups_of(lookups),
            lookups_revision: lookups.revision(),
            comparison: comparison
                .get()
                .filter(|_| inputs.other.is_some())
                .map(|result| {
                    let result = result.as_ref().map_err(String::as_str);
                    (result, comparison.revision())
                }),
            head: &mut self.head,
            counts: &mut self.counts,
        };
        self.views.derive(&mut shared, inputs.settings.detail);
    }

    /// Whether the model's own layer 0 is being computed on a worker.
    #[must_use]
    pub fn computing_layer0(&self) -> bool {
        self.views.attention.layer0.busy() || self.real_comparison.busy()
    }

    /// The model's own layer 0 over the sentence: `None` while it is computed (or when the
    /// attention pane is closed or there is no such layer), else the run or why there is none.
    #[must_use]
    pub fn layer0_view(&self) -> Option<Result<&SentenceRun, &str>> {
        self.views
            .attention
            .layer0
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
        self.views.busy() || self.scales.busy()
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

    /// What the panes beside the matrix show.
    #[must_use]
    pub fn views(&self) -> &Views {
        &self.views
    }

    /// The current word and its first other copy, before and after `RoPE` turns them.
    #[must_use]
    pub fn rope_copies(&self) -> Option<&TurnedCopies> {
        self.rope_copies.get()
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
