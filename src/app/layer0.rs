//! The model's own layer 0 in the explorer: run over the sentence (and in compare mode over
//! both sentences, both computed in [`crate::core::explain::layer0`]), at once when it is small
//! and on a worker thread when it is large, so keys never wait for it. Only the newest request
//! counts; one worker runs at a time.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::thread;

use super::App;
use super::sources::RealLayer;
use crate::action::{Action, key};
use crate::core::analysis::layer0::Layer0;
use crate::view_state::{Detail, HeadChoice};

/// Layer 0 runs on a worker from this many multiply-adds of its projections (about a 768-wide
/// model over a dozen tokens); below it, at once.
pub const BACKGROUND_LAYER0_FROM: usize = 1 << 26;

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
}
