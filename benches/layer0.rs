//! Layer 0 and the nearest-rows scan against this machine's own limits, measured in the same
//! run, so the figures carry their own yardstick (run it whole: `cargo bench --bench layer0`).
//!
//! - `bounds/fma`: two threads, each doing fused multiply-adds only, into independent
//!   accumulators held in registers (24 of 16 float32 lanes with AVX-512, 12 of 8 with AVX2
//!   and FMA): the most multiply-adds a second this machine does.
//! - `bounds/mapped read`: a 1 GiB file mapped with memmap2 and summed by two threads, eight
//!   bytes at a time: the fastest this machine reads a mapped table.
//! - `layer0/*`: the model's own layer 0 at three widths, a 64-token sentence through a
//!   Llama-style first attention layer 768 wide (12 heads, BERT's and GPT-2's width: a block of
//!   512 and a shorter one), 1024 wide (16 heads) and 4096 wide (32 query heads, 8 key/value
//!   heads), bf16, on checkpoints the benchmark writes once under `target/bench-models`. The
//!   file is opened before timing; the figure is the layer itself (norm, projections read in
//!   place, RoPE, every head), and the projections' own time is taken from the layer's stage
//!   times in the same iterations.
//! - `nearest_rows/*`: the exact nearest rows over the mapped file as a 256,000 × 2,048 bf16
//!   table (Gemma's shape), as the similarity pane and `embedlens nearest` compute them: once
//!   with the rows on cache-line boundaries (the table from byte 0), once with every row 56
//!   bytes past one (from byte 56, as a table inside a safetensors file can lie).
//!
//! - `paired`: after criterion's samples, rounds of the FMA loop and of layer 0 alternate back
//!   to back on the same two threads, for a few seconds a width: each layer's projections are
//!   divided by the time their multiply-adds take at the rate of the FMA rounds just before
//!   and just after them. This host's other guests move the FMA rate by a third from one
//!   minute to the next (144–212 billion a second), so a ratio of two medians taken minutes
//!   apart measures them as much as the code; a ratio taken within milliseconds does not.
//!
//! After criterion's figures, `ratio` lines give the projections and the whole layer as
//! multiples of the FMA bound (the layer's multiply-adds at the measured rate), and the scan
//! as a multiple of the mapped read, from the medians of the same samples; `paired` lines give
//! the median and range of the per-round ratios, and the FMA loop's rate beside the peak that
//! the clock the kernel reports allows (2 cores × 2 FMA pipes × 16 float32 lanes × clock).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, criterion_group, criterion_main};
use embedlens::core::analysis::layer0::Layer0;
use embedlens::core::analysis::similarity::nearest_rows;
use embedlens::core::files::{FileSource, OpenOptions, open};
use embedlens::core::tables::table::{Dtype, Table};
use half::bf16;

mod common;
use common::{THREADS, sum_bytes};

const VOCABULARY: usize = 1024;
const TOKENS: usize = 64;

/// A layer's shape: its width and its query and key/value heads.
#[derive(Clone, Copy)]
struct Shape {
    hidden: usize,
    heads: usize,
    kv_heads: usize,
}

/// The widths measured.
const SHAPES: [Shape; 3] = [
    Shape {
        hidden: 768,
        heads: 12,
        kv_heads: 12,
    },
    Shape {
        hidden: 1024,
        heads: 16,
        kv_heads: 16,
    },
    Shape {
        hidden: 4096,
        heads: 32,
        kv_heads: 8,
    },
];

/// The tensors of the checkpoint: name and shape.
fn tensors(shape: Shape) -> Vec<(&'static str, Vec<usize>)> {
    let Shape {
        hidden,
        heads,
        kv_heads,
    } = shape;
    let head_dims = hidden / heads;
    vec![
        ("model.embed_tokens.weight", vec![VOCABULARY, hidden]),
        ("model.layers.0.input_layernorm.weight", vec![hidden]),
        (
            "model.layers.0.self_attn.q_proj.weight",
            vec![heads * head_dims, hidden],
        ),
        (
            "model.layers.0.self_attn.k_proj.weight",
            vec![kv_heads * head_dims, hidden],
        ),
        (
            "model.layers.0.self_attn.v_proj.weight",
            vec![kv_heads * head_dims, hidden],
        ),
    ]
}

/// A deterministic, well-spread value for element `index` of tensor `tensor`.
fn value(tensor: usize, index: usize) -> f32 {
    let mixed = (index as u64 ^ ((tensor as u64) << 40)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    #[expect(clippy::cast_precision_loss, reason = "a 24-bit fraction")]
    let unit = (mixed >> 40) as f32 / (1u64 << 24) as f32;
    (unit - 0.5) * 0.1
}

/// Writes the checkpoint folder (model.safetensors and config.json) unless it is there.
fn checkpoint(shape: Shape) -> PathBuf {
    let Shape {
        hidden,
        heads,
        kv_heads,
    } = shape;
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("target/bench-models/layer0-{hidden}-bf16"));
    let file = folder.join("model.safetensors");
    let tensors = tensors(shape);
    let data: usize = tensors
        .iter()
        .map(|(_, shape)| shape.iter().product::<usize>() * 2)
        .sum();
    let mut header = String::from("{");
    let mut offset = 0;
    for (index, (name, shape)) in tensors.iter().enumerate() {
        let bytes = shape.iter().product::<usize>() * 2;
        let dims: Vec<String> = shape.iter().map(ToString::to_string).collect();
        if index > 0 {
            header.push(',');
        }
        let _ = write!(
            header,
            "\"{name}\":{{\"dtype\":\"BF16\",\"shape\":[{}],\"data_offsets\":[{offset},{}]}}",
            dims.join(","),
            offset + bytes
        );
        offset += bytes;
    }
    header.push('}');
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    let expected = 8 + header.len() + data;
    if fs::metadata(&file).is_ok_and(|meta| meta.len() == expected as u64) {
        return folder;
    }
    fs::create_dir_all(&folder).expect("target/bench-models can be made");
    let mut out = BufWriter::new(File::create(&file).expect("the checkpoint can be written"));
    out.write_all(&(header.len() as u64).to_le_bytes()).unwrap();
    out.write_all(header.as_bytes()).unwrap();
    for (tensor, (_, shape)) in tensors.iter().enumerate() {
        for index in 0..shape.iter().product::<usize>() {
            let number = if tensor == 1 {
                1.0 + value(tensor, index)
            } else {
                value(tensor, index)
            };
            out.write_all(&bf16::from_f32(number).to_le_bytes())
                .unwrap();
        }
    }
    out.flush().unwrap();
    fs::write(
        folder.join("config.json"),
        format!(
            "{{\"model_type\":\"llama\",\"hidden_size\":{hidden},\"num_attention_heads\":{heads},\
             \"num_key_value_heads\":{kv_heads},\"rms_norm_eps\":1e-5,\"rope_theta\":500000.0,\
             \"max_position_embeddings\":8192}}"
        ),
    )
    .unwrap();
    folder
}

/// Rows of the nearest-rows table.
const TABLE_ROWS: usize = 256_000;
/// Its width.
const TABLE_DIMS: usize = 2048;

/// The nearest-rows benchmark's name.
const SCAN: &str = "256000x2048 bf16, top 5";

/// The same scan with the rows [`SHIFT`] bytes past a cache line's start, as a safetensors
/// file's table lies (8 bytes of length and a header padded to 8; `benches/scale.rs` writes
/// one whose rows start 56 bytes past a line's start).
const SCAN_SHIFTED: &str = "256000x2048 bf16, top 5, rows 56 bytes past a cache line";

/// Where the shifted table's rows start, in bytes: a multiple of 8 that is not of 64.
const SHIFT: usize = 56;

/// Per-iteration times taken from criterion's own samples, by name, so that a figure can be
/// given as a multiple of a bound measured in the same run.
#[derive(Default)]
struct Samples(RefCell<BTreeMap<String, Vec<Duration>>>);

impl Samples {
    /// Records `total` over `iterations` iterations of `name`.
    fn record(&self, name: &str, total: Duration, iterations: u64) {
        let each = total / u32::try_from(iterations.max(1)).unwrap_or(u32::MAX);
        self.0
            .borrow_mut()
            .entry(name.to_owned())
            .or_default()
            .push(each);
    }

    /// The median time of one iteration of `name`, when this run measured it.
    fn median(&self, name: &str) -> Option<Duration> {
        let mut times = self.0.borrow().get(name)?.clone();
        times.sort();
        Some(times[times.len() / 2])
    }

    /// Records the wall time and the process's CPU time (`cpu NAME`) of `iterations`
    /// iterations of `name` that started at `started` with `cpu` used.
    fn record_both(&self, name: &str, (started, cpu): (Instant, Duration), iterations: u64) {
        self.record(name, started.elapsed(), iterations);
        let used = cpu_time().saturating_sub(cpu);
        self.record(&format!("cpu {name}"), used, iterations);
    }

    /// Criterion's benchmark `name` of `work`, each sample also recorded here.
    fn bench<R>(
        &self,
        group: &mut BenchmarkGroup<'_, WallTime>,
        name: &str,
        mut work: impl FnMut() -> R,
    ) {
        group.bench_function(name, |b| {
            b.iter_custom(|iterations| {
                let started = (Instant::now(), cpu_time());
                for _ in 0..iterations {
                    black_box(work());
                }
                let total = started.0.elapsed();
                self.record_both(name, started, iterations);
                total
            });
        });
    }
}

/// The CPU time this process has used so far, all its threads together (on a host whose
/// other guests take turns on the same cores, the wall time also counts the turns waited).
fn cpu_time() -> Duration {
    #[cfg(unix)]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        #[expect(unsafe_code, reason = "clock_gettime writes the timespec it is given")]
        // SAFETY: `now` is a timespec the call may write.
        let status = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &raw mut now) };
        if status == 0 {
            return Duration::new(
                u64::try_from(now.tv_sec).unwrap_or(0),
                u32::try_from(now.tv_nsec).unwrap_or(0),
            );
        }
    }
    Duration::ZERO
}

/// Vector multiply-adds each accumulator takes in one [`fma_pass`].
const FMA_STEPS: usize = 1 << 18;

/// Fused multiply-adds only, into as many independent accumulators as the widest vector
/// registers hold without one waiting on another; returns the float32 multiply-adds done.
fn fma_pass() -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            #[expect(unsafe_code, reason = "calling a function compiled for AVX-512F")]
            // SAFETY: AVX-512F was detected just above.
            black_box(unsafe { fma_avx512() });
            return FMA_STEPS * 24 * 16;
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            #[expect(unsafe_code, reason = "calling a function compiled for AVX2 and FMA")]
            // SAFETY: AVX2 and FMA were detected just above.
            black_box(unsafe { fma_avx2() });
            return FMA_STEPS * 12 * 8;
        }
    }
    let mut sums = [0.5f32; 8];
    for _ in 0..FMA_STEPS {
        for sum in &mut sums {
            *sum = sum.mul_add(0.999_9, 1e-4);
        }
    }
    black_box(sums);
    FMA_STEPS * 8
}

/// [`fma_pass`] with 24 accumulators of sixteen float32 lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn fma_avx512() -> f32 {
    use std::arch::x86_64::{_mm512_add_ps, _mm512_fmadd_ps, _mm512_reduce_add_ps, _mm512_set1_ps};
    let (scale, step) = (_mm512_set1_ps(0.999_9), _mm512_set1_ps(1e-4));
    let mut sums = [_mm512_set1_ps(0.5); 24];
    for _ in 0..FMA_STEPS {
        for sum in &mut sums {
            *sum = _mm512_fmadd_ps(*sum, scale, step);
        }
    }
    _mm512_reduce_add_ps(
        sums.into_iter()
            .reduce(|a, b| _mm512_add_ps(a, b))
            .expect("sums"),
    )
}

/// [`fma_pass`] with 12 accumulators of eight float32 lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn fma_avx2() -> [f32; 8] {
    use std::arch::x86_64::{_mm256_add_ps, _mm256_fmadd_ps, _mm256_set1_ps, _mm256_storeu_ps};
    let (scale, step) = (_mm256_set1_ps(0.999_9), _mm256_set1_ps(1e-4));
    let mut sums = [_mm256_set1_ps(0.5); 12];
    for _ in 0..FMA_STEPS {
        for sum in &mut sums {
            *sum = _mm256_fmadd_ps(*sum, scale, step);
        }
    }
    let total = sums
        .into_iter()
        .reduce(|a, b| _mm256_add_ps(a, b))
        .expect("sums");
    let mut lanes = [0.0; 8];
    #[expect(unsafe_code, reason = "a store of eight lanes into an array of eight")]
    // SAFETY: `lanes` holds eight float32s.
    unsafe {
        _mm256_storeu_ps(lanes.as_mut_ptr(), total);
    }
    lanes
}

/// `work` on [`THREADS`] threads at once; the sum of what they return.
fn on_every_thread(work: impl Fn() -> usize + Sync) -> usize {
    std::thread::scope(|scope| {
        let others: Vec<_> = (1..THREADS).map(|_| scope.spawn(&work)).collect();
        work()
            + others
                .into_iter()
                .map(|other| other.join().expect("no panic"))
                .sum::<usize>()
    })
}

/// Writes the nearest-rows table (bf16, row after row, no header) unless it is there, and
/// maps it.
fn mapped_table() -> Arc<memmap2::Mmap> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "target/bench-models/nearest-{TABLE_ROWS}x{TABLE_DIMS}.bf16"
    ));
    let size = TABLE_ROWS * TABLE_DIMS * 2;
    if !fs::metadata(&path).is_ok_and(|meta| meta.len() == size as u64) {
        fs::create_dir_all(path.parent().expect("a folder")).expect("the folder can be made");
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&path).expect("written"));
        let mut row = Vec::with_capacity(TABLE_DIMS * 2);
        for index in 0..TABLE_ROWS {
            row.clear();
            for dim in 0..TABLE_DIMS {
                row.extend_from_slice(
                    &bf16::from_f32(value(2, index * TABLE_DIMS + dim)).to_le_bytes(),
                );
            }
            out.write_all(&row).expect("written");
        }
        out.flush().expect("written");
    }
    let file = File::open(&path).expect("the table opens");
    #[expect(
        unsafe_code,
        reason = "mapping a file this benchmark wrote and nobody changes"
    )]
    // SAFETY: the file is the benchmark's own; nothing truncates it while it is mapped.
    let mapped = unsafe { memmap2::Mmap::map(&file) }.expect("the table maps");
    Arc::new(mapped)
}

/// One `ratio` line: `what` took `time`, a multiple of `bound` (both in milliseconds).
fn print_ratio(what: &str, time: Duration, bound: Duration, of: &str) {
    println!(
        "ratio  {what}: {:.2} × {of} ({:.2} ms against {:.2} ms)",
        time.as_secs_f64() / bound.as_secs_f64(),
        time.as_secs_f64() * 1e3,
        bound.as_secs_f64() * 1e3
    );
}

/// A criterion group of ten samples, `seconds` long.
fn group<'a>(c: &'a mut Criterion, name: &str, seconds: u64) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(seconds));
    group
}

/// Layer 0 at each width, the projections' own time recorded beside the layer's, then its
/// paired rounds (into `paired`); returns each width's multiply-adds.
fn layers(
    c: &mut Criterion,
    samples: &Samples,
    paired: &mut Vec<(usize, Vec<Round>)>,
) -> Vec<(usize, usize)> {
    let ids: Vec<usize> = (0..TOKENS).map(|i| (i * 37) % VOCABULARY).collect();
    let mut group = group(c, "layer0", 5);
    let mut work = Vec::new();
    for shape in SHAPES {
        let Shape {
            hidden,
            heads,
            kv_heads,
        } = shape;
        let layer = open(
            &FileSource::path(checkpoint(shape)),
            &OpenOptions::default(),
        )
        .map(|opened| opened.layer0)
        .expect("the checkpoint opens")
        .expect("it has a layer 0");
        let multiply_adds = layer.projection_work(TOKENS);
        work.push((hidden, multiply_adds));
        let name = format!("{TOKENS} tokens, {hidden} wide, {heads}/{kv_heads} heads, bf16");
        group.bench_function(&name, |b| {
            b.iter_custom(|iterations| {
                let mut projections = Duration::ZERO;
                let started = (Instant::now(), cpu_time());
                for _ in 0..iterations {
                    let (run, times) = layer.run_timed(black_box(&ids), true).expect("it runs");
                    projections += times.projections;
                    black_box(run);
                }
                let total = started.0.elapsed();
                samples.record_both(&format!("layer {hidden}"), started, iterations);
                samples.record(&format!("projections {hidden}"), projections, iterations);
                total
            });
        });
        // Only for a width criterion measured (not filtered out).
        if samples.median(&format!("layer {hidden}")).is_some() {
            paired.push((hidden, paired_rounds(&layer, &ids, multiply_adds)));
        }
    }
    group.finish();
    work
}

/// How long the paired rounds of one width run, at least.
const PAIRED_SECONDS: f64 = 4.0;

/// Rounds of one width, at least.
const PAIRED_ROUNDS: usize = 30;

/// One paired round: the projections' time as a multiple of the time their multiply-adds take
/// at the FMA rate measured around them, and that rate (multiply-adds a second).
struct Round {
    ratio: f64,
    rate: f64,
}

/// The FMA loop on [`THREADS`] threads, `passes` passes each, timed from when every thread is
/// running (a barrier) to the last one's end: the multiply-adds a second. The layer hands its
/// work to threads already running, so starting the threads is not in either time (it was in
/// this one while the layer started its own).
#[expect(clippy::cast_precision_loss, reason = "counts to three figures")]
fn fma_rate(passes: usize) -> f64 {
    let barrier = Barrier::new(THREADS);
    let timed = || {
        barrier.wait();
        let started = Instant::now();
        let done: usize = (0..passes).map(|_| fma_pass()).sum();
        (done, started, Instant::now())
    };
    let runs: Vec<(usize, Instant, Instant)> = std::thread::scope(|scope| {
        let others: Vec<_> = (1..THREADS).map(|_| scope.spawn(timed)).collect();
        let mine = timed();
        let others = others
            .into_iter()
            .map(|other| other.join().expect("no panic"));
        std::iter::once(mine).chain(others).collect()
    });
    let done: usize = runs.iter().map(|run| run.0).sum();
    let started = runs.iter().map(|run| run.1).min().expect("a thread");
    let ended = runs.iter().map(|run| run.2).max().expect("a thread");
    done as f64 / (ended - started).as_secs_f64()
}

/// Rounds of the FMA loop and of the layer in turn, back to back on the same threads: each
/// layer run's projections against the mean rate of the FMA rounds on either side of it. An
/// FMA round does about as many multiply-adds as the projections (at least one pass a thread),
/// so both take similar slices of the host's time.
#[expect(clippy::cast_precision_loss, reason = "counts to three figures")]
fn paired_rounds(layer: &Layer0, ids: &[usize], multiply_adds: usize) -> Vec<Round> {
    let per_pass = on_every_thread(fma_pass);
    let passes = (multiply_adds / per_pass).max(1);
    let started = Instant::now();
    let mut rounds = Vec::new();
    let mut before = fma_rate(passes);
    while rounds.len() < PAIRED_ROUNDS || started.elapsed().as_secs_f64() < PAIRED_SECONDS {
        let (run, times) = layer.run_timed(black_box(ids), true).expect("it runs");
        black_box(run);
        let after = fma_rate(passes);
        let rate = f64::midpoint(before, after);
        let bound = multiply_adds as f64 / rate;
        rounds.push(Round {
            ratio: times.projections.as_secs_f64() / bound,
            rate,
        });
        before = after;
    }
    rounds
}

/// The median, least and greatest of `values`.
fn spread(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    (
        values[values.len() / 2],
        values[0],
        values[values.len() - 1],
    )
}

/// The clock the kernel reports for the first processor, in MHz (a virtual machine's may be
/// its nominal clock, below what the cores reach when they boost).
fn reported_clock() -> Option<f64> {
    let info = fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|line| line.starts_with("cpu MHz"))?
        .split(':')
        .nth(1)?
        .trim()
        .parse()
        .ok()
}

/// The `paired` lines: per width, the median and range of the rounds' ratios and FMA rates,
/// then the peak the reported clock allows.
#[expect(clippy::cast_precision_loss, reason = "counts to three figures")]
fn print_paired(paired: Vec<(usize, Vec<Round>)>) {
    for (hidden, rounds) in paired {
        let count = rounds.len();
        let (rates, ratios): (Vec<f64>, Vec<f64>) = rounds
            .into_iter()
            .map(|round| (round.rate, round.ratio))
            .unzip();
        let (ratio, least, most) = spread(ratios);
        let (rate, slowest, fastest) = spread(rates);
        println!(
            "paired projections, {hidden} wide: {ratio:.2} × the FMA bound (median of {count} \
             rounds, {least:.2}–{most:.2}); FMA loop {:.1} billion a second ({:.1}–{:.1})",
            rate / 1e9,
            slowest / 1e9,
            fastest / 1e9
        );
    }
    if let Some(clock) = reported_clock() {
        // Two FMA pipes of sixteen float32 lanes a core (AVX-512), on every thread's core.
        let peak = THREADS as f64 * 2.0 * 16.0 * clock * 1e6;
        println!(
            "paired peak at the reported clock: {THREADS} cores × 2 FMA pipes × 16 lanes × \
             {clock:.0} MHz = {:.1} billion multiply-adds a second",
            peak / 1e9
        );
    }
}

#[expect(
    clippy::cast_precision_loss,
    reason = "counts printed to three figures"
)]
fn layer0(c: &mut Criterion) {
    let samples = Samples::default();
    let mapped = mapped_table();
    let mut bounds = group(c, "bounds", 3);
    let multiply_adds = on_every_thread(fma_pass);
    samples.bench(&mut bounds, "fma", || on_every_thread(fma_pass));
    samples.bench(&mut bounds, "mapped read", || sum_bytes(&mapped));
    bounds.finish();

    let mut paired = Vec::new();
    let work = layers(c, &samples, &mut paired);

    let table = Table::mapped(mapped.clone(), 0, Dtype::BF16, TABLE_ROWS, TABLE_DIMS)
        .expect("a whole table");
    let query = table.row(4321).expect("a row");
    let mut nearest = group(c, "nearest_rows", 5);
    samples.bench(&mut nearest, SCAN, || nearest_rows(&table, query.view(), 5));
    // One row fewer, so the shifted rows end inside the file.
    let shifted = Table::mapped(
        mapped.clone(),
        SHIFT,
        Dtype::BF16,
        TABLE_ROWS - 1,
        TABLE_DIMS,
    )
    .expect("a whole table");
    samples.bench(&mut nearest, SCAN_SHIFTED, || {
        nearest_rows(&shifted, query.view(), 5)
    });
    nearest.finish();

    let median = |name: &str| samples.median(name);
    if let (Some(fma), Some(fma_cpu)) = (median("fma"), median("cpu fma")) {
        let rate = multiply_adds as f64 / fma.as_secs_f64();
        let cpu_rate = multiply_adds as f64 / fma_cpu.as_secs_f64();
        println!(
            "ratio  FMA bound: {:.1} billion float32 multiply-adds a second on {THREADS} threads",
            rate / 1e9
        );
        for (hidden, work) in work {
            let bound = Duration::from_secs_f64(work as f64 / rate);
            let cpu_bound = Duration::from_secs_f64(work as f64 / cpu_rate);
            let of = format!("the FMA bound of {work} multiply-adds");
            if let Some(time) = median(&format!("projections {hidden}")) {
                print_ratio(&format!("projections, {hidden} wide"), time, bound, &of);
            }
            if let Some(time) = median(&format!("layer {hidden}")) {
                print_ratio(&format!("whole layer, {hidden} wide"), time, bound, &of);
            }
            if let Some(time) = median(&format!("cpu layer {hidden}")) {
                let what = format!("whole layer, {hidden} wide, CPU time");
                print_ratio(&what, time, cpu_bound, &format!("{of}, CPU time"));
            }
        }
    }
    if let (Some(read), Some(scan)) = (median("mapped read"), median(SCAN)) {
        println!(
            "ratio  mapped read: {:.1} GB/s on {THREADS} threads",
            mapped.len() as f64 / read.as_secs_f64() / 1e9
        );
        print_ratio("nearest rows", scan, read, "the mapped read");
        if let Some(shifted) = median(SCAN_SHIFTED) {
            print_ratio(
                "nearest rows, rows 56 bytes past a cache line",
                shifted,
                read,
                "the mapped read",
            );
        }
    }
    print_paired(paired);
    if let (Some(read), Some(scan)) = (median("cpu mapped read"), median(&format!("cpu {SCAN}"))) {
        print_ratio(
            "nearest rows, CPU time",
            scan,
            read,
            "the mapped read's CPU time",
        );
    }
}

criterion_group!(benches, layer0);
criterion_main!(benches);
