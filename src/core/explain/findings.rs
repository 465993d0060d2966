//! Findings about order and position that the explorer and the lesson state, decided from
//! the state shown: each is a value first, and its sentence is made from the value, so a
//! sentence can only say what the numbers beside it bear out.

use std::fmt::Write as _;

use crate::core::analysis::attention::Mask;
use crate::core::analysis::layer0::Architecture;
use crate::core::tables::positional::PositionScheme;

/// What, in the state shown, can tell two orders of the same words apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderSignal {
    /// No positions and no mask: unmasked attention receives a set of vectors, so it gives
    /// each word the same output in any order.
    Nothing,
    /// No positions, but the causal mask: each word sees only itself and the words before it,
    /// so the mask alone tells orders apart (though not a repeated word's copies by their
    /// vectors).
    CausalMask,
    /// Positions added to the token vectors (learned or sinusoidal).
    AddedPositions(PositionScheme),
    /// Positions applied inside attention (`RoPE`, `ALiBi`): the embeddings stay the same.
    InsideAttention(PositionScheme),
}

impl OrderSignal {
    /// The signal in force under the active scheme (`None` with positions off) and `mask`.
    #[must_use]
    pub fn of(active_scheme: PositionScheme, mask: Mask) -> Self {
        match (active_scheme, mask) {
            (PositionScheme::None, Mask::None) => Self::Nothing,
            (PositionScheme::None, Mask::Causal) => Self::CausalMask,
            (scheme, _) if scheme.is_additive() => Self::AddedPositions(scheme),
            (scheme, _) => Self::InsideAttention(scheme),
        }
    }

    /// Why the signal matters, as the explorer's closing sentence says it; `context_length`
    /// is where a learned position table ends. Keys are named by their action
    /// (`{TogglePositions}`), for the screen to fill.
    #[must_use]
    pub fn why_it_matters(self, context_length: usize) -> String {
        match self {
            Self::Nothing => "Why it matters: self-attention receives these vectors and nothing \
                              else. Identical vectors give unmasked attention no way to tell the \
                              first copy from the second, or 'dog bites man' from 'man bites \
                              dog': position vectors are what carry the order. \
                              {TogglePositions} adds them."
                .to_owned(),
            Self::CausalMask => "Why it matters: self-attention receives these vectors and \
                                 nothing else, but the causal mask lets each word see only \
                                 itself and the words before it, so the mask alone tells \
                                 'dog bites man' from 'man bites dog'. Without it (unmasked), \
                                 identical vectors could not. {TogglePositions} adds positions."
                .to_owned(),
            Self::AddedPositions(scheme) => {
                let mut sentence = "Why it matters: each position now adds its own vector, so \
                                    repeated words differ and word order leaves a trace in the \
                                    numbers self-attention receives."
                    .to_owned();
                if scheme == PositionScheme::Learned {
                    let _ = write!(
                        sentence,
                        " A position table ends at its context length ({context_length} here)."
                    );
                } else {
                    sentence.push_str(
                        " Sinusoidal waves are fixed, not trained, and go on for any position.",
                    );
                }
                sentence
            }
            Self::InsideAttention(scheme) => format!(
                "Why it matters: {} adds nothing to these vectors, so repeated words stay \
                 identical here; it acts inside attention, where order leaves its trace.",
                scheme.label()
            ),
        }
    }
}

/// What the lesson's step on position inside attention may say, decided by the model's own
/// position scheme: the panes show the scheme the model uses, not always `RoPE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RotaryStep {
    /// The panes apply `RoPE` to the sentence (the seeded head, or a rotary model's own
    /// layer 0): they show the copies identical before rotation and different after.
    Shown,
    /// The model adds its own learned position vectors to the embeddings (BERT, GPT-2): the
    /// panes show those, not `RoPE`.
    ModelLearns(Architecture),
}

impl RotaryStep {
    /// The step for a model whose own layer 0 is `architecture`, or the seeded head (`None`).
    #[must_use]
    pub fn of(architecture: Option<Architecture>) -> Self {
        match architecture {
            None | Some(Architecture::Rotary) => Self::Shown,
            Some(learned) => Self::ModelLearns(learned),
        }
    }

    /// Whether the panes show what the step's answer says.
    #[must_use]
    pub fn panes_show_it(self) -> bool {
        self == Self::Shown
    }

    /// What the step reveals (naming no key: the lesson's keys are only its own);
    /// `copies_shown` says whether the copies' vectors before and after rotation are on screen
    /// with it, the numbers behind "the copies stay identical there".
    #[must_use]
    pub fn reveal(self, copies_shown: bool) -> String {
        match self {
            Self::Shown => {
                let copies = if copies_shown {
                    " (the copies stay identical there)"
                } else {
                    ""
                };
                format!(
                    "RoPE leaves the embeddings alone{copies} and turns each query and key by an \
                     angle that grows with position, so a score depends on how far apart two \
                     tokens are. ALiBi, another scheme, subtracts a distance penalty from the \
                     scores instead."
                )
            }
            Self::ModelLearns(architecture) => format!(
                "RoPE (Llama and kin) leaves the embeddings alone and rotates each query and key \
                 inside attention. This {} model is not one of them: it adds its own learned \
                 position vectors to the embeddings, and that is what the panes above show.",
                architecture.name()
            ),
        }
    }
}

/// Which of compare mode's tables are on screen: a sentence about the vectors or the outputs
/// is said only while its table is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompareTables {
    /// Both sentences' vectors, side by side (the token vectors, or the input vectors while
    /// positions are on).
    pub vectors: bool,
    /// Each word's attention output in A and B.
    pub outputs: bool,
}

impl CompareTables {
    /// Both tables on screen.
    pub const BOTH: Self = Self {
        vectors: true,
        outputs: true,
    };
}

/// What the lesson's word-order steps may say about attention's outputs, decided by the
/// attention the panes run: unmasked (the seeded head, a BERT-style layer 0) gives each word
/// the same output in both orders; a causal layer 0 (GPT-2, Llama-style) does not, as its mask
/// alone tells the orders apart, and the panes show those outputs differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderStep {
    /// Unmasked attention: each word's output is the same in both orders.
    Unmasked,
    /// A model's own causal layer 0.
    Causal(Architecture),
}

/// Where a table the compare pane has no room for goes, for a step that cannot name a key.
const OUTPUTS_ELSEWHERE: &str =
    "A taller terminal shows each word's attention output in both orders below the vectors.";

impl OrderStep {
    /// The step for the panes' attention: `causal_layer` is the architecture of the model's
    /// own layer 0 when that layer is causal.
    #[must_use]
    pub fn of(causal_layer: Option<Architecture>) -> Self {
        causal_layer.map_or(Self::Unmasked, Self::Causal)
    }

    /// What the word-order step reveals: the one set of vectors, then what attention does
    /// with it, each said only while `tables` holds its numbers (else where they are).
    #[must_use]
    pub fn reveal(self, tables: CompareTables) -> String {
        let set = if tables.vectors {
            "Every word brings the same vector in both orders: one set, arranged differently."
        } else {
            "A taller terminal shows each word's vector in both orders."
        };
        let attention = match (self, tables.outputs) {
            (Self::Unmasked, true) => "Unmasked attention gives each word the same output in \
                                       both: it cannot tell who bit whom."
                .to_owned(),
            (Self::Causal(architecture), true) => format!(
                "This {architecture} layer 0 is causal: each word sees only itself and the \
                 words before it, so the mask alone makes the outputs differ. Unmasked, \
                 attention could not tell who bit whom."
            ),
            (Self::Unmasked, false) => OUTPUTS_ELSEWHERE.to_owned(),
            (Self::Causal(architecture), false) => format!(
                "This {architecture} layer 0 is causal: each word sees only itself and the \
                 words before it. {OUTPUTS_ELSEWHERE}"
            ),
        };
        format!("{set} {attention}")
    }

    /// What the positions-added step reveals: the input vectors differ, and so do the
    /// outputs, each said only while `tables` holds its numbers (else where they are).
    #[must_use]
    pub fn positions_reveal(tables: CompareTables) -> String {
        let added = "Each position adds its own vector, so a word's input vector depends on \
                     where it stands";
        match (tables.vectors, tables.outputs) {
            (true, true) => format!("{added}: the sets differ, and so do attention's outputs."),
            (true, false) => format!("{added}: the sets differ. {OUTPUTS_ELSEWHERE}"),
            (false, _) => format!(
                "{added}. A taller terminal shows both orders' input vectors above the outputs."
            ),
        }
    }
}

/// Whether the panes a lesson step reveals hold what its answer points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// The panes show it.
    Shown,
    /// There is no token with a row to show: the panes ask for a sentence.
    NoSentence,
    /// The panes show something else than the answer speaks of (another position scheme).
    Elsewhere,
}

impl Evidence {
    /// The verdict on an answer, as the lesson opens its reveal with it.
    #[must_use]
    pub fn verdict(self, right: bool) -> &'static str {
        match (right, self) {
            (true, Self::Shown) => "✔ Right, and the panes above show it. ",
            (true, Self::NoSentence) => {
                "✔ Right. The panes above need a sentence with a word the vocabulary knows to \
                 show it. "
            }
            (true, Self::Elsewhere) => "✔ Right. ",
            (false, Self::Shown) => "✘ Not quite: the panes above show why. ",
            (false, Self::NoSentence | Self::Elsewhere) => "✘ Not quite. ",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unmasked_attention_is_blind_to_order() {
        let blind = OrderSignal::of(PositionScheme::None, Mask::None);
        assert_eq!(blind, OrderSignal::Nothing);
        assert!(
            blind
                .why_it_matters(4)
                .contains("unmasked attention no way")
        );
        let masked = OrderSignal::of(PositionScheme::None, Mask::Causal);
        assert_eq!(masked, OrderSignal::CausalMask);
        let sentence = masked.why_it_matters(4);
        assert!(sentence.contains("the mask alone tells"), "{sentence}");
        assert!(!sentence.contains("no way"), "{sentence}");
        assert_eq!(
            OrderSignal::of(PositionScheme::Learned, Mask::Causal),
            OrderSignal::AddedPositions(PositionScheme::Learned)
        );
        assert!(
            OrderSignal::of(PositionScheme::Rope, Mask::None)
                .why_it_matters(4)
                .contains("RoPE adds nothing")
        );
        let learned = OrderSignal::AddedPositions(PositionScheme::Learned).why_it_matters(1024);
        assert!(learned.ends_with("(1024 here)."), "{learned}");
        let waves = OrderSignal::AddedPositions(PositionScheme::Sinusoidal).why_it_matters(1024);
        assert!(waves.contains("go on for any position"), "{waves}");
    }

    #[test]
    fn a_learned_position_model_is_not_said_to_show_rope() {
        let seeded = RotaryStep::of(None);
        assert!(seeded.panes_show_it());
        assert!(seeded.reveal(true).contains("copies stay identical there"));
        // Without the copies' vectors on screen, the claim about them is left out.
        let short = seeded.reveal(false);
        assert!(!short.contains("copies"), "{short}");
        assert!(
            short.starts_with("RoPE leaves the embeddings alone and turns"),
            "{short}"
        );
        assert_eq!(
            RotaryStep::of(Some(Architecture::Rotary)),
            RotaryStep::Shown
        );
        let bert = RotaryStep::of(Some(Architecture::Bert));
        assert!(!bert.panes_show_it());
        let reveal = bert.reveal(true);
        assert!(reveal.contains("not one of them"), "{reveal}");
        assert!(reveal.contains("learned position vectors"), "{reveal}");
        assert!(!reveal.contains("copies stay identical"), "{reveal}");
    }

    #[test]
    fn the_panes_are_said_to_show_it_only_when_they_do() {
        assert_eq!(
            Evidence::Shown.verdict(true),
            "✔ Right, and the panes above show it. "
        );
        for evidence in [Evidence::NoSentence, Evidence::Elsewhere] {
            assert!(!evidence.verdict(true).contains("above show it"));
            assert!(!evidence.verdict(false).contains("show why"));
        }
    }

    #[test]
    fn only_unmasked_attention_is_said_to_give_both_orders_the_same_outputs() {
        let unmasked = OrderStep::of(None).reveal(CompareTables::BOTH);
        assert!(
            unmasked.contains("one set, arranged differently"),
            "{unmasked}"
        );
        assert!(unmasked.contains("Unmasked attention gives each word the same output"));
        let gpt2 = OrderStep::of(Some(Architecture::Gpt2));
        assert_eq!(gpt2, OrderStep::Causal(Architecture::Gpt2));
        let causal = gpt2.reveal(CompareTables::BOTH);
        assert!(causal.contains("one set, arranged differently"), "{causal}");
        assert!(causal.contains("This GPT-2 layer 0 is causal"), "{causal}");
        assert!(
            causal.contains("the mask alone makes the outputs differ"),
            "{causal}"
        );
        assert!(!causal.contains("same output"), "{causal}");
    }

    #[test]
    fn the_order_steps_say_of_a_table_only_what_is_on_screen() {
        let vectors_only = CompareTables {
            vectors: true,
            outputs: false,
        };
        for step in [OrderStep::Unmasked, OrderStep::Causal(Architecture::Gpt2)] {
            let said = step.reveal(vectors_only);
            assert!(said.contains("one set, arranged differently"), "{said}");
            assert!(!said.contains("same output"), "{said}");
            assert!(!said.contains("outputs differ"), "{said}");
            assert!(
                said.ends_with("output in both orders below the vectors."),
                "{said}"
            );
        }
        let outputs_only = CompareTables {
            vectors: false,
            outputs: true,
        };
        let said = OrderStep::Unmasked.reveal(outputs_only);
        assert!(!said.contains("one set"), "{said}");
        assert!(said.contains("same output in both"), "{said}");
        let added = OrderStep::positions_reveal(CompareTables::BOTH);
        assert!(added.ends_with("the sets differ, and so do attention's outputs."));
        let added = OrderStep::positions_reveal(vectors_only);
        assert!(added.contains("the sets differ."), "{added}");
        assert!(!added.contains("so do attention's outputs"), "{added}");
        let added = OrderStep::positions_reveal(outputs_only);
        assert!(!added.contains("the sets differ"), "{added}");
    }
}
