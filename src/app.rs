//! The explorer's state, its single `update`, and the event loop.

use std::time::{Duration, Instant};

use anyhow::Result;
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Style;
use ratatui_textarea::{CursorMove, TextArea};

use ndarray::{Array1, Array2};

use crate::action::{Action, Detail, Scope, action_for_key};
use crate::core::attention::{Attention, AttentionWeights, Mask, self_attention};
use crate::core::compare::{Comparison, compare_with_head, default_pair};
use crate::core::metrics::typical_magnitude;
use crate::core::model_source::ModelSource;
use crate::core::positional::PositionScheme;
use crate::core::similarity::{cosine_matrix, nearest_rows, one_hot_product};
use crate::core::vocabulary::{Token, VocabKind, first_repeat, ids_from_text};
use crate::core::weights::{
    DEFAULT_GPT2_DIMS, DEFAULT_SEED, EmbeddingModel, TokenLookup, as_width,
};
use crate::lesson::{Progress, STEPS, Setup};
use crate::theme::Theme;
use crate::ui::vector::{WideStyle, WideView};

/// The sentence the explorer opens with: one word appears twice.
pub const DEFAULT_SENTENCE: &str = "fox bites the fox";

/// The default sentence as ids, for tables read by id: fox bites the fox in the seed vocabulary.
pub const DEFAULT_IDS: &str = "2 4 0 2";

/// How many rows PgUp and PgDn move the matrix.
pub const PAGE_ROWS: usize = 10;

/// Which pane has the keyboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    /// Typing edits the sentence.
    Input,
    /// Keys step through the lookups.
    Explorer,
}

/// What the explorer starts with.
#[derive(Clone, Debug)]
pub struct Options {
    /// The sentence in the input.
    pub sentence: String,
    /// The vocabulary and its tables.
    pub vocab: VocabKind,
    /// `None` starts with the overlay off; another scheme starts with it on.
    pub positions: PositionScheme,
    /// The generator's seed.
    pub seed: u64,
    /// Colours, or none.
    pub theme: Theme,
    /// A model opened from files, explored first; `v` also reaches the built-in vocabularies.
    pub model: Option<EmbeddingModel>,
    /// The width of the built-in gpt2 tables.
    pub gpt2_dims: usize,
    /// Whether a model's tokenizer adds its special tokens (such as `[CLS]`).
    pub special_tokens: bool,
    /// Read the input as token ids (`3 1 4`) even when there is a tokenizer.
    pub ids: bool,
    /// Start in the guided lesson.
    pub lesson: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            sentence: DEFAULT_SENTENCE.to_owned(),
            vocab: VocabKind::Seed,
            positions: PositionScheme::None,
            seed: DEFAULT_SEED,
            theme: Theme::new(true),
            model: None,
            gpt2_dims: as_width(DEFAULT_GPT2_DIMS),
            special_tokens: true,
            ids: false,
            lesson: false,
        }
    }
}

/// The explorer's whole state. Only [`App::update`] changes it; the view reads it.
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent switches of the explorer, not a state machine in disguise"
)]
pub struct App {
    textarea: TextArea<'static>,
    focus: Focus,
    sources: Vec<Source>,
    source: usize,
    seed: u64,
    gpt2_dims: usize,
    special_tokens: bool,
    ids: bool,
    model: EmbeddingModel,
    lookups_pending: bool,
    value_scale: f32,
    tokens: Vec<Token>,
    used_rows: Vec<usize>,
    lookups: Vec<TokenLookup>,
    step: usize,
    overlay: bool,
    scheme: PositionScheme,
    matrix_cursor: usize,
    help_open: bool,
    running: bool,
    theme: Theme,
    wide_view: WideView,
    first_dim: usize,
    prompt: Option<Prompt>,
    matches: Vec<usize>,
    status: Option<String>,
    detail: Detail,
    mask: Mask,
    compare: Option<CompareMode>,
    lesson: Option<Progress>,
    paused_lesson: Option<Progress>,
    head: Option<AttentionWeights>,
    revision: u64,
    views: Views,
}

/// Compare mode: a second sentence, and what the two orders hand the model.
pub struct CompareMode {
    other: TextArea<'static>,
    editing_other: bool,
    result: Result<Comparison, String>,
}

impl CompareMode {
    /// The second sentence's text area, for drawing.
    #[must_use]
    pub fn other(&self) -> &TextArea<'static> {
        &self.other
    }

    /// The second sentence.
    #[must_use]
    pub fn other_text(&self) -> String {
        self.other.lines().join(" ")
    }

    /// Whether typing goes to the second sentence.
    #[must_use]
    pub fn editing_other(&self) -> bool {
        self.editing_other
    }

    /// The comparison.
    ///
    /// # Errors
    /// Why there is none, such as a word without a row (empty before the first comparison).
    pub fn result(&self) -> Result<&Comparison, &str> {
        self.result.as_ref().map_err(String::as_str)
    }
}

/// What the lesson panes show, computed when what they depend on changes, never per frame.
#[derive(Default)]
pub struct Views {
    key: Option<(u64, usize, Detail)>,
    /// One head of self-attention over the sentence's first tokens.
    pub attention: Option<Attention>,
    /// Cosine similarities between the sentence's input vectors.
    pub cosine: Option<Array2<f64>>,
    /// The current token's nearest rows by cosine: its token vector, then its input vector.
    pub nearest: Option<(Neighbours, Neighbours)>,
    /// The current row computed as one-hot(id) × W.
    pub one_hot: Option<Array1<f32>>,
}

/// Rows of the matrix with their cosine similarity to a vector, nearest first.
pub type Neighbours = Vec<(usize, f64)>;

/// The most tokens the attention and similarity panes take, so they stay quick and readable.
pub const MAX_VIEW_TOKENS: usize = 48;
/// How many nearest rows the similarity pane lists.
pub const NEAREST_ROWS: usize = 5;

/// Where a model comes from: a built-in vocabulary (made on first use), or files.
enum Source {
    Builtin(VocabKind, Option<EmbeddingModel>),
    Loaded(EmbeddingModel),
}

impl Source {
    /// The model, made now if it has not been yet.
    fn model(&mut self, seed: u64, gpt2_dims: usize) -> EmbeddingModel {
        match self {
            Self::Builtin(kind, made) => made
                .get_or_insert_with(|| {
                    ModelSource::Builtin(*kind)
                        .build(seed, gpt2_dims)
                        .expect("a built-in vocabulary always builds")
                })
                .clone(),
            Self::Loaded(model) => model.clone(),
        }
    }
}

/// What an open prompt asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptKind {
    /// A token's text, to find its row.
    Search,
    /// An id, to go to its row.
    GoTo,
}

/// A one-line question in the help bar: find a token or go to an id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    /// What is asked.
    pub kind: PromptKind,
    /// What has been typed so far.
    pub text: String,
}

/// How many rows a search remembers for `n`.
const SEARCH_LIMIT: usize = 100;

/// How often the explorer looks again while a table is being generated.
const TICK: Duration = Duration::from_millis(100);

/// The longest the explorer reads queued keys before it draws, so a flood still shows progress.
const FRAME_BUDGET: Duration = Duration::from_millis(100);

/// How long the explorer waits for another queued event before it draws.
///
/// Not zero: crossterm's level-triggered source returns at once for a zero timeout without
/// looking at the events it has already read and parsed, so a burst would cost a frame a key.
const QUEUED_WAIT: Duration = Duration::from_millis(1);

/// How many dimensions `[` and `]` move the exact-values window.
pub const DIMS_STEP: usize = 8;

impl App {
    /// A new explorer with focus in the input.
    #[must_use]
    pub fn new(options: Options) -> Self {
        // The input is one line: newlines in a given sentence become spaces.
        let textarea = text_area(&options.sentence);
        let overlay = options.positions != PositionScheme::None;
        let scheme = if overlay {
            options.positions
        } else {
            PositionScheme::Learned
        };
        let mut sources: Vec<Source> = Vec::new();
        if let Some(model) = options.model {
            sources.push(Source::Loaded(model));
        }
        // The chosen vocabulary first, then the others in their usual order.
        let start = VocabKind::ALL
            .iter()
            .position(|&kind| kind == options.vocab)
            .unwrap_or(0);
        for offset in 0..VocabKind::ALL.len() {
            let kind = VocabKind::ALL[(start + offset) % VocabKind::ALL.len()];
            sources.push(Source::Builtin(kind, None));
        }
        let model = sources[0].model(options.seed, options.gpt2_dims);
        let mut app = Self {
            textarea,
            focus: Focus::Input,
            sources,
            source: 0,
            seed: options.seed,
            gpt2_dims: options.gpt2_dims,
            special_tokens: options.special_tokens,
            ids: options.ids,
            model,
            lookups_pending: false,
            value_scale: 1.0,
            tokens: Vec::new(),
            used_rows: Vec::new(),
            lookups: Vec::new(),
            step: 0,
            overlay,
            scheme,
            matrix_cursor: 0,
            help_open: false,
            running: true,
            theme: options.theme,
            wide_view: WideView::Strip,
            first_dim: 0,
            prompt: None,
            matches: Vec::new(),
            status: None,
            detail: Detail::Lookups,
            mask: Mask::None,
            compare: None,
            lesson: None,
            paused_lesson: None,
            head: None,
            revision: 0,
            views: Views::default(),
        };
        app.measure_scale();
        app.retokenize();
        if options.lesson {
            app.toggle_lesson();
        }
        app.refresh_views();
        app
    }

    /// Runs the explorer until the user quits.
    ///
    /// # Errors
    /// When the terminal cannot be drawn or read.
    pub fn run(mut self, terminal: &mut DefaultTerminal) -> Result<()> {
        while self.running {
            terminal.draw(|frame| frame.render_widget(&self, frame.area()))?;
            // While a table is being generated, wake up now and then to show it when it is done.
            if self.waiting_for_tables() && !event::poll(TICK)? {
                self.update(Action::Tick);
                continue;
            }
            let first = event::read()?;
            let queued = || {
                Ok(if event::poll(QUEUED_WAIT)? {
                    Some(event::read()?)
                } else {
                    None
                })
            };
            self.handle_queued(&first, queued, Instant::now() + FRAME_BUDGET)?;
        }
        Ok(())
    }

    /// Applies `first` and then every event already queued, so a burst of keys costs one frame
    /// rather than one frame a key.
    ///
    /// `queued` returns the next event without waiting, or `None` when none is queued. Stops at
    /// a quit, and at `until` so that a flood of keys still shows a frame now and then.
    ///
    /// # Errors
    /// When `queued` cannot read the terminal.
    pub fn handle_queued(
        &mut self,
        first: &Event,
        mut queued: impl FnMut() -> std::io::Result<Option<Event>>,
        until: Instant,
    ) -> std::io::Result<()> {
        self.handle_event(first);
        while self.running && Instant::now() < until {
            let Some(event) = queued()? else { break };
            self.handle_event(&event);
        }
        Ok(())
    }

    /// Whether the lookups wait for a table that is still being generated.
    #[must_use]
    pub fn waiting_for_tables(&self) -> bool {
        self.lookups_pending
    }

    /// Turns a terminal event into an action and applies it.
    pub fn handle_event(&mut self, event: &Event) {
        if let Some(action) = self.action_for_event(event) {
            self.update(action);
        }
    }

    /// What an event means now: key presses through the key table, pastes into the input.
    #[must_use]
    pub fn action_for_event(&self, event: &Event) -> Option<Action> {
        match event {
            Event::Key(_) => event
                .as_key_press_event()
                .and_then(|key| action_for_key(key, self.scope())),
            Event::Paste(text) => Some(Action::Paste(text.clone())),
            Event::Resize(..) => Some(Action::Tick),
            _ => None,
        }
    }

    /// The key table's scope for the current state.
    #[must_use]
    pub fn scope(&self) -> Scope {
        match (self.help_open, &self.prompt, self.lesson, self.focus) {
            (true, _, _, _) => Scope::Help,
            (false, Some(_), _, _) => Scope::Prompt,
            (false, None, Some(_), _) => Scope::Lesson,
            (false, None, None, Focus::Input) => Scope::Input,
            (false, None, None, Focus::Explorer) => Scope::Explorer,
        }
    }

    /// The only place state changes.
    pub fn update(&mut self, action: Action) {
        if !matches!(action, Action::PromptKey(_) | Action::Tick) {
            self.status = None;
        }
        self.apply(action);
        self.refresh_views();
    }

    #[expect(
        clippy::too_many_lines,
        reason = "one short arm per action: the dispatch table of `update`"
    )]
    fn apply(&mut self, action: Action) {
        match action {
            Action::Quit => self.running = false,
            Action::ToggleHelp => self.help_open = !self.help_open,
            Action::FocusExplorer => {
                self.focus = Focus::Explorer;
                self.go_to(0);
            }
            Action::FocusInput => {
                self.focus = Focus::Input;
                if let Some(compare) = self.compare.as_mut() {
                    compare.editing_other = false;
                }
            }
            Action::FocusOther => match self.compare.as_mut() {
                Some(compare) => {
                    compare.editing_other = true;
                    self.focus = Focus::Input;
                }
                None => self.focus = Focus::Input,
            },
            Action::ToggleCompare => self.toggle_compare(),
            Action::ShowDetail(detail) => {
                self.detail = if self.detail == detail {
                    Detail::Lookups
                } else {
                    detail
                };
            }
            Action::ToggleCausal => self.toggle_causal(),
            Action::ToggleLesson => self.toggle_lesson(),
            Action::Answer(choice) => {
                if let Some(progress) = self.lesson.as_mut()
                    && !progress.revealed()
                {
                    progress.answered = Some(choice);
                }
            }
            Action::LessonNext => self.lesson_next(),
            Action::LessonBack => self.lesson_back(),
            Action::Next => self.go_to(self.step.saturating_add(1)),
            Action::Previous => self.go_to(self.step.saturating_sub(1)),
            Action::First => self.go_to(0),
            Action::Last => self.go_to(usize::MAX),
            Action::ScrollUp => self.scroll_matrix(-1),
            Action::ScrollDown => self.scroll_matrix(1),
            Action::PageUp => self.scroll_matrix(-PAGE_ROWS.cast_signed()),
            Action::PageDown => self.scroll_matrix(PAGE_ROWS.cast_signed()),
            Action::TogglePositions => {
                self.overlay = !self.overlay;
                self.relookup();
            }
            Action::CycleScheme => {
                self.scheme = self.scheme.next();
                self.overlay = true;
                self.relookup();
            }
            Action::CycleVocab => {
                self.source = (self.source + 1) % self.sources.len();
                self.model = self.sources[self.source].model(self.seed, self.gpt2_dims);
                self.first_dim = 0;
                self.measure_scale();
                self.retokenize();
            }
            Action::ClearInput => {
                if self.textarea.clear() {
                    self.retokenize();
                }
            }
            Action::Undo => {
                if self.textarea.undo() {
                    self.retokenize();
                }
            }
            Action::ToggleSpecialTokens => self.toggle_special_tokens(),
            Action::Tick => {
                if self.lookups_pending && self.model.is_ready() {
                    self.measure_scale();
                    self.relookup();
                }
            }
            Action::ToggleWideView => {
                self.wide_view = match self.wide_view {
                    WideView::Strip => WideView::Values,
                    WideView::Values => WideView::Strip,
                };
            }
            Action::DimsLeft => self.first_dim = self.first_dim.saturating_sub(DIMS_STEP),
            Action::DimsRight => {
                let last = self.model.dims().saturating_sub(1);
                self.first_dim = (self.first_dim + DIMS_STEP).min(last / DIMS_STEP * DIMS_STEP);
                self.wide_view = WideView::Values;
            }
            Action::StartSearch => self.open_prompt(PromptKind::Search),
            Action::StartGoTo => self.open_prompt(PromptKind::GoTo),
            Action::NextMatch => self.next_match(),
            Action::PromptKey(key) => self.edit_prompt(key),
            Action::PromptCancel => self.prompt = None,
            Action::PromptSubmit => self.submit_prompt(),
            Action::Edit(key) => match self.compare.as_mut().filter(|c| c.editing_other) {
                Some(compare) => {
                    if compare.other.input(key) {
                        self.recompare();
                    }
                }
                None => {
                    if self.textarea.input(key) {
                        self.retokenize();
                    }
                }
            },
            Action::Paste(text) => {
                self.focus = Focus::Input;
                self.help_open = false;
                self.textarea
                    .insert_str(text.replace("\r\n", " ").replace(['\r', '\n'], " "));
                self.retokenize();
            }
        }
    }

    fn open_prompt(&mut self, kind: PromptKind) {
        self.prompt = Some(Prompt {
            kind,
            text: String::new(),
        });
    }

    fn edit_prompt(&mut self, key: KeyEvent) {
        let Some(prompt) = self.prompt.as_mut() else {
            return;
        };
        match key.code {
            KeyCode::Backspace => {
                prompt.text.pop();
            }
            KeyCode::Char(c)
                if !key.modifiers.contains(KeyModifiers::CONTROL)
                    && (prompt.kind == PromptKind::Search || c.is_ascii_digit()) =>
            {
                prompt.text.push(c);
            }
            _ => {}
        }
    }

    fn submit_prompt(&mut self) {
        let Some(prompt) = self.prompt.take() else {
            return;
        };
        // A leading space is part of a byte-pair token (` man` is not `man`), so keep it.
        let query = prompt.text.trim_end();
        if query.trim().is_empty() {
            return;
        }
        match prompt.kind {
            PromptKind::GoTo => match query.parse::<usize>() {
                Ok(id) if id < self.model.rows() => {
                    self.matrix_cursor = id;
                    self.status = Some(format!("row {id}{}", self.row_name(id)));
                }
                _ => {
                    self.status = Some(format!(
                        "no row {query}: ids run from 0 to {}",
                        self.model.rows().saturating_sub(1)
                    ));
                }
            },
            PromptKind::Search => {
                self.matches = search_rows(&self.model, query, SEARCH_LIMIT);
                match self.matches.first() {
                    Some(&id) => {
                        self.matrix_cursor = id;
                        let more = if self.matches.len() > 1 {
                            format!(" (1 of {}; n for the next)", self.matches.len())
                        } else {
                            String::new()
                        };
                        self.status = Some(format!("'{query}' is row {id}{more}"));
                    }
                    None => {
                        self.status = Some(format!("no token matches '{query}'"));
                    }
                }
            }
        }
    }

    fn next_match(&mut self) {
        if self.matches.is_empty() {
            self.status = Some("no search yet: / finds a token".to_owned());
            return;
        }
        let index = self
            .matches
            .iter()
            .position(|&id| id == self.matrix_cursor)
            .map_or(0, |i| (i + 1) % self.matches.len());
        self.matrix_cursor = self.matches[index];
        self.status = Some(format!(
            "row {}{} ({} of {})",
            self.matrix_cursor,
            self.row_name(self.matrix_cursor),
            index + 1,
            self.matches.len()
        ));
    }

    fn row_name(&self, id: usize) -> String {
        self.model
            .token_text(id)
            .map(|text| format!(" '{text}'"))
            .unwrap_or_default()
    }

    fn retokenize(&mut self) {
        let text = self.text();
        self.tokens = match self.model.tokenizer().filter(|_| !self.ids) {
            Some(_) => self
                .model
                .tokenize_with(&text, self.special_tokens)
                .unwrap_or_default(),
            None => ids_from_text(&text, self.model.rows()),
        };
        self.used_rows = self.tokens.iter().filter_map(|token| token.id).collect();
        self.used_rows.sort_unstable();
        self.used_rows.dedup();
        self.relookup();
        self.go_to(self.step);
    }

    /// Measures how large the current table's numbers are, once per table.
    fn measure_scale(&mut self) {
        self.value_scale = typical_magnitude(self.model.token_table()).unwrap_or(1.0);
    }

    fn relookup(&mut self) {
        self.lookups_pending = !self.model.is_ready();
        self.lookups = self.model.embed(&self.tokens, self.active_scheme());
        self.revision += 1;
        self.recompare();
    }

    /// The attention head for the current width, drawn once per width from the app's seed.
    fn head(&mut self) -> &AttentionWeights {
        let dims = self.model.dims();
        if self
            .head
            .as_ref()
            .is_none_or(|head| head.input_dims() != dims)
        {
            self.head = Some(AttentionWeights::seeded(dims, self.seed));
        }
        self.head.as_ref().expect("made above")
    }

    fn recompare(&mut self) {
        if self.compare.is_none() || !self.model.is_ready() {
            return;
        }
        let (scheme, mask, text) = (self.active_scheme(), self.mask, self.text());
        let model = self.model.clone();
        let head = self.head().clone();
        if let Some(compare) = self.compare.as_mut() {
            let other = compare.other_text();
            compare.result = compare_with_head(&model, &text, &other, scheme, mask, &head)
                .map_err(|error| format!("{error:#}"));
        }
    }

    fn toggle_compare(&mut self) {
        if self.compare.take().is_some() {
            return;
        }
        let (first, second) = default_pair(&self.model);
        // Keep the learner's sentence when it is one of a pair already typed; else the default.
        if self.text().trim().is_empty() || self.text() == DEFAULT_SENTENCE {
            self.set_text(first);
        }
        self.compare = Some(CompareMode {
            other: text_area(second),
            editing_other: false,
            result: Err(String::new()),
        });
        self.recompare();
    }

    /// Replaces the sentence, as the lesson and compare mode do.
    fn set_text(&mut self, text: &str) {
        self.textarea = text_area(text);
        self.retokenize();
    }

    /// Recomputes what the lesson panes show, if what they depend on has changed.
    fn refresh_views(&mut self) {
        let key = (self.revision, self.step, self.detail);
        if self.views.key == Some(key) {
            return;
        }
        let inputs: Vec<(Array1<f32>, usize)> = self
            .lookups
            .iter()
            .filter_map(|l| l.input_vector.clone().map(|v| (v, l.token.position)))
            .take(MAX_VIEW_TOKENS)
            .collect();
        let (vectors, positions): (Vec<_>, Vec<_>) = inputs.into_iter().unzip();
        let mut views = Views {
            key: Some(key),
            ..Views::default()
        };
        match self.detail {
            Detail::Attention if !vectors.is_empty() => {
                let (mask, scheme) = (self.mask, self.active_scheme());
                let head = self.head().clone();
                views.attention = Some(self_attention(&vectors, &positions, &head, mask, scheme));
            }
            Detail::Similarity if !vectors.is_empty() => {
                views.cosine = Some(cosine_matrix(&vectors));
                if let Some(lookup) = self.lookups.get(self.step)
                    && let (Some(token), Some(input)) = (&lookup.token_vector, &lookup.input_vector)
                {
                    let table = self.model.token_table();
                    views.nearest = Some((
                        nearest_rows(table, token.view(), NEAREST_ROWS),
                        nearest_rows(table, input.view(), NEAREST_ROWS),
                    ));
                }
            }
            Detail::OneHot => {
                views.one_hot = self
                    .current_token()
                    .and_then(|token| token.id)
                    .and_then(|id| one_hot_product(self.model.token_table(), id));
            }
            _ => {}
        }
        self.views = views;
    }

    fn toggle_special_tokens(&mut self) {
        self.special_tokens = !self.special_tokens;
        self.status = Some(if self.special_tokens {
            "special tokens shown as the model sees them".to_owned()
        } else {
            "special tokens left out".to_owned()
        });
        self.retokenize();
    }

    fn toggle_causal(&mut self) {
        self.mask = self.mask.toggled();
        self.status = Some(match self.mask {
            Mask::None => "attention unmasked: every token sees every token".to_owned(),
            Mask::Causal => {
                "causal mask: each token sees only itself and the tokens before it".to_owned()
            }
        });
        self.revision += 1;
        self.recompare();
    }

    fn lesson_back(&mut self) {
        if let Some(progress) = self.lesson
            && progress.step > 0
        {
            let step = progress.step - 1;
            let answered = Some(STEPS[step].answer);
            self.lesson = Some(Progress { step, answered });
            self.arrange(STEPS[step].setup);
        }
    }

    fn toggle_lesson(&mut self) {
        if let Some(progress) = self.lesson.take() {
            self.paused_lesson = Some(progress);
            self.status = Some(format!(
                "left the lesson at step {} of {}; L resumes it",
                progress.step + 1,
                STEPS.len()
            ));
            return;
        }
        let progress = self.paused_lesson.take().unwrap_or(Progress {
            step: 0,
            answered: None,
        });
        self.lesson = Some(progress);
        self.help_open = false;
        self.arrange(progress.content().setup);
    }

    fn lesson_next(&mut self) {
        let Some(progress) = self.lesson else {
            return;
        };
        if !progress.revealed() {
            self.status = Some("make your guess first: 1 or 2".to_owned());
            return;
        }
        if progress.is_last() {
            self.lesson = None;
            self.paused_lesson = None;
            self.status = Some("lesson finished; L starts it again".to_owned());
            return;
        }
        let step = progress.step + 1;
        self.lesson = Some(Progress {
            step,
            answered: None,
        });
        self.arrange(STEPS[step].setup);
    }

    /// Arranges the explorer for a lesson step.
    fn arrange(&mut self, setup: Setup) {
        self.focus = Focus::Explorer;
        self.prompt = None;
        let (compare, detail, overlay, scheme) = match setup {
            Setup::RowLookup => (false, Detail::OneHot, false, PositionScheme::Learned),
            Setup::RepeatedWord | Setup::NoPositionInput => {
                (false, Detail::Lookups, false, PositionScheme::Learned)
            }
            Setup::WordOrder => (true, Detail::Lookups, false, PositionScheme::Learned),
            Setup::PositionsAdded => (true, Detail::Lookups, true, PositionScheme::Learned),
            Setup::InsideAttention => (false, Detail::Attention, true, PositionScheme::Rope),
            Setup::Summary => (false, Detail::Lookups, true, PositionScheme::Learned),
        };
        let scheme = if scheme == PositionScheme::Learned && self.model.position_table().is_none() {
            PositionScheme::Sinusoidal
        } else {
            scheme
        };
        (self.detail, self.overlay, self.scheme, self.mask) = (detail, overlay, scheme, Mask::None);
        if matches!(setup, Setup::RepeatedWord) {
            self.ensure_repeated_word();
        }
        match (compare, self.compare.is_some()) {
            (true, false) => {
                let (first, _) = default_pair(&self.model);
                self.set_text(first);
                self.toggle_compare();
            }
            (false, true) => self.compare = None,
            _ => {}
        }
        self.relookup();
        match setup {
            Setup::RepeatedWord | Setup::NoPositionInput | Setup::PositionsAdded => {
                self.go_to(first_repeat(&self.tokens).unwrap_or(0));
            }
            _ => self.go_to(0),
        }
    }

    /// Keeps the learner's sentence if a word repeats in it; else one where a word does.
    fn ensure_repeated_word(&mut self) {
        let repeats = |tokens: &[Token]| first_repeat(tokens).is_some();
        if repeats(&self.tokens) {
            return;
        }
        for sentence in [DEFAULT_SENTENCE, "the dog bites the dog"] {
            let tokens = self.model.tokenize(sentence).unwrap_or_default();
            if repeats(&tokens) {
                self.set_text(sentence);
                return;
            }
        }
    }

    /// Makes token `index` (clamped) the current one and brings its row into view.
    fn go_to(&mut self, index: usize) {
        self.step = index.min(self.tokens.len().saturating_sub(1));
        if let Some(id) = self.current_token().and_then(|token| token.id) {
            self.matrix_cursor = id;
        }
        self.matrix_cursor = self.matrix_cursor.min(self.model.rows().saturating_sub(1));
    }

    fn scroll_matrix(&mut self, rows: isize) {
        let last = self.model.rows().saturating_sub(1);
        self.matrix_cursor = self.matrix_cursor.saturating_add_signed(rows).min(last);
    }

    /// The sentence as typed, lines joined by spaces.
    #[must_use]
    pub fn text(&self) -> String {
        self.textarea.lines().join(" ")
    }

    /// Whether the program should keep running.
    #[must_use]
    pub fn is_running(&self) -> bool {
        self.running
    }

    /// The text area, for drawing.
    #[must_use]
    pub fn textarea(&self) -> &TextArea<'static> {
        &self.textarea
    }

    /// Which pane has the keyboard.
    #[must_use]
    pub fn focus(&self) -> Focus {
        self.focus
    }

    /// The tables and vocabulary being explored.
    #[must_use]
    pub fn model(&self) -> &EmbeddingModel {
        &self.model
    }

    /// The current built-in vocabulary, or `None` for a model opened from files.
    #[must_use]
    pub fn vocab(&self) -> Option<VocabKind> {
        match &self.sources[self.source] {
            Source::Builtin(kind, _) => Some(*kind),
            Source::Loaded(_) => None,
        }
    }

    /// The sentence's tokens.
    #[must_use]
    pub fn tokens(&self) -> &[Token] {
        &self.tokens
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

    /// The index of the current token.
    #[must_use]
    pub fn step(&self) -> usize {
        self.step
    }

    /// The token being looked up, if the sentence has any.
    #[must_use]
    pub fn current_token(&self) -> Option<&Token> {
        self.tokens.get(self.step)
    }

    /// Whether position vectors are added.
    #[must_use]
    pub fn overlay(&self) -> bool {
        self.overlay
    }

    /// The scheme `p` adds and `m` cycles.
    #[must_use]
    pub fn scheme(&self) -> PositionScheme {
        self.scheme
    }

    /// The scheme in force: the chosen one with the overlay on, none with it off.
    #[must_use]
    pub fn active_scheme(&self) -> PositionScheme {
        if self.overlay {
            self.scheme
        } else {
            PositionScheme::None
        }
    }

    /// The matrix row the view keeps in sight.
    #[must_use]
    pub fn matrix_cursor(&self) -> usize {
        self.matrix_cursor
    }

    /// Whether the help overlay is open.
    #[must_use]
    pub fn help_open(&self) -> bool {
        self.help_open
    }

    /// How wide vectors are drawn now.
    #[must_use]
    pub fn wide_style(&self) -> WideStyle {
        WideStyle {
            view: self.wide_view,
            first_dim: self.first_dim,
            scale: self.value_scale,
        }
    }

    /// The open prompt, if any.
    #[must_use]
    pub fn prompt(&self) -> Option<&Prompt> {
        self.prompt.as_ref()
    }

    /// A short answer to the last thing the user asked (a search, a go-to).
    #[must_use]
    pub fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }

    /// What the pane beside the matrix shows.
    #[must_use]
    pub fn detail(&self) -> Detail {
        self.detail
    }

    /// Whether the attention pane masks future tokens.
    #[must_use]
    pub fn mask(&self) -> Mask {
        self.mask
    }

    /// Compare mode, when it is on.
    #[must_use]
    pub fn compare(&self) -> Option<&CompareMode> {
        self.compare.as_ref()
    }

    /// The lesson, while it runs.
    #[must_use]
    pub fn lesson(&self) -> Option<Progress> {
        self.lesson
    }

    /// What the lesson panes show.
    #[must_use]
    pub fn views(&self) -> &Views {
        &self.views
    }

    /// The styles in use.
    #[must_use]
    pub fn theme(&self) -> Theme {
        self.theme
    }
}

/// A one-line text area holding `text` (newlines become spaces), cursor at the end.
fn text_area(text: &str) -> TextArea<'static> {
    let mut textarea = TextArea::new(vec![text.replace(['\r', '\n'], " ")]);
    textarea.move_cursor(CursorMove::End);
    textarea.set_cursor_line_style(Style::new());
    textarea.set_placeholder_text("type a sentence, e.g. the dog bites the man");
    textarea
}

/// Rows whose token is the query, then starts with it, then contains it (ignoring case).
fn search_rows(model: &EmbeddingModel, query: &str, limit: usize) -> Vec<usize> {
    match model.tokenizer() {
        Some(tokenizer) => tokenizer.search(query, limit),
        None => query
            .parse::<usize>()
            .ok()
            .filter(|&id| id < model.rows())
            .into_iter()
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEventKind;

    fn key(code: KeyCode) -> Event {
        Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn type_text(app: &mut App, text: &str) {
        for c in text.chars() {
            app.handle_event(&key(KeyCode::Char(c)));
        }
    }

    #[test]
    fn starts_in_the_input_on_the_default_sentence() {
        let app = App::new(Options::default());
        assert_eq!(app.focus(), Focus::Input);
        assert_eq!(app.text(), DEFAULT_SENTENCE);
        assert_eq!(app.tokens().len(), 4);
        assert!(!app.overlay());
        assert_eq!(app.scheme(), PositionScheme::Learned);
        assert_eq!(app.matrix_cursor(), 2);
    }

    /// The events of `burst` one by one as the terminal would queue them; `None` after the last.
    fn queue_of(burst: Vec<Event>) -> impl FnMut() -> std::io::Result<Option<Event>> {
        let mut burst = burst.into_iter();
        move || Ok(burst.next())
    }

    /// A deadline no test reaches.
    fn no_deadline() -> Instant {
        Instant::now() + Duration::from_secs(3600)
    }

    #[test]
    fn a_burst_of_queued_keys_is_read_to_the_end_before_the_next_frame() {
        let mut app = App::new(Options::default());
        let mut burst = vec![key(KeyCode::Char('x')); 999];
        burst.push(key(KeyCode::Char('y')));
        let mut left = burst.len();
        let mut queue = queue_of(burst);
        let counted = || {
            let event = queue()?;
            left -= usize::from(event.is_some());
            Ok(event)
        };
        app.handle_queued(&key(KeyCode::Char(' ')), counted, no_deadline())
            .expect("the queue reads");
        assert_eq!(left, 0, "every queued key was read");
        let expected = format!("{DEFAULT_SENTENCE} {}y", "x".repeat(999));
        assert_eq!(app.text(), expected);
    }

    #[test]
    fn ctrl_c_in_a_burst_quits_and_leaves_the_rest_unread() {
        let mut app = App::new(Options::default());
        let ctrl_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
        let mut burst = vec![key(KeyCode::Right); 500];
        burst.push(ctrl_c);
        burst.extend(vec![key(KeyCode::Char('x')); 500]);
        app.handle_queued(&key(KeyCode::Left), queue_of(burst), no_deadline())
            .expect("the queue reads");
        assert!(!app.is_running());
        assert_eq!(
            app.text(),
            DEFAULT_SENTENCE,
            "nothing after Ctrl+C was typed"
        );
    }

    #[test]
    fn a_flood_of_keys_stops_at_the_deadline_for_a_frame() {
        let mut app = App::new(Options::default());
        let endless = || Ok(Some(key(KeyCode::Char('x'))));
        app.handle_queued(&key(KeyCode::Char('x')), endless, Instant::now())
            .expect("the queue reads");
        assert_eq!(app.text(), format!("{DEFAULT_SENTENCE}x"));
    }

    #[test]
    fn typing_retokenises_and_q_types_in_the_input() {
        let mut app = App::new(Options::default());
        type_text(&mut app, " quick");
        assert!(app.is_running());
        assert_eq!(app.text(), "fox bites the fox quick");
        assert_eq!(app.tokens().len(), 5);
        type_text(&mut app, "q");
        assert!(app.is_running(), "q types while the input has focus");
    }

    #[test]
    fn stepping_follows_the_tokens_and_their_rows() {
        let mut app = App::new(Options::default());
        app.handle_event(&key(KeyCode::Enter));
        assert_eq!(app.focus(), Focus::Explorer);
        assert_eq!(app.text(), DEFAULT_SENTENCE, "Enter adds no newline");
        app.handle_event(&key(KeyCode::Right));
        assert_eq!((app.step(), app.matrix_cursor()), (1, 4));
        app.handle_event(&key(KeyCode::End));
        assert_eq!(app.step(), 3);
        app.handle_event(&key(KeyCode::Right));
        assert_eq!(app.step(), 3, "stepping stops at the last token");
        app.handle_event(&key(KeyCode::Home));
        app.handle_event(&key(KeyCode::Left));
        assert_eq!(app.step(), 0);
    }

    #[test]
    fn key_releases_are_ignored() {
        let mut app = App::new(Options::default());
        let mut release = KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE);
        release.kind = KeyEventKind::Release;
        app.handle_event(&Event::Key(release));
        assert_eq!(app.text(), DEFAULT_SENTENCE);
    }

    #[test]
    fn positions_toggle_and_cycle() {
        let mut app = App::new(Options::default());
        app.handle_event(&key(KeyCode::Tab));
        app.handle_event(&key(KeyCode::Char('p')));
        assert_eq!(app.active_scheme(), PositionScheme::Learned);
        assert_ne!(app.lookups()[0].input_vector, app.lookups()[3].input_vector);
        app.handle_event(&key(KeyCode::Char('m')));
        assert_eq!(app.active_scheme(), PositionScheme::Sinusoidal);
        app.handle_event(&key(KeyCode::Char('p')));
        assert_eq!(app.active_scheme(), PositionScheme::None);
        assert_eq!(app.lookups()[0].input_vector, app.lookups()[3].input_vector);
    }

    #[test]
    fn vocabulary_switch_keeps_the_sentence() {
        let mut app = App::new(Options::default());
        app.handle_event(&key(KeyCode::Tab));
        app.handle_event(&key(KeyCode::Char('v')));
        assert_eq!(app.vocab(), Some(VocabKind::Words));
        assert_eq!(app.model().dims(), 8);
        assert_eq!(app.text(), DEFAULT_SENTENCE);
        app.handle_event(&key(KeyCode::Char('v')));
        assert_eq!(app.vocab(), Some(VocabKind::Gpt2));
        app.handle_event(&key(KeyCode::Char('v')));
        assert_eq!(app.vocab(), Some(VocabKind::Seed));
    }

    #[test]
    fn gpt2_tables_arrive_on_a_tick() {
        let mut app = App::new(Options {
            vocab: VocabKind::Gpt2,
            gpt2_dims: 4,
            ..Options::default()
        });
        let ids: Vec<_> = app.tokens().iter().map(|t| t.id).collect();
        assert_eq!(ids, [Some(12792), Some(26081), Some(262), Some(21831)]);
        while app.waiting_for_tables() {
            std::thread::sleep(Duration::from_millis(20));
            app.update(Action::Tick);
        }
        assert_eq!(
            app.lookups()[1]
                .token_vector
                .as_ref()
                .map(ndarray::Array1::len),
            Some(4)
        );
        // `fox` and ` fox` are different pieces under byte-pair encoding: no shared row.
        assert!(
            crate::core::readout::describe_copies(app.lookups(), 0, PositionScheme::None).is_none()
        );
    }

    #[test]
    fn matrix_scrolls_within_its_rows() {
        let mut app = App::new(Options::default());
        app.handle_event(&key(KeyCode::Tab));
        app.handle_event(&key(KeyCode::PageDown));
        assert_eq!(app.matrix_cursor(), 5);
        app.handle_event(&key(KeyCode::PageUp));
        app.handle_event(&key(KeyCode::Up));
        assert_eq!(app.matrix_cursor(), 0);
    }

    #[test]
    fn paste_joins_lines_into_the_input() {
        let mut app = App::new(Options {
            sentence: String::new(),
            ..Options::default()
        });
        app.handle_event(&key(KeyCode::Tab));
        app.handle_event(&Event::Paste("dog bites\nman".to_owned()));
        assert_eq!(app.focus(), Focus::Input);
        assert_eq!(app.text(), "dog bites man");
    }

    #[test]
    fn an_empty_sentence_is_safe_to_step() {
        let mut app = App::new(Options {
            sentence: String::new(),
            ..Options::default()
        });
        app.handle_event(&key(KeyCode::Enter));
        for code in [
            KeyCode::Right,
            KeyCode::Left,
            KeyCode::End,
            KeyCode::Char('p'),
        ] {
            app.handle_event(&key(code));
        }
        assert!(app.current_token().is_none());
    }

    #[test]
    fn help_opens_closes_and_q_quits() {
        let mut app = App::new(Options::default());
        app.handle_event(&key(KeyCode::Enter));
        app.handle_event(&key(KeyCode::Char('?')));
        assert!(app.help_open());
        app.handle_event(&key(KeyCode::Esc));
        assert!(!app.help_open() && app.is_running());
        app.handle_event(&key(KeyCode::Char('q')));
        assert!(!app.is_running());
    }

    #[test]
    fn ctrl_u_clears_and_ctrl_z_brings_it_back() {
        let mut app = App::new(Options::default());
        let ctrl = |c| Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL));
        app.handle_event(&ctrl('u'));
        assert_eq!(app.text(), "");
        assert!(app.tokens().is_empty());
        app.handle_event(&ctrl('z'));
        assert_eq!(app.text(), DEFAULT_SENTENCE);
        assert_eq!(app.tokens().len(), 4);
    }

    fn explorer_on(sentence: &str, model: Option<EmbeddingModel>) -> App {
        let mut app = App::new(Options {
            sentence: sentence.to_owned(),
            model,
            ..Options::default()
        });
        app.handle_event(&key(KeyCode::Enter));
        app
    }

    fn type_prompt(app: &mut App, opener: char, text: &str) {
        app.handle_event(&key(KeyCode::Char(opener)));
        type_text(app, text);
        app.handle_event(&key(KeyCode::Enter));
    }

    #[test]
    fn search_finds_rows_and_n_goes_through_them() {
        let mut app = explorer_on("fox", None);
        app.handle_event(&key(KeyCode::Char('v')));
        type_prompt(&mut app, '/', "fox");
        let fox = app.model().tokenizer().unwrap().id_of("fox").unwrap();
        assert_eq!(app.matrix_cursor(), fox);
        assert!(app.status().unwrap().contains(&format!("is row {fox}")));
        app.handle_event(&key(KeyCode::Char('n')));
        assert_eq!(
            app.model().token_text(app.matrix_cursor()).as_deref(),
            Some("foxes")
        );
        type_prompt(&mut app, '/', "qqqq");
        assert_eq!(app.status(), Some("no token matches 'qqqq'"));
        assert_eq!(app.scope(), Scope::Explorer, "the prompt closes");
    }

    #[test]
    fn go_to_an_id_or_say_why_not() {
        let mut app = explorer_on("fox", None);
        type_prompt(&mut app, '#', "5");
        assert_eq!(app.matrix_cursor(), 5);
        assert_eq!(app.status(), Some("row 5 'man'"));
        type_prompt(&mut app, '#', "x9");
        assert_eq!(
            app.status(),
            Some("no row 9: ids run from 0 to 5"),
            "letters are not typed into an id"
        );
        assert_eq!(app.matrix_cursor(), 5);
        type_prompt(&mut app, '#', "60");
        assert_eq!(app.status(), Some("no row 60: ids run from 0 to 5"));
        app.handle_event(&key(KeyCode::Char('#')));
        app.handle_event(&key(KeyCode::Esc));
        assert!(app.is_running(), "Esc closes the prompt, it does not quit");
        assert_eq!(app.scope(), Scope::Explorer);
    }

    #[test]
    fn a_table_without_vocabulary_takes_ids() {
        let model = EmbeddingModel::shaped(300, 64, 16, 7).unwrap();
        let app = explorer_on("3 1 4 999", Some(model));
        let ids: Vec<_> = app.tokens().iter().map(|t| t.id).collect();
        assert_eq!(ids, [Some(3), Some(1), Some(4), None]);
        assert_eq!(app.vocab(), None);
    }

    #[test]
    fn wide_vectors_switch_view_and_scroll() {
        let model = EmbeddingModel::shaped(300, 64, 16, 7).unwrap();
        let mut app = explorer_on("3 1", Some(model));
        assert_eq!(app.wide_style().view, WideView::Strip);
        app.handle_event(&key(KeyCode::Char(']')));
        let style = app.wide_style();
        assert_eq!((style.view, style.first_dim), (WideView::Values, 8));
        for _ in 0..20 {
            app.handle_event(&key(KeyCode::Char(']')));
        }
        assert_eq!(
            app.wide_style().first_dim,
            56,
            "the window stops at the last dimensions"
        );
        app.handle_event(&key(KeyCode::Char('[')));
        app.handle_event(&key(KeyCode::Char('x')));
        let style = app.wide_style();
        assert_eq!((style.view, style.first_dim), (WideView::Strip, 48));
        assert!(
            (style.scale - 1.0).abs() < 0.2,
            "a generated table's values are about 1"
        );
    }

    #[test]
    fn ctrl_c_quits_from_the_input() {
        let mut app = App::new(Options::default());
        app.handle_event(&Event::Key(KeyEvent::new(
            KeyCode::Char('c'),
            KeyModifiers::CONTROL,
        )));
        assert!(!app.is_running());
    }
}
