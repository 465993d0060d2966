//! The explorer on the largest tables: a 256,000 × 2,048 bf16 token table (1 GiB, Gemma's
//! shape) with a 1,024-row learned position table, written by this benchmark into a temp dir.
//!
//! - `key_to_frame/<pane>`: one key press (a step to the next or previous token) through
//!   `update`, the derive step and a draw on a 120×40 `TestBackend`, with each pane open. The
//!   target is 16 ms: whole-matrix work belongs on a worker, never on the key path.
//! - `nearest_rows/*`: the similarity pane's exact nearest rows over the whole table for the
//!   token vector, for the token + position vector, and for both in one pass (what the explorer
//!   asks at every step), beside the mapped read of the table's bytes (`common::sum_bytes`: two
//!   threads over the warm mapping, the read `benches/layer0.rs` measures too) in the same run.
//!   The target is 1.5 × the read.

use std::fs::File;
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use embedlens::app::{App, Options};
use embedlens::core::analysis::similarity::{nearest_rows, nearest_rows_each};
use embedlens::core::files::{FileSource, OpenOptions, open};
use embedlens::core::tables::weights::EmbeddingModel;
use half::bf16;
use ndarray::Array1;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

mod common;
use common::sum_bytes;

/// Rows of the token table.
const ROWS: usize = 256_000;
/// Its width.
const DIMS: usize = 2048;
/// Rows of the learned position table.
const POSITIONS: usize = 1024;
/// Ids, since the file carries no tokenizer.
const SENTENCE: &str = "3 1 4 1 5 9 2 6";
/// The nearest rows the similarity pane lists.
const NEAREST: usize = 5;

/// A cheap deterministic value for element `index`, spread over [-2, 2).
fn pattern(index: usize) -> f32 {
    let mixed = (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52;
    #[expect(clippy::cast_precision_loss, reason = "a 12-bit number")]
    let unit = mixed as f32 / 4096.0;
    (unit - 0.5) * 4.0
}

/// Writes the checkpoint, a GPT-2-style pair of bf16 tables, streaming so no table is whole
/// in memory; returns where the token table's bytes start in the file.
fn write_checkpoint(path: &Path) -> std::io::Result<u64> {
    let token_bytes = ROWS * DIMS * 2;
    let position_bytes = POSITIONS * DIMS * 2;
    let mut header = format!(
        r#"{{"wte.weight":{{"dtype":"BF16","shape":[{ROWS},{DIMS}],"data_offsets":[0,{token_bytes}]}},"wpe.weight":{{"dtype":"BF16","shape":[{POSITIONS},{DIMS}],"data_offsets":[{token_bytes},{}]}}}}"#,
        token_bytes + position_bytes
    )
    .into_bytes();
    header.resize(header.len().next_multiple_of(8), b' ');
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    out.write_all(&(header.len() as u64).to_le_bytes())?;
    out.write_all(&header)?;
    let mut chunk = Vec::with_capacity(DIMS * 2);
    for row in 0..ROWS + POSITIONS {
        chunk.clear();
        for dim in 0..DIMS {
            chunk.extend_from_slice(&bf16::from_f32(pattern(row * DIMS + dim)).to_le_bytes());
        }
        out.write_all(&chunk)?;
    }
    out.flush()?;
    Ok(8 + header.len() as u64)
}

/// The file mapped, as the model's own tables are, for the mapped read.
fn mapped(path: &Path) -> memmap2::Mmap {
    let file = File::open(path).expect("the checkpoint opens");
    #[expect(
        unsafe_code,
        reason = "mapping a file this benchmark wrote and nobody changes"
    )]
    // SAFETY: the file is the benchmark's own; nothing truncates it while it is mapped.
    unsafe { memmap2::Mmap::map(&file) }.expect("the checkpoint maps")
}

fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// The explorer on `model` with its cursor on the tokens and `pane` open (`None`: lookups).
fn explorer(model: &EmbeddingModel, pane: Option<char>) -> App {
    let mut app = App::new(Options {
        sentence: SENTENCE.to_owned(),
        model: Some(model.clone()),
        ..Options::default()
    });
    app.handle_event(&key(KeyCode::Enter));
    if let Some(pane) = pane {
        app.handle_event(&key(KeyCode::Char(pane)));
    }
    app
}

fn benchmarks(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("gemma-shaped-256000x2048-bf16.safetensors");
    let table_start = write_checkpoint(&path).expect("the checkpoint is written");
    let model = open(&FileSource::path(&path), &OpenOptions::default())
        .map(|opened| opened.model)
        .expect("the checkpoint opens");

    let mut keys = c.benchmark_group("key_to_frame");
    keys.sample_size(50);
    for (name, pane) in [
        ("lookups", None),
        ("attention", Some('a')),
        ("similarity", Some('s')),
        ("one_hot", Some('o')),
        ("position_table", Some('t')),
        ("picture", Some('g')),
    ] {
        let mut app = explorer(&model, pane);
        let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("a test backend");
        let mut forward = true;
        keys.bench_function(name, |b| {
            b.iter(|| {
                // Back and forth over the sentence, so every press is a new token.
                let code = if forward {
                    KeyCode::Right
                } else {
                    KeyCode::Left
                };
                app.handle_event(&key(code));
                forward = !forward;
                terminal
                    .draw(|frame| frame.render_widget(&app, frame.area()))
                    .expect("a frame");
                black_box(terminal.backend().buffer().area);
            });
        });
    }
    keys.finish();

    let table = model.token_table();
    let token: Array1<f32> = model.lookup(4).expect("row 4");
    let position = model
        .position_table()
        .and_then(|table| table.row(2))
        .expect("position 2");
    let input = &token + &position;
    let mut nearest = c.benchmark_group("nearest_rows");
    nearest
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    let file = mapped(&path);
    let start = usize::try_from(table_start).expect("a small header");
    let table_bytes = &file[start..start + ROWS * DIMS * 2];
    nearest.bench_function("mapped_read_of_the_table", |b| {
        b.iter(|| black_box(sum_bytes(table_bytes)));
    });
    nearest.bench_function("token_vector", |b| {
        b.iter(|| black_box(nearest_rows(table, token.view(), NEAREST)));
    });
    nearest.bench_function("token_plus_position", |b| {
        b.iter(|| black_box(nearest_rows(table, input.view(), NEAREST)));
    });
    nearest.bench_function("both_in_one_pass", |b| {
        let both = [token.view(), input.view()];
        b.iter(|| black_box(nearest_rows_each(table, &both, NEAREST)));
    });
    nearest.finish();
}

criterion_group!(benches, benchmarks);
criterion_main!(benches);
