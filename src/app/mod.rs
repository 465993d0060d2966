//! The explorer's state in owned parts, its single `update`, and the derive step after it.
//!
//! `update` changes inputs only: the sentence ([`editor`]), the models ([`sources`]), where
//! the learner is ([`navigation`]), the switches ([`settings`]) and the modes ([`prompt`],
//! [`compare`], [`lesson`]). Then [`derive`](mod@derive) recomputes exactly what depends on what changed.

pub mod cell;
pub mod compare;
pub mod derive;
pub mod editor;
mod events;
pub mod input;
pub mod job;
pub mod layer0;
pub mod lesson;
pub mod memo;
mod mouse;
pub mod navigation;
pub mod prompt;
pub mod scan;
pub mod settings;
pub mod snippet;
pub mod sources;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use ratatui::crossterm::event::KeyEvent;
use ratatui_textarea::TextArea;

use crate::action::{Action, key};
use crate::core::analysis::attention::Mask;
use crate::core::analysis::compare::Comparison;
use crate::core::analysis::layer0::{Layer0, Unavailable};
use crate::core::explain::layer0::{SentencePair, SentenceRun};
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::weights::{
    DEFAULT_GPT2_DIMS, DEFAULT_SEED, EmbeddingModel, TokenLookup, as_width,
};
use crate::core::text::sentence::Unread;
use crate::core::text::vocabulary::{Token, VocabKind};
use crate::hit_map::HitMap;
use crate::lesson::Progress;
use crate::theme::Theme;
use crate::view_state::{Detail, HeadChoice, WideStyle};

pub use compare::CompareMode;
pub use derive::{MAX_VIEW_TOKENS, Recomputations, Views};
pub use navigation::{Focus, PAGE_ROWS};
pub use prompt::{Prompt, PromptKind};
pub use scan::{NEAREST_ROWS, Neighbours};
pub use settings::DIMS_STEP;
pub use sources::RealLayer;

use derive::{Derived, Inputs};
use editor::Editor;
use lesson::LessonState;
use navigation::Navigation;
use prompt::Prompts;
use settings::Settings;
use sources::Sources;

/// The sentence the explorer opens with: one word appears twice.
pub const DEFAULT_SENTENCE: &str = "fox bites the fox";

/// The default sentence as ids, for tables read by id: fox bites the fox in the seed vocabulary.
pub const DEFAULT_IDS: &str = "2 4 0 2";

/// What the status line says to a printable key that means nothing in the explorer.
fn unbound(c: char) -> String {
    format!(
        "{c} does nothing here: {} to type a sentence, {} for the keys",
        key(&Action::FocusInput),
        key(&Action::ToggleHelp)
    )
}

/// What `u` says when the model's own layer 0 is shown: its mask is the model's.
fn own_mask_note(layer: &Layer0) -> String {
    let mask = if layer.is_causal() {
        "causal: each token sees only itself and the tokens before it"
    } else {
        "unmasked: every token sees every token"
    };
    format!(
        "the model's own layer 0 is {mask}, as the model was trained; {} applies to the seeded \
         head of the built-in vocabularies",
        key(&Action::ToggleCausal)
    )
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
    /// That model's own first attention layer, or why it cannot be computed.
    pub layer0: Option<Result<Layer0, Unavailable>>,
    /// The width of the built-in gpt2 tables.
    pub gpt2_dims: usize,
    /// Whether a model's tokenizer adds its special tokens (such as `[CLS]`).
    pub special_tokens: bool,
    /// Read the input as token ids (`3 1 4`) even when there is a tokenizer.
    pub ids: bool,
    /// Start in the guided lesson.
    pub lesson: bool,
    /// Tables with at least this many numbers have their whole-matrix scans (nearest rows) on
    /// a worker thread, so keys never wait for them.
    pub background_scan_from: usize,
    /// Runs of the model's own layer 0 with at least this many multiply-adds run on a worker
    /// thread.
    pub background_layer0_from: usize,
    /// A model tokenizer of at least this many ids is built on a worker thread started once
    /// the first frame is drawn ([`App::drawn`]), so that frame neither waits for it nor
    /// shares the processor with it; a smaller one is built at once.
    pub background_tokenizer_from: usize,
    /// Where `e` writes the screen.
    pub export_dir: PathBuf,
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
            layer0: None,
            gpt2_dims: as_width(DEFAULT_GPT2_DIMS),
            special_tokens: true,
            ids: false,
            lesson: false,
            background_scan_from: scan::BACKGROUND_SCAN_FROM,
            background_layer0_from: layer0::BACKGROUND_LAYER0_FROM,
            background_tokenizer_from: sources::BACKGROUND_TOKENIZER_FROM,
            export_dir: PathBuf::from("."),
        }
    }
}

/// The explorer's whole state. Only [`App::update`] changes it; the view reads it.
pub struct App {
    editor: Editor,
    sources: Sources,
    nav: Navigation,
    settings: Settings,
    prompts: Prompts,
    compare: Option<CompareMode>,
    lesson: LessonState,
    derived: Derived,
    running: bool,
    status: Option<String>,
    theme: Theme,
    background_scan_from: usize,
    background_layer0_from: usize,
    /// Whether `e` asked for the screen to be written after the next draw.
    export_requested: bool,
    /// The `y` overlay, while it is open.
    snippet: Option<snippet::SnippetOverlay>,
    export_dir: PathBuf,
    /// Where the last frame drew what the mouse can point at: written while drawing (the view
    /// has only `&App`), read by the event handling. Not state `update` keeps.
    hits: HitMap,
    /// Whether a frame has been drawn since the explorer opened: the first one starts a large
    /// tokenizer's build on its worker, and later ones leave it be.
    first_frame_drawn: bool,
}

impl App {
    /// A new explorer with focus in the input.
    #[must_use]
    pub fn new(options: Options) -> Self {
        let overlay = options.positions != PositionScheme::None;
        let scheme = if overlay {
            options.positions
        } else {
            PositionScheme::Learned
        };
        let mut app = Self {
            // The input is one line: newlines in a given sentence become spaces.
            editor: Editor::new(&options.sentence),
            sources: Sources::new(
                options.model,
                options.layer0,
                options.vocab,
                options.seed,
                options.gpt2_dims,
                options.background_tokenizer_from,
            ),
            nav: Navigation::new(),
            settings: Settings {
                special_tokens: options.special_tokens,
                ids: options.ids,
                ..Settings::new(overlay, scheme)
            },
            prompts: Prompts::default(),
            compare: None,
            lesson: LessonState::default(),
            derived: Derived::default(),
            running: true,
            status: None,
            theme: options.theme,
            background_scan_from: options.background_scan_from,
            background_layer0_from: options.background_layer0_from,
            export_requested: false,
            snippet: None,
            export_dir: options.export_dir,
            hits: HitMap::default(),
            first_frame_drawn: false,
        };
        app.derive();
        if options.lesson {
            app.toggle_lesson();
            app.derive();
        }
        app
    }

    /// The only place state changes: the action changes inputs, then what depends on them is
    /// derived again.
    pub fn update(&mut self, action: Action) {
        // `e` writes the screen as it is: its status line and its page of the explanation.
        if !matches!(
            action,
            Action::PromptKey(_) | Action::Tick | Action::Resize(..) | Action::Export
        ) {
            self.status = None;
        }
        // Anything else the learner does changes what the explanation says: its first page.
        if !matches!(
            action,
            Action::ScrollExplanation
                | Action::Tick
                | Action::Resize(..)
                | Action::Export
                | Action::Exported(_)
        ) && !action.is_snippet()
        {
            self.settings.explanation_page = 0;
        }
        self.apply(action);
        self.derive();
    }

    /// The scheme the model opened from files has instead of a learned position table: `RoPE`
    /// when its own layer 0 rotates queries and keys; `None` for the others.
    fn own_scheme(&self) -> Option<PositionScheme> {
        match self.sources.layer0() {
            RealLayer::Open(layer)
                if layer.rope().is_some() && self.sources.model().position_table().is_none() =>
            {
                Some(PositionScheme::Rope)
            }
            _ => None,
        }
    }

    /// Applies an edit of the sentence (a typed key or a paste) without the derive step, which
    /// the caller runs once after a run of edits.
    fn apply_edit(&mut self, action: Action) {
        debug_assert!(matches!(action, Action::Edit(_) | Action::Paste(_)));
        self.status = None;
        self.apply(action);
    }

    /// Recomputes what depends on the inputs that changed.
    fn derive(&mut self) {
        let text = self.editor.text();
        let other = self
            .compare
            .as_ref()
            .map(|compare| (compare.other_text(), compare.other_revision()));
        let inputs = Inputs {
            model: self.sources.model(),
            model_revision: self.sources.revision(),
            text: &text,
            text_revision: self.editor.revision(),
            settings: &self.settings,
            scheme: self.active_scheme(),
            other: other
                .as_ref()
                .map(|(text, revision)| (text.as_str(), *revision)),
            seed: self.sources.seed(),
            background_scan_from: self.background_scan_from,
            layer0: self.sources.layer0(),
            background_layer0_from: self.background_layer0_from,
        };
        let changed = self.derived.derive(&inputs);
        // New tokens: the current token is clamped to the sentence, or moved where a lesson
        // step asked for.
        if changed.tokens || self.nav.jump_pending() {
            self.nav
                .follow_tokens(self.derived.tokens(), self.sources.model().rows());
        }
        self.derived.derive_views(&inputs, self.nav.step());
    }

    /// Changes the inputs an action names: one short arm per action.
    #[expect(clippy::too_many_lines, reason = "one short arm per action")]
    fn apply(&mut self, action: Action) {
        let rows = self.sources.model().rows();
        match action {
            Action::Quit => self.running = false,
            Action::ToggleHelp => self.settings.toggle_help(),
            Action::ScrollHelp(lines) => self.settings.scroll_help(lines),
            Action::ScrollExplanation => {
                self.settings.explanation_page = self.settings.explanation_page.wrapping_add(1);
            }
            Action::Resize(columns, rows) => self.settings.resize(columns, rows),
            Action::Back => self.back(),
            Action::Unbound(c) => self.status = Some(unbound(c)),
            Action::Export => self.export_requested = true,
            Action::Exported(status) => self.exported(status),
            Action::ShowSnippet
            | Action::ScrollSnippet(_)
            | Action::SaveSnippet
            | Action::CloseSnippet
            | Action::SnippetCopied(_) => self.snippet_action(action),
            Action::FocusExplorer => {
                self.nav.focus = Focus::Explorer;
                self.go_to(0);
            }
            Action::FocusInput => {
                self.nav.focus = Focus::Input;
                if let Some(compare) = self.compare.as_mut() {
                    compare.set_editing_other(false);
                }
            }
            Action::FocusOther => {
                if let Some(compare) = self.compare.as_mut() {
                    compare.set_editing_other(true);
                }
                self.nav.focus = Focus::Input;
            }
            Action::ToggleCompare => self.toggle_compare(),
            Action::ShowDetail(detail) => self.settings.show_detail(detail),
            Action::PreviousHead => self.choose_head(-1),
            Action::NextHead => self.choose_head(1),
            Action::ToggleHeadOverview => self.toggle_head_overview(),
            Action::ToggleCausal => self.toggle_causal(),
            Action::ToggleLesson => self.toggle_lesson(),
            Action::Answer(choice) => self.answer(choice),
            Action::LessonNext => self.lesson_next(),
            Action::LessonBack => self.lesson_back(),
            Action::Next => self.go_to(self.nav.step().saturating_add(1)),
            Action::Previous => self.go_to(self.nav.step().saturating_sub(1)),
            Action::First => self.go_to(0),
            Action::Last => self.go_to(usize::MAX),
            Action::ScrollUp => self.nav.scroll(-1, rows),
            Action::ScrollDown => self.nav.scroll(1, rows),
            Action::PageUp => self.nav.scroll(-PAGE_ROWS.cast_signed(), rows),
            Action::PageDown => self.nav.scroll(PAGE_ROWS.cast_signed(), rows),
            Action::TogglePositions => self.settings.overlay = !self.settings.overlay,
            Action::CycleScheme => self.settings.cycle_scheme(self.own_scheme()),
            Action::CycleVocab => {
                // The next model keeps the scheme shown on this one (a rotary model's RoPE
                // stays RoPE), not the choice behind it.
                self.settings.scheme = self.scheme();
                self.sources.cycle();
                self.settings.first_dim = 0;
            }
            // Clearing and undoing act on the sentence being edited.
            Action::ClearInput => match self.compare.as_mut().filter(|c| c.editing_other()) {
                Some(compare) => compare.clear(),
                None => self.editor.clear(),
            },
            Action::Undo => match self.compare.as_mut().filter(|c| c.editing_other()) {
                Some(compare) => compare.undo(),
                None => self.editor.undo(),
            },
            Action::Reorder => self.reorder(),
            Action::ToggleSpecialTokens => {
                self.settings.special_tokens = !self.settings.special_tokens;
                self.status = Some(if self.settings.special_tokens {
                    "special tokens shown as the model sees them".to_owned()
                } else {
                    "special tokens left out".to_owned()
                });
            }
            // Tables that finished generating are picked up by the derive step.
            Action::Tick => {}
            Action::ToggleWideView => self.settings.wide_view = self.settings.wide_view.toggled(),
            Action::DimsLeft => self.settings.dims_left(),
            Action::DimsRight => self.settings.dims_right(self.sources.model().dims()),
            Action::StartSearch => self.prompts.start(PromptKind::Search),
            Action::StartGoTo => self.prompts.start(PromptKind::GoTo),
            Action::NextMatch => {
                self.status = Some(self.prompts.next_match(self.sources.model(), &mut self.nav));
            }
            Action::PromptKey(key) => self.prompts.key(key),
            Action::PromptCancel => self.prompts.cancel(),
            Action::PromptSubmit => {
                if let Some(status) = self.prompts.submit(self.sources.model(), &mut self.nav) {
                    self.status = Some(status);
                }
            }
            Action::Edit(key) => self.edit(key),
            // Into the sentence being edited (compare mode's second one too); from elsewhere,
            // into the input, which then has the keyboard.
            Action::Paste(text) => {
                self.nav.focus = Focus::Input;
                self.settings.help_open = false;
                match self.compare.as_mut().filter(|c| c.editing_other()) {
                    Some(compare) => compare.paste(&text),
                    None => self.editor.paste(&text),
                }
            }
        }
    }

    /// The screen was written, or not: the status line says which.
    fn exported(&mut self, status: String) {
        self.export_requested = false;
        self.status = Some(status);
    }

    /// Adds or removes the seeded head's causal mask; the model's own layer 0 keeps its own.
    fn toggle_causal(&mut self) {
        if let RealLayer::Open(layer) = self.sources.layer0() {
            self.status = Some(own_mask_note(layer));
            return;
        }
        self.settings.mask = self.settings.mask.toggled();
        self.status = Some(match self.settings.mask {
            Mask::None => "attention unmasked: every token sees every token".to_owned(),
            Mask::Causal => {
                "causal mask: each token sees only itself and the tokens before it".to_owned()
            }
        });
    }

    /// Goes back one level: the head overview to one head, the open pane closes, else compare
    /// mode ends; never quits.
    fn back(&mut self) {
        if self.settings.head_overview && self.settings.detail == Detail::Attention {
            self.settings.head_overview = false;
        } else if self.settings.detail != Detail::HOME {
            self.settings.detail = Detail::HOME;
        } else if self.compare.take().is_none() {
            self.status = Some(format!(
                "nothing to go back from: {} quits",
                key(&Action::Quit)
            ));
        }
    }

    /// A key for whichever sentence has the keyboard.
    fn edit(&mut self, key: KeyEvent) {
        match self.compare.as_mut().filter(|c| c.editing_other()) {
            Some(compare) => compare.input(key),
            None => self.editor.input(key),
        }
    }

    /// Makes token `index` (clamped) current and brings its row into view.
    fn go_to(&mut self, index: usize) {
        let rows = self.sources.model().rows();
        self.nav.go_to(index, self.derived.tokens(), rows);
    }

    /// Whether the lookups wait for a table that is still being generated, or the tokens for
    /// the tokenizer being built on its worker.
    #[must_use]
    pub fn waiting_for_tables(&self) -> bool {
        self.derived.lookups_pending() || self.reading_tokenizer()
    }

    /// Whether the tokens wait for the model's tokenizer, still being built on its worker.
    #[must_use]
    pub fn reading_tokenizer(&self) -> bool {
        !self.settings.ids && self.model().text_pending()
    }

    /// Why typed text is read as token ids, when the model's own tokenizer cannot read it.
    #[must_use]
    pub fn ids_only_note(&self) -> Option<String> {
        self.model().ids_only_note().filter(|_| !self.settings.ids)
    }

    /// Whether `e` asked for the screen to be written: the run loop writes the frame it draws
    /// next and answers with [`Action::Exported`].
    #[must_use]
    pub fn export_requested(&self) -> bool {
        self.export_requested
    }

    /// The `y` overlay, while it is open.
    #[must_use]
    pub fn snippet(&self) -> Option<&snippet::SnippetOverlay> {
        self.snippet.as_ref()
    }

    /// The script `y` asked to copy: the run loop writes it to the terminal (OSC 52) after
    /// the next draw and answers with [`Action::SnippetCopied`].
    #[must_use]
    pub fn clipboard_request(&self) -> Option<&str> {
        self.snippet
            .as_ref()
            .and_then(snippet::SnippetOverlay::clipboard_request)
    }

    /// Where `e` writes the screen.
    #[must_use]
    pub fn export_dir(&self) -> &Path {
        &self.export_dir
    }

    /// Whether the model's own layer 0 is being computed on a worker (the panes say so).
    #[must_use]
    pub fn computing_layer0(&self) -> bool {
        self.derived.computing_layer0()
    }

    /// The model in use's own layer 0, why it has none, or that it is a random table.
    #[must_use]
    pub fn real_layer(&self) -> RealLayer<'_> {
        self.sources.layer0()
    }

    /// The model's own layer 0 over the sentence, while the attention pane is open: `None`
    /// while it is computed.
    #[must_use]
    pub fn layer0_view(&self) -> Option<Result<&SentenceRun, &str>> {
        self.derived.layer0_view()
    }

    /// Compare mode on the model's own layer 0: `None` while it is computed or without one.
    #[must_use]
    pub fn real_comparison(&self) -> Option<Result<&SentencePair, &str>> {
        self.derived.real_comparison()
    }

    /// The head of the model's own layer 0 shown, within its heads.
    #[must_use]
    pub fn head(&self) -> usize {
        match self.sources.layer0() {
            RealLayer::Open(layer) => self.settings.head.min(layer.heads() - 1),
            _ => 0,
        }
    }

    /// Which outputs of the model's own layer 0 compare mode's outputs table shows, within
    /// its heads.
    #[must_use]
    pub fn compare_head(&self) -> HeadChoice {
        match self.sources.layer0() {
            RealLayer::Open(layer) => self.settings.compare_head.moved(0, layer.heads()),
            _ => HeadChoice::AllHeads,
        }
    }

    /// Whether every head of the model's own layer 0 is shown at once.
    #[must_use]
    pub fn head_overview(&self) -> bool {
        self.settings.head_overview
            && self.settings.detail == Detail::Attention
            && matches!(self.sources.layer0(), RealLayer::Open(_))
    }

    /// Whether whole-matrix work is running on a worker (the similarity and one-hot panes
    /// say so).
    #[must_use]
    pub fn scanning(&self) -> bool {
        self.derived.scanning()
    }

    /// The learned position table's typical magnitude (sampled once per model), when the
    /// model has one.
    #[must_use]
    pub fn position_scale(&self) -> Option<f32> {
        self.derived.position_scale()
    }

    /// How many times each derived thing has been computed since the explorer started.
    #[must_use]
    pub fn recomputations(&self) -> Recomputations {
        self.derived.counts()
    }

    /// The sentence as typed, lines joined by spaces.
    #[must_use]
    pub fn text(&self) -> String {
        self.editor.text()
    }

    /// Whether the program should keep running.
    #[must_use]
    pub fn is_running(&self) -> bool {
        self.running
    }

    /// The text area, for drawing.
    #[must_use]
    pub fn textarea(&self) -> &TextArea<'static> {
        self.editor.textarea()
    }

    /// Which pane has the keyboard.
    #[must_use]
    pub fn focus(&self) -> Focus {
        self.nav.focus
    }

    /// The tables and vocabulary being explored.
    #[must_use]
    pub fn model(&self) -> &EmbeddingModel {
        self.sources.model()
    }

    /// The current built-in vocabulary, or `None` for a model opened from files.
    #[must_use]
    pub fn vocab(&self) -> Option<VocabKind> {
        self.sources.vocab()
    }

    /// The sentence's tokens.
    #[must_use]
    pub fn tokens(&self) -> &[Token] {
        self.derived.tokens()
    }

    /// The text after the last token read, when the sentence is longer than the explorer reads.
    #[must_use]
    pub fn unread(&self) -> Option<&Unread> {
        self.derived.unread()
    }

    /// Whether some token of the sentence looks up row `id` (a binary search, not a scan).
    #[must_use]
    pub fn uses_row(&self, id: usize) -> bool {
        self.derived.uses_row(id)
    }

    /// Each token's lookup under the active scheme.
    #[must_use]
    pub fn lookups(&self) -> &[TokenLookup] {
        self.derived.lookups()
    }

    /// The index of the current token.
    #[must_use]
    pub fn step(&self) -> usize {
        self.nav.step()
    }

    /// The token being looked up, if the sentence has any.
    #[must_use]
    pub fn current_token(&self) -> Option<&Token> {
        self.tokens().get(self.step())
    }

    /// Whether position vectors are added.
    #[must_use]
    pub fn overlay(&self) -> bool {
        self.settings.overlay
    }

    /// The scheme `p` adds and `m` cycles, as it is in force on this model: the one chosen,
    /// or the model's own (`RoPE`) where learned positions were chosen and it has none.
    #[must_use]
    pub fn scheme(&self) -> PositionScheme {
        self.settings.scheme_in_force(self.own_scheme())
    }

    /// The scheme applied: the one in force with the overlay on, none with it off.
    #[must_use]
    pub fn active_scheme(&self) -> PositionScheme {
        self.settings.active_scheme(self.own_scheme())
    }

    /// The matrix row the view keeps in sight.
    #[must_use]
    pub fn matrix_cursor(&self) -> usize {
        self.nav.matrix_cursor()
    }

    /// Whether the row in sight is one the learner moved to (a search, a go-to, scrolling),
    /// not the current token's: only then is it marked.
    #[must_use]
    pub fn matrix_cursor_moved(&self) -> bool {
        self.nav.cursor_moved()
    }

    /// Whether the help overlay is open.
    #[must_use]
    pub fn help_open(&self) -> bool {
        self.settings.help_open
    }

    /// The page of the explanation to show, counting from 0; the view takes it modulo its
    /// pages, so the page after the last is the first.
    #[must_use]
    pub fn explanation_page(&self) -> usize {
        self.settings.explanation_page
    }

    /// The first line of the help overlay shown.
    #[must_use]
    pub fn help_scroll(&self) -> usize {
        self.settings.help_scroll
    }

    /// How wide vectors are drawn now.
    #[must_use]
    pub fn wide_style(&self) -> WideStyle {
        WideStyle {
            view: self.settings.wide_view,
            first_dim: self.settings.first_dim,
            scale: self.derived.value_scale(),
        }
    }

    /// The open prompt, if any.
    #[must_use]
    pub fn prompt(&self) -> Option<&Prompt> {
        self.prompts.open()
    }

    /// A short answer to the last thing the user asked (a search, a go-to).
    #[must_use]
    pub fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }

    /// What the pane beside the matrix shows.
    #[must_use]
    pub fn detail(&self) -> Detail {
        self.settings.detail
    }

    /// Whether the attention pane masks future tokens.
    #[must_use]
    pub fn mask(&self) -> Mask {
        self.settings.mask
    }

    /// Compare mode, when it is on.
    #[must_use]
    pub fn compare(&self) -> Option<&CompareMode> {
        self.compare.as_ref()
    }

    /// Compare mode's comparison of the two sentences.
    ///
    /// # Errors
    /// Why there is none, such as a word without a row (empty before the first comparison).
    pub fn comparison(&self) -> Result<&Comparison, &str> {
        self.derived.comparison()
    }

    /// The lesson, while it runs.
    #[must_use]
    pub fn lesson(&self) -> Option<Progress> {
        self.lesson.current
    }

    /// What the panes beside the matrix show, a memo each.
    #[must_use]
    pub fn views(&self) -> &Views {
        self.derived.views()
    }

    /// The current word and its first other copy, before and after `RoPE` turns them.
    #[must_use]
    pub fn rope_copies(&self) -> Option<&crate::core::analysis::schemes::TurnedCopies> {
        self.derived.rope_copies()
    }

    /// The styles in use.
    #[must_use]
    pub fn theme(&self) -> Theme {
        self.theme
    }

    /// Keeps where the frame just drawn put what the mouse can point at (`ui::draw` returns
    /// it), for the next mouse event to read; after the first frame (only), starts building a
    /// large tokenizer on its worker, so that frame had the processor to itself.
    pub fn drawn(&mut self, hits: HitMap) {
        self.hits = hits;
        if !self.first_frame_drawn {
            self.first_frame_drawn = true;
            self.sources.start_tokenizer_worker();
        }
    }
}
