//! One head of scaled dot-product self-attention over the input vectors.
//!
//! This is the book's `SelfAttention_v2`: queries, keys and values are `x @ W`, scores are
//! `q · k / sqrt(d)`, each row of scores goes through softmax, and each output is the
//! weighted sum of the values. `RoPE` rotates the queries and keys before the scores;
//! `ALiBi` adds its bias to the scores.
//!
//! Every sum over tokens is order-independent: the terms are summed in f64 in a canonical
//! order (sorted by value), so reordering the tokens reorders the outputs and changes no bit
//! of them. That is what lets the screen say "identical" rather than "close".

use std::fmt;

use anyhow::{Result, bail};
use ndarray::{Array1, Array2, ArrayView1};

use crate::core::analysis::layer0::linear::round_to_f32;
use crate::core::tables::positional::{
    ALIBI_HEADS, PositionScheme, ROPE_BASE, alibi_bias, alibi_slopes, rope_rotate,
};
use crate::core::tables::torch_init::TorchGenerator;

/// The most tokens the attention and similarity panes take, so they stay quick and readable
/// (`embedlens snippet` attends over as many).
pub const MAX_VIEW_TOKENS: usize = 48;

/// The three projection matrices of one attention head, each `d_in × d_out`.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionWeights {
    query: Array2<f32>,
    key: Array2<f32>,
    value: Array2<f32>,
}

impl AttentionWeights {
    /// `torch.manual_seed(seed)`, then the book's `SelfAttention_v2(d, d, qkv_bias=False)`:
    /// `W_query`, `W_key` and `W_value` as `nn.Linear(d, d, bias=False)` each, in that order,
    /// with PyTorch's default initialisation (uniform in ±1/√d). A random, untrained head:
    /// its weights are soft at every width, but they mean nothing yet.
    ///
    /// `nn.Linear` computes `x @ weight.T`; the matrices kept here are the transposes, so
    /// that `queries = x @ query` as for [`AttentionWeights::new`].
    #[must_use]
    pub fn seeded(dims: usize, seed: u64) -> Self {
        let mut generator = TorchGenerator::manual_seed(seed);
        let mut linear = || {
            generator
                .linear(dims, dims)
                .t()
                .as_standard_layout()
                .into_owned()
        };
        let query = linear();
        let key = linear();
        let value = linear();
        Self { query, key, value }
    }

    /// A head from its three matrices (`queries = x @ query`, and so on).
    ///
    /// # Errors
    /// When the matrices do not all take the same input width, or the query and key
    /// matrices give vectors of different widths (their dot product needs the same).
    pub fn new(query: Array2<f32>, key: Array2<f32>, value: Array2<f32>) -> Result<Self> {
        let inputs = [query.nrows(), key.nrows(), value.nrows()];
        if inputs.iter().any(|&rows| rows != inputs[0]) {
            bail!(
                "the query, key and value matrices take {}, {} and {} numbers; they must agree",
                inputs[0],
                inputs[1],
                inputs[2]
            );
        }
        if query.ncols() != key.ncols() {
            bail!(
                "queries have {} numbers but keys {}; a dot product needs the same",
                query.ncols(),
                key.ncols()
            );
        }
        Ok(Self { query, key, value })
    }

    /// `W_query`: an input vector times it is the token's query.
    #[must_use]
    pub fn query(&self) -> &Array2<f32> {
        &self.query
    }

    /// `W_key`: an input vector times it is the token's key.
    #[must_use]
    pub fn key(&self) -> &Array2<f32> {
        &self.key
    }

    /// `W_value`: an input vector times it is the token's value.
    #[must_use]
    pub fn value(&self) -> &Array2<f32> {
        &self.value
    }

    /// How many numbers an input vector must have.
    #[must_use]
    pub fn input_dims(&self) -> usize {
        self.query.nrows()
    }
}

/// Which keys each query may look at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mask {
    /// Every token attends to every token, before and after it.
    None,
    /// Each token attends to itself and the tokens before it, as a GPT does.
    Causal,
}

impl Mask {
    /// The name used on the command line and on screen.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Causal => "causal",
        }
    }

    /// The other mask: none becomes causal and causal none.
    #[must_use]
    pub fn toggled(self) -> Self {
        match self {
            Self::None => Self::Causal,
            Self::Causal => Self::None,
        }
    }
}

impl fmt::Display for Mask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Every intermediate of one attention head, one entry or row per token.
#[derive(Clone, Debug, PartialEq)]
pub struct Attention {
    /// `x @ W_query` for each token, rotated by its position when the scheme is `RoPE`.
    pub queries: Vec<Array1<f32>>,
    /// `x @ W_key` for each token, rotated by its position when the scheme is `RoPE`.
    pub keys: Vec<Array1<f32>>,
    /// `x @ W_value` for each token.
    pub values: Vec<Array1<f32>>,
    /// Row `i`, column `j`: `q_i · k_j / sqrt(d)`, plus the `ALiBi` bias when the scheme is
    /// `ALiBi`; `-inf` where the mask hides key `j` from query `i`.
    pub scores: Array2<f64>,
    /// Softmax of each row of scores: how much token `i` takes from token `j` (rows sum to 1).
    pub weights: Array2<f64>,
    /// Each token's output: `Σ_j weight[i][j] · v_j`.
    pub outputs: Vec<Array1<f32>>,
}

/// What one head did, as the attention pane shows it: the scores, the weights and each token's
/// output. The seeded head ([`Attention`]) and a model's own head (its layer 0's
/// [`HeadResult`](crate::core::analysis::layer0::heads::HeadResult)) each give one, with
/// nothing left empty.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadPattern {
    /// Row `i`, column `j`: the score of query `i` against key `j`; `-inf` where the mask
    /// hides key `j`.
    pub scores: Array2<f64>,
    /// Softmax of each row of scores: how much token `i` takes from token `j`.
    pub weights: Array2<f64>,
    /// Each token's output: `Σ_j weight[i][j] · v_j`.
    pub outputs: Vec<Array1<f32>>,
}

impl From<Attention> for HeadPattern {
    fn from(attention: Attention) -> Self {
        Self {
            scores: attention.scores,
            weights: attention.weights,
            outputs: attention.outputs,
        }
    }
}

/// One head of self-attention over `inputs`, token `i` standing at `positions[i]`.
///
/// Queries, keys and values are `x @ W`, summed in f64 and rounded once to f32. With
/// [`PositionScheme::Rope`] the queries and keys are then rotated by their positions
/// ([`rope_rotate`], base 10000); with [`PositionScheme::Alibi`] each score gets
/// `alibi_bias(slope, i, j)` with the first of [`ALIBI_HEADS`] slopes (1/2). The other
/// schemes act before attention, in the input vectors, so here they change nothing.
///
/// [`Mask::Causal`] hides from each token the tokens after it in `inputs` (their score is
/// `-inf`, their weight 0), as `torch.triu(ones, diagonal=1)` does.
///
/// Softmax subtracts the row's largest score before `exp`, as PyTorch does; its denominator
/// and each output number are sums over tokens, and are summed in sorted order so that the
/// result does not depend on the order of the tokens.
///
/// # Panics
/// When `positions` and `inputs` differ in length, or an input vector's width is not the
/// weights' input width.
#[must_use]
pub fn self_attention(
    inputs: &[Array1<f32>],
    positions: &[usize],
    weights: &AttentionWeights,
    mask: Mask,
    scheme: PositionScheme,
) -> Attention {
    assert_eq!(
        inputs.len(),
        positions.len(),
        "one position for each input vector"
    );
    let project_all = |matrix: &Array2<f32>| -> Vec<Array1<f32>> {
        inputs
            .iter()
            .map(|input| project(input.view(), matrix))
            .collect()
    };
    let (mut queries, mut keys, values) = (
        project_all(&weights.query),
        project_all(&weights.key),
        project_all(&weights.value),
    );
    if scheme == PositionScheme::Rope {
        for (vector, &position) in queries.iter_mut().zip(positions) {
            *vector = rope_rotate(vector.view(), position, ROPE_BASE);
        }
        for (vector, &position) in keys.iter_mut().zip(positions) {
            *vector = rope_rotate(vector.view(), position, ROPE_BASE);
        }
    }
    let slope = alibi_slopes(ALIBI_HEADS)[0];
    #[expect(clippy::cast_precision_loss, reason = "widths are far below 2^52")]
    let scale = (weights.key.ncols() as f64).sqrt();
    let count = inputs.len();
    let scores = Array2::from_shape_fn((count, count), |(i, j)| {
        if mask == Mask::Causal && j > i {
            return f64::NEG_INFINITY;
        }
        let score = dot(queries[i].view(), keys[j].view()) / scale;
        if scheme == PositionScheme::Alibi {
            score + alibi_bias(slope, positions[i], positions[j])
        } else {
            score
        }
    });
    let mut attention_weights = Array2::zeros((count, count));
    for (scores_row, mut weights_row) in scores.rows().into_iter().zip(attention_weights.rows_mut())
    {
        weights_row.assign(&softmax(scores_row));
    }
    let value_dims = weights.value.ncols();
    let outputs = attention_weights
        .rows()
        .into_iter()
        .map(|row| {
            Array1::from_shape_fn(value_dims, |dim| {
                let terms = row
                    .iter()
                    .zip(&values)
                    .map(|(&weight, value)| weight * f64::from(value[dim]));
                round_to_f32(canonical_sum(terms))
            })
        })
        .collect();
    Attention {
        queries,
        keys,
        values,
        scores,
        weights: attention_weights,
        outputs,
    }
}

/// `x @ matrix`: each output number summed in f64 over the input dimensions, in order
/// (row by row through the matrix, which is how it lies in memory).
fn project(input: ArrayView1<f32>, matrix: &Array2<f32>) -> Array1<f32> {
    assert_eq!(
        input.len(),
        matrix.nrows(),
        "an input vector has the weights' input width"
    );
    let mut sums = vec![0.0f64; matrix.ncols()];
    for (&x, row) in input.iter().zip(matrix.rows()) {
        let x = f64::from(x);
        for (sum, &w) in sums.iter_mut().zip(row) {
            *sum += x * f64::from(w);
        }
    }
    sums.into_iter().map(round_to_f32).collect()
}

/// The dot product of two float32 vectors, summed in f64 in dimension order.
fn dot(a: ArrayView1<f32>, b: ArrayView1<f32>) -> f64 {
    a.iter()
        .zip(b.iter())
        .map(|(&x, &y)| f64::from(x) * f64::from(y))
        .sum()
}

/// Softmax of one row of scores: `exp(s - max) / Σ exp(s - max)`, the sum in sorted order.
///
/// A `-inf` score gets weight exactly 0; a row with a single finite score gives it exactly 1.
fn softmax(scores: ArrayView1<f64>) -> Array1<f64> {
    let largest = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exponentials = scores.mapv(|score| (score - largest).exp());
    let total = canonical_sum(exponentials.iter().copied());
    exponentials / total
}

/// The sum of the terms taken in ascending order, so any ordering of the same terms gives
/// the same bits (equal terms are equal bit patterns, so ties cannot change the result).
fn canonical_sum(terms: impl Iterator<Item = f64>) -> f64 {
    let mut terms: Vec<f64> = terms.collect();
    terms.sort_unstable_by(f64::total_cmp);
    terms.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel};
    use crate::core::text::vocabulary::VocabKind;
    use ndarray::arr2;

    /// "Your journey starts with one step", the book's six three-dimensional inputs.
    fn journey() -> Vec<Array1<f32>> {
        arr2(&[
            [0.43f32, 0.15, 0.89],
            [0.55, 0.87, 0.66],
            [0.57, 0.85, 0.64],
            [0.22, 0.58, 0.33],
            [0.77, 0.25, 0.10],
            [0.05, 0.80, 0.55],
        ])
        .rows()
        .into_iter()
        .map(|row| row.to_owned())
        .collect()
    }

    /// `torch.manual_seed(123); SelfAttention_v1(3, 2)`.
    fn book_head() -> AttentionWeights {
        let mut generator = TorchGenerator::manual_seed(123);
        let (query, key, value) = (
            generator.rand(3, 2),
            generator.rand(3, 2),
            generator.rand(3, 2),
        );
        AttentionWeights::new(query, key, value).unwrap()
    }

    fn printed<'a>(values: impl IntoIterator<Item = &'a f32>) -> Vec<String> {
        values.into_iter().map(|v| format!("{v:.4}")).collect()
    }

    fn printed_f64<'a>(values: impl IntoIterator<Item = &'a f64>) -> Vec<String> {
        values.into_iter().map(|v| format!("{v:.4}")).collect()
    }

    #[test]
    fn the_book_self_attention_v1_comes_out_digit_for_digit() {
        let inputs = journey();
        let attention = self_attention(
            &inputs,
            &[0, 1, 2, 3, 4, 5],
            &book_head(),
            Mask::None,
            PositionScheme::None,
        );
        assert_eq!(printed(&attention.queries[1]), ["0.4306", "1.4551"]);
        let unscaled = attention.scores.row(1).mapv(|s| s * 2f64.sqrt());
        assert_eq!(
            printed_f64(&unscaled),
            ["1.2705", "1.8524", "1.8111", "1.0795", "0.5577", "1.5440"]
        );
        assert_eq!(
            printed_f64(attention.weights.row(1)),
            ["0.1500", "0.2264", "0.2199", "0.1311", "0.0906", "0.1820"]
        );
        let outputs: Vec<Vec<String>> = attention.outputs.iter().map(printed).collect();
        assert_eq!(
            outputs,
            [
                ["0.2996", "0.8053"],
                ["0.3061", "0.8210"],
                ["0.3058", "0.8203"],
                ["0.2948", "0.7939"],
                ["0.2927", "0.7891"],
                ["0.2990", "0.8040"],
            ]
        );
    }

    #[test]
    fn seeded_heads_are_linear_layers_drawn_query_key_value_in_order() {
        let head = AttentionWeights::seeded(4, 123);
        let mut generator = TorchGenerator::manual_seed(123);
        assert_eq!(head.query(), generator.linear(4, 4).t());
        assert_eq!(head.key(), generator.linear(4, 4).t());
        assert_eq!(head.value(), generator.linear(4, 4).t());
        assert_eq!(head.input_dims(), 4);
        // torch.manual_seed(123); SelfAttention_v2(4, 4).W_query.weight[:, 0]
        assert_eq!(
            printed(head.query().row(0)),
            ["-0.2039", "-0.4260", "-0.3159", "-0.4244"]
        );
    }

    #[test]
    fn the_book_self_attention_v2_comes_out_digit_for_digit() {
        // torch.manual_seed(789); SelfAttention_v2(3, 2), as the book prints it.
        let mut generator = TorchGenerator::manual_seed(789);
        let mut linear = || generator.linear(3, 2).t().to_owned();
        let (query, key, value) = (linear(), linear(), linear());
        let head = AttentionWeights::new(query, key, value).unwrap();
        let attention = self_attention(
            &journey(),
            &[0, 1, 2, 3, 4, 5],
            &head,
            Mask::None,
            PositionScheme::None,
        );
        let outputs: Vec<Vec<String>> = attention.outputs.iter().map(printed).collect();
        assert_eq!(
            outputs,
            [
                ["-0.0739", "0.0713"],
                ["-0.0748", "0.0703"],
                ["-0.0749", "0.0702"],
                ["-0.0760", "0.0685"],
                ["-0.0763", "0.0679"],
                ["-0.0754", "0.0693"],
            ]
        );
    }

    #[test]
    fn a_seeded_head_stays_soft_on_a_wide_table() {
        // With uniform [0, 1) weights a 256-wide head saturated: every weight 1 or 0.
        let table = TorchGenerator::manual_seed(DEFAULT_SEED).embedding(5, 256);
        let inputs: Vec<Array1<f32>> = table.rows().into_iter().map(|row| row.to_owned()).collect();
        let positions: Vec<usize> = (0..inputs.len()).collect();
        let head = AttentionWeights::seeded(256, DEFAULT_SEED);
        let attention =
            self_attention(&inputs, &positions, &head, Mask::None, PositionScheme::None);
        let largest = attention.weights.iter().copied().fold(0.0, f64::max);
        assert!(largest < 0.99, "largest weight {largest}");
    }

    #[test]
    fn heads_with_mismatched_matrices_are_refused() {
        let m = |rows, cols| Array2::<f32>::zeros((rows, cols));
        assert!(AttentionWeights::new(m(3, 2), m(3, 2), m(3, 5)).is_ok());
        assert!(AttentionWeights::new(m(3, 2), m(4, 2), m(3, 2)).is_err());
        assert!(AttentionWeights::new(m(3, 2), m(3, 3), m(3, 2)).is_err());
    }

    #[expect(clippy::float_cmp, reason = "a weight of exactly 1 or 0 is the point")]
    #[test]
    fn causal_masks_hide_the_tokens_after_each_token() {
        let attention = self_attention(
            &journey(),
            &[0, 1, 2, 3, 4, 5],
            &book_head(),
            Mask::Causal,
            PositionScheme::None,
        );
        assert_eq!(attention.weights[[0, 0]], 1.0);
        assert_eq!(attention.outputs[0], attention.values[0]);
        for i in 0..6 {
            for j in i + 1..6 {
                assert_eq!(attention.scores[[i, j]], f64::NEG_INFINITY);
                assert_eq!(attention.weights[[i, j]], 0.0);
            }
            assert!((attention.weights.row(i).sum() - 1.0).abs() < 1e-12);
        }
        assert_eq!(
            (Mask::None.toggled(), Mask::Causal.toggled()),
            (Mask::Causal, Mask::None)
        );
        assert_eq!(Mask::Causal.to_string(), "causal");
    }

    #[test]
    fn alibi_lowers_each_score_by_half_the_distance() {
        let (inputs, positions) = (journey(), [0, 1, 2, 3, 4, 5]);
        let plain = self_attention(
            &inputs,
            &positions,
            &book_head(),
            Mask::None,
            PositionScheme::None,
        );
        let alibi = self_attention(
            &inputs,
            &positions,
            &book_head(),
            Mask::None,
            PositionScheme::Alibi,
        );
        assert_eq!(
            alibi.queries, plain.queries,
            "ALiBi leaves queries and keys alone"
        );
        for ((i, j), score) in alibi.scores.indexed_iter() {
            let distance = f64::from(u8::try_from(i.abs_diff(j)).unwrap());
            let expected = plain.scores[[i, j]] - 0.5 * distance;
            assert!((score - expected).abs() < 1e-12, "[{i}, {j}]");
        }
    }

    #[test]
    fn rope_rotates_queries_and_keys_but_not_values() {
        let (inputs, positions) = (journey(), [0, 1, 2, 3, 4, 5]);
        let head = AttentionWeights::seeded(3, 7);
        let plain = self_attention(&inputs, &positions, &head, Mask::None, PositionScheme::None);
        let rope = self_attention(&inputs, &positions, &head, Mask::None, PositionScheme::Rope);
        assert_eq!(rope.values, plain.values);
        assert_eq!(
            rope.queries[0], plain.queries[0],
            "position 0 turns by nothing"
        );
        assert_ne!(rope.queries[1], plain.queries[1]);
        assert_eq!(
            rope.keys[2],
            rope_rotate(plain.keys[2].view(), 2, ROPE_BASE)
        );
    }

    /// The input vectors of a sentence in the seed vocabulary with a position scheme.
    fn seed_inputs(text: &str, scheme: PositionScheme) -> (Vec<Array1<f32>>, Vec<usize>) {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let lookups = model.embed(&model.tokenize(text).unwrap(), scheme);
        lookups
            .iter()
            .map(|lookup| (lookup.input_vector.clone().unwrap(), lookup.token.position))
            .unzip()
    }

    /// The output for each word of "dog bites man" and of "man bites dog", dog first.
    fn dog_outputs(scheme: PositionScheme, mask: Mask) -> [Array1<f32>; 2] {
        let head = AttentionWeights::seeded(3, DEFAULT_SEED);
        let run = |text: &str| {
            let (inputs, positions) = seed_inputs(text, scheme);
            self_attention(&inputs, &positions, &head, mask, scheme).outputs
        };
        let (forwards, backwards) = (run("dog bites man"), run("man bites dog"));
        [forwards[0].clone(), backwards[2].clone()]
    }

    #[test]
    fn without_positions_dog_gets_the_same_output_in_either_order() {
        let [forwards, backwards] = dog_outputs(PositionScheme::None, Mask::None);
        let bits = |v: &Array1<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&forwards), bits(&backwards));
    }

    #[test]
    fn every_position_scheme_tells_dog_bites_man_from_man_bites_dog() {
        for scheme in [
            PositionScheme::Learned,
            PositionScheme::Sinusoidal,
            PositionScheme::Rope,
        ] {
            let [forwards, backwards] = dog_outputs(scheme, Mask::None);
            assert_ne!(forwards, backwards, "{scheme}");
        }
        let [forwards, backwards] = dog_outputs(PositionScheme::Alibi, Mask::Causal);
        assert_ne!(forwards, backwards, "alibi under its causal mask");
    }

    #[test]
    fn alibi_without_a_mask_cannot_tell_a_sentence_from_its_reversal() {
        // |i - j| is the same read forwards or backwards, so every bias is the same.
        let [forwards, backwards] = dog_outputs(PositionScheme::Alibi, Mask::None);
        let bits = |v: &Array1<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&forwards), bits(&backwards));
    }

    #[test]
    fn a_causal_mask_alone_already_tells_the_orders_apart() {
        // First in "dog bites man", dog sees only itself; last in "man bites dog", all three.
        let [forwards, backwards] = dog_outputs(PositionScheme::None, Mask::Causal);
        assert_ne!(printed(&forwards), printed(&backwards));
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        /// 1–6 tokens of 1–8 finite dimensions in ±4, and an order to shuffle them into.
        fn tokens_and_order() -> impl Strategy<Value = (Vec<Array1<f32>>, Vec<usize>)> {
            (1usize..=8, 1usize..=6).prop_flat_map(|(dims, count)| {
                let vector = proptest::collection::vec(-4.0f32..4.0, dims).prop_map(Array1::from);
                let order = Just((0..count).collect::<Vec<_>>()).prop_shuffle();
                (proptest::collection::vec(vector, count), order)
            })
        }

        fn bits(vectors: &[Array1<f32>]) -> Vec<Vec<u32>> {
            vectors
                .iter()
                .map(|v| v.iter().map(|x| x.to_bits()).collect())
                .collect()
        }

        fn norm(v: &Array1<f32>) -> f64 {
            v.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt()
        }

        proptest! {
            #[test]
            fn reordering_the_tokens_reorders_the_outputs_bit_for_bit(
                (inputs, order) in tokens_and_order(),
                seed in any::<u64>(),
            ) {
                let head = AttentionWeights::seeded(inputs[0].len(), seed);
                let positions: Vec<usize> = (0..inputs.len()).collect();
                let shuffled: Vec<Array1<f32>> = order.iter().map(|&i| inputs[i].clone()).collect();
                let before = self_attention(&inputs, &positions, &head, Mask::None, PositionScheme::None);
                let after = self_attention(&shuffled, &positions, &head, Mask::None, PositionScheme::None);
                let expected: Vec<Array1<f32>> = order.iter().map(|&i| before.outputs[i].clone()).collect();
                prop_assert_eq!(bits(&after.outputs), bits(&expected));
                for (new_i, &old_i) in order.iter().enumerate() {
                    for (new_j, &old_j) in order.iter().enumerate() {
                        prop_assert_eq!(
                            after.weights[[new_i, new_j]].to_bits(),
                            before.weights[[old_i, old_j]].to_bits()
                        );
                    }
                }
            }

            #[test]
            fn rope_keeps_every_length_and_only_the_distance_matters(
                (inputs, _order) in tokens_and_order(),
                seed in any::<u64>(),
                shift in 0usize..1000,
            ) {
                let head = AttentionWeights::seeded(inputs[0].len(), seed);
                let positions: Vec<usize> = (0..inputs.len()).collect();
                let shifted: Vec<usize> = positions.iter().map(|p| p + shift).collect();
                let plain = self_attention(&inputs, &positions, &head, Mask::None, PositionScheme::None);
                let rope = self_attention(&inputs, &positions, &head, Mask::None, PositionScheme::Rope);
                let moved = self_attention(&inputs, &shifted, &head, Mask::None, PositionScheme::Rope);
                for (before, after) in plain.queries.iter().chain(&plain.keys).zip(rope.queries.iter().chain(&rope.keys)) {
                    prop_assert!((norm(before) - norm(after)).abs() <= 1e-5 * norm(before).max(1e-30));
                }
                // float32 queries and keys: the scores agree to float32 rounding.
                #[expect(clippy::cast_precision_loss, reason = "small widths")]
                let scale = (inputs[0].len() as f64).sqrt();
                for ((i, j), score) in rope.scores.indexed_iter() {
                    let size = norm(&rope.queries[i]) * norm(&rope.keys[j]) / scale;
                    prop_assert!((score - moved.scores[[i, j]]).abs() <= 1e-5 * size.max(1e-30));
                }
            }

            #[expect(clippy::float_cmp, reason = "a weight of exactly 1 is the point")]
            #[test]
            fn under_a_causal_mask_the_first_token_sees_only_itself(
                (inputs, _order) in tokens_and_order(),
                seed in any::<u64>(),
                scheme in prop_oneof![
                    Just(PositionScheme::None),
                    Just(PositionScheme::Rope),
                    Just(PositionScheme::Alibi),
                ],
            ) {
                let head = AttentionWeights::seeded(inputs[0].len(), seed);
                let positions: Vec<usize> = (0..inputs.len()).collect();
                let attention = self_attention(&inputs, &positions, &head, Mask::Causal, scheme);
                prop_assert_eq!(attention.weights[[0, 0]], 1.0);
                prop_assert_eq!(&attention.outputs[0], &attention.values[0]);
                for row in attention.weights.rows() {
                    prop_assert!((row.sum() - 1.0).abs() < 1e-12);
                }
            }
        }
    }
}
