//! Where the explorer's models come from: a model opened from files, and the built-in
//! vocabularies, each made on first use and shared, never copied.

use std::sync::Arc;

use crate::core::analysis::layer0::{Layer0, Unavailable};
use crate::core::tables::source::ModelSource;
use crate::core::tables::weights::EmbeddingModel;
use crate::core::text::tokenizer::TextTokenizer;
use crate::core::text::vocabulary::VocabKind;

/// A model tokenizer of at least this many ids is built on a worker, started once the first
/// frame is drawn: a 150,000-token one takes a noticeable moment, a tiny one nothing.
pub const BACKGROUND_TOKENIZER_FROM: usize = 20_000;

/// A model the explorer can switch to.
enum Source {
    /// A built-in vocabulary and its tables, once made.
    Builtin(VocabKind, Option<Arc<EmbeddingModel>>),
    /// A model opened from files.
    Loaded(Arc<EmbeddingModel>),
}

/// Whose first attention layer the attention pane shows.
#[derive(Clone, Copy, Debug)]
pub enum RealLayer<'a> {
    /// The model in use is opened from files and its own layer 0 can be computed.
    Open(&'a Arc<Layer0>),
    /// The model in use is opened from files, but its layer 0 cannot be computed: why.
    Unavailable(&'a Unavailable),
    /// A built-in vocabulary: a random table with no layers of its own.
    None,
}

/// The models `v` cycles through, and the one in use.
pub struct Sources {
    list: Vec<Source>,
    /// Layer 0 of the model opened from files, or why it cannot be computed.
    layer0: Option<Result<Arc<Layer0>, Unavailable>>,
    current: usize,
    model: Arc<EmbeddingModel>,
    revision: u64,
    seed: u64,
    gpt2_dims: usize,
    /// A loaded model whose tokenizer waits for [`Self::start_tokenizer_worker`].
    tokenizer_worker: Option<Arc<EmbeddingModel>>,
    /// How many times [`Self::start_tokenizer_worker`] was asked: once, after the first frame.
    tokenizer_starts: usize,
}

impl Sources {
    /// A loaded model first (if any), then the built-in vocabularies starting from `first`; a
    /// loaded model's tokenizer of at least `background_tokenizer_from` ids is left for a
    /// worker that [`Self::start_tokenizer_worker`] starts, a smaller one built now.
    #[must_use]
    pub fn new(
        loaded: Option<EmbeddingModel>,
        layer0: Option<Result<Layer0, Unavailable>>,
        first: VocabKind,
        seed: u64,
        gpt2_dims: usize,
        background_tokenizer_from: usize,
    ) -> Self {
        let mut list: Vec<Source> = Vec::new();
        let mut tokenizer_worker = None;
        if let Some(model) = loaded {
            let model = Arc::new(model);
            // The first frame does not wait for a large tokenizer, nor shares the processor
            // with its build: it is built on a worker started once that frame is drawn.
            let ids = model.tokenizer().map_or(0, TextTokenizer::vocab_size);
            if ids >= background_tokenizer_from {
                tokenizer_worker = Some(Arc::clone(&model));
            } else {
                // A failure is kept with the tokenizer, and said above the tokens.
                let _ = model.reads_text();
            }
            list.push(Source::Loaded(model));
        }
        let start = VocabKind::ALL
            .iter()
            .position(|&kind| kind == first)
            .unwrap_or(0);
        for offset in 0..VocabKind::ALL.len() {
            let kind = VocabKind::ALL[(start + offset) % VocabKind::ALL.len()];
            list.push(Source::Builtin(kind, None));
        }
        let model = made(&mut list[0], seed, gpt2_dims);
        // Only a model opened from files has a layer 0 of its own.
        let layer0 = if matches!(list[0], Source::Loaded(_)) {
            layer0.map(|layer| layer.map(Arc::new))
        } else {
            None
        };
        Self {
            list,
            layer0,
            current: 0,
            model,
            revision: 0,
            seed,
            gpt2_dims,
            tokenizer_worker,
            tokenizer_starts: 0,
        }
    }

    /// Starts building the loaded model's large tokenizer on a worker, if it has one waiting
    /// (the explorer asks once, after the first frame is drawn).
    pub fn start_tokenizer_worker(&mut self) {
        self.tokenizer_starts += 1;
        if let Some(model) = self.tokenizer_worker.take() {
            model.prepare_tokenizer_in_background();
        }
    }

    /// How many times the tokenizer's worker was asked to start.
    #[cfg(test)]
    pub(super) fn tokenizer_starts(&self) -> usize {
        self.tokenizer_starts
    }

    /// Switches to the next model, making it if it has not been made yet.
    pub fn cycle(&mut self) {
        self.current = (self.current + 1) % self.list.len();
        self.model = made(&mut self.list[self.current], self.seed, self.gpt2_dims);
        self.revision += 1;
    }

    /// The model in use.
    #[must_use]
    pub fn model(&self) -> &Arc<EmbeddingModel> {
        &self.model
    }

    /// Changes whenever the model in use changes.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The seed the built-in tables and the attention head are drawn from.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The model in use's own layer 0, why it has none, or that it is a random table.
    #[must_use]
    pub fn layer0(&self) -> RealLayer<'_> {
        match (&self.list[self.current], &self.layer0) {
            (Source::Loaded(_), Some(Ok(layer))) => RealLayer::Open(layer),
            (Source::Loaded(_), Some(Err(why))) => RealLayer::Unavailable(why),
            _ => RealLayer::None,
        }
    }

    /// The current built-in vocabulary, or `None` for a model opened from files.
    #[must_use]
    pub fn vocab(&self) -> Option<VocabKind> {
        match &self.list[self.current] {
            Source::Builtin(kind, _) => Some(*kind),
            Source::Loaded(_) => None,
        }
    }
}

/// The source's model, made now if it has not been yet.
fn made(source: &mut Source, seed: u64, gpt2_dims: usize) -> Arc<EmbeddingModel> {
    match source {
        Source::Builtin(kind, made) => Arc::clone(made.get_or_insert_with(|| {
            Arc::new(
                ModelSource::Builtin {
                    kind: *kind,
                    seed,
                    gpt2_dims,
                }
                .build()
                .expect("a built-in vocabulary always builds"),
            )
        })),
        Source::Loaded(model) => Arc::clone(model),
    }
}
