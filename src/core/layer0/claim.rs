//! The article's claim, judged on the real layer 0: does a word get the same output when the
//! sentence is reordered? Computed here, beside the maths, and shared by the screen and the
//! command line; the sentences are made from [`Verdict`] values at the very end.

use super::{Architecture, Layer0Run};

/// What the two sentences' layer-0 outputs show.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The sentences do not hold the same tokens, so no word can be followed from one to the
    /// other: the claim is not being tested.
    DifferentTokens,
    /// Every token's output in A has the same bits as the same token's (copy for copy) in B.
    Identical,
    /// Some token's outputs differ between A and B.
    Differ {
        /// The largest difference of any one output number.
        largest: f32,
        /// Which token it was: its index in A and in B.
        at: (usize, usize),
    },
}

/// The verdict on one pair of sentences, and why it came out that way.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    /// The verdict.
    pub verdict: Verdict,
    /// Whether the model's position information was used.
    pub with_positions: bool,
    /// Whether the layer masks later tokens (GPT-2, Llama-style).
    pub causal: bool,
    /// Whether the model's positions are a rotation inside attention (`RoPE`).
    pub rotary: bool,
    /// Token `i` of A is token `j` of B: the k-th copy of an id in A with its k-th copy in B.
    pub pairs: Vec<(usize, usize)>,
}

/// Compares layer 0's outputs for two sentences, token by token.
#[must_use]
pub fn judge(architecture: Architecture, causal: bool, a: &Layer0Run, b: &Layer0Run) -> Judgement {
    let pairs = copy_pairs(&a.ids, &b.ids);
    let same_tokens = pairs.len() == a.ids.len() && a.ids.len() == b.ids.len();
    let verdict = if same_tokens {
        let mut largest = 0.0f32;
        let mut at = None;
        for &(i, j) in &pairs {
            for (x, y) in a.outputs.row(i).iter().zip(b.outputs.row(j)) {
                if x.to_bits() != y.to_bits() {
                    let gap = (x - y).abs();
                    if at.is_none() || gap > largest || gap.is_nan() {
                        largest = gap;
                        at = Some((i, j));
                    }
                }
            }
        }
        match at {
            None => Verdict::Identical,
            Some(at) => Verdict::Differ { largest, at },
        }
    } else {
        Verdict::DifferentTokens
    };
    Judgement {
        verdict,
        with_positions: a.with_positions,
        causal,
        rotary: architecture == Architecture::Rotary,
        pairs,
    }
}

/// Pairs each token of A with the same id in B: first copy with first copy, and so on.
fn copy_pairs(a: &[usize], b: &[usize]) -> Vec<(usize, usize)> {
    let mut used = vec![false; b.len()];
    a.iter()
        .enumerate()
        .filter_map(|(i, id)| {
            let j = b
                .iter()
                .enumerate()
                .position(|(j, other)| other == id && !used[j])?;
            used[j] = true;
            Some((i, j))
        })
        .collect()
}

impl Judgement {
    /// The verdict in words, naming tokens by `name(index in A)`.
    #[must_use]
    pub fn sentence(&self, name: impl Fn(usize) -> String) -> String {
        let positions = if self.with_positions {
            "with its position information"
        } else if self.rotary {
            "without its rotation (RoPE off)"
        } else {
            "without its position table"
        };
        match &self.verdict {
            Verdict::DifferentTokens => "the two sentences do not hold the same tokens, so no \
                 word can be followed from one to the other"
                .to_owned(),
            Verdict::Identical if self.causal => format!(
                "{positions}, the model's own layer 0 gives every word the same output in both \
                 orders, bit for bit"
            ),
            Verdict::Identical => format!(
                "{positions}, the model's own layer 0 gives every word the same output in both \
                 orders, bit for bit: it cannot tell them apart"
            ),
            Verdict::Differ { largest, at } => {
                let mask = if self.causal && !self.with_positions {
                    ": the causal mask alone already tells the orders apart, since each token \
                     sees only itself and the tokens before it (the first sees only itself)"
                } else if self.causal {
                    " (the causal mask would tell them apart even without positions)"
                } else {
                    ""
                };
                format!(
                    "{positions}, the outputs differ, by up to {largest:.4} (\"{}\"){mask}",
                    name(at.0)
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    fn run(ids: &[usize], outputs: &[[f32; 2]], with_positions: bool) -> Layer0Run {
        Layer0Run {
            with_positions,
            ids: ids.to_vec(),
            inputs: Array2::zeros((ids.len(), 2)),
            heads: Vec::new(),
            outputs: Array2::from_shape_fn((ids.len(), 2), |(i, d)| outputs[i][d]),
        }
    }

    #[test]
    fn copies_pair_in_order_and_identical_outputs_are_identical() {
        assert_eq!(copy_pairs(&[1, 2, 1], &[1, 1, 2]), [(0, 0), (1, 2), (2, 1)]);
        let a = run(&[1, 2, 3], &[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], false);
        let b = run(&[3, 2, 1], &[[5.0, 6.0], [3.0, 4.0], [1.0, 2.0]], false);
        let judgement = judge(Architecture::Bert, false, &a, &b);
        assert_eq!(judgement.verdict, Verdict::Identical);
        assert!(
            judgement
                .sentence(|i| i.to_string())
                .contains("bit for bit")
        );
    }

    #[test]
    fn a_difference_names_the_word_and_the_size() {
        let a = run(&[1, 2], &[[1.0, 2.0], [3.0, 4.0]], true);
        let b = run(&[2, 1], &[[3.0, 4.25], [1.0, 2.0]], true);
        let judgement = judge(Architecture::Gpt2, true, &a, &b);
        assert_eq!(
            judgement.verdict,
            Verdict::Differ {
                largest: 0.25,
                at: (1, 0)
            }
        );
        let words = ["dog", "bites"];
        let sentence = judgement.sentence(|i| words[i].to_owned());
        assert!(sentence.contains("0.2500 (\"bites\")"), "{sentence}");
        let other = run(&[1, 5], &[[1.0, 2.0], [3.0, 4.0]], true);
        assert_eq!(
            judge(Architecture::Bert, false, &a, &other).verdict,
            Verdict::DifferentTokens
        );
    }
}
