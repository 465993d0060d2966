//! The model's own layer 0 in the explorer: run over the sentence (and in compare mode over
//! both sentences), at once when it is small and on a worker thread when it is large, so keys
//! never wait for it. Only the newest request counts; one worker runs at a time.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::thread;

use super::App;
use super::sources::RealLayer;
use crate::action::{Action, key};
use crate::core::analysis::attention::Attention;
use crate::core::analysis::layer0::{Layer0, Layer0Run};
use crate::core::explain::claim::{CopiesJudgement, Judgement, judge, judge_copies, reversal};
use crate::core::text::vocabulary::Token;
use crate::view_state::{Detail, HeadChoice};

/// Layer 0 runs on a worker from this many multiply-adds of its projections (about a 768-wide
/// model over a dozen tokens); below it, at once.
pub const BACKGROUND_LAYER0_FROM: usize = 1 << 26;

/// How many distances the copy scores of a `RoPE` model cover.
pub const COPY_DISTANCES: usize = 16;

/// Layer 0 over the explorer's sentence, and what it shows.
#[derive(Clone, Debug)]
pub struct Layer0View {
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

impl Layer0View {
    /// Runs `layer` over the tokens that have a row (at most `cap`), with or without the
    /// model's positions, and over their reversal.
    ///
    /// # Errors
    /// When no token has a row, or the layer refuses the ids.
    pub fn compute(
        layer: &Layer0,
        tokens: &[Token],
        cap: usize,
        with_positions: bool,
    ) -> Result<Self, String> {
        let rows = layer.token_rows();
        let members: Vec<usize> = tokens
            .iter()
            .enumerate()
            .filter(|(_, token)| token.id.is_some_and(|id| id < rows))
            .map(|(index, _)| index)
            .take(cap.min(layer.context_length()))
            .collect();
        let ids: Vec<usize> = members.iter().filter_map(|&i| tokens[i].id).collect();
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

    /// Head `head` as the attention pane draws a head: weights, scores, each token's context.
    #[must_use]
    pub fn attention(&self, head: usize) -> Option<Attention> {
        let result = self.run.heads.get(head)?;
        Some(Attention {
            queries: Vec::new(),
            keys: Vec::new(),
            values: Vec::new(),
            scores: result.scores.clone(),
            weights: result.weights.clone(),
            outputs: result
                .context
                .rows()
                .into_iter()
                .map(|r| r.to_owned())
                .collect(),
        })
    }
}

/// The first word that repeats: its first two copies (indices into `ids`).
fn first_copies(ids: &[usize]) -> Option<(usize, usize)> {
    ids.iter().enumerate().find_map(|(second, id)| {
        let first = ids[..second].iter().position(|other| other == id)?;
        Some((first, second))
    })
}

/// Compare mode on the model's own layer 0: both sentences run, and the verdict.
#[derive(Clone, Debug)]
pub struct RealComparison {
    /// How A's and B's outputs compare, token by token.
    pub judgement: Judgement,
    /// A's tokens' texts, to name a word in the verdict.
    pub words: Vec<String>,
    /// B's tokens' texts.
    pub other_words: Vec<String>,
    /// The layer over A, then over B: every head's output for each token, the numbers the
    /// verdict was made from.
    pub runs: [Layer0Run; 2],
}

impl RealComparison {
    /// Runs `layer` over both sentences' tokens.
    ///
    /// # Errors
    /// When a token has no row, or the layer refuses the ids.
    pub fn compute(
        layer: &Layer0,
        sentences: [&[Token]; 2],
        cap: usize,
        with_positions: bool,
    ) -> Result<Self, String> {
        let run = |name: &str, tokens: &[Token]| {
            let mut ids = Vec::with_capacity(tokens.len());
            for token in tokens.iter().take(cap.min(layer.context_length())) {
                match token.id.filter(|&id| id < layer.token_rows()) {
                    Some(id) => ids.push(id),
                    None => {
                        return Err(format!(
                            "'{}' in sentence {name} has no row in the model's table",
                            token.text
                        ));
                    }
                }
            }
            if ids.is_empty() {
                return Err(format!("sentence {name} has no tokens"));
            }
            layer
                .run(&ids, with_positions)
                .map_err(|error| format!("{error:#}"))
        };
        let runs = [run("A", sentences[0])?, run("B", sentences[1])?];
        let judgement = judge(layer.architecture(), layer.is_causal(), &runs[0], &runs[1]);
        let texts = |tokens: &[Token]| tokens.iter().map(|t| t.text.clone()).collect();
        Ok(Self {
            judgement,
            words: texts(sentences[0]),
            other_words: texts(sentences[1]),
            runs,
        })
    }

    /// The verdict in words.
    #[must_use]
    pub fn sentence(&self) -> String {
        self.judgement
            .sentence(|index| self.words.get(index).cloned().unwrap_or_default())
    }
}

/// Work for the worker: the revision it was asked for, and what to compute.
type Work<T> = (u64, Box<dyn FnOnce() -> T + Send>);

/// One background computation at a time; a newer request waits for it and replaces any
/// request already waiting.
pub struct Worker<T> {
    running: Option<(u64, Receiver<T>)>,
    queued: Option<Work<T>>,
}

impl<T> Default for Worker<T> {
    fn default() -> Self {
        Self {
            running: None,
            queued: None,
        }
    }
}

impl<T: Send + 'static> Worker<T> {
    /// Asks for `work`, known by `revision`; it starts when the worker is free.
    pub fn request(&mut self, revision: u64, work: impl FnOnce() -> T + Send + 'static) {
        self.queued = Some((revision, Box::new(work)));
        self.start_queued();
    }

    /// Forgets what is waiting (a running computation finishes, and is ignored).
    pub fn cancel(&mut self) {
        self.queued = None;
    }

    /// A finished computation's revision and answer, if one finished; the next request starts.
    pub fn poll(&mut self) -> Option<(u64, T)> {
        let (revision, answer) = self.running.as_ref()?;
        let result = match answer.try_recv() {
            Ok(value) => Some((*revision, value)),
            Err(TryRecvError::Empty) => return None,
            Err(TryRecvError::Disconnected) => None,
        };
        self.running = None;
        self.start_queued();
        result
    }

    /// Whether something runs or waits.
    #[must_use]
    pub fn busy(&self) -> bool {
        self.running.is_some() || self.queued.is_some()
    }

    fn start_queued(&mut self) {
        if self.running.is_some() {
            return;
        }
        let Some((revision, work)) = self.queued.take() else {
            return;
        };
        let (send, answer) = mpsc::channel();
        thread::spawn(move || {
            // Nobody listening means the answer was superseded: nothing to do.
            let _ = send.send(work());
        });
        self.running = Some((revision, answer));
    }
}

/// Whether `layer` over `tokens` tokens is large enough to run on the worker.
#[must_use]
pub fn runs_in_background(layer: &Arc<Layer0>, tokens: usize, from: usize) -> bool {
    layer.projection_work(tokens) >= from
}

impl App {
    /// Shows the head `step` after (or before) the current one, opening the attention pane.
    pub(super) fn choose_head(&mut self, step: isize) {
        let layer = match self.sources.layer0() {
            RealLayer::Open(layer) => layer,
            RealLayer::Unavailable(why) => {
                self.status = Some(format!("one seeded head stands in: {why}"));
                return;
            }
            RealLayer::None => {
                self.status = Some(format!(
                    "the built-in tables have one seeded head; a model opened with --model \
                     shows its own layer 0's heads ({} switches models)",
                    key(&Action::CycleVocab)
                ));
                return;
            }
        };
        let heads = layer.heads();
        if self.compare.is_some() {
            self.choose_compare_head(step, heads);
            return;
        }
        let current = self.settings.head.min(heads - 1);
        self.settings.head = current.saturating_add_signed(step).min(heads - 1);
        self.settings.detail = Detail::Attention;
        self.status = Some(match (current, self.settings.head) {
            (0, 0) if step < 0 => "head 0 is the first head".to_owned(),
            (old, new) if old == new => format!("head {new} is the last head"),
            (_, new) => format!("head {new} of {heads} (0 to {})", heads - 1),
        });
    }

    /// Compare mode: shows the outputs of the head `step` after (or before) the current one,
    /// "all heads" coming before head 0, in the outputs table.
    fn choose_compare_head(&mut self, step: isize, heads: usize) {
        let current = self.settings.compare_head.moved(0, heads);
        let chosen = current.moved(step, heads);
        self.settings.compare_head = chosen;
        self.settings.detail = Detail::Attention;
        self.status = Some(match chosen {
            HeadChoice::AllHeads if current == chosen => format!(
                "all heads is the first choice; {} steps through the heads",
                key(&Action::NextHead)
            ),
            HeadChoice::AllHeads => {
                format!("outputs of all {heads} heads, side by side as the layer returns them")
            }
            HeadChoice::Head(head) if current == chosen => format!("head {head} is the last head"),
            HeadChoice::Head(head) => {
                format!("outputs of head {head} of {heads} (0 to {})", heads - 1)
            }
        });
    }

    /// Shows every head at once, or one head again, opening the attention pane.
    pub(super) fn toggle_head_overview(&mut self) {
        match self.sources.layer0() {
            RealLayer::Open(_) => {
                let open = self.settings.detail == Detail::Attention;
                self.settings.head_overview = !(open && self.settings.head_overview);
                self.settings.detail = Detail::Attention;
            }
            RealLayer::Unavailable(why) => {
                self.status = Some(format!("one seeded head stands in: {why}"));
            }
            RealLayer::None => {
                self.status = Some(
                    "the built-in tables have one seeded head; a model opened with --model \
                     shows every head of its own layer 0"
                        .to_owned(),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn the_worker_runs_one_thing_at_a_time_and_only_the_newest_request_waits() {
        let mut worker: Worker<u64> = Worker::default();
        let (release, hold) = mpsc::channel::<()>();
        // The first request runs and waits to be released; two more arrive meanwhile.
        worker.request(1, move || {
            hold.recv().unwrap();
            1
        });
        worker.request(2, || 2);
        worker.request(3, || 3);
        assert!(worker.busy());
        assert_eq!(worker.poll(), None, "the first is still running");
        release.send(()).unwrap();
        let mut answers = Vec::new();
        while worker.busy() {
            if let Some(answer) = worker.poll() {
                answers.push(answer);
            }
            std::thread::yield_now();
        }
        // Request 2 was replaced by 3 before it could start.
        assert_eq!(answers, [(1, 1), (3, 3)]);
    }

    #[test]
    fn a_cancelled_request_never_starts() {
        let mut worker: Worker<u64> = Worker::default();
        let (release, hold) = mpsc::channel::<()>();
        worker.request(1, move || {
            hold.recv().unwrap();
            1
        });
        worker.request(2, || 2);
        worker.cancel();
        release.send(()).unwrap();
        let mut answers = Vec::new();
        while worker.busy() {
            answers.extend(worker.poll());
            std::thread::yield_now();
        }
        assert_eq!(answers, [(1, 1)]);
    }

    #[test]
    fn the_first_copies_are_the_first_word_that_repeats() {
        assert_eq!(first_copies(&[4, 5, 6, 5, 4]), Some((1, 3)));
        assert_eq!(first_copies(&[1, 2, 3]), None);
    }
}
