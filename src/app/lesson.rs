//! The lesson mode: where the learner is in the guided lesson, and how each step arranges
//! the explorer.

use super::navigation::{Focus, Jump};
use super::{App, DEFAULT_SENTENCE, RealLayer};
use crate::action::{Action, Scope, key, key_name};
use crate::core::analysis::attention::Mask;
use crate::core::analysis::compare::default_pair;
use crate::core::explain::findings::RotaryStep;
use crate::core::tables::positional::PositionScheme;
use crate::core::text::vocabulary::{Token, first_repeat};
use crate::lesson::{Progress, STEPS, Setup};
use crate::view_state::Detail;

/// The running lesson, and the one left part-way (which `L` resumes).
#[derive(Clone, Debug, Default)]
pub struct LessonState {
    /// The lesson, while it runs.
    pub current: Option<Progress>,
    paused: Option<Progress>,
    /// The learner's sentence when the lesson started; it comes back when the lesson ends.
    sentence: Option<String>,
}

impl App {
    /// Starts the lesson (where it was left, if it was), or leaves it.
    pub(super) fn toggle_lesson(&mut self) {
        if let Some(progress) = self.lesson.current.take() {
            self.lesson.paused = Some(progress);
            self.restore_sentence();
            self.status = Some(format!(
                "left the lesson at step {} of {}; your sentence is back; {} resumes it",
                progress.step + 1,
                STEPS.len(),
                key(&Action::ToggleLesson)
            ));
            return;
        }
        self.lesson.sentence = Some(self.editor.text());
        let progress = self.lesson.paused.take().unwrap_or(Progress {
            step: 0,
            answered: None,
        });
        self.lesson.current = Some(progress);
        self.settings.help_open = false;
        self.arrange(progress.content().setup);
    }

    /// Answers the current question, once.
    pub(super) fn answer(&mut self, choice: usize) {
        if let Some(progress) = self.lesson.current.as_mut()
            && !progress.revealed()
        {
            progress.answered = Some(choice);
        }
    }

    /// The next step, once the current one is answered; after the last, the lesson ends.
    pub(super) fn lesson_next(&mut self) {
        let Some(progress) = self.lesson.current else {
            return;
        };
        if !progress.revealed() {
            self.status = Some(format!(
                "make your guess first: {} or {}",
                key_name(&Action::Answer(1), Scope::Lesson),
                key_name(&Action::Answer(2), Scope::Lesson)
            ));
            return;
        }
        if progress.is_last() {
            self.restore_sentence();
            self.lesson = LessonState::default();
            self.status = Some(format!(
                "lesson finished; {} starts it again",
                key(&Action::ToggleLesson)
            ));
            return;
        }
        let step = progress.step + 1;
        self.lesson.current = Some(Progress {
            step,
            answered: None,
        });
        self.arrange(STEPS[step].setup);
    }

    /// The previous step, already answered.
    pub(super) fn lesson_back(&mut self) {
        if let Some(progress) = self.lesson.current
            && progress.step > 0
        {
            let step = progress.step - 1;
            let answered = Some(STEPS[step].answer);
            self.lesson.current = Some(Progress { step, answered });
            self.arrange(STEPS[step].setup);
        }
    }

    /// Arranges the explorer for a lesson step.
    fn arrange(&mut self, setup: Setup) {
        self.nav.focus = Focus::Explorer;
        self.prompts.cancel();
        let (compare, detail, overlay, scheme) = match setup {
            Setup::RowLookup => (false, Detail::OneHot, false, PositionScheme::Learned),
            Setup::RepeatedWord | Setup::NoPositionInput => {
                (false, Detail::Lookups, false, PositionScheme::Learned)
            }
            // The word-order steps show both orders' vectors and, below them, each word's
            // attention output in both: the numbers behind "the same set" and "it cannot tell
            // who bit whom", and behind "the sets differ, and so do attention's outputs".
            Setup::WordOrder => (true, Detail::Attention, false, PositionScheme::Learned),
            Setup::PositionsAdded => (true, Detail::Attention, true, PositionScheme::Learned),
            Setup::InsideAttention => (false, Detail::Attention, true, PositionScheme::Rope),
            Setup::Summary => (false, Detail::Lookups, true, PositionScheme::Learned),
        };
        // A model whose own layer 0 adds learned positions keeps them on the RoPE step: its
        // layer never rotates, and the step says so (RotaryStep).
        let scheme = match (setup, self.real_layer()) {
            (Setup::InsideAttention, RealLayer::Open(layer))
                if !RotaryStep::of(Some(layer.architecture())).panes_show_it() =>
            {
                PositionScheme::Learned
            }
            _ => scheme,
        };
        let model = self.sources.model();
        let scheme = if scheme == PositionScheme::Learned && model.position_table().is_none() {
            PositionScheme::Sinusoidal
        } else {
            scheme
        };
        let settings = &mut self.settings;
        (
            settings.detail,
            settings.overlay,
            settings.scheme,
            settings.mask,
        ) = (detail, overlay, scheme, Mask::None);
        if matches!(setup, Setup::RepeatedWord | Setup::InsideAttention) {
            self.ensure_repeated_word();
        } else if !self.derived.tokens().iter().any(|token| token.id.is_some()) {
            // A step never runs on a sentence with nothing to look up: its panes would ask
            // for one instead of showing the answer. The learner's comes back afterwards.
            self.editor.set_text(DEFAULT_SENTENCE);
        }
        match (compare, self.compare.is_some()) {
            (true, false) => {
                let (first, _) = default_pair(self.sources.model());
                self.editor.set_text(first);
                self.toggle_compare();
            }
            (false, true) => self.compare = None,
            _ => {}
        }
        let jump = match setup {
            Setup::RepeatedWord
            | Setup::NoPositionInput
            | Setup::PositionsAdded
            | Setup::InsideAttention => Jump::FirstRepeat,
            _ => Jump::First,
        };
        self.nav.jump_after_tokenizing(jump);
    }

    /// Ends the lesson's arrangement: compare mode off and the learner's sentence back.
    fn restore_sentence(&mut self) {
        self.compare = None;
        if let Some(sentence) = self.lesson.sentence.take()
            && sentence != self.editor.text()
        {
            self.editor.set_text(&sentence);
        }
    }

    /// Keeps the learner's sentence if a word repeats in it; else one where a word does.
    fn ensure_repeated_word(&mut self) {
        let repeats = |tokens: &[Token]| first_repeat(tokens).is_some();
        if repeats(self.derived.tokens()) {
            return;
        }
        for sentence in [DEFAULT_SENTENCE, "the dog bites the dog"] {
            let tokens = self.sources.model().tokenize(sentence).unwrap_or_default();
            if repeats(&tokens) {
                self.editor.set_text(sentence);
                return;
            }
        }
    }
}
