//! The guided lesson: the article's argument in order, each point asked before it is shown.
//!
//! Each step names the panes it needs ([`Setup`]); `App::update` arranges them, so the lesson
//! runs on the real explorer, on the learner's own sentence where it can.

/// What the explorer shows for a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setup {
    /// The lookup as a matrix product, at the first token.
    RowLookup,
    /// A word that appears twice, at its second copy, without positions.
    RepeatedWord,
    /// The lookups pane: the id is the layer's only input.
    NoPositionInput,
    /// Two orders of the same words side by side, without positions.
    WordOrder,
    /// The same with learned position vectors added.
    PositionsAdded,
    /// `RoPE` in the attention pane: position applied to queries and keys, not to the embedding.
    InsideAttention,
    /// Back to the explorer, everything on.
    Summary,
}

/// One step of the lesson: a question, two answers, and what the screen then shows.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// A short name for the progress line.
    pub title: &'static str,
    /// The question asked before anything is shown.
    pub question: &'static str,
    /// The two answers; `None` for a step without a question.
    pub choices: Option<[&'static str; 2]>,
    /// Which answer (1 or 2) the screen will bear out.
    pub answer: usize,
    /// What the revealed panes show, in words.
    pub reveal: &'static str,
    /// How the explorer is arranged for this step.
    pub setup: Setup,
}

/// The steps, in the article's order. Each question's two answers are alike in length and
/// tone, and the right one is sometimes the first, sometimes a "yes", so wording alone never
/// gives it away.
pub const STEPS: [Step; 7] = [
    Step {
        title: "A lookup is a row",
        question: "A token id goes into the embedding layer. What comes out?",
        choices: Some([
            "a vector mixed from the id and its neighbours",
            "the row whose number is the id, copied out",
        ]),
        answer: 2,
        reveal: "One-hot(id) × W adds up every row times 0, except row id times 1: the product \
                 is that row. A lookup is the same product without the zeros.",
        setup: Setup::RowLookup,
    },
    Step {
        title: "The repeated word",
        question: "This sentence has a word twice (positions count from 0: position 0 is the \
                   first word). Do its two lookups return the same vector?",
        choices: Some(["the same vector both times", "a different vector each time"]),
        answer: 1,
        reveal: "Same id, same row, same vector: the Euclidean distance between the copies is \
                 0.0000. The matrix marks one row for both.",
        setup: Setup::RepeatedWord,
    },
    Step {
        title: "No input for position",
        question: "Is the token id the only thing the embedding layer reads?",
        choices: Some([
            "yes: it reads the id, nothing else",
            "no: it also reads the position",
        ]),
        answer: 1,
        reveal: "The pane 'What the layer takes in' is the layer's whole interface: PyTorch's \
                 Embedding.forward(input) takes the ids and nothing else, so position is wired \
                 to nothing and cannot change a row. Identical words get identical vectors.",
        setup: Setup::NoPositionInput,
    },
    Step {
        title: "Word order",
        question: "Same words, other order. Do the two sentences hand self-attention different \
                   sets of vectors?",
        choices: Some([
            "yes: each order has its own set",
            "no: one set, arranged differently",
        ]),
        answer: 2,
        // The attention the panes run decides what this step reveals (a causal model's own
        // layer 0 gives the orders different outputs): core::findings::OrderStep.
        reveal: "",
        setup: Setup::WordOrder,
    },
    Step {
        title: "Positions added",
        question: "Add a position vector to each token, one per position. Do the two orders \
                   now differ?",
        choices: Some([
            "yes: their input vectors differ",
            "no: their input vectors match",
        ]),
        answer: 1,
        // What the compare pane has room for decides what this step may say of it:
        // core::findings::OrderStep::positions_reveal.
        reveal: "",
        setup: Setup::PositionsAdded,
    },
    Step {
        title: "Position inside attention",
        question: "With RoPE, as in Llama, where does position enter the model?",
        choices: Some([
            "in the embeddings: a vector is added",
            "in attention: queries and keys turn",
        ]),
        answer: 2,
        // The model's own scheme decides what this step reveals: core::findings::RotaryStep.
        reveal: "",
        setup: Setup::InsideAttention,
    },
    Step {
        title: "What you saw",
        question: "The embedding layer returns rows by id, blind to position; unmasked \
                   attention cannot tell orders apart (a causal mask alone can); position \
                   vectors, or RoPE and ALiBi inside attention, are what bring order in.",
        choices: None,
        answer: 1,
        reveal: "That is the whole lesson. {Lesson:LessonNext} finishes it and returns to the \
                 explorer with everything you saw still on screen; {ToggleLesson} then starts the \
                 lesson again from the top.",
        setup: Setup::Summary,
    },
];

/// The index of the step that asks about the repeated word (counting from 0).
#[must_use]
pub fn repeated_word_step() -> usize {
    STEPS
        .iter()
        .position(|step| step.setup == Setup::RepeatedWord)
        .unwrap_or(0)
}

/// Where the learner is in the lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The step, counting from 0.
    pub step: usize,
    /// The answer given to this step's question, if any yet.
    pub answered: Option<usize>,
}

impl Progress {
    /// The step's content.
    #[must_use]
    pub fn content(&self) -> &'static Step {
        &STEPS[self.step.min(STEPS.len() - 1)]
    }

    /// Whether the step's panes are shown: after an answer, or for a step without a question.
    #[must_use]
    pub fn revealed(&self) -> bool {
        self.answered.is_some() || self.content().choices.is_none()
    }

    /// Whether marks that show a repeated word's copies sharing a row (copy markers, marked
    /// rows) would answer a question not yet answered: until the repeated-word step's answer.
    #[must_use]
    pub fn hides_copies(&self) -> bool {
        let repeated = repeated_word_step();
        self.step < repeated || (self.step == repeated && !self.revealed())
    }

    /// Whether this is the last step.
    #[must_use]
    pub fn is_last(&self) -> bool {
        self.step + 1 >= STEPS.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_question_has_a_right_answer_among_its_choices() {
        for step in &STEPS {
            if step.choices.is_some() {
                assert!(step.answer == 1 || step.answer == 2, "{}", step.title);
            }
        }
        assert!(STEPS.last().unwrap().choices.is_none());
    }

    #[test]
    fn answers_are_alike_and_the_right_one_moves() {
        let mut answers = Vec::new();
        for step in &STEPS {
            let Some([one, two]) = step.choices else {
                continue;
            };
            let (one, two) = (one.chars().count(), two.chars().count());
            assert!(
                one.abs_diff(two) <= 4,
                "{}: {one} against {two}",
                step.title
            );
            answers.push(step.answer);
        }
        assert!(answers.contains(&1) && answers.contains(&2), "{answers:?}");
        let right: Vec<&str> = STEPS
            .iter()
            .filter_map(|step| step.choices.map(|choices| choices[step.answer - 1]))
            .collect();
        assert!(
            !right.iter().all(|choice| choice.starts_with("no")),
            "{right:?}"
        );
    }

    #[test]
    fn attention_is_called_blind_to_order_only_unmasked() {
        for step in &STEPS {
            for text in [step.question, step.reveal] {
                if text.contains("cannot tell") {
                    assert!(text.contains("nmasked"), "{}: {text}", step.title);
                }
            }
        }
    }

    #[test]
    fn copies_stay_unmarked_until_the_repeated_word_is_answered() {
        let at = |step, answered| Progress { step, answered };
        assert!(at(0, Some(2)).hides_copies());
        assert!(at(1, None).hides_copies());
        assert!(!at(1, Some(2)).hides_copies());
        assert!(!at(2, None).hides_copies());
    }

    #[test]
    fn a_step_is_revealed_once_answered() {
        let mut progress = Progress {
            step: 1,
            answered: None,
        };
        assert!(!progress.revealed());
        progress.answered = Some(2);
        assert!(progress.revealed());
        assert!(
            Progress {
                step: 6,
                answered: None
            }
            .revealed()
        );
        assert!(
            Progress {
                step: 6,
                answered: None
            }
            .is_last()
        );
    }
}
