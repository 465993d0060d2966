//! Mouse events into the actions the keys take: what the last frame drew where (the hit map)
//! says what was clicked, and the key table's actions say what that does.

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use super::App;
use crate::action::{Action, Scope, bar_entries};
use crate::hit_map::{Scrollable, Target};

/// Rows (or help lines) one notch of the wheel scrolls.
const WHEEL_ROWS: usize = 3;

impl App {
    /// The actions a mouse event takes, in order: none for a click on nothing clickable.
    ///
    /// - a token (in the token strip or the sentence): step to it, as `←`/`→` would;
    /// - a row of the weight matrix: go to it, as `#` and its id would;
    /// - an entry of the help bar: its key's action;
    /// - a lesson answer: answer with it, as its number key would;
    /// - the wheel over the matrix, the lookups, the explanation, the help or the snippet:
    ///   scroll it as its keys would (`↑`/`↓`, `←`/`→`, `Space`, the overlays' `↑`/`↓`).
    #[must_use]
    pub fn actions_for_mouse(&self, mouse: &MouseEvent) -> Vec<Action> {
        let hits = &self.hits;
        let scope = self.scope();
        match mouse.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                match hits.click_at(mouse.column, mouse.row) {
                    Some(target) => self.actions_for_click(target, scope),
                    None => Vec::new(),
                }
            }
            MouseEventKind::ScrollUp | MouseEventKind::ScrollDown => {
                let down = mouse.kind == MouseEventKind::ScrollDown;
                match hits.pane_at(mouse.column, mouse.row) {
                    Some(pane) => wheel(pane, down, scope),
                    None => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    fn actions_for_click(&self, target: &Target, scope: Scope) -> Vec<Action> {
        let exploring = matches!(scope, Scope::Input | Scope::Explorer);
        // From the input, the keyboard goes to the explorer first, which starts at token 0.
        let (mut actions, from) = match scope {
            Scope::Input => (vec![Action::FocusExplorer], 0),
            _ => (Vec::new(), self.step()),
        };
        match target {
            Target::Token(index) if exploring && *index < self.tokens().len() => {
                let (step, count) = if *index >= from {
                    (Action::Next, index - from)
                } else {
                    (Action::Previous, from - index)
                };
                actions.extend(std::iter::repeat_n(step, count));
                actions
            }
            Target::Row(id) if exploring && *id < self.model().rows() => {
                actions.push(Action::StartGoTo);
                actions.extend(id.to_string().chars().map(|digit| {
                    Action::PromptKey(KeyEvent::new(KeyCode::Char(digit), KeyModifiers::NONE))
                }));
                actions.push(Action::PromptSubmit);
                actions
            }
            // Only an entry the bar shows now: the map is of the frame drawn before this event.
            Target::Entry(action)
                if bar_entries(scope).iter().any(|entry| {
                    entry.action == *action || entry.then.as_ref() == Some(action)
                }) =>
            {
                vec![action.clone()]
            }
            Target::Answer(number) if scope == Scope::Lesson => vec![Action::Answer(*number)],
            _ => Vec::new(),
        }
    }
}

/// The actions one notch of the wheel over a pane takes, where that pane's keys work.
fn wheel(pane: Scrollable, down: bool, scope: Scope) -> Vec<Action> {
    let exploring = matches!(scope, Scope::Input | Scope::Explorer);
    let rows =
        |up: Action, down_action: Action| vec![if down { down_action } else { up }; WHEEL_ROWS];
    match pane {
        Scrollable::Help if scope == Scope::Help => vec![Action::ScrollHelp(wheel_lines(down))],
        Scrollable::Snippet if scope == Scope::Snippet => {
            vec![Action::ScrollSnippet(wheel_lines(down))]
        }
        Scrollable::Matrix if exploring => rows(Action::ScrollUp, Action::ScrollDown),
        // The lookups pane follows the current token: the wheel steps through them.
        Scrollable::Lookups if scope == Scope::Explorer => {
            vec![if down { Action::Next } else { Action::Previous }]
        }
        // The explanation pages forward only (after its last page, the first again).
        Scrollable::Explanation if down && exploring => vec![Action::ScrollExplanation],
        _ => Vec::new(),
    }
}

/// The lines one notch of the wheel scrolls an overlay: down, or up as a negative count.
fn wheel_lines(down: bool) -> isize {
    let lines = isize::try_from(WHEEL_ROWS).unwrap_or(1);
    if down { lines } else { -lines }
}
