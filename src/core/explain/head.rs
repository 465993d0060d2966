//! What the seeded head's heat map and outputs show, decided by the position scheme and the
//! mask in force; its sentence names keys by their action (`{ToggleCompare}`), for the screen
//! to fill from its key table.

use super::listed;
use crate::core::analysis::attention::Mask;
use crate::core::tables::positional::{ALIBI_HEADS, PositionScheme, alibi_slopes};

/// The finding under the seeded head's heat map.
#[derive(Clone, Debug, PartialEq)]
pub enum HeadFinding {
    /// No positions and no mask: each word's output depends only on which words are present.
    OrderBlind,
    /// No positions, but the causal mask: the first position sees only itself.
    MaskAlone {
        /// The first position in the heat map.
        first: usize,
        /// Its weight on itself.
        weight: f64,
    },
    /// Learned or sinusoidal positions added to the inputs.
    Added {
        /// Whether the causal mask is on too.
        causal: bool,
    },
    /// Learned or sinusoidal positions added to the inputs, said of a repeated word whose
    /// copies' rows the heat map has no room for: the finding points at the readout, which
    /// gives their input vectors' distance, rather than at rows not drawn (and is short, for
    /// a short pane).
    AddedCopiesOutOfSight {
        /// Whether the causal mask is on too.
        causal: bool,
        /// The repeated word.
        word: String,
        /// Its copies' positions, in order.
        positions: Vec<usize>,
    },
    /// `RoPE` turns queries and keys inside attention.
    Rotary {
        /// Whether the causal mask is on too.
        causal: bool,
    },
    /// `ALiBi` subtracts a distance penalty from the scores.
    Alibi {
        /// Every head's slope, the first head's first.
        slopes: Vec<f64>,
    },
}

impl HeadFinding {
    /// The finding under the active scheme (`None` with positions off) and `mask`; `first` is
    /// the first position the heat map shows and `first_weight` its weight on itself.
    #[must_use]
    pub fn of(scheme: PositionScheme, mask: Mask, first: usize, first_weight: f64) -> Self {
        let causal = mask == Mask::Causal;
        match scheme {
            PositionScheme::None if causal => Self::MaskAlone {
                first,
                weight: first_weight,
            },
            PositionScheme::None => Self::OrderBlind,
            PositionScheme::Learned | PositionScheme::Sinusoidal => Self::Added { causal },
            PositionScheme::Rope => Self::Rotary { causal },
            PositionScheme::Alibi => Self::Alibi {
                slopes: alibi_slopes(ALIBI_HEADS),
            },
        }
    }

    /// The finding under learned or sinusoidal positions once the heat map has no room for
    /// the rows of the copies of `word` at `positions`; any other finding stays as it is.
    #[must_use]
    pub fn copies_out_of_sight(self, word: &str, positions: &[usize]) -> Self {
        match self {
            Self::Added { causal } => Self::AddedCopiesOutOfSight {
                causal,
                word: word.to_owned(),
                positions: positions.to_vec(),
            },
            other => other,
        }
    }

    /// The finding in a sentence, its keys named as `{Action}`.
    #[must_use]
    pub fn sentence(&self) -> String {
        match self {
            Self::OrderBlind => "No position signal: each word's output depends only on which \
                                 words are present, not their order (press {ToggleCompare} to \
                                 compare orders)."
                .to_owned(),
            Self::MaskAlone { first, weight } => format!(
                "The causal mask alone breaks the symmetry: position {first} sees only itself \
                 (weight {weight:.2}), the last token sees everything."
            ),
            Self::Added { causal } => format!(
                "Positions were added to the inputs, so the same word at another place attends \
                 differently.{}",
                causal_note(*causal)
            ),
            Self::AddedCopiesOutOfSight {
                causal,
                word,
                positions,
            } => format!(
                "'{word}' at {} now differ: What the layer returned gives their distance.{}",
                listed(positions),
                causal_note(*causal)
            ),
            Self::Rotary { causal } => {
                let mut text = "RoPE adds nothing to the embeddings: it rotates each query and \
                                key pair of dimensions by position × θᵢ, keeping their length; a \
                                score depends only on the distance between positions."
                    .to_owned();
                if *causal {
                    text.push_str(" The causal mask also hides the tokens after each token.");
                }
                text
            }
            Self::Alibi { slopes } => {
                let listed: Vec<String> = slopes
                    .iter()
                    .map(|slope| format!("1/{}", (1.0 / slope).round()))
                    .collect();
                format!(
                    "ALiBi adds nothing to the embeddings: it subtracts slope × distance from \
                     each score (head 1, slope 1/2); all {} heads' slopes: {}.",
                    slopes.len(),
                    listed.join(" ")
                )
            }
        }
    }
}

/// What the causal mask adds to a finding about added positions.
fn causal_note(causal: bool) -> &'static str {
    if causal {
        " The causal mask also hides from each token the tokens after it."
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_mask_or_a_scheme_breaks_the_symmetry() {
        let blind = HeadFinding::of(PositionScheme::None, Mask::None, 0, 0.5);
        assert_eq!(blind, HeadFinding::OrderBlind);
        assert!(
            blind
                .sentence()
                .contains("{ToggleCompare} to compare orders")
        );
        let masked = HeadFinding::of(PositionScheme::None, Mask::Causal, 3, 1.0);
        assert_eq!(
            masked,
            HeadFinding::MaskAlone {
                first: 3,
                weight: 1.0
            }
        );
        assert!(
            masked
                .sentence()
                .contains("position 3 sees only itself (weight 1.00)")
        );
        for scheme in [PositionScheme::Learned, PositionScheme::Sinusoidal] {
            let added = HeadFinding::of(scheme, Mask::Causal, 0, 1.0);
            assert_eq!(added, HeadFinding::Added { causal: true });
            assert!(added.sentence().contains("also hides"));
        }
        let rotary = HeadFinding::of(PositionScheme::Rope, Mask::None, 0, 1.0).sentence();
        assert!(rotary.starts_with("RoPE adds nothing"), "{rotary}");
        assert!(!rotary.contains("causal"), "{rotary}");
    }

    #[test]
    fn copies_out_of_sight_point_at_the_readout_instead() {
        let added = HeadFinding::of(PositionScheme::Learned, Mask::Causal, 0, 1.0);
        let elsewhere = added.copies_out_of_sight("fox", &[0, 3]).sentence();
        assert!(
            elsewhere.starts_with(
                "'fox' at 0 and 3 now differ: What the layer returned gives their distance."
            ),
            "{elsewhere}"
        );
        assert!(elsewhere.ends_with("tokens after it."), "{elsewhere}");
        assert!(!elsewhere.contains("attends"), "{elsewhere}");
        // Only a finding about added positions speaks of the copies' input vectors.
        let rotary = HeadFinding::of(PositionScheme::Rope, Mask::None, 0, 1.0);
        assert_eq!(rotary.clone().copies_out_of_sight("fox", &[0, 3]), rotary);
    }

    #[test]
    fn alibi_lists_every_heads_slope() {
        let alibi = HeadFinding::of(PositionScheme::Alibi, Mask::None, 0, 1.0).sentence();
        assert!(
            alibi.ends_with("all 8 heads' slopes: 1/2 1/4 1/8 1/16 1/32 1/64 1/128 1/256."),
            "{alibi}"
        );
    }
}
