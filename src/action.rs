//! What a key press means: one table maps keys to actions and also draws the help.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::view_state::Detail;

/// Everything the explorer can be asked to do; only `App::update` carries it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Leave the program.
    Quit,
    /// Open or close the help overlay.
    ToggleHelp,
    /// Move the keyboard to the explorer, starting at the first token.
    FocusExplorer,
    /// Move the keyboard back to the input.
    FocusInput,
    /// Step to the next token's lookup.
    Next,
    /// Step to the previous token's lookup.
    Previous,
    /// Step to the first token.
    First,
    /// Step to the last token.
    Last,
    /// Scroll the weight matrix up a row.
    ScrollUp,
    /// Scroll the weight matrix down a row.
    ScrollDown,
    /// Scroll the weight matrix up a page.
    PageUp,
    /// Scroll the weight matrix down a page.
    PageDown,
    /// Add position vectors to the token vectors, or take them away.
    TogglePositions,
    /// Switch to the next position scheme.
    CycleScheme,
    /// Switch to the next built-in vocabulary.
    CycleVocab,
    /// Empty the input (undoable).
    ClearInput,
    /// Take back the last edit of the input.
    Undo,
    /// Two sentences side by side: the same words in another order.
    ToggleCompare,
    /// Type into the second sentence of compare mode.
    FocusOther,
    /// Compare mode: make the second sentence the next order of the first's words.
    Reorder,
    /// Show one of the lesson panes in place of the lookups, or go back to the lookups.
    ShowDetail(Detail),
    /// Add or remove the causal mask of decoder models in the attention pane.
    ToggleCausal,
    /// Start the guided lesson, or leave it (it resumes where it was left).
    ToggleLesson,
    /// Answer the lesson's question with choice 1, 2 or 3.
    Answer(usize),
    /// The lesson's next step.
    LessonNext,
    /// The lesson's previous step.
    LessonBack,
    /// Show or leave out the special tokens a model's tokenizer adds.
    ToggleSpecialTokens,
    /// Time passed with no key: pick up tables that finished generating.
    Tick,
    /// Switch wide vectors between a strip and exact values.
    ToggleWideView,
    /// Scroll the exact values of wide vectors left.
    DimsLeft,
    /// Scroll the exact values of wide vectors right.
    DimsRight,
    /// Ask for a token to find in the matrix.
    StartSearch,
    /// Ask for an id to go to in the matrix.
    StartGoTo,
    /// Go to the next row the last search found.
    NextMatch,
    /// A key typed into the open prompt.
    PromptKey(KeyEvent),
    /// Carry out the open prompt.
    PromptSubmit,
    /// Close the prompt without doing anything.
    PromptCancel,
    /// A key for the text area while the input has focus.
    Edit(KeyEvent),
    /// Text pasted into the input.
    Paste(String),
}

/// Where a binding applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Everywhere, even with the help open.
    Anywhere,
    /// While the input has the keyboard.
    Input,
    /// While the explorer has the keyboard.
    Explorer,
    /// While the help overlay is open.
    Help,
    /// While a search or go-to prompt is open.
    Prompt,
    /// While the guided lesson is running.
    Lesson,
}

/// A key the table matches: a key code and the modifiers it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    code: KeyCode,
    modifiers: KeyModifiers,
}

const fn plain(code: KeyCode) -> Key {
    Key {
        code,
        modifiers: KeyModifiers::NONE,
    }
}

const fn ch(c: char) -> Key {
    plain(KeyCode::Char(c))
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        modifiers: KeyModifiers::CONTROL,
    }
}

impl Key {
    fn matches(self, event: &KeyEvent) -> bool {
        // Shift is part of the character itself (`?`, `L`), so it does not have to match.
        let modifiers = event.modifiers - KeyModifiers::SHIFT;
        self.code == event.code && self.modifiers == modifiers
    }
}

/// One row of the key table.
#[derive(Clone, Debug)]
pub struct Binding {
    /// Where it applies.
    pub scope: Scope,
    /// The keys that trigger it.
    pub keys: &'static [Key],
    /// What to do.
    pub action: Action,
    /// How the keys are written in the help.
    pub keys_label: &'static str,
    /// What the keys do, for the help overlay.
    pub description: &'static str,
    /// The short form in the help bar, if it appears there: keys and a word or two.
    pub bar: Option<(&'static str, &'static str)>,
}

/// A row of the table, positionally, to keep the table readable.
const fn b(
    scope: Scope,
    keys: &'static [Key],
    action: Action,
    keys_label: &'static str,
    description: &'static str,
    bar: Option<(&'static str, &'static str)>,
) -> Binding {
    Binding {
        scope,
        keys,
        action,
        keys_label,
        description,
        bar,
    }
}

use Action as A;
use KeyCode as K;
use Scope as S;

/// The key table: the only place keys are given meaning, read by both the handler and the help.
#[rustfmt::skip]
static BINDINGS: &[Binding] = &[
    b(
        S::Input,
        &[plain(K::Enter), plain(K::Tab), plain(K::Esc)],
        A::FocusExplorer,
        "Enter/Tab",
        "step through the lookups of what you typed",
        Some(("Enter", "explore")),
    ),
    b(
        S::Input,
        &[ctrl('u')],
        A::ClearInput,
        "Ctrl+U",
        "clear the sentence (Ctrl+Z brings it back)",
        Some(("Ctrl+U", "clear")),
    ),
    b(
        S::Input,
        &[ctrl('z')],
        A::Undo,
        "Ctrl+Z",
        "undo the last edit",
        None,
    ),
    b(
        S::Explorer,
        &[plain(K::Left), ch('h')],
        A::Previous,
        "←/h",
        "previous token's lookup",
        Some(("←/→", "step")),
    ),
    b(
        S::Explorer,
        &[plain(K::Right), ch('l')],
        A::Next,
        "→/l",
        "next token's lookup",
        None,
    ),
    b(
        S::Explorer,
        &[plain(K::Home)],
        A::First,
        "Home",
        "first token",
        None,
    ),
    b(
        S::Explorer,
        &[plain(K::End)],
        A::Last,
        "End",
        "last token",
        None,
    ),
    b(
        S::Explorer,
        &[plain(K::Up), ch('k')],
        A::ScrollUp,
        "↑/k",
        "scroll the weight matrix up",
        None,
    ),
    b(
        S::Explorer,
        &[plain(K::Down), ch('j')],
        A::ScrollDown,
        "↓/j",
        "scroll the weight matrix down",
        None,
    ),
    b(
        S::Explorer,
        &[plain(K::PageUp)],
        A::PageUp,
        "PgUp",
        "scroll the matrix a page up",
        None,
    ),
    b(
        S::Explorer,
        &[plain(K::PageDown)],
        A::PageDown,
        "PgDn",
        "scroll the matrix a page down",
        None,
    ),
    b(
        S::Explorer,
        &[ch('p')],
        A::TogglePositions,
        "p",
        "add positions: token + position = input",
        Some(("p", "positions")),
    ),
    b(
        S::Explorer,
        &[ch('m')],
        A::CycleScheme,
        "m",
        "position scheme: learned, sinusoidal",
        Some(("m", "scheme")),
    ),
    b(
        S::Explorer,
        &[ch('v')],
        A::CycleVocab,
        "v",
        "vocabulary: seed, words, gpt2, your model",
        Some(("v", "vocab")),
    ),
    b(
        S::Explorer,
        &[ch('c')],
        A::ToggleCompare,
        "c",
        "compare two word orders side by side",
        Some(("c", "compare")),
    ),
    b(
        S::Explorer,
        &[ch('I')],
        A::FocusOther,
        "I",
        "compare mode: type the second sentence",
        None,
    ),
    b(
        S::Explorer,
        &[ch('r')],
        A::Reorder,
        "r",
        "compare mode: B in another order",
        None,
    ),
    b(
        S::Explorer,
        &[ch('a')],
        A::ShowDetail(Detail::Attention),
        "a",
        "self-attention over the input vectors",
        Some(("a", "attention")),
    ),
    b(
        S::Explorer,
        &[ch('u')],
        A::ToggleCausal,
        "u",
        "attention: unmasked or causal mask",
        None,
    ),
    b(
        S::Explorer,
        &[ch('s')],
        A::ShowDetail(Detail::Similarity),
        "s",
        "cosine similarities and nearest rows",
        None,
    ),
    b(
        S::Explorer,
        &[ch('o')],
        A::ShowDetail(Detail::OneHot),
        "o",
        "the lookup as one-hot(id) × weight matrix",
        None,
    ),
    b(
        S::Explorer,
        &[ch('t')],
        A::ShowDetail(Detail::PositionTable),
        "t",
        "the position table as a heat map",
        None,
    ),
    b(
        S::Explorer,
        &[ch('L')],
        A::ToggleLesson,
        "L",
        "the guided lesson: predict, then see",
        Some(("L", "lesson")),
    ),
    b(
        S::Lesson,
        &[ch('1')],
        A::Answer(1),
        "1",
        "choose answer 1",
        Some(("1/2", "answer")),
    ),
    b(
        S::Lesson,
        &[ch('2')],
        A::Answer(2),
        "2",
        "choose answer 2",
        None,
    ),
    b(
        S::Lesson,
        &[plain(K::Enter), plain(K::Right), ch('l')],
        A::LessonNext,
        "Enter/→",
        "next step of the lesson",
        Some(("Enter", "next")),
    ),
    b(
        S::Lesson,
        &[plain(K::Left), ch('h')],
        A::LessonBack,
        "←",
        "previous step of the lesson",
        Some(("←", "back")),
    ),
    b(
        S::Lesson,
        &[plain(K::Esc), ch('L'), ch('q')],
        A::ToggleLesson,
        "Esc/L",
        "leave the lesson (L resumes it)",
        Some(("Esc", "leave")),
    ),
    b(
        S::Explorer,
        &[ch('/')],
        A::StartSearch,
        "/",
        "find a token in the matrix by its text",
        None,
    ),
    b(
        S::Explorer,
        &[ch('n')],
        A::NextMatch,
        "n",
        "next row the search found",
        None,
    ),
    b(
        S::Explorer,
        &[ch('#')],
        A::StartGoTo,
        "#",
        "go to an id in the matrix",
        None,
    ),
    b(
        S::Explorer,
        &[ch('S')],
        A::ToggleSpecialTokens,
        "S",
        "special tokens ([CLS], [SEP]) on or off",
        None,
    ),
    b(
        S::Explorer,
        &[ch('x')],
        A::ToggleWideView,
        "x",
        "wide vectors: colour strip or exact values",
        None,
    ),
    b(
        S::Explorer,
        &[ch('[')],
        A::DimsLeft,
        "[",
        "exact values of wide vectors: scroll left",
        None,
    ),
    b(
        S::Explorer,
        &[ch(']')],
        A::DimsRight,
        "]",
        "exact values of wide vectors: scroll right",
        None,
    ),
    b(
        S::Prompt,
        &[plain(K::Enter)],
        A::PromptSubmit,
        "Enter",
        "find or go",
        Some(("Enter", "go")),
    ),
    b(
        S::Prompt,
        &[plain(K::Esc)],
        A::PromptCancel,
        "Esc",
        "cancel",
        Some(("Esc", "cancel")),
    ),
    b(
        S::Explorer,
        &[plain(K::Tab), ch('i')],
        A::FocusInput,
        "Tab/i",
        "back to the input to type",
        Some(("i", "edit")),
    ),
    b(
        S::Explorer,
        &[ch('?')],
        A::ToggleHelp,
        "?",
        "help",
        Some(("?", "help")),
    ),
    b(
        S::Explorer,
        &[ch('q'), plain(K::Esc)],
        A::Quit,
        "q/Esc",
        "quit",
        Some(("q", "quit")),
    ),
    b(
        S::Help,
        &[ch('?'), plain(K::Esc), plain(K::Enter)],
        A::ToggleHelp,
        "?/Esc",
        "close the help",
        Some(("?/Esc", "close help")),
    ),
    b(
        S::Help,
        &[ch('q')],
        A::Quit,
        "q",
        "quit",
        Some(("q", "quit")),
    ),
    b(
        S::Anywhere,
        &[ctrl('c')],
        A::Quit,
        "Ctrl+C",
        "quit from anywhere",
        Some(("Ctrl+C", "quit")),
    ),
];

/// The key table, in the order the help lists it.
#[must_use]
pub fn bindings() -> &'static [Binding] {
    BINDINGS
}

/// Whether a binding's scope is active.
fn in_scope(binding: &Binding, scope: Scope) -> bool {
    binding.scope == scope || binding.scope == Scope::Anywhere
}

/// The action a key press means in a scope; in the input, unbound keys edit the text.
#[must_use]
pub fn action_for_key(key: KeyEvent, scope: Scope) -> Option<Action> {
    let bound = bindings()
        .iter()
        .filter(|binding| in_scope(binding, scope))
        .find(|binding| binding.keys.iter().any(|k| k.matches(&key)))
        .map(|binding| binding.action.clone());
    match (bound, scope) {
        (Some(action), _) => Some(action),
        (None, Scope::Input) => Some(Action::Edit(key)),
        (None, Scope::Prompt) => Some(Action::PromptKey(key)),
        (None, _) => None,
    }
}

/// The help bar's entries for a scope, in table order.
pub fn bar_entries(scope: Scope) -> impl Iterator<Item = (&'static str, &'static str)> {
    let anywhere_hidden = scope != Scope::Input;
    bindings()
        .iter()
        .filter(move |binding| in_scope(binding, scope))
        // Outside the input, q already quits; the bar keeps Ctrl+C for the input, where q types.
        .filter(move |binding| !(anywhere_hidden && binding.scope == Scope::Anywhere))
        .filter_map(|binding| binding.bar)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn letters_type_in_the_input_and_command_in_the_explorer() {
        let q = press(KeyCode::Char('q'));
        assert_eq!(action_for_key(q, Scope::Input), Some(Action::Edit(q)));
        assert_eq!(action_for_key(q, Scope::Explorer), Some(Action::Quit));
        let z = press(KeyCode::Char('z'));
        assert_eq!(action_for_key(z, Scope::Explorer), None);
    }

    #[test]
    fn enter_and_tab_move_the_keyboard() {
        assert_eq!(
            action_for_key(press(KeyCode::Enter), Scope::Input),
            Some(Action::FocusExplorer)
        );
        assert_eq!(
            action_for_key(press(KeyCode::Tab), Scope::Input),
            Some(Action::FocusExplorer)
        );
        assert_eq!(
            action_for_key(press(KeyCode::Tab), Scope::Explorer),
            Some(Action::FocusInput)
        );
    }

    #[test]
    fn ctrl_c_quits_everywhere() {
        let key = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        for scope in [Scope::Input, Scope::Explorer, Scope::Help] {
            assert_eq!(action_for_key(key, scope), Some(Action::Quit));
        }
    }

    #[test]
    fn shifted_question_mark_opens_help() {
        let key = KeyEvent::new(KeyCode::Char('?'), KeyModifiers::SHIFT);
        assert_eq!(
            action_for_key(key, Scope::Explorer),
            Some(Action::ToggleHelp)
        );
    }

    #[test]
    fn no_key_means_two_things_in_one_scope() {
        for scope in [
            Scope::Input,
            Scope::Explorer,
            Scope::Help,
            Scope::Prompt,
            Scope::Lesson,
        ] {
            let keys: Vec<Key> = bindings()
                .iter()
                .filter(|b| in_scope(b, scope))
                .flat_map(|b| b.keys.iter().copied())
                .collect();
            for (i, key) in keys.iter().enumerate() {
                assert!(
                    !keys[i + 1..].contains(key),
                    "{key:?} is bound twice in {scope:?}"
                );
            }
        }
    }

    #[test]
    fn descriptions_fit_a_help_column() {
        for binding in bindings() {
            assert!(
                binding.description.chars().count() <= 42,
                "{}",
                binding.description
            );
        }
    }

    #[test]
    fn the_bar_comes_from_the_table() {
        let explorer: Vec<_> = bar_entries(Scope::Explorer).collect();
        assert!(explorer.contains(&("p", "positions")));
        assert!(!explorer.iter().any(|(keys, _)| *keys == "Ctrl+C"));
        let input: Vec<_> = bar_entries(Scope::Input).collect();
        assert_eq!(
            input,
            [
                ("Enter", "explore"),
                ("Ctrl+U", "clear"),
                ("Ctrl+C", "quit")
            ]
        );
    }
}
