//! Terminal events into actions, and the loop that reads them and draws.

use std::time::{Duration, Instant};

use anyhow::Result;
use ratatui::DefaultTerminal;
use ratatui::crossterm::clipboard::CopyToClipboard;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::crossterm::execute;

use super::App;
use super::input::Input;
use super::navigation::Focus;
use crate::action::{Action, Scope, action_for_key};
use crate::hit_map::HitMap;

/// Whether an event is a key that quits from anywhere (Ctrl+C), as the key table says.
fn quits_from_anywhere(event: &Event) -> bool {
    event
        .as_key_press_event()
        .is_some_and(|key| action_for_key(key, Scope::Anywhere) == Some(Action::Quit))
}

/// How often the explorer looks again while a table is being generated.
const TICK: Duration = Duration::from_millis(100);

/// The longest the explorer reads queued keys before it draws, so a flood still shows progress.
const FRAME_BUDGET: Duration = Duration::from_millis(100);

/// How long the explorer waits for another queued event before it draws: a burst of keys the
/// terminal writes in pieces still costs one frame.
const QUEUED_WAIT: Duration = Duration::from_millis(1);

impl App {
    /// Runs the explorer until the user quits.
    ///
    /// # Errors
    /// When the terminal cannot be drawn or read.
    pub fn run(mut self, terminal: &mut DefaultTerminal) -> Result<()> {
        let mut input = Input::open()?;
        let size = terminal.size()?;
        self.update(Action::Resize(size.width, size.height));
        while self.running {
            let mut hits = HitMap::default();
            let frame = terminal
                .draw(|frame| hits = crate::ui::draw(&self, frame.area(), frame.buffer_mut()))?;
            self.drawn(hits);
            if let Some(script) = self.clipboard_request() {
                // After the frame that says it is copying: OSC 52 asks the terminal to put the
                // script on the clipboard (a terminal without it ignores the sequence).
                let script = script.to_owned();
                let copied = execute!(
                    terminal.backend_mut(),
                    CopyToClipboard::to_clipboard_from(script)
                );
                self.update(Action::SnippetCopied(
                    copied.map_err(|error| error.to_string()),
                ));
                continue;
            }
            if self.export_requested() {
                // The very cells just drawn, at the terminal's size.
                let written =
                    crate::export::write_screen(frame.buffer, self.export_dir(), &self.text());
                self.update(Action::Exported(crate::export::written_status(&written)));
                continue;
            }
            // While a table is being generated or scanned, wake up now and then to show it.
            let first = if self.waiting_for_tables() || self.scanning() || self.computing_layer0() {
                let Some(first) = input.poll(TICK)? else {
                    self.update(Action::Tick);
                    continue;
                };
                first
            } else {
                input.read()?
            };
            let queued = || input.poll(QUEUED_WAIT);
            self.handle_queued(&first, queued, Instant::now() + FRAME_BUDGET)?;
        }
        Ok(())
    }

    /// Applies `first` and then every event already queued, so a burst of keys costs one frame
    /// rather than one frame a key.
    ///
    /// `queued` returns the next event without waiting, or `None` when none is queued. Reading
    /// stops at `until`, so that a flood of keys still shows a frame now and then. A key that
    /// quits from anywhere (Ctrl+C) is looked for among everything read before anything is
    /// applied, so it acts at once however much typing queued before it. Typed text is applied
    /// key by key, but what depends on the sentence is derived once, after the last key of a
    /// run of typing: a flood that is not a bracketed paste costs what a paste costs.
    ///
    /// # Errors
    /// When `queued` cannot read the terminal.
    pub fn handle_queued(
        &mut self,
        first: &Event,
        mut queued: impl FnMut() -> std::io::Result<Option<Event>>,
        until: Instant,
    ) -> std::io::Result<()> {
        let mut events = vec![first.clone()];
        while Instant::now() < until {
            let Some(event) = queued()? else { break };
            events.push(event);
        }
        if events.iter().any(quits_from_anywhere) {
            self.update(Action::Quit);
            return Ok(());
        }
        let mut edited = false;
        // Characters typed one after another, inserted together: a text area inserts a key in
        // time that grows with its line, so ten thousand keys one by one took seconds.
        let mut typed = String::new();
        for event in &events {
            if !self.running {
                break;
            }
            if let Some(c) = self.typed_char(event) {
                typed.push(c);
                continue;
            }
            if !typed.is_empty() {
                edited = self.apply_deferred(Action::Paste(std::mem::take(&mut typed)), edited);
            }
            edited = self.handle_event_deferred(event, edited);
        }
        if !typed.is_empty() {
            edited = self.apply_deferred(Action::Paste(typed), edited);
        }
        if edited {
            self.derive();
        }
        Ok(())
    }

    /// The character an event types into the sentence being edited, if it types one.
    fn typed_char(&self, event: &Event) -> Option<char> {
        match self.action_for_event(event)? {
            Action::Edit(KeyEvent {
                code: KeyCode::Char(c),
                modifiers,
                ..
            }) if (modifiers - KeyModifiers::SHIFT).is_empty() => Some(c),
            _ => None,
        }
    }

    /// Turns a terminal event into an action and applies it.
    pub fn handle_event(&mut self, event: &Event) {
        if self.handle_event_deferred(event, false) {
            self.derive();
        }
    }

    /// Applies an event; an edit of the sentence leaves the derive step for later.
    ///
    /// `edited` says whether an earlier edit still waits for the derive step; any other action
    /// runs it first, since it may read what the sentence derives (its tokens). Returns whether
    /// an edit waits for the derive step now.
    fn handle_event_deferred(&mut self, event: &Event, edited: bool) -> bool {
        if let Some((escape, key)) = self.escape_then_key(event) {
            let edited = self.handle_event_deferred(&escape, edited);
            return self.handle_event_deferred(&key, edited);
        }
        if let Event::Mouse(mouse) = event {
            let mut edited = edited;
            for action in self.actions_for_mouse(mouse) {
                edited = self.apply_deferred(action, edited);
            }
            return edited;
        }
        let Some(action) = self.action_for_event(event) else {
            return edited;
        };
        self.apply_deferred(action, edited)
    }

    /// Applies an action; an edit of the sentence leaves the derive step for later (see
    /// [`App::handle_event_deferred`]).
    fn apply_deferred(&mut self, action: Action, edited: bool) -> bool {
        if matches!(action, Action::Edit(_) | Action::Paste(_)) {
            self.apply_edit(action);
            return true;
        }
        if edited {
            self.derive();
        }
        self.update(action);
        false
    }

    /// Esc and a key that arrived together, split again.
    ///
    /// A terminal sends Esc as the byte that also starts Alt+key, so Esc followed at once by
    /// a letter (typed quickly, pasted, or sent by a script) is read as Alt+letter. Where
    /// Alt+letter means nothing (outside the text being edited, which has Alt+word motions),
    /// it is taken as the two keys the user pressed.
    fn escape_then_key(&self, event: &Event) -> Option<(Event, Event)> {
        let key = event.as_key_press_event()?;
        let KeyCode::Char(_) = key.code else {
            return None;
        };
        let scope = self.scope();
        if key.modifiers != KeyModifiers::ALT
            || matches!(scope, Scope::Input | Scope::Prompt)
            || action_for_key(key, scope).is_some()
        {
            return None;
        }
        let escape = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
        let plain = KeyEvent::new(key.code, KeyModifiers::NONE);
        Some((Event::Key(escape), Event::Key(plain)))
    }

    /// What an event means now: key presses through the key table, pastes into the input.
    #[must_use]
    pub fn action_for_event(&self, event: &Event) -> Option<Action> {
        match event {
            Event::Key(_) => event
                .as_key_press_event()
                .and_then(|key| action_for_key(key, self.scope())),
            Event::Paste(text) => Some(Action::Paste(text.clone())),
            Event::Resize(columns, rows) => Some(Action::Resize(*columns, *rows)),
            _ => None,
        }
    }

    /// The key table's scope for the current state.
    #[must_use]
    pub fn scope(&self) -> Scope {
        match (
            self.settings.help_open,
            self.prompts.open(),
            self.lesson.current,
            self.nav.focus,
        ) {
            (true, _, _, _) => Scope::Help,
            (false, _, _, _) if self.snippet.is_some() => Scope::Snippet,
            (false, Some(_), _, _) => Scope::Prompt,
            (false, None, Some(_), _) => Scope::Lesson,
            (false, None, None, Focus::Input) => Scope::Input,
            (false, None, None, Focus::Explorer) => Scope::Explorer,
        }
    }
}
