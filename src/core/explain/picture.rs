//! What the picture of the sentence's vectors shows, in a sentence whose numbers are the
//! plane's ([`PlaneFinding`]); keys are named by their action (`{TogglePositions}`), for the
//! screen to fill.

use super::listed;
use crate::core::analysis::plane::PlaneFinding;
use crate::core::tables::positional::PositionScheme;

/// The picture's finding in a sentence; `dims` is the width of the vectors the distance is
/// measured over, `inside_attention` the scheme in force when positions are on but add no
/// vector (`RoPE`, `ALiBi`).
///
/// With such a scheme on, the sentence never offers `p` to add positions (they are on: `p`
/// would take them away); it says why the dots stay where they are instead.
#[must_use]
pub fn sentence(
    finding: &PlaneFinding,
    dims: usize,
    inside_attention: Option<PositionScheme>,
) -> String {
    let Some(scheme) = inside_attention else {
        return without_scheme(finding, dims);
    };
    let why = format!(
        "{scheme} adds no vector to the embeddings (it acts inside attention), so the input \
         vectors are the token vectors"
    );
    match finding {
        PlaneFinding::CopiesOneDot { word, positions } => format!(
            "'{word}' at {}: one dot. The copies get the same row, so exactly the same point: \
             {why}.",
            listed(positions)
        ),
        PlaneFinding::Orders {
            inputs: false,
            shared,
            total,
        } if shared == total => format!(
            "All {total} of B's token vectors sit on A's dots: another order moves no dot. {why}."
        ),
        other => format!("{} {why}.", without_scheme(other, dims)),
    }
}

/// The finding with positions off or added as vectors.
fn without_scheme(finding: &PlaneFinding, dims: usize) -> String {
    match finding {
        PlaneFinding::CopiesOneDot { word, positions } => format!(
            "'{word}' at {}: one dot. The copies get the same row, so exactly the same point; \
             the layer has no input for position. {{TogglePositions}} adds positions.",
            listed(positions)
        ),
        PlaneFinding::CopiesSplit {
            word,
            positions,
            distance,
        } => format!(
            "'{word}' at {}: one token dot, but {} input dots; {} {distance:.4} apart \
             (Euclidean, over all {dims} dimensions): each position added its own vector.",
            listed(positions),
            positions.len(),
            if positions.len() == 2 {
                "they are"
            } else {
                "the first two are"
            },
        ),
        PlaneFinding::NoRepeat => {
            "No word repeats here: type one twice to see its copies land on one dot.".to_owned()
        }
        PlaneFinding::Orders {
            inputs: false,
            shared,
            total,
        } if shared == total => format!(
            "All {total} of B's token vectors sit on A's dots: another order moves no dot. \
             {{TogglePositions}} adds positions."
        ),
        PlaneFinding::Orders {
            inputs: false,
            shared,
            total,
        } => format!(
            "{} of B's {total} token vectors are on none of A's dots: different words, not just \
             a different order.",
            total - shared
        ),
        PlaneFinding::Orders {
            inputs: true,
            shared,
            total,
        } => format!(
            "With positions, {} of B's {total} input vectors are on none of A's dots: a word at \
             another place gets another vector; {shared} {stay} where A has the same word at \
             the same place.",
            total - shared,
            stay = if *shared == 1 { "stays" } else { "stay" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_one_dot_until_positions_split_them() {
        let one = PlaneFinding::CopiesOneDot {
            word: "fox".to_owned(),
            positions: vec![0, 3, 5],
        };
        assert!(sentence(&one, 4, None).starts_with("'fox' at 0, 3 and 5: one dot."));
        let split = PlaneFinding::CopiesSplit {
            word: "fox".to_owned(),
            positions: vec![0, 3],
            distance: 1.5,
        };
        assert!(
            sentence(&split, 4, None)
                .contains("2 input dots; they are 1.5000 apart (Euclidean, over all 4 dimensions)")
        );
    }

    #[test]
    fn another_order_moves_no_dot_without_positions() {
        let same = PlaneFinding::Orders {
            inputs: false,
            shared: 3,
            total: 3,
        };
        assert!(sentence(&same, 4, None).contains("another order moves no dot"));
        let moved = PlaneFinding::Orders {
            inputs: true,
            shared: 1,
            total: 3,
        };
        assert!(sentence(&moved, 4, None).contains("2 of B's 3 input vectors are on none"));
        assert!(sentence(&moved, 4, None).contains("1 stays where"));
    }

    #[test]
    fn with_rope_on_the_sentence_offers_no_key_to_add_positions() {
        let one = PlaneFinding::CopiesOneDot {
            word: "fox".to_owned(),
            positions: vec![0, 3],
        };
        let off = sentence(&one, 4, None);
        assert!(off.contains("{TogglePositions} adds positions"), "{off}");
        let rope = sentence(&one, 4, Some(PositionScheme::Rope));
        assert!(rope.starts_with("'fox' at 0 and 3: one dot."), "{rope}");
        assert!(
            rope.contains("RoPE adds no vector to the embeddings"),
            "{rope}"
        );
        assert!(!rope.contains("{TogglePositions}"), "{rope}");
        let same = PlaneFinding::Orders {
            inputs: false,
            shared: 3,
            total: 3,
        };
        let alibi = sentence(&same, 4, Some(PositionScheme::Alibi));
        assert!(
            alibi.contains("another order moves no dot. ALiBi adds no vector"),
            "{alibi}"
        );
        assert!(!alibi.contains("{TogglePositions}"), "{alibi}");
        let none = sentence(&PlaneFinding::NoRepeat, 4, Some(PositionScheme::Rope));
        assert!(
            none.ends_with("so the input vectors are the token vectors."),
            "{none}"
        );
    }
}
