//! Scaled dot-product attention over every head of layer 0, with grouped-query heads.
//!
//! Query head `h` reads key/value head `h / (heads / kv_heads)`, as `repeat_kv` lays them out.
//! Scores are `q · k * scale` in f64 (capped by `cap · tanh(score / cap)` for Gemma 2);
//! softmax subtracts the row's largest score; the
//! denominator and every context number are sums over tokens taken in one canonical order
//! for each query — keys sorted by score, ties by their value vector's bits — so reordering
//! the tokens reorders the results and changes no bit of them.

use std::cmp::Ordering;
use std::sync::Mutex;

use ndarray::Array2;

use super::linear::round_to_f32;
use super::workers::{on_threads, threads};
use crate::core::analysis::attention::HeadPattern;
use crate::core::tables::simd::with_features;

/// How the heads are laid out in the projected vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeadLayout {
    /// Query heads.
    pub heads: usize,
    /// Key/value heads (equal to `heads` unless the model groups its queries).
    pub kv_heads: usize,
    /// Numbers per head.
    pub head_dims: usize,
}

impl HeadLayout {
    /// The key/value head that query head `head` reads.
    #[must_use]
    pub fn kv_head_of(self, head: usize) -> usize {
        head / (self.heads / self.kv_heads)
    }

    /// Width of all query heads side by side.
    #[must_use]
    pub fn query_width(self) -> usize {
        self.heads * self.head_dims
    }

    /// Width of all key (or value) heads side by side.
    #[must_use]
    pub fn kv_width(self) -> usize {
        self.kv_heads * self.head_dims
    }
}

/// How a query·key dot product becomes a score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scoring {
    /// The factor each dot product is multiplied by (`1 / √head width`, usually).
    pub scale: f64,
    /// Gemma 2's `attn_logit_softcapping`: scores pass through `cap · tanh(score / cap)`.
    pub cap: Option<f64>,
}

impl Scoring {
    /// Scores scaled by `scale`, not capped.
    #[must_use]
    pub fn scaled(scale: f64) -> Self {
        Self { scale, cap: None }
    }

    /// The score of one dot product.
    #[must_use]
    #[inline]
    pub fn score(self, dot: f64) -> f64 {
        let scaled = dot * self.scale;
        match self.cap {
            Some(cap) => cap * (scaled / cap).tanh(),
            None => scaled,
        }
    }
}

/// One head's result.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadResult {
    /// Row `i`, column `j`: how much token `i` takes from token `j`; each row sums to 1, and
    /// is 0 where the mask hides `j` from `i`.
    pub weights: Array2<f64>,
    /// Row `i`, column `j`: the score of `q_i · k_j` ([`Scoring`]); minus infinity where the
    /// mask hides `j`.
    pub scores: Array2<f64>,
    /// Row `i`: `Σ_j weights[i][j] · v_j`, the head's output for token `i` (`tokens × head_dims`).
    pub context: Array2<f32>,
}

impl HeadResult {
    /// The head as the attention pane shows a head: its scores, its weights, each token's
    /// context.
    #[must_use]
    pub fn pattern(&self) -> HeadPattern {
        HeadPattern {
            scores: self.scores.clone(),
            weights: self.weights.clone(),
            outputs: self
                .context
                .rows()
                .into_iter()
                .map(|r| r.to_owned())
                .collect(),
        }
    }
}

/// Every head over `tokens` tokens: `queries` is `tokens × query_width`, `keys` and `values`
/// `tokens × kv_width`, all row-major; `scoring` turns each dot product into a score.
///
/// # Panics
/// When the slices do not hold `tokens` vectors of the layout's widths.
#[must_use]
pub fn attend(
    queries: &[f32],
    keys: &[f32],
    values: &[f32],
    tokens: usize,
    layout: HeadLayout,
    causal: bool,
    scoring: Scoring,
) -> Vec<HeadResult> {
    let (q_width, kv_width, dims) = (layout.query_width(), layout.kv_width(), layout.head_dims);
    assert_eq!(queries.len(), tokens * q_width, "a query for every token");
    assert_eq!(keys.len(), tokens * kv_width, "a key for every token");
    assert_eq!(values.len(), tokens * kv_width, "a value for every token");
    let heads = Heads {
        queries,
        keys,
        values,
        tokens,
        layout,
        causal,
        scoring,
    };
    let one_head = |head: usize| heads.one(head);
    // Heads are independent: a second thread takes the second half when the work is large.
    let work = layout.heads * tokens * tokens * dims;
    let threads = if work >= THREAD_WORK { threads() } else { 1 };
    if threads < 2 || layout.heads < 2 {
        return (0..layout.heads).map(one_head).collect();
    }
    // Two shares, the first and the second half of the heads, on the long-lived workers.
    let half = layout.heads / 2;
    let shares = [0..half, half..layout.heads].map(|heads| (heads, Mutex::new(Vec::new())));
    on_threads(shares.len(), &|share| {
        let (heads, results) = &shares[share];
        let computed: Vec<HeadResult> = heads.clone().map(one_head).collect();
        if let Ok(mut results) = results.lock() {
            *results = computed;
        }
    });
    shares
        .into_iter()
        .flat_map(|(_, results)| results.into_inner().unwrap_or_default())
        .collect()
}

/// What every head reads: the projected vectors and how to score and mask them.
#[derive(Clone, Copy)]
struct Heads<'a> {
    /// `tokens × query_width`, row-major.
    queries: &'a [f32],
    /// `tokens × kv_width`, row-major.
    keys: &'a [f32],
    /// `tokens × kv_width`, row-major.
    values: &'a [f32],
    /// How many tokens.
    tokens: usize,
    /// How the heads are laid out in the vectors.
    layout: HeadLayout,
    /// Whether token `i` sees only tokens `0..=i`.
    causal: bool,
    /// How a dot product becomes a score.
    scoring: Scoring,
}

impl Heads<'_> {
    /// Query head `head`'s weights, scores and context, compiled for AVX2 where the processor
    /// has it (the same arithmetic, number for number: the same bits).
    fn one(&self, head: usize) -> HeadResult {
        with_features!(["avx2"], self.one_avx2(head), self.compute(head))
    }

    /// [`Heads::compute`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn one_avx2(&self, head: usize) -> HeadResult {
        self.compute(head)
    }

    /// Query head `head`'s weights, scores and context.
    #[expect(
        clippy::inline_always,
        reason = "inlined into the AVX2-compiled caller, so it is compiled with AVX2 too"
    )]
    #[inline(always)]
    fn compute(&self, head: usize) -> HeadResult {
        let Self {
            queries,
            keys,
            values,
            tokens,
            layout,
            causal,
            scoring,
        } = *self;
        let (q_width, kv_width, dims) = (layout.query_width(), layout.kv_width(), layout.head_dims);
        let kv = layout.kv_head_of(head);
        let query = |i: usize| &queries[i * q_width + head * dims..][..dims];
        let key = |j: usize| &keys[j * kv_width + kv * dims..][..dims];
        let value = |j: usize| &values[j * kv_width + kv * dims..][..dims];
        let mut weights = Array2::zeros((tokens, tokens));
        let mut all_scores = Array2::from_elem((tokens, tokens), f64::NEG_INFINITY);
        let mut context = Array2::zeros((tokens, dims));
        for i in 0..tokens {
            let visible = if causal { i + 1 } else { tokens };
            // A plain loop, not an iterator's collect, so that it is compiled with the caller's
            // AVX2 (a collect is a function of its own, compiled without it).
            let mut scores = Vec::with_capacity(visible);
            for j in 0..visible {
                scores.push(scoring.score(exact_dot(query(i), key(j))));
            }
            for (j, &score) in scores.iter().enumerate() {
                all_scores[[i, j]] = score;
            }
            let mut order: Vec<usize> = (0..visible).collect();
            order.sort_unstable_by(|&a, &b| {
                scores[a]
                    .total_cmp(&scores[b])
                    .then_with(|| compare_bits(value(a), value(b)))
            });
            let largest = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let mut exponentials = Vec::with_capacity(visible);
            for score in &scores {
                exponentials.push((score - largest).exp());
            }
            let mut total = 0.0f64;
            for &j in &order {
                total += exponentials[j];
            }
            // Every context number is summed over the keys in `order`, one term at a time.
            let mut sums = vec![0.0f64; dims];
            for &j in &order {
                let weight = exponentials[j] / total;
                weights[[i, j]] = weight;
                for (sum, &v) in sums.iter_mut().zip(value(j)) {
                    *sum += weight * f64::from(v);
                }
            }
            for (out, sum) in context.row_mut(i).iter_mut().zip(sums) {
                *out = round_to_f32(sum);
            }
        }
        HeadResult {
            weights,
            scores: all_scores,
            context,
        }
    }
}

/// Below this many query·key products a second thread costs more than it saves.
const THREAD_WORK: usize = 1 << 20;

/// A dot product of float32 vectors in f64 (each product is exact): dimension `d` is added
/// to partial sum `d % 4`, and the four are added pairwise, the same way for every pair of
/// vectors (four independent sums keep the adder busy).
#[must_use]
#[expect(
    clippy::inline_always,
    reason = "inlined into the AVX2-compiled heads, so it is compiled with AVX2 too"
)]
#[inline(always)]
pub fn exact_dot(a: &[f32], b: &[f32]) -> f64 {
    let mut partial = [0.0f64; 4];
    let (a4, b4) = (a.chunks_exact(4), b.chunks_exact(4));
    let (a_rest, b_rest) = (a4.remainder(), b4.remainder());
    for (x, y) in a4.zip(b4) {
        for lane in 0..4 {
            partial[lane] += f64::from(x[lane]) * f64::from(y[lane]);
        }
    }
    for (lane, (&x, &y)) in a_rest.iter().zip(b_rest).enumerate() {
        partial[lane] += f64::from(x) * f64::from(y);
    }
    (partial[0] + partial[1]) + (partial[2] + partial[3])
}

/// Orders two vectors by their bit patterns, number by number.
fn compare_bits(a: &[f32], b: &[f32]) -> Ordering {
    a.iter()
        .map(|x| x.to_bits())
        .cmp(b.iter().map(|x| x.to_bits()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouped_query_heads_share_their_key_value_head() {
        let layout = HeadLayout {
            heads: 4,
            kv_heads: 2,
            head_dims: 1,
        };
        assert_eq!(
            (0..4).map(|h| layout.kv_head_of(h)).collect::<Vec<_>>(),
            [0, 0, 1, 1]
        );
    }

    #[expect(clippy::float_cmp, reason = "a weight of exactly 1 or 0 is the point")]
    #[test]
    fn a_causal_first_token_sees_only_itself_and_rows_sum_to_one() {
        let layout = HeadLayout {
            heads: 2,
            kv_heads: 1,
            head_dims: 2,
        };
        let queries = [1.0, 0.0, 0.0, 1.0, 0.5, 0.5, 1.0, -1.0, 2.0, 1.0, -1.0, 0.0];
        let keys = [1.0, 2.0, 0.0, 1.0, 3.0, -1.0];
        let values = [1.0, 0.0, 0.0, 1.0, 2.0, 2.0];
        let heads = attend(
            &queries,
            &keys,
            &values,
            3,
            layout,
            true,
            Scoring::scaled(0.5),
        );
        for head in &heads {
            assert_eq!(head.weights[[0, 0]], 1.0);
            assert_eq!(head.weights[[0, 1]], 0.0);
            assert_eq!(head.context.row(0).to_vec(), [1.0, 0.0]);
            for row in head.weights.rows() {
                assert!((row.sum() - 1.0).abs() < 1e-12);
            }
        }
    }
}
