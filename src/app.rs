//! The explorer's state, its single `update`, and the event loop.

use anyhow::Result;
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{self, Event};
use ratatui::style::Style;
use ratatui_textarea::{CursorMove, TextArea};

use crate::action::{Action, Scope, action_for_key};
use crate::core::positional::PositionScheme;
use crate::core::tokenizer::{Token, VocabKind};
use crate::core::weights::{DEFAULT_SEED, EmbeddingModel, TokenLookup};
use crate::theme::Theme;

/// The sentence the explorer opens with: one word appears twice.
pub const DEFAULT_SENTENCE: &str = "fox bites the fox";

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
}

impl Default for Options {
    fn default() -> Self {
        Self {
            sentence: DEFAULT_SENTENCE.to_owned(),
            vocab: VocabKind::Seed,
            positions: PositionScheme::None,
            seed: DEFAULT_SEED,
            theme: Theme::new(true),
        }
    }
}

/// The explorer's whole state. Only [`App::update`] changes it; the view reads it.
pub struct App {
    textarea: TextArea<'static>,
    focus: Focus,
    vocab: VocabKind,
    seed: u64,
    model: EmbeddingModel,
    tokens: Vec<Token>,
    lookups: Vec<TokenLookup>,
    step: usize,
    overlay: bool,
    scheme: PositionScheme,
    matrix_cursor: usize,
    help_open: bool,
    running: bool,
    theme: Theme,
}

impl App {
    /// A new explorer with focus in the input.
    #[must_use]
    pub fn new(options: Options) -> Self {
        // The input is one line: newlines in a given sentence become spaces.
        let sentence = options.sentence.replace(['\r', '\n'], " ");
        let mut textarea = TextArea::new(vec![sentence]);
        textarea.move_cursor(CursorMove::End);
        textarea.set_cursor_line_style(Style::new());
        textarea.set_placeholder_text("type a sentence, e.g. the dog bites the man");
        let overlay = options.positions != PositionScheme::None;
        let scheme = if overlay {
            options.positions
        } else {
            PositionScheme::Learned
        };
        let mut app = Self {
            textarea,
            focus: Focus::Input,
            vocab: options.vocab,
            seed: options.seed,
            model: EmbeddingModel::builtin(options.vocab, options.seed),
            tokens: Vec::new(),
            lookups: Vec::new(),
            step: 0,
            overlay,
            scheme,
            matrix_cursor: 0,
            help_open: false,
            running: true,
            theme: options.theme,
        };
        app.retokenize();
        app
    }

    /// Runs the explorer until the user quits.
    ///
    /// # Errors
    /// When the terminal cannot be drawn or read.
    pub fn run(mut self, terminal: &mut DefaultTerminal) -> Result<()> {
        while self.running {
            terminal.draw(|frame| frame.render_widget(&self, frame.area()))?;
            self.handle_event(&event::read()?);
        }
        Ok(())
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
            _ => None,
        }
    }

    /// The key table's scope for the current state.
    #[must_use]
    pub fn scope(&self) -> Scope {
        match (self.help_open, self.focus) {
            (true, _) => Scope::Help,
            (false, Focus::Input) => Scope::Input,
            (false, Focus::Explorer) => Scope::Explorer,
        }
    }

    /// The only place state changes.
    pub fn update(&mut self, action: Action) {
        match action {
            Action::Quit => self.running = false,
            Action::ToggleHelp => self.help_open = !self.help_open,
            Action::FocusExplorer => {
                self.focus = Focus::Explorer;
                self.go_to(0);
            }
            Action::FocusInput => self.focus = Focus::Input,
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
                self.scheme = self.scheme.next_additive();
                self.overlay = true;
                self.relookup();
            }
            Action::CycleVocab => {
                self.vocab = self.vocab.next();
                self.model = EmbeddingModel::builtin(self.vocab, self.seed);
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
            Action::Edit(key) => {
                if self.textarea.input(key) {
                    self.retokenize();
                }
            }
            Action::Paste(text) => {
                self.focus = Focus::Input;
                self.help_open = false;
                self.textarea
                    .insert_str(text.replace("\r\n", " ").replace(['\r', '\n'], " "));
                self.retokenize();
            }
        }
    }

    fn retokenize(&mut self) {
        let text = self.text();
        self.tokens = self.model.tokenize(&text).unwrap_or_default();
        self.relookup();
        self.go_to(self.step);
    }

    fn relookup(&mut self) {
        self.lookups = self.model.embed(&self.tokens, self.active_scheme());
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

    /// The current vocabulary.
    #[must_use]
    pub fn vocab(&self) -> VocabKind {
        self.vocab
    }

    /// The sentence's tokens.
    #[must_use]
    pub fn tokens(&self) -> &[Token] {
        &self.tokens
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

    /// The styles in use.
    #[must_use]
    pub fn theme(&self) -> Theme {
        self.theme
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

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
        assert_eq!(app.vocab(), VocabKind::Words);
        assert_eq!(app.model().dims(), 8);
        assert_eq!(app.text(), DEFAULT_SENTENCE);
        app.handle_event(&key(KeyCode::Char('v')));
        assert_eq!(app.vocab(), VocabKind::Seed);
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
