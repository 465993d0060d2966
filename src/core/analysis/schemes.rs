//! What `RoPE` and `ALiBi` do inside attention, as the numbers the attention pane draws: the
//! current token's input vector turned pair by pair, a repeated word's copies before and after
//! their turns, and the biases `ALiBi` adds to the current token's scores.

use ndarray::{Array1, ArrayView1};

use crate::core::explain::rope::CopiesTurned;
use crate::core::explain::verdict::VectorMatch;
use crate::core::tables::positional::{
    ALIBI_HEADS, ROPE_BASE, alibi_bias, alibi_slopes, rope_rotate,
};
use crate::core::tables::weights::TokenLookup;
use crate::core::text::vocabulary::{Token, copies_of};

/// How many pairs of dimensions the explorer shows turned.
pub const ROPE_PAIRS: usize = 3;

/// One pair of dimensions turned by `RoPE`.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnedPair {
    /// The pair's first (even) dimension; its partner is the next one.
    pub first_dim: usize,
    /// The turn, position × θᵢ radians.
    pub angle: f64,
    /// The pair's two numbers before the turn.
    pub before: [f32; 2],
    /// And after it.
    pub after: [f32; 2],
}

impl TurnedPair {
    /// The pair's length before the turn.
    #[must_use]
    pub fn length_before(&self) -> f64 {
        length(self.before)
    }

    /// The pair's length after the turn: the same, as a rotation keeps it.
    #[must_use]
    pub fn length_after(&self) -> f64 {
        length(self.after)
    }
}

fn length([x, y]: [f32; 2]) -> f64 {
    f64::from(x).hypot(f64::from(y))
}

/// A token's input vector turned by `RoPE` at its position, by the angles the head turns its
/// query and key by.
#[derive(Clone, Debug, PartialEq)]
pub struct RopeTurn {
    /// The token turned.
    pub token: Token,
    /// Its input vector's width.
    pub dims: usize,
    /// The first [`ROPE_PAIRS`] pairs (none for a vector of one number).
    pub pairs: Vec<TurnedPair>,
    /// The last dimension, when the width is odd and every pair is shown: it has no partner
    /// and is left as it is.
    pub lone_dim: Option<usize>,
}

/// `lookup`'s input vector turned at its position: `None` when it has no row.
#[must_use]
pub fn rope_turn(lookup: &TokenLookup) -> Option<RopeTurn> {
    let input = lookup.input_vector.as_ref()?;
    let position = lookup.token.position;
    let dims = input.len();
    let rotated = rope_rotate(input.view(), position, ROPE_BASE);
    let pairs: Vec<TurnedPair> = (0..(dims / 2).min(ROPE_PAIRS))
        .map(|pair| {
            let (even, odd) = (2 * pair, 2 * pair + 1);
            #[expect(clippy::cast_precision_loss, reason = "positions and widths are small")]
            let angle = position as f64 * ROPE_BASE.powf(-(even as f64) / dims as f64);
            TurnedPair {
                first_dim: even,
                angle,
                before: [input[even], input[odd]],
                after: [rotated[even], rotated[odd]],
            }
        })
        .collect();
    let lone_dim = (dims % 2 == 1 && dims / 2 < ROPE_PAIRS).then(|| dims - 1);
    Some(RopeTurn {
        token: lookup.token.clone(),
        dims,
        pairs,
        lone_dim,
    })
}

/// A repeated word's copies compared before and after `RoPE` turns each by its position, with
/// the vectors that bear the comparison out.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnedCopies {
    /// The comparison, for its sentence.
    pub finding: CopiesTurned,
    /// The other copy's input vector before and after its turn, then the current copy's: in
    /// the order the finding names their positions.
    pub rows: [TurnedVector; 2],
}

/// One copy's input vector before and after `RoPE` turns it at its position.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnedVector {
    /// The copy's position.
    pub position: usize,
    /// Its input vector.
    pub before: Array1<f32>,
    /// Turned by its position's angles.
    pub after: Array1<f32>,
}

impl TurnedCopies {
    /// The dimension where the two turned vectors differ most, and by how much; `None` when
    /// they are the same.
    #[must_use]
    pub fn largest_difference(&self) -> Option<(usize, f64)> {
        let [first, second] = &self.rows;
        first
            .after
            .iter()
            .zip(&second.after)
            .map(|(&a, &b)| (f64::from(a) - f64::from(b)).abs())
            .enumerate()
            .filter(|&(_, difference)| difference > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// The current token (`step`) and its first other copy with a lookup, before and after their
/// turns: `None` when the word has no other copy or either has no row.
#[must_use]
pub fn turned_copies(
    tokens: &[Token],
    lookups: &[TokenLookup],
    step: usize,
) -> Option<TurnedCopies> {
    let lookup = lookups.get(step)?;
    let copy = copies_of(tokens, step)
        .into_iter()
        .filter(|&index| index != step)
        .find_map(|index| lookups.get(index))?;
    let (input, copy_input) = (lookup.input_vector.as_ref()?, copy.input_vector.as_ref()?);
    let turned = |vector: &Array1<f32>, position| TurnedVector {
        position,
        before: vector.clone(),
        after: rope_rotate(vector.view(), position, ROPE_BASE),
    };
    let rows = [
        turned(copy_input, copy.token.position),
        turned(input, lookup.token.position),
    ];
    Some(TurnedCopies {
        finding: CopiesTurned {
            word: lookup.token.text.clone(),
            positions: [copy.token.position, lookup.token.position],
            before: VectorMatch::of(input.view(), copy_input.view()),
            after: VectorMatch::of(rows[1].after.view(), rows[0].after.view()),
        },
        rows,
    })
}

/// The biases `ALiBi`'s first head adds to one query's scores, key by key.
#[derive(Clone, Debug, PartialEq)]
pub struct AlibiRow {
    /// The query's position.
    pub position: usize,
    /// Each key's bias, `None` where the mask hides the key (its score is minus infinity).
    pub biases: Vec<Option<f64>>,
}

/// The biases on the scores of the query at `positions[row]`, for the keys at `positions`,
/// where `scores` is that query's row of scores; `None` when there is no such row.
#[must_use]
pub fn alibi_row(scores: ArrayView1<f64>, positions: &[usize], row: usize) -> Option<AlibiRow> {
    let position = *positions.get(row)?;
    let slope = alibi_slopes(ALIBI_HEADS)[0];
    let biases = positions
        .iter()
        .zip(scores)
        .map(|(&key, &score)| {
            // Print -0 as 0: the token itself gets no penalty.
            (score != f64::NEG_INFINITY).then(|| alibi_bias(slope, position, key) + 0.0)
        })
        .collect();
    Some(AlibiRow { position, biases })
}

#[cfg(test)]
mod tests {
    use ndarray::array;

    use super::*;
    use crate::core::tables::positional::PositionVector;

    fn lookup(text: &str, position: usize, input: Option<Array1<f32>>) -> TokenLookup {
        TokenLookup {
            token: Token {
                text: text.to_owned(),
                span: 0..text.len(),
                position,
                id: input.as_ref().map(|_| text.len()),
                special: false,
                unknown: false,
            },
            token_vector: input.clone(),
            position: PositionVector::Absent,
            input_vector: input,
            model_embedding: None,
        }
    }

    #[test]
    fn a_turn_at_position_one_turns_the_first_pair_by_one_radian_and_keeps_its_length() {
        let turn = rope_turn(&lookup("fox", 1, Some(array![1.0, 0.0, 0.0, 1.0]))).unwrap();
        assert_eq!(turn.pairs.len(), 2);
        let first = &turn.pairs[0];
        assert!((first.angle - 1.0).abs() < 1e-12);
        assert!((f64::from(first.after[0]) - 1.0f64.cos()).abs() < 1e-6);
        assert!((f64::from(first.after[1]) - 1.0f64.sin()).abs() < 1e-6);
        assert!((first.length_before() - first.length_after()).abs() < 1e-6);
        // θ₁ = 10000^(-2/4) = 1/100.
        assert!((turn.pairs[1].angle - 0.01).abs() < 1e-12);
        assert_eq!(turn.lone_dim, None);
    }

    #[test]
    fn position_zero_turns_nothing_and_an_odd_width_leaves_its_last_dimension_alone() {
        let turn = rope_turn(&lookup("the", 0, Some(array![0.5, -0.25, 2.0]))).unwrap();
        assert_eq!(turn.pairs.len(), 1);
        let bits = |pair: [f32; 2]| pair.map(f32::to_bits);
        assert_eq!(bits(turn.pairs[0].before), bits(turn.pairs[0].after));
        assert_eq!(turn.lone_dim, Some(2));
        // Wider than the pairs shown, the last dimension is not mentioned.
        let wide = rope_turn(&lookup("the", 0, Some(Array1::ones(9)))).unwrap();
        assert_eq!((wide.pairs.len(), wide.lone_dim), (ROPE_PAIRS, None));
        let one = rope_turn(&lookup("a", 2, Some(array![1.0]))).unwrap();
        assert!(one.pairs.is_empty());
    }

    #[test]
    fn a_token_without_a_row_has_nothing_to_turn() {
        assert_eq!(rope_turn(&lookup("zzz", 3, None)), None);
    }

    #[test]
    fn copies_identical_before_differ_after_their_turns() {
        let vector = array![1.0, 0.0, 0.5, 0.5];
        let lookups = [
            lookup("fox", 0, Some(vector.clone())),
            lookup("bites", 1, Some(array![0.0, 1.0, 0.0, 0.0])),
            lookup("fox", 2, Some(vector)),
        ];
        let tokens: Vec<Token> = lookups.iter().map(|l| l.token.clone()).collect();
        let copies = turned_copies(&tokens, &lookups, 2).unwrap();
        assert_eq!(copies.finding.positions, [0, 2]);
        assert!(copies.finding.before.is_identical());
        assert!(copies.finding.told_apart());
        // The rows bear the finding out: the same vector before, turned apart after, by as
        // much as the finding says at the dimension that differs most.
        let [first, second] = &copies.rows;
        assert_eq!((first.position, second.position), (0, 2));
        assert_eq!(first.before, second.before);
        let (dim, largest) = copies.largest_difference().unwrap();
        assert_eq!(
            largest.to_bits(),
            copies.finding.after.largest_difference().to_bits()
        );
        let apart = (f64::from(first.after[dim]) - f64::from(second.after[dim])).abs();
        assert!((apart - largest).abs() < 1e-12, "{apart} {largest}");
        assert_eq!(turned_copies(&tokens, &lookups, 1), None, "no other copy");
    }

    #[test]
    fn alibi_biases_grow_with_distance_and_leave_masked_keys_out() {
        let scores = array![0.3, 0.2, f64::NEG_INFINITY];
        let row = alibi_row(scores.view(), &[0, 1, 2], 1).unwrap();
        let slope = alibi_slopes(ALIBI_HEADS)[0];
        assert_eq!(row.position, 1);
        assert_eq!(row.biases, [Some(-slope), Some(0.0), None]);
        assert!(
            row.biases[1].unwrap().is_sign_positive(),
            "no -0 for itself"
        );
        assert_eq!(alibi_row(scores.view(), &[0, 1, 2], 3), None);
    }
}
