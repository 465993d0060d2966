//! What a key press means: one table maps keys to actions and also draws the help.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::view_state::Detail;
pub use hints::{fill_live_keys, live_key};
pub use key::{Key, parse_key};
use key::{ch, ctrl, plain};

mod hints;
mod key;

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
    /// The model's own layer 0: show the previous head.
    PreviousHead,
    /// The model's own layer 0: show the next head.
    NextHead,
    /// The model's own layer 0: every head's weights at once, or one head.
    ToggleHeadOverview,
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
    /// Go back one level: close the open pane, else leave compare mode; never quit.
    Back,
    /// Show the next page of the explanation ("What the layer returned"), after its last page
    /// the first again.
    ScrollExplanation,
    /// Scroll the help overlay by a number of lines (negative: up).
    ScrollHelp(isize),
    /// A printable key that means nothing where it was pressed.
    Unbound(char),
    /// The terminal's new size, in columns and rows.
    Resize(u16, u16),
    /// Write the screen as drawn to SVG, HTML and text files (the run loop writes them after
    /// the next draw).
    Export,
    /// What writing the screen did, for the status line.
    Exported(String),
    /// Open the overlay with the Python script for what is on screen, and copy it to the
    /// clipboard (the run loop writes it to the terminal after the next draw).
    ShowSnippet,
    /// Scroll the snippet overlay by a number of lines (negative: up).
    ScrollSnippet(isize),
    /// Write the snippet to `embedlens-snippet.py` (or the next free name).
    SaveSnippet,
    /// Close the snippet overlay.
    CloseSnippet,
    /// What writing the snippet to the clipboard did.
    SnippetCopied(Result<(), String>),
}

impl Action {
    /// Whether the action belongs to the snippet overlay (`y`): opening it, scrolling, saving,
    /// closing, or what copying it did.
    #[must_use]
    pub fn is_snippet(&self) -> bool {
        matches!(
            self,
            Self::ShowSnippet
                | Self::ScrollSnippet(_)
                | Self::SaveSnippet
                | Self::CloseSnippet
                | Self::SnippetCopied(_)
        )
    }
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
    /// While the snippet overlay is open.
    Snippet,
}

/// Which of a binding's keys the help bar shows.
#[derive(Clone, Debug)]
pub enum BarKeys {
    /// The first key.
    First,
    /// The first two keys.
    FirstTwo,
    /// The first key, then the first key of another action in the same scope (`←/→`).
    AndThen(Action),
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
    /// What the keys do, for the help overlay; a key it names is a `{Action}` placeholder
    /// (see [`fill_keys`]), shown by [`Binding::help_text`].
    pub description: &'static str,
    /// Whether the help bar shows it: which keys, and a word or two.
    pub bar: Option<(BarKeys, &'static str)>,
}

impl Binding {
    /// What the keys do, as the help overlay says it: keys the description names asked of
    /// the table.
    #[must_use]
    pub fn help_text(&self) -> String {
        fill_keys(self.description)
    }

    /// All its keys as the help writes them: `←/h`.
    #[must_use]
    pub fn keys_label(&self) -> String {
        let names: Vec<String> = self.keys.iter().map(|key| key.name()).collect();
        names.join("/")
    }
}

/// A row of the table, positionally, to keep the table one row a line.
const fn b(
    scope: Scope,
    keys: &'static [Key],
    action: Action,
    description: &'static str,
    bar: Option<(BarKeys, &'static str)>,
) -> Binding {
    Binding {
        scope,
        keys,
        action,
        description,
        bar,
    }
}

/// Shown in the help bar by its first key.
#[expect(
    clippy::unnecessary_wraps,
    reason = "fills the optional bar column of the table"
)]
const fn bar(words: &'static str) -> Option<(BarKeys, &'static str)> {
    Some((BarKeys::First, words))
}

/// Shown in the help bar by its first two keys.
#[expect(
    clippy::unnecessary_wraps,
    reason = "fills the optional bar column of the table"
)]
const fn bar2(words: &'static str) -> Option<(BarKeys, &'static str)> {
    Some((BarKeys::FirstTwo, words))
}

/// Shown in the help bar with another action's key: `←/→ step`.
#[expect(
    clippy::unnecessary_wraps,
    reason = "fills the optional bar column of the table"
)]
const fn bar_with(other: Action, words: &'static str) -> Option<(BarKeys, &'static str)> {
    Some((BarKeys::AndThen(other), words))
}

use Action as A;
use KeyCode as K;
use Scope as S;

/// How many lines a page of the help overlay scrolls.
const HELP_PAGE: isize = 10;

/// The key table: the only place keys are given meaning, read by the handler, the help bar,
/// the help overlay and every sentence that names a key ([`key_name`]).
#[rustfmt::skip]
static BINDINGS: &[Binding] = &[
    b(S::Input, &[plain(K::Enter), plain(K::Tab), plain(K::Esc)], A::FocusExplorer, "step through the lookups of what you typed", bar("explore")),
    b(S::Input, &[ctrl('u')], A::ClearInput, "clear the sentence ({Input:Undo} brings it back)", bar("clear")),
    b(S::Input, &[ctrl('z')], A::Undo, "undo the last edit", None),
    b(S::Explorer, &[plain(K::Left), ch('h')], A::Previous, "previous token's lookup", bar_with(A::Next, "step")),
    b(S::Explorer, &[plain(K::Right), ch('l')], A::Next, "next token's lookup", None),
    b(S::Explorer, &[plain(K::Home)], A::First, "first token", None),
    b(S::Explorer, &[plain(K::End)], A::Last, "last token", None),
    b(S::Explorer, &[plain(K::Up), ch('k')], A::ScrollUp, "scroll the weight matrix up", None),
    b(S::Explorer, &[plain(K::Down), ch('j')], A::ScrollDown, "scroll the weight matrix down", None),
    b(S::Explorer, &[plain(K::PageUp)], A::PageUp, "scroll the matrix a page up", None),
    b(S::Explorer, &[plain(K::PageDown)], A::PageDown, "scroll the matrix a page down", None),
    b(S::Explorer, &[ch('p')], A::TogglePositions, "add positions: token + position = input", bar("positions")),
    b(S::Explorer, &[ch('m')], A::CycleScheme, "scheme: learned, sinusoidal, RoPE, ALiBi", bar("scheme")),
    b(S::Explorer, &[ch('v')], A::CycleVocab, "vocab: seed, words, trained, gpt2, model", bar("vocab")),
    b(S::Explorer, &[ch('c')], A::ToggleCompare, "compare two word orders side by side", bar("compare")),
    b(S::Explorer, &[ch('I')], A::FocusOther, "compare mode: type the second sentence", None),
    b(S::Explorer, &[ch('r')], A::Reorder, "compare mode: B in another order", None),
    b(S::Explorer, &[ch('a')], A::ShowDetail(Detail::Attention), "self-attention over the input vectors", bar("attention")),
    b(S::Explorer, &[ch('u')], A::ToggleCausal, "attention: unmasked or causal mask", None),
    b(S::Explorer, &[ch('{')], A::PreviousHead, "model's own layer 0: previous head", None),
    b(S::Explorer, &[ch('}')], A::NextHead, "model's own layer 0: next head", None),
    b(S::Explorer, &[ch('H')], A::ToggleHeadOverview, "model's own layer 0: all heads at once", None),
    b(S::Explorer, &[ch('s')], A::ShowDetail(Detail::Similarity), "cosine similarities and nearest rows", None),
    b(S::Explorer, &[ch('o')], A::ShowDetail(Detail::OneHot), "the lookup as one-hot(id) × weight matrix", None),
    b(S::Explorer, &[ch('t')], A::ShowDetail(Detail::PositionTable), "the position table as a heat map", None),
    b(S::Explorer, &[ch('g')], A::ShowDetail(Detail::Picture), "picture: the vectors in 2-D (PCA)", None),
    b(S::Explorer, &[ch('L')], A::ToggleLesson, "the guided lesson: predict, then see", bar("lesson")),
    b(S::Lesson, &[ch('1')], A::Answer(1), "choose answer 1", bar_with(A::Answer(2), "answer")),
    b(S::Lesson, &[ch('2')], A::Answer(2), "choose answer 2", None),
    b(S::Lesson, &[plain(K::Enter), plain(K::Right), ch('l')], A::LessonNext, "next step; on the last, finish the lesson", bar("next")),
    b(S::Lesson, &[plain(K::Left), ch('h')], A::LessonBack, "previous step of the lesson", bar("back")),
    b(S::Lesson, &[plain(K::Esc), ch('L'), ch('q')], A::ToggleLesson, "leave the lesson ({ToggleLesson} resumes it)", bar("leave")),
    b(S::Lesson, &[ch('?')], A::ToggleHelp, "help", bar("help")),
    b(S::Explorer, &[ch(' ')], A::ScrollExplanation, "next page of the explanation below", None),
    b(S::Explorer, &[ch('/')], A::StartSearch, "find a token in the matrix by its text", None),
    b(S::Explorer, &[ch('n')], A::NextMatch, "next row the search found", None),
    b(S::Explorer, &[ch('#')], A::StartGoTo, "go to an id in the matrix", None),
    b(S::Explorer, &[ch('S')], A::ToggleSpecialTokens, "special tokens ([CLS], [SEP]) on or off", None),
    b(S::Explorer, &[ch('x')], A::ToggleWideView, "wide vectors: colour strip or exact values", None),
    b(S::Explorer, &[ch('[')], A::DimsLeft, "exact values of wide vectors: scroll left", None),
    b(S::Explorer, &[ch(']')], A::DimsRight, "exact values of wide vectors: scroll right", None),
    b(S::Prompt, &[plain(K::Enter)], A::PromptSubmit, "find or go", bar("go")),
    b(S::Prompt, &[plain(K::Esc)], A::PromptCancel, "cancel", bar("cancel")),
    b(S::Explorer, &[ch('e')], A::Export, "export the screen: SVG, HTML and text", None),
    b(S::Explorer, &[ch('y')], A::ShowSnippet, "PyTorch snippet of this view, copied", None),
    b(S::Explorer, &[ch('i'), plain(K::Tab)], A::FocusInput, "back to the input to type", bar("edit")),
    b(S::Explorer, &[plain(K::Esc)], A::Back, "back: close the pane, then compare mode", None),
    b(S::Explorer, &[ch('?')], A::ToggleHelp, "help", bar("help")),
    b(S::Explorer, &[ch('q')], A::Quit, "quit", bar("quit")),
    b(S::Help, &[ch('?'), plain(K::Esc), plain(K::Enter)], A::ToggleHelp, "close the help", bar2("close help")),
    b(S::Help, &[plain(K::Up), ch('k')], A::ScrollHelp(-1), "scroll the help up", bar_with(A::ScrollHelp(1), "scroll")),
    b(S::Help, &[plain(K::Down), ch('j')], A::ScrollHelp(1), "scroll the help down", None),
    b(S::Help, &[plain(K::PageUp)], A::ScrollHelp(-HELP_PAGE), "scroll the help a page up", None),
    b(S::Help, &[plain(K::PageDown), ch(' ')], A::ScrollHelp(HELP_PAGE), "scroll the help a page down", None),
    b(S::Help, &[plain(K::Home)], A::ScrollHelp(isize::MIN), "top of the help", None),
    b(S::Help, &[plain(K::End)], A::ScrollHelp(isize::MAX), "end of the help", None),
    b(S::Help, &[ch('q')], A::Quit, "quit", bar("quit")),
    b(S::Snippet, &[plain(K::Esc), ch('y')], A::CloseSnippet, "close the snippet", bar("close")),
    b(S::Snippet, &[ch('w')], A::SaveSnippet, "write embedlens-snippet.py (or -2, -3…)", bar("write file")),
    b(S::Snippet, &[plain(K::Up), ch('k')], A::ScrollSnippet(-1), "scroll the snippet up", bar_with(A::ScrollSnippet(1), "scroll")),
    b(S::Snippet, &[plain(K::Down), ch('j')], A::ScrollSnippet(1), "scroll the snippet down", None),
    b(S::Snippet, &[plain(K::PageUp)], A::ScrollSnippet(-HELP_PAGE), "scroll the snippet a page up", None),
    b(S::Snippet, &[plain(K::PageDown), ch(' ')], A::ScrollSnippet(HELP_PAGE), "scroll the snippet a page down", None),
    b(S::Snippet, &[plain(K::Home)], A::ScrollSnippet(isize::MIN), "top of the snippet", None),
    b(S::Snippet, &[plain(K::End)], A::ScrollSnippet(isize::MAX), "end of the snippet", None),
    b(S::Snippet, &[ch('?')], A::ToggleHelp, "help", bar("help")),
    b(S::Snippet, &[ch('q')], A::Quit, "quit", bar("quit")),
    b(S::Anywhere, &[plain(K::F(1))], A::ToggleHelp, "help, even while typing", bar("help")),
    b(S::Anywhere, &[ctrl('c')], A::Quit, "quit from anywhere", bar("quit")),
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

/// The binding for `action` in `scope` (or anywhere), if a key is bound to it there.
fn binding_for(action: &Action, scope: Scope) -> Option<&'static Binding> {
    bindings()
        .iter()
        .find(|binding| in_scope(binding, scope) && binding.action == *action)
}

/// The name of the first key bound to `action` in `scope`, for sentences that name a key.
///
/// Every key named on screen comes from here, so the words can never drift from the table.
/// A sentence asking for an action with no key in that scope is a bug: debug builds (and so
/// every test that draws the sentence) panic; release builds show `?`.
#[must_use]
pub fn key_name(action: &Action, scope: Scope) -> String {
    let binding = binding_for(action, scope);
    debug_assert!(binding.is_some(), "no key for {action:?} in {scope:?}");
    binding.map_or_else(|| "?".to_owned(), |binding| binding.keys[0].name())
}

/// The name of the first key bound to `action` in the explorer: `key(A::TogglePositions)` is `p`.
#[must_use]
pub fn key(action: &Action) -> String {
    key_name(action, Scope::Explorer)
}

/// Prose with each `{ActionName}` replaced by the name of its key: the one way a sentence
/// names a key, on screen, in the lesson and in `core::explain`'s findings.
///
/// `ActionName` is the action as `Debug` prints it (`{CycleScheme}`, `{ShowDetail(Attention)}`,
/// `{Answer(1)}`), looked up in the explorer, else the lesson; `{Lesson:ActionName}` asks the
/// lesson first, `{Input:ActionName}` the input. A name with no key stays as written, which the
/// key-name test reports.
#[must_use]
pub fn fill_keys(template: &str) -> String {
    let mut text = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        text.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            rest = &rest[open..];
            break;
        };
        let name = &after[..close];
        match explorer_key_named(name) {
            Some(key) => text.push_str(&key),
            None => text.push_str(&rest[open..=open + 1 + close]),
        }
        rest = &after[close + 1..];
    }
    text.push_str(rest);
    text
}

/// The first key of the explorer's (or the lesson's) action whose name is `name`;
/// `Lesson:Name` asks the lesson first, `Input:Name` the input.
fn explorer_key_named(name: &str) -> Option<String> {
    let (scopes, name) = if let Some(name) = name.strip_prefix("Lesson:") {
        ([Scope::Lesson, Scope::Explorer], name)
    } else if let Some(name) = name.strip_prefix("Input:") {
        ([Scope::Input, Scope::Explorer], name)
    } else {
        ([Scope::Explorer, Scope::Lesson], name)
    };
    scopes.into_iter().find_map(|scope| {
        bindings()
            .iter()
            .find(|binding| in_scope(binding, scope) && format!("{:?}", binding.action) == name)
            .map(|binding| binding.keys[0].name())
    })
}

/// The action a key press means in a scope; in the input, unbound keys edit the text.
#[must_use]
pub fn action_for_key(key: KeyEvent, scope: Scope) -> Option<Action> {
    let bound = bindings()
        .iter()
        .filter(|binding| in_scope(binding, scope))
        .find(|binding| binding.keys.iter().any(|k| k.matches(&key)))
        .map(|binding| binding.action.clone());
    let printable = match key.code {
        KeyCode::Char(c) if (key.modifiers - KeyModifiers::SHIFT).is_empty() => Some(c),
        _ => None,
    };
    match (bound, scope, printable) {
        (Some(action), _, _) => Some(action),
        (None, Scope::Input, _) => Some(Action::Edit(key)),
        (None, Scope::Prompt, _) => Some(Action::PromptKey(key)),
        (None, Scope::Explorer, Some(c)) => Some(Action::Unbound(c)),
        (None, _, _) => None,
    }
}

/// The keys a help-bar entry shows.
fn bar_keys(binding: &Binding, keys: &BarKeys) -> String {
    match keys {
        BarKeys::First => binding.keys[0].name(),
        BarKeys::FirstTwo => binding
            .keys
            .iter()
            .take(2)
            .map(|key| key.name())
            .collect::<Vec<_>>()
            .join("/"),
        BarKeys::AndThen(other) => {
            let other = key_name(other, binding.scope);
            format!("{}/{other}", binding.keys[0].name())
        }
    }
}

/// How hard the help bar holds on to an entry when it is short of room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Keep {
    /// Given up first: keys a learner meets later (the vocabulary, the scheme, back to typing).
    Spare,
    /// Given up only when even tighter spacing does not make room.
    Useful,
    /// Never given up: help, quit, and the ways into the lesson and the attention pane.
    Always,
}

impl Keep {
    /// How the bar holds on to `action`'s entry.
    fn of(action: &Action) -> Self {
        match action {
            Action::Quit
            | Action::ToggleHelp
            | Action::ToggleLesson
            | Action::ShowDetail(Detail::Attention) => Self::Always,
            Action::CycleVocab | Action::CycleScheme | Action::FocusInput => Self::Spare,
            _ => Self::Useful,
        }
    }
}

/// One entry of the help bar: the keys, what they do, and how hard the bar holds on to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarEntry {
    /// What the keys do.
    pub action: Action,
    /// What the second key of `←/→` does, when the entry shows another action's key.
    pub then: Option<Action>,
    /// The keys, as the table names them.
    pub keys: String,
    /// A word or two.
    pub words: &'static str,
    /// Which entries go first when the bar is short of room.
    pub keep: Keep,
}

/// The help bar's entries for a scope, in table order.
#[must_use]
pub fn bar_entries(scope: Scope) -> Vec<BarEntry> {
    // A binding that works anywhere shows only where the scope has no key of its own for the
    // same action: F1 for help while typing (where `?` types), Ctrl+C where `q` does not quit.
    let own = |action: &Action| {
        bindings()
            .iter()
            .any(|binding| binding.scope == scope && binding.action == *action)
    };
    bindings()
        .iter()
        .filter(move |binding| in_scope(binding, scope))
        .filter(move |binding| !(binding.scope == Scope::Anywhere && own(&binding.action)))
        .filter_map(|binding| {
            let (keys, words) = binding.bar.as_ref()?;
            Some(BarEntry {
                action: binding.action.clone(),
                then: match keys {
                    BarKeys::AndThen(other) => Some(other.clone()),
                    BarKeys::First | BarKeys::FirstTwo => None,
                },
                keys: bar_keys(binding, keys),
                words,
                keep: Keep::of(&binding.action),
            })
        })
        .collect()
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
        assert_eq!(
            action_for_key(z, Scope::Explorer),
            Some(Action::Unbound('z')),
            "an unbound letter is answered on screen, not typed"
        );
        assert_eq!(action_for_key(z, Scope::Help), None);
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

    /// Every state the keyboard can be in (`Anywhere` is not one: it is part of each).
    const KEYBOARD_SCOPES: [Scope; 6] = [
        Scope::Input,
        Scope::Explorer,
        Scope::Help,
        Scope::Prompt,
        Scope::Lesson,
        Scope::Snippet,
    ];

    #[test]
    fn no_key_means_two_things_in_one_scope() {
        for scope in KEYBOARD_SCOPES {
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
    fn every_pane_in_the_list_has_a_key_and_a_help_text() {
        for &detail in Detail::ALL {
            let binding = binding_for(&Action::ShowDetail(detail), Scope::Explorer);
            if detail == Detail::HOME {
                assert!(binding.is_none(), "{detail:?} is where Esc comes back to");
                continue;
            }
            let binding = binding.unwrap_or_else(|| panic!("{detail:?} has no key line"));
            assert!(!binding.help_text().trim().is_empty(), "{detail:?}");
        }
    }

    #[test]
    fn descriptions_fit_a_help_column() {
        for binding in bindings() {
            let text = binding.help_text();
            assert!(text.chars().count() <= 42, "{text}");
        }
    }

    fn bar(scope: Scope) -> Vec<(String, &'static str)> {
        bar_entries(scope)
            .into_iter()
            .map(|entry| (entry.keys, entry.words))
            .collect()
    }

    #[test]
    fn the_bar_comes_from_the_table() {
        let explorer = bar(Scope::Explorer);
        assert!(explorer.contains(&("p".to_owned(), "positions")));
        assert!(explorer.contains(&("←/→".to_owned(), "step")));
        assert!(
            !explorer
                .iter()
                .any(|(keys, _)| keys == "Ctrl+C" || keys == "F1")
        );
        assert_eq!(
            bar(Scope::Input),
            [
                ("Enter".to_owned(), "explore"),
                ("Ctrl+U".to_owned(), "clear"),
                ("F1".to_owned(), "help"),
                ("Ctrl+C".to_owned(), "quit")
            ]
        );
        assert!(bar(Scope::Lesson).contains(&("1/2".to_owned(), "answer")));
        assert!(bar(Scope::Help).contains(&("?/Esc".to_owned(), "close help")));
    }

    #[test]
    fn every_scope_offers_help_and_a_way_out_in_its_bar() {
        for scope in KEYBOARD_SCOPES {
            let entries = bar_entries(scope);
            let essential: Vec<_> = entries.iter().filter(|e| e.keep == Keep::Always).collect();
            assert!(
                essential.iter().any(|e| e.words == "quit"),
                "{scope:?} shows no quit"
            );
            assert!(
                essential.iter().any(|e| e.words.contains("help")),
                "{scope:?} shows no help"
            );
        }
    }

    #[test]
    fn keys_are_named_as_the_table_binds_them() {
        assert_eq!(key(&Action::TogglePositions), "p");
        assert_eq!(key(&Action::Previous), "←");
        assert_eq!(key_name(&Action::ClearInput, Scope::Input), "Ctrl+U");
        assert_eq!(key_name(&Action::ToggleHelp, Scope::Input), "F1");
        assert_eq!(key_name(&Action::PromptCancel, Scope::Prompt), "Esc");
        let binding = binding_for(&Action::Previous, Scope::Explorer).unwrap();
        assert_eq!(binding.keys_label(), "←/h");
    }

    #[test]
    fn templates_name_the_keys_of_their_actions() {
        assert_eq!(
            fill_keys("{TogglePositions} adds positions, {CycleScheme} cycles {them}"),
            "p adds positions, m cycles {them}"
        );
        assert_eq!(
            fill_keys("{Lesson:ToggleLesson} or {ToggleLesson}"),
            "Esc or L"
        );
        assert_eq!(fill_keys("no braces {"), "no braces {");
        let with_data = fill_keys("{Lesson:Answer(2)} · {ShowDetail(Attention)}");
        assert!(!with_data.contains('{'), "{with_data}");
    }

    #[test]
    fn key_names_read_back_as_the_keys_they_name() {
        for binding in bindings() {
            for key in binding.keys {
                let event = parse_key(&key.name()).unwrap();
                assert!(key.matches(&event), "{}", key.name());
            }
        }
    }

    #[test]
    fn f1_opens_help_everywhere_and_esc_never_quits() {
        let f1 = press(KeyCode::F(1));
        let esc = press(KeyCode::Esc);
        for scope in [
            Scope::Input,
            Scope::Explorer,
            Scope::Prompt,
            Scope::Lesson,
            Scope::Snippet,
        ] {
            assert_eq!(action_for_key(f1, scope), Some(Action::ToggleHelp));
            assert_ne!(action_for_key(esc, scope), Some(Action::Quit), "{scope:?}");
        }
        assert_eq!(action_for_key(esc, Scope::Explorer), Some(Action::Back));
        let question = press(KeyCode::Char('?'));
        assert_eq!(
            action_for_key(question, Scope::Input),
            Some(Action::Edit(question)),
            "? types in the input"
        );
    }
}
