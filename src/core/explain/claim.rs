//! The article's claim, judged on the real layer 0: does a word get the same output when the
//! sentence is reordered? Computed here, beside the maths, and shared by the screen and the
//! command line; the sentences are made from [`Verdict`] values at the very end.

use crate::core::analysis::layer0::{Architecture, Layer0Run};

/// What the two sentences' layer-0 outputs show.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The sentences do not hold the same tokens, so no word can be followed from one to the
    /// other: the claim is not being tested.
    DifferentTokens,
    /// Some output is not a number (NaN) or is infinite, so equal bits say nothing: the layer
    /// produced non-numbers (weights holding NaN, or values past float32's range).
    NotNumbers,
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
    let verdict = if !(all_finite(a) && all_finite(b)) {
        Verdict::NotNumbers
    } else if same_tokens {
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

impl Judgement {
    /// The verdict in one short line, for the top of a pane where the room is scarce; names
    /// tokens by `name(index in A)`. `other` says what B is ("reversed").
    #[must_use]
    pub fn headline(&self, other: &str, name: impl Fn(usize) -> String) -> String {
        match &self.verdict {
            Verdict::DifferentTokens => format!("{other}: not the same tokens"),
            Verdict::NotNumbers => format!("{other}: the layer produced non-numbers (NaN)"),
            Verdict::Identical => {
                format!("{other}: every word's layer-0 output the same, bit for bit")
            }
            Verdict::Differ { largest, at } if self.causal && !self.with_positions => format!(
                "{other}: outputs differ, by up to {largest:.4} (\"{}\"), by the causal mask alone",
                name(at.0)
            ),
            Verdict::Differ { largest, at } => format!(
                "{other}: outputs differ, by up to {largest:.4} (\"{}\")",
                name(at.0)
            ),
        }
    }
}

/// Whether every output of a run is a finite number.
fn all_finite(run: &Layer0Run) -> bool {
    run.outputs.iter().all(|x| x.is_finite())
}

/// What [`Verdict::NotNumbers`] says, wherever it is said.
const NOT_NUMBERS: &str = "the layer produced non-numbers (NaN or infinity), so its outputs \
                           cannot be compared; the model's weights hold such values";

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
    /// The word the verdict names, by its index in A: a table that cannot show every word
    /// keeps it.
    #[must_use]
    pub fn named_word(&self) -> Option<usize> {
        match self.verdict {
            Verdict::Differ { at, .. } => Some(at.0),
            _ => None,
        }
    }

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
            Verdict::NotNumbers => format!("{positions}, {NOT_NUMBERS}"),
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

/// The order that reverses a sentence's words and leaves the tokens its tokenizer added (such
/// as `[CLS]` and `[SEP]`) where they are: entry `k` is the index, in the sentence, of the
/// token that stands at `k` in the reversal.
#[must_use]
pub fn reversal(special: &[bool]) -> Vec<usize> {
    let mut words = special
        .iter()
        .enumerate()
        .filter(|&(_, &added)| !added)
        .map(|(index, _)| index)
        .rev();
    special
        .iter()
        .enumerate()
        .map(|(index, &added)| {
            if added {
                index
            } else {
                words.next().unwrap_or(index)
            }
        })
        .collect()
}

/// What two copies of one word get from layer 0 in the same sentence.
#[derive(Clone, Debug, PartialEq)]
pub struct CopiesJudgement {
    /// `Identical`, or `Differ` with the largest gap (`at` is the two copies' indices).
    pub verdict: Verdict,
    /// The first copy's index.
    pub first: usize,
    /// The second copy's index.
    pub second: usize,
    /// Whether the model's position information was used.
    pub with_positions: bool,
    /// Whether the layer masks later tokens.
    pub causal: bool,
}

/// Compares the layer-0 outputs of tokens `first` and `second` of one run, number by number.
#[must_use]
pub fn judge_copies(causal: bool, run: &Layer0Run, first: usize, second: usize) -> CopiesJudgement {
    if !all_finite(run) {
        return CopiesJudgement {
            verdict: Verdict::NotNumbers,
            first,
            second,
            with_positions: run.with_positions,
            causal,
        };
    }
    let mut largest: Option<f32> = None;
    for (x, y) in run.outputs.row(first).iter().zip(run.outputs.row(second)) {
        if x.to_bits() != y.to_bits() {
            let gap = (x - y).abs();
            if largest.is_none_or(|l| gap > l || gap.is_nan()) {
                largest = Some(gap);
            }
        }
    }
    let verdict = match largest {
        None => Verdict::Identical,
        Some(largest) => Verdict::Differ {
            largest,
            at: (first, second),
        },
    };
    CopiesJudgement {
        verdict,
        first,
        second,
        with_positions: run.with_positions,
        causal,
    }
}

impl CopiesJudgement {
    /// The verdict in words; `word` is the repeated word, `places` its two positions.
    #[must_use]
    pub fn sentence(&self, word: &str, places: (usize, usize)) -> String {
        let (a, b) = places;
        match (&self.verdict, self.with_positions, self.causal) {
            (Verdict::Identical, _, _) => format!(
                "'{word}' at {a} and {b}: the same layer-0 output, bit for bit; nothing tells \
                 the two copies apart"
            ),
            (Verdict::Differ { largest, .. }, false, true) => format!(
                "'{word}' at {a} and {b}: outputs differ by up to {largest:.4} with no position \
                 information at all: under the causal mask the copy at {a} sees only the \
                 tokens up to it, the copy at {b} sees more"
            ),
            (Verdict::Differ { largest, .. }, true, causal) => format!(
                "'{word}' at {a} and {b}: outputs differ by up to {largest:.4}: the positions \
                 tell the copies apart{}",
                if causal { ", and so does the mask" } else { "" }
            ),
            (Verdict::Differ { largest, .. }, false, false) => {
                format!("'{word}' at {a} and {b}: outputs differ by up to {largest:.4}")
            }
            (Verdict::DifferentTokens, _, _) => format!("'{word}' at {a} and {b}"),
            (Verdict::NotNumbers, _, _) => format!("'{word}' at {a} and {b}: {NOT_NUMBERS}"),
        }
    }
}

/// One head's query·key score between two copies of a word, by their distance (a `RoPE`
/// model's [`crate::core::analysis::layer0::Layer0::copy_scores`] for one head).
#[derive(Clone, Debug, PartialEq)]
pub struct CopyScores {
    /// The query head.
    pub head: usize,
    /// Whether the queries and keys were rotated by their positions.
    pub rotated: bool,
    /// The score at distance 0, 1, 2, …
    pub scores: Vec<f64>,
}

impl CopyScores {
    /// Whether the score is the same at every distance.
    #[must_use]
    pub fn is_flat(&self) -> bool {
        self.scores
            .first()
            .is_none_or(|first| self.scores.iter().all(|s| s.to_bits() == first.to_bits()))
    }

    /// The scores in words, the first `shown` distances listed; `apart` is how far apart the
    /// sentence's own two copies stand, whose score is named when it is known.
    #[must_use]
    pub fn sentence(&self, word: &str, shown: usize, apart: Option<usize>) -> String {
        let head = self.head;
        if self.is_flat() {
            let score = self.scores.first().copied().unwrap_or(0.0);
            let why = if self.rotated {
                "so the head cannot tell how far apart they are"
            } else {
                "with no rotation the head cannot tell how far apart they are"
            };
            return format!(
                "head {head}: the query·key score between two copies of '{word}' is \
                 {score:.4} at every distance, {why}"
            );
        }
        let listed: Vec<String> = self
            .scores
            .iter()
            .take(shown)
            .enumerate()
            .map(|(distance, score)| format!("{distance}: {score:.4}"))
            .collect();
        let more = if shown < self.scores.len() {
            ", …"
        } else {
            ""
        };
        let here = apart
            .and_then(|distance| Some((distance, self.scores.get(distance)?)))
            .map(|(distance, score)| {
                format!("; the copies here stand {distance} apart: {score:.4}")
            })
            .unwrap_or_default();
        format!(
            "head {head}: RoPE turns each query and key by its position, so the score between \
             two copies of '{word}' changes with their distance — {}{more}{here}",
            listed.join(", ")
        )
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

    #[test]
    fn non_numbers_are_never_the_same_bit_for_bit() {
        let nan = f32::NAN;
        let a = run(&[1, 2], &[[nan, nan], [nan, nan]], false);
        let b = run(&[2, 1], &[[nan, nan], [nan, nan]], false);
        let judgement = judge(Architecture::Bert, false, &a, &b);
        assert_eq!(judgement.verdict, Verdict::NotNumbers);
        let sentence = judgement.sentence(|i| i.to_string());
        assert!(
            sentence.contains("non-numbers") && !sentence.contains("bit for bit"),
            "{sentence}"
        );
        assert!(
            judgement
                .headline("Reversed", |i| i.to_string())
                .contains("non-numbers")
        );
        let infinite = run(
            &[7, 7],
            &[[f32::INFINITY, 1.0], [f32::INFINITY, 1.0]],
            false,
        );
        let copies = judge_copies(false, &infinite, 0, 1);
        assert_eq!(copies.verdict, Verdict::NotNumbers);
        assert!(!copies.sentence("fox", (0, 1)).contains("bit for bit"));
    }

    #[test]
    fn the_reversal_keeps_added_tokens_in_place() {
        assert_eq!(reversal(&[false, false, false]), [2, 1, 0]);
        assert_eq!(
            reversal(&[true, false, false, false, true]),
            [0, 3, 2, 1, 4]
        );
        assert!(reversal(&[]).is_empty());
    }

    #[test]
    fn copies_of_a_word_are_judged_on_their_bits() {
        let same = run(&[7, 2, 7], &[[1.0, 2.0], [0.0, 0.0], [1.0, 2.0]], false);
        let judgement = judge_copies(false, &same, 0, 2);
        assert_eq!(judgement.verdict, Verdict::Identical);
        assert!(judgement.sentence("fox", (0, 2)).contains("bit for bit"));
        let masked = run(&[7, 2, 7], &[[1.0, 2.0], [0.0, 0.0], [1.0, 2.5]], false);
        let judgement = judge_copies(true, &masked, 0, 2);
        assert_eq!(
            judgement.verdict,
            Verdict::Differ {
                largest: 0.5,
                at: (0, 2)
            }
        );
        let sentence = judgement.sentence("fox", (0, 2));
        assert!(sentence.contains("0.5000 with no position"), "{sentence}");
        assert!(sentence.contains("causal mask"), "{sentence}");
    }

    #[test]
    fn copy_scores_say_whether_distance_changes_them() {
        let flat = CopyScores {
            head: 1,
            rotated: false,
            scores: vec![0.5; 4],
        };
        assert!(flat.is_flat());
        assert!(
            flat.sentence("fox", 3, Some(2))
                .contains("0.5000 at every distance")
        );
        let turned = CopyScores {
            head: 2,
            rotated: true,
            scores: vec![0.5, 0.25, -0.125],
        };
        assert!(!turned.is_flat());
        let sentence = turned.sentence("fox", 2, Some(2));
        assert!(sentence.contains("0: 0.5000, 1: 0.2500, …"), "{sentence}");
        assert!(
            sentence.ends_with("the copies here stand 2 apart: -0.1250"),
            "{sentence}"
        );
    }

    #[test]
    fn the_headline_is_short_and_says_the_verdict() {
        let a = run(&[1, 2], &[[1.0, 2.0], [3.0, 4.0]], false);
        let b = run(&[2, 1], &[[3.0, 4.25], [1.0, 2.0]], false);
        let words = ["dog", "bites"];
        let causal = judge(Architecture::Gpt2, true, &a, &b);
        assert_eq!(
            causal.headline("Reversed", |i| words[i].to_owned()),
            "Reversed: outputs differ, by up to 0.2500 (\"bites\"), by the causal mask alone"
        );
        let same = run(&[2, 1], &[[3.0, 4.0], [1.0, 2.0]], false);
        let bert = judge(Architecture::Bert, false, &a, &same);
        assert_eq!(
            bert.headline("Reversed", |i| words[i].to_owned()),
            "Reversed: every word's layer-0 output the same, bit for bit"
        );
    }
}
