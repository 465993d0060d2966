//! Other orders of the learner's own words, for compare mode's second sentence: reversed,
//! rotated, or shuffled with a seed. Only the order changes, never the words.

use std::fmt;

use crate::core::tables::torch_init::Mt19937;

/// One way to reorder a sentence's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reordering {
    /// The words back to front: `dog bites man` → `man bites dog`.
    Reversed,
    /// The first word moved to the end: `dog bites man` → `bites man dog`.
    Rotated,
    /// The words shuffled by a seeded generator, so the same seed gives the same order.
    Shuffled(u64),
}

impl Reordering {
    /// The next order to try: reversed, rotated, then shuffles with growing seeds.
    #[must_use]
    pub fn next(self) -> Self {
        match self {
            Self::Reversed => Self::Rotated,
            Self::Rotated => Self::Shuffled(1),
            Self::Shuffled(seed) if seed >= MAX_SHUFFLES => Self::Reversed,
            Self::Shuffled(seed) => Self::Shuffled(seed + 1),
        }
    }

    /// `text`'s words (split at whitespace) in this order, joined by single spaces.
    #[must_use]
    pub fn apply(self, text: &str) -> String {
        let mut words: Vec<&str> = text.split_whitespace().collect();
        match self {
            Self::Reversed => words.reverse(),
            Self::Rotated => {
                if !words.is_empty() {
                    words.rotate_left(1);
                }
            }
            Self::Shuffled(seed) => {
                // Fisher–Yates with the twister PyTorch seeds, so a shuffle is reproducible.
                #[expect(clippy::cast_possible_truncation, reason = "a small shuffle number")]
                let mut twister = Mt19937::new(seed as u32);
                for last in (1..words.len()).rev() {
                    let bound = u32::try_from(last + 1).unwrap_or(u32::MAX);
                    let pick = usize::try_from(twister.next_word() % bound).unwrap_or(0);
                    words.swap(last, pick);
                }
            }
        }
        words.join(" ")
    }

    /// The first order from `self` on (cycling through every kind once) that changes
    /// `text`, with the reordered text; `None` when no order does (a single word, or one
    /// word repeated).
    #[must_use]
    pub fn first_change(self, text: &str) -> Option<(Self, String)> {
        let original = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut order = self;
        for _ in 0..=MAX_SHUFFLES + 2 {
            let reordered = order.apply(text);
            if reordered != original {
                return Some((order, reordered));
            }
            order = order.next();
        }
        None
    }
}

/// Shuffles tried before the cycle returns to the reversal.
const MAX_SHUFFLES: u64 = 8;

impl fmt::Display for Reordering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Reversed => f.write_str("reversed"),
            Self::Rotated => f.write_str("rotated (first word last)"),
            Self::Shuffled(seed) => write!(f, "shuffled (seed {seed})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reversal_and_rotation_keep_the_words() {
        assert_eq!(Reordering::Reversed.apply("dog bites man"), "man bites dog");
        assert_eq!(Reordering::Rotated.apply("dog bites man"), "bites man dog");
        assert_eq!(
            Reordering::Reversed.apply("  fox  bites the fox "),
            "fox the bites fox"
        );
        assert_eq!(Reordering::Rotated.apply(""), "");
    }

    #[test]
    fn a_shuffle_is_a_permutation_and_reproducible() {
        let text = "the quick fox bites the lazy dog";
        let shuffled = Reordering::Shuffled(3).apply(text);
        assert_eq!(shuffled, Reordering::Shuffled(3).apply(text));
        let sorted = |s: &str| {
            let mut words: Vec<String> = s.split(' ').map(str::to_owned).collect();
            words.sort();
            words
        };
        assert_eq!(sorted(&shuffled), sorted(text));
    }

    #[test]
    fn orders_cycle_and_skip_those_that_change_nothing() {
        assert_eq!(Reordering::Reversed.next(), Reordering::Rotated);
        assert_eq!(Reordering::Rotated.next(), Reordering::Shuffled(1));
        assert_eq!(
            Reordering::Shuffled(MAX_SHUFFLES).next(),
            Reordering::Reversed
        );
        // "fox the fox" reversed is itself; rotating changes it.
        assert_eq!(
            Reordering::Reversed.first_change("fox the fox"),
            Some((Reordering::Rotated, "the fox fox".to_owned()))
        );
        assert_eq!(Reordering::Reversed.first_change("fox"), None);
        assert_eq!(Reordering::Reversed.first_change("fox fox"), None);
    }
}
