//! What the similarity heat map shows about the copies of a word: the same vector without
//! positions, and how far apart positions set them. Decided from the numbers shown; the
//! sentences name keys by their action (`{TogglePositions}`), for the screen to fill.

use super::verdict::{Direction, capitalised};
use crate::core::tables::positional::PositionScheme;

/// Two copies of one word in the heat map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyPair {
    /// The word.
    pub word: String,
    /// The first copy's position.
    pub first: usize,
    /// The second copy's position.
    pub second: usize,
}

/// Why the current token has no column in the heat map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotInHeatMap {
    /// The vocabulary (named) has no row for the word.
    NoRow {
        /// The word.
        word: String,
        /// The vocabulary's name.
        vocabulary: String,
    },
    /// The heat map takes only this many tokens with rows, and the current one is beyond them.
    Beyond(usize),
}

impl NotInHeatMap {
    /// The note, in a sentence.
    #[must_use]
    pub fn sentence(&self) -> String {
        match self {
            Self::NoRow { word, vocabulary } => format!(
                "'{word}' has no row in the {vocabulary} vocabulary, so it has no vector in the \
                 heat map."
            ),
            Self::Beyond(limit) => format!(
                "The heat map takes the first {limit} tokens with rows; the current token is \
                 beyond them."
            ),
        }
    }
}

/// The cosine between two copies of a word, and what it shows in the state shown.
#[derive(Clone, Debug, PartialEq)]
pub enum CopiesCosine {
    /// No word repeats.
    NoRepeat,
    /// The copies' row has length zero: no direction, so no cosine.
    NoDirection {
        /// The copies.
        pair: CopyPair,
        /// Whether positions are on.
        positions: bool,
    },
    /// Positions off: the same vector.
    SameVector {
        /// The copies.
        pair: CopyPair,
        /// Their cosine.
        cosine: f64,
    },
    /// Positions on, but the scheme added nothing to the input vectors: still identical.
    StillIdentical {
        /// The scheme (selected, and on).
        scheme: PositionScheme,
        /// The copies.
        pair: CopyPair,
        /// Their cosine.
        cosine: f64,
    },
    /// Positions on, and the copies' input vectors differ.
    Apart {
        /// The scheme (selected, and on).
        scheme: PositionScheme,
        /// The copies.
        pair: CopyPair,
        /// Their cosine.
        cosine: f64,
    },
}

impl CopiesCosine {
    /// The finding for `pair` (`None` when no word repeats) with cosine `cosine`, under
    /// `scheme` with positions on or off, the copies' input vectors `identical` or not.
    #[must_use]
    pub fn of(
        pair: Option<CopyPair>,
        cosine: f64,
        scheme: PositionScheme,
        positions: bool,
        identical: bool,
    ) -> Self {
        let Some(pair) = pair else {
            return Self::NoRepeat;
        };
        if !cosine.is_finite() {
            Self::NoDirection { pair, positions }
        } else if !positions {
            Self::SameVector { pair, cosine }
        } else if identical {
            Self::StillIdentical {
                scheme,
                pair,
                cosine,
            }
        } else {
            Self::Apart {
                scheme,
                pair,
                cosine,
            }
        }
    }

    /// The finding, in a sentence.
    #[must_use]
    pub fn sentence(&self) -> String {
        let which =
            |pair: &CopyPair| format!("('{}' at {} and {})", pair.word, pair.first, pair.second);
        match self {
            Self::NoRepeat => {
                "No word repeats here: type one twice to see what its copies' cosine is.".to_owned()
            }
            Self::NoDirection { pair, .. } => format!(
                "Copies of a word share a row of length zero: it has no direction, so no cosine \
                 {}.",
                which(pair)
            ),
            Self::SameVector { pair, cosine } => format!(
                "Copies of a word have cosine {cosine:.2} with each other: the same vector {}.",
                which(pair)
            ),
            Self::StillIdentical {
                scheme,
                pair,
                cosine,
            } => format!(
                "{} positions add nothing to the input vectors here, so the copies stay \
                 identical: cosine {cosine:.4} {}.",
                capitalised(scheme.label()),
                which(pair)
            ),
            Self::Apart {
                scheme,
                pair,
                cosine,
            } => format!(
                "With {scheme} positions added the copies are no longer identical: cosine \
                 {cosine:.4} {}.",
                which(pair)
            ),
        }
    }

    /// Why, in a sentence after the finding; `None` where the finding says it all.
    #[must_use]
    pub fn explanation(&self) -> Option<String> {
        match self {
            Self::NoDirection {
                positions: false, ..
            }
            | Self::SameVector { .. } => Some(
                "The lookup sees only the id, not where the word stands; {TogglePositions} adds \
                 positions."
                    .to_owned(),
            ),
            Self::NoRepeat | Self::NoDirection { .. } | Self::StillIdentical { .. } => None,
            Self::Apart { cosine, .. } => Some(match Direction::of_cosine(*cosine) {
                Direction::Same => "Each position adds its own vector, yet here the copies \
                                    still point the same way to four decimals."
                    .to_owned(),
                direction => format!(
                    "Each position adds its own vector, so the two copies of one word now point \
                     {}.",
                    direction.phrase()
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fox() -> CopyPair {
        CopyPair {
            word: "fox".to_owned(),
            first: 0,
            second: 3,
        }
    }

    #[test]
    fn copies_without_positions_are_the_same_vector() {
        let finding = CopiesCosine::of(Some(fox()), 1.0, PositionScheme::Learned, false, true);
        assert_eq!(
            finding.sentence(),
            "Copies of a word have cosine 1.00 with each other: the same vector ('fox' at 0 and \
             3)."
        );
        assert!(
            finding
                .explanation()
                .is_some_and(|why| why.contains("{TogglePositions} adds positions"))
        );
    }

    #[test]
    fn a_scheme_that_adds_nothing_leaves_the_copies_identical() {
        let finding = CopiesCosine::of(Some(fox()), 1.0, PositionScheme::Rope, true, true);
        assert!(
            finding
                .sentence()
                .starts_with("RoPE positions add nothing to the input vectors here")
        );
        assert_eq!(finding.explanation(), None);
    }

    #[test]
    fn added_positions_set_the_copies_apart_by_their_cosine() {
        let finding = CopiesCosine::of(Some(fox()), 0.42, PositionScheme::Learned, true, false);
        assert!(
            finding
                .sentence()
                .contains("no longer identical: cosine 0.4200")
        );
        let why = finding.explanation().unwrap_or_default();
        assert!(why.contains("now point"), "{why}");
        let close = CopiesCosine::of(Some(fox()), 0.999_99, PositionScheme::Learned, true, false);
        assert!(
            close
                .explanation()
                .is_some_and(|why| why.contains("still point the same way"))
        );
    }

    #[test]
    fn a_row_of_length_zero_has_no_cosine() {
        let off = CopiesCosine::of(Some(fox()), f64::NAN, PositionScheme::Learned, false, true);
        assert!(off.sentence().contains("no direction, so no cosine"));
        assert!(off.explanation().is_some());
        let on = CopiesCosine::of(Some(fox()), f64::NAN, PositionScheme::Learned, true, true);
        assert_eq!(on.explanation(), None);
        let none = CopiesCosine::of(None, 1.0, PositionScheme::Learned, true, true);
        assert_eq!(none, CopiesCosine::NoRepeat);
        assert_eq!(none.explanation(), None);
    }

    #[test]
    fn a_token_outside_the_heat_map_says_why() {
        let no_row = NotInHeatMap::NoRow {
            word: "zorp".to_owned(),
            vocabulary: "words".to_owned(),
        };
        assert!(
            no_row
                .sentence()
                .starts_with("'zorp' has no row in the words vocabulary")
        );
        assert!(
            NotInHeatMap::Beyond(64)
                .sentence()
                .contains("first 64 tokens")
        );
    }
}
