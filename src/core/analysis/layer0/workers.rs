//! One long-lived set of worker threads for layer 0's parallel work (the projections' rows,
//! the heads), so that a call hands its shares to threads already running instead of starting
//! threads of its own.
//!
//! A thread started each call cost the projections at 768 wide its start and exit (a new
//! stack mapped and unmapped), a look-up of the processor count in the kernel's files, and
//! buffers fresh from the kernel whenever it kept any (perf: together about a tenth of their
//! time). The workers start on the first call and live as long as the process, each keeping
//! its own thread-local buffers from one call to the next. They wait on a channel, so they
//! hold nothing at exit: the process ends without joining them, and a test run ends as before.
//!
//! Std only: a channel a worker for its shares and one back for each share's outcome. A share
//! borrows the caller's data, which is sound because [`on_threads`] returns only when every
//! share it handed out has finished (a panic included), as [`std::thread::scope`] does.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Mutex, OnceLock};

/// The threads a call may use: the processor's, counted once.
#[must_use]
pub fn threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// Runs `share(0)`, `share(1)`, … `share(shares - 1)`, share 0 on the calling thread and the
/// others on the workers (more shares than workers, or workers busy with another caller's
/// shares: the rest on the calling thread, one after another), and returns when all have
/// finished. Which thread runs a share changes nothing the shares compute.
///
/// # Panics
/// When a share panics: the first panic is raised again here, after every share has finished
/// (the workers live on for the next call).
pub fn on_threads(shares: usize, share: &(dyn Fn(usize) + Sync)) {
    let pool = POOL.get_or_init(Pool::start);
    // Busy with another caller's shares (or poisoned, which only an abort could leave): this
    // call's shares all run here.
    let workers = match pool.workers.try_lock() {
        Ok(workers) if shares > 1 => workers,
        _ => {
            (0..shares).for_each(share);
            return;
        }
    };
    #[expect(
        unsafe_code,
        reason = "a share borrowing the caller's data, run on a worker while the caller waits"
    )]
    // SAFETY: only the lifetime changes. Every worker sent `task` is waited for below before
    // this function returns or unwinds (the calling thread's own shares run under
    // `catch_unwind`, and nothing else between the sends and the waits can panic), so no
    // worker uses `share` after the borrow ends; a worker that has gone has dropped it.
    let task: Task = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), Task>(share) };
    let sent: Vec<(&Worker, usize)> = workers
        .iter()
        .zip(1..shares)
        .filter(|(worker, index)| worker.tasks.send((task, *index)).is_ok())
        .collect();
    let mine = panic::catch_unwind(AssertUnwindSafe(|| {
        (0..shares)
            .filter(|index| !sent.iter().any(|(_, handed)| handed == index))
            .for_each(share);
    }));
    let mut panicked = mine.err();
    for (worker, _) in sent {
        // A worker that has gone (its end of the channel dropped) no longer holds the share.
        if let Ok(Err(payload)) = worker.done.recv() {
            panicked.get_or_insert(payload);
        }
    }
    drop(workers);
    if let Some(payload) = panicked {
        panic::resume_unwind(payload);
    }
}

/// A share as a worker receives it.
type Task = &'static (dyn Fn(usize) + Sync);

/// The workers, started on the first call.
static POOL: OnceLock<Pool> = OnceLock::new();

/// One worker fewer than [`threads`]: the calling thread takes a share too.
struct Pool {
    /// Held by the call whose shares they run.
    workers: Mutex<Vec<Worker>>,
}

/// A worker thread's two ends: shares to run, and how each went.
struct Worker {
    /// The share and its index.
    tasks: Sender<(Task, usize)>,
    /// Each share's outcome: the panic's payload if it panicked.
    done: Receiver<Result<(), Box<dyn Any + Send>>>,
}

impl Pool {
    /// Starts the workers (as many as start: a thread that cannot be started leaves its
    /// shares to the caller).
    fn start() -> Self {
        let workers = (1..threads()).filter_map(|index| Worker::start(index).ok());
        Self {
            workers: Mutex::new(workers.collect()),
        }
    }
}

impl Worker {
    /// A thread that runs each share it is sent and says how it went, until the pool goes.
    fn start(index: usize) -> std::io::Result<Self> {
        let (tasks, inbox) = channel::<(Task, usize)>();
        let (outcome, done) = channel();
        std::thread::Builder::new()
            .name(format!("layer0-worker-{index}"))
            .spawn(move || {
                for (task, index) in inbox {
                    let result = panic::catch_unwind(AssertUnwindSafe(|| task(index)));
                    if outcome.send(result).is_err() {
                        break;
                    }
                }
            })?;
        Ok(Self { tasks, done })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Each share adds its index plus one to its slot; every slot is written once.
    fn run(shares: usize) -> Vec<usize> {
        let slots: Vec<AtomicUsize> = (0..shares).map(|_| AtomicUsize::new(0)).collect();
        on_threads(shares, &|index| {
            slots[index].fetch_add(index + 1, Ordering::Relaxed);
        });
        slots.into_iter().map(AtomicUsize::into_inner).collect()
    }

    #[test]
    fn every_share_runs_once_call_after_call() {
        for call in 0..2_000 {
            let shares = 1 + call % 5;
            assert_eq!(run(shares), (1..=shares).collect::<Vec<_>>());
        }
        assert!(run(0).is_empty());
    }

    #[test]
    fn calls_from_two_threads_at_once_each_get_their_own_shares() {
        std::thread::scope(|scope| {
            let callers: Vec<_> = (0..2)
                .map(|_| {
                    scope.spawn(|| {
                        for call in 0..1_000 {
                            let shares = 2 + call % 3;
                            assert_eq!(run(shares), (1..=shares).collect::<Vec<_>>());
                        }
                    })
                })
                .collect();
            for caller in callers {
                caller.join().expect("no share goes astray");
            }
        });
    }

    #[test]
    fn a_panic_in_a_share_reaches_the_caller_and_the_workers_live_on() {
        for panicking in 0..3 {
            let finished = AtomicUsize::new(0);
            let caught = panic::catch_unwind(AssertUnwindSafe(|| {
                on_threads(3, &|index| {
                    assert!(index != panicking, "share {index} panics");
                    finished.fetch_add(1, Ordering::Relaxed);
                });
            }));
            let message = caught.expect_err("the panic reaches the caller");
            assert_eq!(
                message.downcast_ref::<String>().map(String::as_str),
                Some(format!("share {panicking} panics").as_str())
            );
            // Every share handed to a worker had finished when the panic reached the caller
            // (the caller's own shares stop at the panic): none runs afterwards.
            let when_caught = finished.load(Ordering::Relaxed);
            assert!(when_caught <= 2);
            assert_eq!(run(4), [1, 2, 3, 4]);
            assert_eq!(finished.into_inner(), when_caught);
        }
    }
}
