//! Terminal events into actions, and the loop that reads them and draws.

use std::time::{Duration, Instant};

use anyhow::Result;
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyModifiers};

use super::App;
use super::navigation::Focus;
use crate::action::{Action, Scope, action_for_key};

/// How often the explorer looks again while a table is being generated.
const TICK: Duration = Duration::from_millis(100);

/// The longest the explorer reads queued keys before it draws, so a flood still shows progress.
const FRAME_BUDGET: Duration = Duration::from_millis(100);

/// How long the explorer waits for another queued event before it draws.
///
/// Not zero: crossterm's level-triggered source returns at once for a zero timeout without
/// looking at the events it has already read and parsed, so a burst would cost a frame a key.
const QUEUED_WAIT: Duration = Duration::from_millis(1);

impl App {
    /// Runs the explorer until the user quits.
    ///
    /// # Errors
    /// When the terminal cannot be drawn or read.
    pub fn run(mut self, terminal: &mut DefaultTerminal) -> Result<()> {
        let size = terminal.size()?;
        self.update(Action::Resize(size.width, size.height));
        while self.running {
            terminal.draw(|frame| frame.render_widget(&self, frame.area()))?;
            // While a table is being generated or scanned, wake up now and then to show it.
            if (self.waiting_for_tables() || self.scanning() || self.computing_layer0())
                && !event::poll(TICK)?
            {
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

    /// Turns a terminal event into an action and applies it.
    pub fn handle_event(&mut self, event: &Event) {
        if let Some((escape, key)) = self.escape_then_key(event) {
            self.handle_event(&escape);
            self.handle_event(&key);
            return;
        }
        if let Some(action) = self.action_for_event(event) {
            self.update(action);
        }
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
            (false, Some(_), _, _) => Scope::Prompt,
            (false, None, Some(_), _) => Scope::Lesson,
            (false, None, None, Focus::Input) => Scope::Input,
            (false, None, None, Focus::Explorer) => Scope::Explorer,
        }
    }
}
