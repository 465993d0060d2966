//! `--timings`: how long each stage of a subcommand took, as one line on standard error.

use std::time::{Duration, Instant};

/// Times consecutive stages: each lap ends one stage and starts the next.
pub(super) struct Stopwatch {
    stages: Vec<(&'static str, Duration)>,
    since: Instant,
}

impl Stopwatch {
    /// Starts timing the first stage.
    pub(super) fn start() -> Self {
        Self {
            stages: Vec::new(),
            since: Instant::now(),
        }
    }

    /// Ends the stage called `name` now.
    pub(super) fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.stages.push((name, now - self.since));
        self.since = now;
    }

    /// Adds a stage timed elsewhere (inside the core's computation) that ended just now; the
    /// next stage starts now.
    pub(super) fn add(&mut self, name: &'static str, took: Duration) {
        self.stages.push((name, took));
        self.since = Instant::now();
    }

    /// `timings: open 12.345 ms, scan 6.789 ms, print 0.012 ms, total 19.146 ms`.
    pub(super) fn line(&self) -> String {
        let total: Duration = self.stages.iter().map(|(_, took)| *took).sum();
        let stages: Vec<String> = self
            .stages
            .iter()
            .chain([&("total", total)])
            .map(|(name, took)| format!("{name} {:.3} ms", took.as_secs_f64() * 1000.0))
            .collect();
        format!("timings: {}", stages.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_each_stage_in_order_then_the_total() {
        let mut stopwatch = Stopwatch::start();
        stopwatch.lap("open");
        stopwatch.add("scan", Duration::from_micros(1500));
        let line = stopwatch.line();
        assert!(line.starts_with("timings: open "), "{line}");
        assert!(line.contains(", scan 1.500 ms, total "), "{line}");
        assert!(line.ends_with(" ms"), "{line}");
    }
}
