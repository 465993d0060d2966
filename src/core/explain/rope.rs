//! What `RoPE` did to a repeated word's copies: the same vector before their turns, and, turned
//! by their positions' angles, the same or not. The attention pane and the lesson show it with
//! both copies' vectors before and after beside it.

use super::verdict::VectorMatch;

/// A repeated word's two copies compared before and after `RoPE` turns each by its position.
#[derive(Clone, Debug, PartialEq)]
pub struct CopiesTurned {
    /// The word.
    pub word: String,
    /// The other copy's position, then the current copy's, as the sentence names them.
    pub positions: [usize; 2],
    /// The two input vectors compared.
    pub before: VectorMatch,
    /// The two turned vectors compared (and so their queries' and keys' turns).
    pub after: VectorMatch,
}

impl CopiesTurned {
    /// Whether the turns told the copies apart: the finding, rather than a note.
    #[must_use]
    pub fn told_apart(&self) -> bool {
        !self.after.is_identical()
    }

    /// The sentence: "'fox' at 0 and 3: identical before rotation; turned by their positions'
    /// angles they differ by up to 2.5, and so do their queries and keys."
    #[must_use]
    pub fn sentence(&self) -> String {
        let Self {
            word,
            positions: [first, second],
            before,
            after,
        } = self;
        let before = if before.is_identical() {
            "identical".to_owned()
        } else {
            format!("different ({})", before.extent())
        };
        if after.is_identical() {
            format!(
                "'{word}' at {first} and {second}: before rotation the vectors are {before}, and \
                 they stay identical after it."
            )
        } else {
            format!(
                "'{word}' at {first} and {second}: {before} before rotation; turned by their \
                 positions' angles they {after}, and so do their queries and keys."
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_identical_before_and_apart_after_say_by_how_much() {
        let turned = CopiesTurned {
            word: "fox".to_owned(),
            positions: [0, 3],
            before: VectorMatch::Identical,
            after: VectorMatch::DiffersBy(2.5095),
        };
        assert!(turned.told_apart());
        assert_eq!(
            turned.sentence(),
            "'fox' at 0 and 3: identical before rotation; turned by their positions' angles \
             they differ by up to 2.5, and so do their queries and keys."
        );
        let same = CopiesTurned {
            after: VectorMatch::Identical,
            ..turned
        };
        assert!(!same.told_apart());
        assert_eq!(
            same.sentence(),
            "'fox' at 0 and 3: before rotation the vectors are identical, and they stay \
             identical after it."
        );
    }
}
