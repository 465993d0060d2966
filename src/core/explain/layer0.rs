//! The model's own layer 0 over the learner's sentences, and what it shows: which tokens go in
//! (those with a row), the run, the sentence against its reversal, two sentences against each
//! other, and the verdicts. The explorer and `embedlens compare --model` and `attention` all
//! use these, so they never disagree; each says the outcome in its own words last.

use ndarray::ArrayView1;

use crate::core::analysis::layer0::{Layer0, Layer0Run};
use crate::core::explain::claim::{CopiesJudgement, Judgement, judge, judge_copies, reversal};
use crate::core::tables::positional::PositionScheme;
use crate::core::text::vocabulary::Token;

/// How many distances the copy scores of a `RoPE` model cover.
pub const COPY_DISTANCES: usize = 16;

/// A token that cannot go into layer 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingRow {
    /// Its place in the sentence.
    pub index: usize,
    /// Its text.
    pub text: String,
    /// Its id, when it has one past the table's rows; `None` when the tokenizer gave none.
    pub id: Option<usize>,
}

/// The tokens of a sentence that go into layer 0: those with a row in the model's token
/// table, at most `limit` of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentenceIds {
    /// The sentence index of each token that goes in.
    pub members: Vec<usize>,
    /// Their ids, token `k` being `members[k]`.
    pub ids: Vec<usize>,
    /// The first of the sentence's first `limit` tokens that has no row, if one has none.
    pub missing: Option<MissingRow>,
}

impl SentenceIds {
    /// Which of `tokens` have a row in `layer`'s token table: the one place that is decided.
    #[must_use]
    pub fn of(layer: &Layer0, tokens: &[Token], limit: usize) -> Self {
        let rows = layer.token_rows();
        let with_row = |token: &Token| token.id.filter(|&id| id < rows);
        let (members, ids) = tokens
            .iter()
            .enumerate()
            .filter_map(|(index, token)| Some((index, with_row(token)?)))
            .take(limit)
            .unzip();
        let missing = tokens
            .iter()
            .take(limit)
            .enumerate()
            .find(|(_, token)| with_row(token).is_none())
            .map(|(index, token)| MissingRow {
                index,
                text: token.text.clone(),
                id: token.id,
            });
        Self {
            members,
            ids,
            missing,
        }
    }
}

/// Layer 0 over one sentence, and what it shows.
#[derive(Clone, Debug)]
pub struct SentenceRun {
    /// The sentence index of each token that went in (tokens without a row are left out).
    pub members: Vec<usize>,
    /// The run, token `k` being `members[k]`.
    pub run: Layer0Run,
    /// The sentence with its words reversed (`order[k]` is the member at `k`), and how its
    /// outputs compare with the sentence's own; `None` when no order of the words differs.
    pub reversal: Option<(Vec<usize>, Judgement)>,
    /// The first repeated word, its text, and what its first two copies get.
    pub copies: Option<(String, CopiesJudgement)>,
    /// A `RoPE` model's score between two copies of that word, by head, then distance.
    pub copy_scores: Option<Vec<Vec<f64>>>,
}

impl SentenceRun {
    /// Runs `layer` over the tokens that have a row (at most `limit`, and at most the model's
    /// context length), with or without the model's positions, and over their reversal.
    ///
    /// # Errors
    /// When no token has a row, or the layer refuses the ids.
    pub fn compute(
        layer: &Layer0,
        tokens: &[Token],
        limit: usize,
        with_positions: bool,
    ) -> Result<Self, String> {
        let SentenceIds { members, ids, .. } =
            SentenceIds::of(layer, tokens, limit.min(layer.token_limit().tokens()));
        if ids.is_empty() {
            return Err("no token of the sentence has a row in the model's table".to_owned());
        }
        let run = layer
            .run(&ids, with_positions)
            .map_err(|error| format!("{error:#}"))?;
        let special: Vec<bool> = members.iter().map(|&i| tokens[i].special).collect();
        let order = reversal(&special);
        let reversal = if order.iter().enumerate().all(|(k, &i)| ids[k] == ids[i]) {
            None
        } else {
            let reversed: Vec<usize> = order.iter().map(|&i| ids[i]).collect();
            let other = layer
                .run(&reversed, with_positions)
                .map_err(|error| format!("{error:#}"))?;
            let judgement = judge(layer.architecture(), layer.is_causal(), &run, &other);
            Some((order, judgement))
        };
        let repeat = first_copies(&ids);
        let copies = repeat.map(|(first, second)| {
            (
                tokens[members[first]].text.clone(),
                judge_copies(layer.is_causal(), &run, first, second),
            )
        });
        let copy_scores = repeat
            .and_then(|(first, _)| layer.copy_scores(ids[first], COPY_DISTANCES, with_positions));
        Ok(Self {
            members,
            run,
            reversal,
            copies,
            copy_scores,
        })
    }
}

impl SentenceRun {
    /// What the pane says about the run, in sentences: the sentence against its reversal
    /// (the verdict first, short enough for one line of a small terminal), that layer 0 takes
    /// its own positions (`own`), the reversal's reasons, then the keys that change what is
    /// shown, named by their action (`{TogglePositions}`). The first repeated word's copies
    /// are [`SentenceRun::copies_claim`], said apart, with their outputs.
    /// `tokens` is the sentence the run was made from; `heads` the layer's heads.
    #[must_use]
    pub fn finding(
        &self,
        tokens: &[Token],
        own: Option<OwnPositions>,
        heads: usize,
    ) -> Vec<String> {
        let text_of = |member: usize| tokens[self.members[member]].text.clone();
        let mut sentences = Vec::new();
        let mut reasons = None;
        if let Some((order, judgement)) = &self.reversal {
            // The reversal's outputs are not in this pane: compare mode shows both orders'.
            sentences.push(format!(
                "{}; {{ToggleCompare}}, then {{ShowDetail(Attention)}}, shows both orders' \
                 outputs.",
                judgement.headline("Reversed", text_of)
            ));
            let reversed: Vec<String> = order.iter().map(|&k| text_of(k)).collect();
            reasons = Some(format!(
                "Reversed is {}: {}.",
                reversed.join(" "),
                judgement.sentence(text_of)
            ));
        }
        sentences.extend(own.map(OwnPositions::sentence));
        sentences.extend(reasons);
        sentences.push(keys(heads, self.run.with_positions));
        sentences
    }

    /// What the first repeated word's first two copies get, in a sentence, and the sentence
    /// indices of those copies: the pane says it only while both copies' outputs are drawn.
    #[must_use]
    pub fn copies_claim(&self) -> Option<(String, [usize; 2])> {
        let (word, copies) = self.copies.as_ref()?;
        let sentence = format!("{}.", copies.sentence(word, (copies.first, copies.second)));
        Some((
            sentence,
            [self.members[copies.first], self.members[copies.second]],
        ))
    }
}

/// The keys that change what the layer-0 pane shows, named by their action.
fn keys(heads: usize, with_positions: bool) -> String {
    let heads = if heads > 1 {
        "{PreviousHead} {NextHead} choose the head, {ToggleHeadOverview} shows every head, "
    } else {
        "{ToggleHeadOverview} shows the head's weights small, "
    };
    let toggle = if with_positions {
        "{TogglePositions} takes the model's positions away."
    } else {
        "{TogglePositions} gives layer 0 the model's positions."
    };
    format!("{heads}{toggle}")
}

/// The lookups show one position scheme, but layer 0 takes the model's own: its learned
/// table (BERT, GPT-2) or its rotation (`RoPE` models).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnPositions {
    /// The model's own scheme.
    pub own: PositionScheme,
    /// The scheme the lookups show.
    pub shown: PositionScheme,
}

impl OwnPositions {
    /// `Some` when positions are on and the lookups show another scheme than the model's own
    /// (`RoPE` for a rotary model, learned for the others).
    #[must_use]
    pub fn of(rotary: bool, shown: PositionScheme, positions: bool) -> Option<Self> {
        let own = if rotary {
            PositionScheme::Rope
        } else {
            PositionScheme::Learned
        };
        (positions && shown != own).then_some(Self { own, shown })
    }

    /// The note, its key named by its action.
    #[must_use]
    pub fn sentence(self) -> String {
        format!(
            "Layer 0 takes the model's own positions ({}), not the {} ones the lookups show; \
             {{CycleScheme}} chooses those.",
            self.own, self.shown
        )
    }
}

/// The first word that repeats: its first two copies (indices into `ids`).
fn first_copies(ids: &[usize]) -> Option<(usize, usize)> {
    ids.iter().enumerate().find_map(|(second, id)| {
        let first = ids[..second].iter().position(|other| other == id)?;
        Some((first, second))
    })
}

/// Why two sentences cannot both go through layer 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PairError {
    /// Sentence `sentence` (0 for A, 1 for B) has no tokens.
    NoTokens {
        /// Which sentence.
        sentence: usize,
    },
    /// A token of sentence `sentence` has no row.
    MissingRow {
        /// Which sentence.
        sentence: usize,
        /// The token.
        missing: MissingRow,
    },
    /// The layer refused the ids (too many tokens, a position past the table).
    Run(String),
}

/// Two sentences through the model's own layer 0, and the verdict on them.
#[derive(Clone, Debug)]
pub struct SentencePair {
    /// A's run and B's run.
    pub runs: [Layer0Run; 2],
    /// How A's and B's outputs compare, token by token.
    pub judgement: Judgement,
    /// A's tokens' texts and B's (only the first `limit` went in).
    pub words: [Vec<String>; 2],
}

impl SentencePair {
    /// Runs `layer` over both sentences' first `limit` tokens, every one of which must have a
    /// row (the layer itself refuses more tokens than the model's context length).
    ///
    /// # Errors
    /// When a sentence has no tokens, a token has no row, or the layer refuses the ids.
    pub fn compute(
        layer: &Layer0,
        sentences: [&[Token]; 2],
        limit: usize,
        with_positions: bool,
    ) -> Result<Self, PairError> {
        let one = |sentence: usize| -> Result<(Layer0Run, Vec<String>), PairError> {
            let tokens = sentences[sentence];
            let ids = SentenceIds::of(layer, tokens, limit);
            if let Some(missing) = ids.missing {
                return Err(PairError::MissingRow { sentence, missing });
            }
            if ids.ids.is_empty() {
                return Err(PairError::NoTokens { sentence });
            }
            let run = layer
                .run(&ids.ids, with_positions)
                .map_err(|error| PairError::Run(format!("{error:#}")))?;
            let words = tokens.iter().map(|token| token.text.clone()).collect();
            Ok((run, words))
        };
        let (a, a_words) = one(0)?;
        let (b, b_words) = one(1)?;
        let runs = [a, b];
        let words = [a_words, b_words];
        let judgement = judge(layer.architecture(), layer.is_causal(), &runs[0], &runs[1]);
        Ok(Self {
            runs,
            judgement,
            words,
        })
    }

    /// Each word of A that B also holds (copy for copy): its text, its output in A and its
    /// output in B.
    #[must_use]
    pub fn outputs(&self) -> Vec<(&str, ArrayView1<'_, f32>, ArrayView1<'_, f32>)> {
        self.judgement
            .pairs
            .iter()
            .map(|&(a, b)| {
                (
                    self.words[0][a].as_str(),
                    self.runs[0].outputs.row(a),
                    self.runs[1].outputs.row(b),
                )
            })
            .collect()
    }

    /// The verdict in words, naming A's tokens.
    #[must_use]
    pub fn sentence(&self) -> String {
        self.judgement
            .sentence(|index| self.words[0].get(index).cloned().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::files::{FileSource, OpenOptions, open};

    fn layer(name: &str) -> Layer0 {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/layer0")
            .join(name);
        open(&FileSource::path(folder), &OpenOptions::default())
            .unwrap()
            .layer0
            .unwrap()
    }

    fn token(text: &str, id: Option<usize>) -> Token {
        Token {
            text: text.to_owned(),
            span: 0..0,
            position: 0,
            id,
            special: false,
            unknown: false,
        }
    }

    #[test]
    fn only_tokens_with_a_row_go_in_and_the_first_without_one_is_named() {
        let layer = layer("bert");
        let rows = layer.token_rows();
        let tokens = [
            token("a", Some(1)),
            token("b", None),
            token("c", Some(rows)),
            token("d", Some(2)),
        ];
        let ids = SentenceIds::of(&layer, &tokens, 8);
        assert_eq!((ids.members, ids.ids), (vec![0, 3], vec![1, 2]));
        assert_eq!(
            ids.missing,
            Some(MissingRow {
                index: 1,
                text: "b".to_owned(),
                id: None
            })
        );
        let first_one = SentenceIds::of(&layer, &tokens, 1);
        assert_eq!((first_one.members, first_one.missing), (vec![0], None));
    }

    #[test]
    fn a_pair_of_reordered_sentences_gives_each_word_its_outputs_in_both() {
        let layer = layer("bert");
        let a = [
            token("x", Some(5)),
            token("y", Some(6)),
            token("z", Some(7)),
        ];
        let b = [
            token("z", Some(7)),
            token("x", Some(5)),
            token("y", Some(6)),
        ];
        let pair = SentencePair::compute(&layer, [&a, &b], 8, false).unwrap();
        let outputs = pair.outputs();
        assert_eq!(outputs.len(), 3);
        let (word, in_a, in_b) = &outputs[0];
        assert_eq!(*word, "x");
        assert_eq!(in_a, &pair.runs[0].outputs.row(0));
        assert_eq!(in_b, &pair.runs[1].outputs.row(1));
        let missing = SentencePair::compute(&layer, [&a, &[token("w", None)]], 8, false);
        assert!(matches!(
            missing,
            Err(PairError::MissingRow { sentence: 1, .. })
        ));
        let empty = SentencePair::compute(&layer, [&[], &b], 8, false);
        assert_eq!(empty.unwrap_err(), PairError::NoTokens { sentence: 0 });
    }

    #[test]
    fn the_first_copies_are_the_first_word_that_repeats() {
        assert_eq!(first_copies(&[4, 5, 6, 5, 4]), Some((1, 3)));
        assert_eq!(first_copies(&[1, 2, 3]), None);
    }

    #[test]
    fn the_finding_names_the_keys_for_the_state_shown() {
        let layer = layer("bert");
        let tokens = [
            token("x", Some(5)),
            token("y", Some(6)),
            token("z", Some(7)),
            token("x", Some(5)),
        ];
        let run = SentenceRun::compute(&layer, &tokens, 8, false).unwrap();
        let sentences = run.finding(&tokens, None, 1);
        assert!(sentences[0].starts_with("Reversed"), "{sentences:?}");
        // The reversal's outputs are shown in compare mode, and the verdict says where.
        assert!(
            sentences[0].ends_with(
                "; {ToggleCompare}, then {ShowDetail(Attention)}, shows both orders' outputs."
            ),
            "{sentences:?}"
        );
        let (claim, copies) = run.copies_claim().unwrap();
        assert!(claim.starts_with("'x' at 0 and 3"), "{claim}");
        assert_eq!(copies, [0, 3]);
        assert!(
            sentences
                .iter()
                .all(|sentence| !sentence.contains("'x' at"))
        );
        let keys = sentences.last().unwrap();
        assert_eq!(
            keys,
            "{ToggleHeadOverview} shows the head's weights small, {TogglePositions} gives \
             layer 0 the model's positions."
        );
        assert!(super::keys(2, true).starts_with("{PreviousHead} {NextHead} choose the head"));
        let own = OwnPositions::of(false, PositionScheme::Sinusoidal, true);
        assert_eq!(
            own.map(OwnPositions::sentence).as_deref(),
            Some(
                "Layer 0 takes the model's own positions (learned), not the sinusoidal ones the \
                 lookups show; {CycleScheme} chooses those."
            )
        );
        assert_eq!(OwnPositions::of(true, PositionScheme::Rope, true), None);
        assert_eq!(OwnPositions::of(true, PositionScheme::Learned, false), None);
    }
}
