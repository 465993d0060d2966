//! Input a hostile user would try, through the real binary: each run is bounded in time and
//! memory by the test itself, and must end with a clear message and an exit code, never a
//! panic, an abort or a hang.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// The address space each run may take, in KiB (`ulimit -v`): 1 GiB, far more than any of
/// these runs needs, far less than the allocations they used to attempt.
const MEMORY_LIMIT_KIB: u64 = 1 << 20;
/// How long each run may take: generous, as debug builds on a loaded machine are slow.
const TIMEOUT: Duration = Duration::from_secs(20);

/// How a bounded run ended.
struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Run {
    /// Checks the run failed with exit code 1 and a message naming `needle`; returns the message.
    fn assert_refused(&self, needle: &str) -> &str {
        assert_eq!(
            self.status.code(),
            Some(1),
            "expected a refusal (exit 1), got {}; stderr:\n{}",
            self.status,
            self.stderr
        );
        assert!(
            self.stderr.starts_with("embedlens: ") && self.stderr.contains(needle),
            "the message should name {needle:?}:\n{}",
            self.stderr
        );
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
        &self.stderr
    }
}

/// Reads a child's pipe to the end on a thread, so a full pipe never blocks the child.
fn drain(pipe: Option<impl Read + Send + 'static>) -> JoinHandle<String> {
    let mut pipe = pipe.expect("the pipe was requested");
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Waits for the child, killing it and failing the test after [`TIMEOUT`].
fn wait_bounded(child: &mut Child, what: &str) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            return status;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {TIMEOUT:?}");
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `embedlens args…` under [`MEMORY_LIMIT_KIB`] and [`TIMEOUT`], with `stderr` as given
/// by `redirect` (a shell redirection such as `2>/dev/full`, or empty).
fn run_redirected(args: &[&str], redirect: &str) -> Run {
    let script = format!("ulimit -v \"$1\" || exit 99; shift; exec \"$@\" {redirect}");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("sh")
        .arg(MEMORY_LIMIT_KIB.to_string())
        .arg(env!("CARGO_BIN_EXE_embedlens"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh starts");
    let (stdout, stderr) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let status = wait_bounded(&mut child, &format!("embedlens {args:?}"));
    Run {
        status,
        stdout: stdout.join().expect("stdout is read"),
        stderr: stderr.join().expect("stderr is read"),
    }
}

/// Runs `embedlens args…` under [`MEMORY_LIMIT_KIB`] and [`TIMEOUT`].
fn run(args: &[&str]) -> Run {
    run_redirected(args, "")
}

#[test]
fn a_shape_too_large_to_make_is_refused_with_the_limit() {
    for args in [
        &["lookup", "--shape", "100000000x100000000", "--ids", "0"][..],
        &["lookup", "--shape", "4294967296x4294967297", "--ids", "0"][..],
        &["matrix", "--shape", "70000x4096"][..],
        &[
            "lookup",
            "--shape",
            "6x3",
            "--context-length",
            "300000000000",
            "--ids",
            "0",
        ][..],
    ] {
        let run = run(args);
        run.assert_refused("embedlens generates at most 268435456 (1 GiB of float32)");
        assert!(run.stdout.is_empty(), "{args:?} wrote {}", run.stdout);
    }
    let run = run(&["lookup", "--shape", "100000000x100000000", "--ids", "0"]);
    assert!(
        run.stderr.contains("100000000x100000000") && run.stderr.contains("40 PB"),
        "the message names the shape and its size: {}",
        run.stderr
    );
}

#[test]
fn a_shape_within_the_limit_still_works_under_the_memory_limit() {
    let run = run(&["lookup", "--shape", "6x3", "--ids", "5"]);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(
        run.stdout.contains("-2.8400 -0.7849 -1.4096"),
        "{}",
        run.stdout
    );
}

#[test]
fn an_error_written_to_a_full_disk_still_exits_with_its_code() {
    // A failure of the subcommand, and a usage error from the argument parser.
    let refused = run_redirected(&["lookup", "--shape", "6x3", "--ids", "99"], "2>/dev/full");
    assert_eq!(refused.status.code(), Some(1), "{}", refused.status);
    let usage = run_redirected(&["--no-such-option"], "2>/dev/full");
    assert_eq!(usage.status.code(), Some(2), "{}", usage.status);
}

#[test]
fn output_to_a_full_disk_is_an_error_that_says_so() {
    for args in [
        &["lookup", "fox bites the fox"][..],
        &["matrix", "--vocab", "words"][..],
    ] {
        let run = run_redirected(args, ">/dev/full");
        run.assert_refused("No space left on device");
    }
}

#[test]
fn options_before_a_subcommand_are_its_own() {
    let before = run(&["--vocab", "words", "matrix", "--format", "csv"]);
    let after = run(&["matrix", "--vocab", "words", "--format", "csv"]);
    assert!(before.status.success(), "{}", before.stderr);
    assert_eq!(before.stdout, after.stdout);
    assert!(before.stdout.lines().count() > 2000, "the words matrix");
    // An option only the explorer has is named, not taken for a sentence.
    let explorer_only = run(&["--lesson", "matrix"]);
    assert_eq!(
        explorer_only.status.code(),
        Some(2),
        "{}",
        explorer_only.stderr
    );
    assert!(
        explorer_only.stderr.contains("'--lesson'"),
        "{}",
        explorer_only.stderr
    );
    // After `--`, "matrix" is the sentence to explore (and there is no terminal here).
    run(&["--vocab", "words", "--", "matrix"]).assert_refused("needs a terminal");
}
