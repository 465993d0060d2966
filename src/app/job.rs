//! The one way the explorer computes off the key path: a [`Job`] runs work on a thread of its
//! own, one piece at a time. A newer request asks the running work to stop (work that looks at
//! its flag stops early), waits for it, and replaces any request already waiting; dropping the
//! job asks the running work to stop.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::thread;

/// Work for a job: it looks at the flag it is given now and then and returns `None` once the
/// flag is set (or when it has no answer).
pub type Work<T> = Box<dyn FnOnce(&AtomicBool) -> Option<T> + Send>;

/// Work running on a thread; dropping it asks the work to stop.
struct Running<T> {
    /// The revision it was asked for.
    revision: u64,
    stop: Arc<AtomicBool>,
    answer: Receiver<T>,
}

impl<T> Drop for Running<T> {
    /// Work nobody waits for stops at its next look at the flag.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Background work, one piece at a time; a newer request stops the running one, waits for it
/// and replaces any request already waiting.
pub struct Job<T> {
    running: Option<Running<T>>,
    queued: Option<(u64, Work<T>)>,
}

impl<T> Default for Job<T> {
    fn default() -> Self {
        Self {
            running: None,
            queued: None,
        }
    }
}

impl<T: Send + 'static> Job<T> {
    /// Asks for `work`, known by `revision`; the running work is asked to stop, and `work`
    /// starts when it has.
    pub fn request(
        &mut self,
        revision: u64,
        work: impl FnOnce(&AtomicBool) -> Option<T> + Send + 'static,
    ) {
        self.stop();
        self.queued = Some((revision, Box::new(work)));
        self.start_queued();
    }

    /// Asks the running work to stop and forgets what is waiting; work that does not look at
    /// its flag finishes, and its answer is still handed out by [`Job::poll`].
    pub fn stop(&mut self) {
        if let Some(running) = &self.running {
            running.stop.store(true, Ordering::Relaxed);
        }
        self.queued = None;
    }

    /// A finished piece's revision and answer, if one finished with an answer; the next
    /// request starts.
    pub fn poll(&mut self) -> Option<(u64, T)> {
        let running = self.running.as_ref()?;
        let answer = match running.answer.try_recv() {
            Ok(answer) => Some((running.revision, answer)),
            Err(TryRecvError::Empty) => return None,
            Err(TryRecvError::Disconnected) => None,
        };
        self.running = None;
        self.start_queued();
        answer
    }

    /// Whether an answer is to come: work waits, or runs and was not asked to stop.
    #[must_use]
    pub fn busy(&self) -> bool {
        self.queued.is_some()
            || self
                .running
                .as_ref()
                .is_some_and(|running| !running.stop.load(Ordering::Relaxed))
    }

    fn start_queued(&mut self) {
        if self.running.is_some() {
            return;
        }
        let Some((revision, work)) = self.queued.take() else {
            return;
        };
        let stop = Arc::new(AtomicBool::new(false));
        let (send, answer) = mpsc::channel();
        let flag = Arc::clone(&stop);
        thread::spawn(move || {
            if let Some(answer) = work(&flag) {
                // Nobody listening means the job was dropped: nothing to do.
                let _ = send.send(answer);
            }
        });
        self.running = Some(Running {
            revision,
            stop,
            answer,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// Polls `job` until nothing is to come, collecting the answers.
    fn answers(job: &mut Job<u64>) -> Vec<(u64, u64)> {
        let mut answers = Vec::new();
        while job.busy() || job.running.is_some() {
            answers.extend(job.poll());
            thread::yield_now();
        }
        answers
    }

    #[test]
    fn a_job_runs_one_thing_at_a_time_and_only_the_newest_request_waits() {
        let mut job: Job<u64> = Job::default();
        let (release, hold) = mpsc::channel::<()>();
        // The first request runs and waits to be released (looking at no flag); two more
        // arrive meanwhile.
        job.request(1, move |_| {
            hold.recv().unwrap();
            Some(1)
        });
        job.request(2, |_| Some(2));
        job.request(3, |_| Some(3));
        assert!(job.busy());
        assert_eq!(job.poll(), None, "the first is still running");
        release.send(()).unwrap();
        // Request 2 was replaced by 3 before it could start.
        assert_eq!(answers(&mut job), [(1, 1), (3, 3)]);
    }

    #[test]
    fn a_stopped_request_never_starts_and_work_that_looks_at_its_flag_stops() {
        let mut job: Job<u64> = Job::default();
        let (started, running) = mpsc::channel::<()>();
        job.request(1, move |stop| {
            started.send(()).unwrap();
            while !stop.load(Ordering::Relaxed) {
                thread::yield_now();
            }
            None
        });
        running.recv().unwrap();
        job.request(2, |_| Some(2));
        job.stop();
        assert!(!job.busy(), "nothing is to come");
        assert_eq!(answers(&mut job), []);
    }

    #[test]
    fn dropping_a_job_stops_its_work() {
        let mut job: Job<u64> = Job::default();
        let (stopped, seen) = mpsc::channel::<()>();
        job.request(1, move |stop| {
            while !stop.load(Ordering::Relaxed) {
                thread::yield_now();
            }
            stopped.send(()).unwrap();
            None
        });
        drop(job);
        seen.recv().unwrap();
    }
}
