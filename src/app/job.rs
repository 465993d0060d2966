//! The one way the explorer computes off the key path: a [`Job`] is work on a thread of its
//! own, asked to stop when it is dropped; a [`Worker`] runs jobs one at a time, the newest
//! request waiting for the running one and replacing any request already waiting.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::thread;

/// Where a job is.
pub enum Progress<T> {
    /// Still working.
    Running,
    /// Finished, with its answer.
    Done(T),
    /// Ended without an answer (asked to stop, or the table was not ready).
    Ended,
}

/// Work running on a worker thread; dropping it asks the worker to stop.
pub struct Job<T> {
    stop: Arc<AtomicBool>,
    answer: Receiver<T>,
}

impl<T: Send + 'static> Job<T> {
    /// Starts `work` on a worker thread; it looks at the flag it is given now and then and
    /// returns `None` once the flag is set.
    pub fn start(work: impl FnOnce(&AtomicBool) -> Option<T> + Send + 'static) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let (send, answer) = mpsc::channel();
        let flag = Arc::clone(&stop);
        thread::spawn(move || {
            if let Some(answer) = work(&flag) {
                // Nobody listening means the job was superseded: nothing to do.
                let _ = send.send(answer);
            }
        });
        Self { stop, answer }
    }

    /// Where the worker is now.
    #[must_use]
    pub fn poll(&self) -> Progress<T> {
        match self.answer.try_recv() {
            Ok(answer) => Progress::Done(answer),
            Err(TryRecvError::Empty) => Progress::Running,
            Err(TryRecvError::Disconnected) => Progress::Ended,
        }
    }
}

impl<T> Drop for Job<T> {
    /// A job nobody waits for stops at its next look at the flag.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Work for the worker: the revision it was asked for, and what to compute.
type Work<T> = (u64, Box<dyn FnOnce() -> T + Send>);

/// One background computation at a time; a newer request waits for it and replaces any
/// request already waiting.
pub struct Worker<T> {
    running: Option<(u64, Job<T>)>,
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
        let (revision, job) = self.running.as_ref()?;
        let result = match job.poll() {
            Progress::Done(value) => Some((*revision, value)),
            Progress::Running => return None,
            Progress::Ended => None,
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
        self.running = Some((revision, Job::start(move |_| Some(work()))));
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
