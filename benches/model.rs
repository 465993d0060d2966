//! Benchmarks of the explorer at scale: opening model files, drawing frames, key presses.
//!
//! Single-file safetensors checkpoints, from a 6 × 3 toy to Qwen2-0.5B's 272 MB table and a
//! 1 GB file, are written once under `target/bench-models` and reused while their size is
//! right. Opening maps the file and parses only its header, and a frame draws only what is on
//! screen, so neither should grow with the file or the vocabulary.

use std::fs::{self, File};
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use embedlens::app::{App, Options};
use embedlens::core::files::{FileSource, OpenOptions, open};
use half::bf16;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

/// Ids, since the files carry no tokenizer.
const SENTENCE: &str = "3 1 4 1 5";

/// GPT-2's learned position table has 1,024 rows.
const POSITIONS: usize = 1024;

/// How many values are converted before each write to the file.
const CHUNK_VALUES: usize = 1 << 16;

/// How a tensor's values are stored.
#[derive(Clone, Copy)]
enum Dtype {
    F32,
    Bf16,
}

impl Dtype {
    fn name(self) -> &'static str {
        match self {
            Self::F32 => "F32",
            Self::Bf16 => "BF16",
        }
    }

    fn size(self) -> usize {
        match self {
            Self::F32 => 4,
            Self::Bf16 => 2,
        }
    }

    fn push(self, value: f32, bytes: &mut Vec<u8>) {
        match self {
            Self::F32 => bytes.extend_from_slice(&value.to_le_bytes()),
            Self::Bf16 => bytes.extend_from_slice(&bf16::from_f32(value).to_le_bytes()),
        }
    }
}

/// One tensor of a checkpoint to write.
struct TensorSpec {
    name: &'static str,
    rows: usize,
    cols: usize,
}

/// A single-file checkpoint to write, and the name its benchmark reports.
struct ModelSpec {
    label: &'static str,
    file: &'static str,
    dtype: Dtype,
    tensors: Vec<TensorSpec>,
}

impl ModelSpec {
    /// A GPT-2-style file: `wte.weight` and a 1,024-row `wpe.weight`.
    fn gpt2(label: &'static str, file: &'static str, rows: usize, cols: usize) -> Self {
        Self {
            label,
            file,
            dtype: Dtype::F32,
            tensors: vec![
                TensorSpec {
                    name: "wte.weight",
                    rows,
                    cols,
                },
                TensorSpec {
                    name: "wpe.weight",
                    rows: POSITIONS,
                    cols,
                },
            ],
        }
    }

    /// A Llama-style file: one `model.embed_tokens.weight` table, no position table.
    fn rotary(label: &'static str, file: &'static str, rows: usize, cols: usize) -> Self {
        Self {
            label,
            file,
            dtype: Dtype::F32,
            tensors: vec![TensorSpec {
                name: "model.embed_tokens.weight",
                rows,
                cols,
            }],
        }
    }

    /// The JSON header, padded with spaces to a multiple of 8 bytes as `safetensors` writes it.
    fn header(&self) -> Vec<u8> {
        let mut entries = Vec::new();
        let mut offset = 0;
        for tensor in &self.tensors {
            let end = offset + tensor.rows * tensor.cols * self.dtype.size();
            entries.push(format!(
                r#""{}":{{"dtype":"{}","shape":[{},{}],"data_offsets":[{offset},{end}]}}"#,
                tensor.name,
                self.dtype.name(),
                tensor.rows,
                tensor.cols,
            ));
            offset = end;
        }
        let mut header = format!("{{{}}}", entries.join(",")).into_bytes();
        header.resize(header.len().next_multiple_of(8), b' ');
        header
    }

    fn data_len(&self) -> usize {
        self.tensors
            .iter()
            .map(|tensor| tensor.rows * tensor.cols * self.dtype.size())
            .sum()
    }

    fn file_len(&self) -> u64 {
        let len = 8 + self.header().len() + self.data_len();
        u64::try_from(len).expect("a file length fits in u64")
    }

    /// Writes the file by streaming chunks, so no table is ever whole in memory.
    fn write(&self, path: &Path) -> std::io::Result<()> {
        let header = self.header();
        let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
        out.write_all(&(header.len() as u64).to_le_bytes())?;
        out.write_all(&header)?;
        let mut bytes = Vec::with_capacity(CHUNK_VALUES * self.dtype.size());
        for tensor in &self.tensors {
            let values = tensor.rows * tensor.cols;
            for start in (0..values).step_by(CHUNK_VALUES) {
                bytes.clear();
                for index in start..(start + CHUNK_VALUES).min(values) {
                    self.dtype.push(pattern(index), &mut bytes);
                }
                out.write_all(&bytes)?;
            }
        }
        out.into_inner()
            .map_err(std::io::IntoInnerError::into_error)?
            .sync_all()
    }
}

/// A cheap deterministic value for position `index` of a table, in [-2, 2).
fn pattern(index: usize) -> f32 {
    #[expect(clippy::cast_precision_loss, reason = "below 1,000")]
    let step = (index % 1000) as f32;
    (step - 500.0) / 250.0
}

fn specs() -> Vec<ModelSpec> {
    vec![
        ModelSpec::gpt2("6x3 f32", "tiny-6x3-f32.safetensors", 6, 3),
        ModelSpec::gpt2(
            "50257x768 f32",
            "gpt2-50257x768-f32.safetensors",
            50257,
            768,
        ),
        ModelSpec {
            label: "152064x896 bf16",
            file: "qwen2-152064x896-bf16.safetensors",
            dtype: Dtype::Bf16,
            tensors: vec![TensorSpec {
                name: "model.embed_tokens.weight",
                rows: 152_064,
                cols: 896,
            }],
        },
    ]
}

/// The file for `spec`, written now unless one of the right size is already there.
fn ensure_file(dir: &Path, spec: &ModelSpec) -> PathBuf {
    let path = dir.join(spec.file);
    let wanted = spec.file_len();
    if fs::metadata(&path).is_ok_and(|meta| meta.len() == wanted) {
        eprintln!("reusing {} ({wanted} bytes)", path.display());
        return path;
    }
    let started = Instant::now();
    spec.write(&path)
        .unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
    eprintln!(
        "wrote {} ({wanted} bytes) in {:.2?}",
        path.display(),
        started.elapsed()
    );
    path
}

/// Opens the file, explores the ids, and draws one 120 × 40 frame.
fn open_and_draw(path: &Path) -> Terminal<TestBackend> {
    let model = open(&FileSource::path(path), &OpenOptions::default())
        .map(|opened| opened.model)
        .expect("the bench model opens");
    let mut app = App::new(Options {
        sentence: SENTENCE.to_owned(),
        model: Some(model),
        ..Options::default()
    });
    app.handle_event(&Event::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
    terminal
        .draw(|frame| frame.render_widget(&app, frame.area()))
        .expect("draw");
    terminal
}

fn open_first_frame(c: &mut Criterion) {
    let dir = bench_dir();
    let started = Instant::now();
    let files: Vec<(ModelSpec, PathBuf)> = specs()
        .into_iter()
        .map(|spec| {
            let path = ensure_file(&dir, &spec);
            (spec, path)
        })
        .collect();
    eprintln!("model files ready in {:.2?}", started.elapsed());

    let mut group = c.benchmark_group("open + first frame");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (spec, path) in &files {
        group.bench_function(spec.label, |b| b.iter(|| open_and_draw(black_box(path))));
    }
    group.finish();
}

/// Files of 16 MB to 1 GB (f32 rows of 1,024 values), for the time to the first frame by size.
fn size_specs() -> Vec<ModelSpec> {
    vec![
        ModelSpec::rotary("16 MB", "size-16mb.safetensors", 4_096, 1024),
        ModelSpec::rotary("64 MB", "size-64mb.safetensors", 16_384, 1024),
        ModelSpec::rotary("256 MB", "size-256mb.safetensors", 65_536, 1024),
        ModelSpec::rotary("1 GB", "size-1gb.safetensors", 262_144, 1024),
    ]
}

fn bench_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-models");
    fs::create_dir_all(&dir).expect("create target/bench-models");
    dir
}

fn open_by_file_size(c: &mut Criterion) {
    let dir = bench_dir();
    let files: Vec<(ModelSpec, PathBuf)> = size_specs()
        .into_iter()
        .map(|spec| {
            let path = ensure_file(&dir, &spec);
            (spec, path)
        })
        .collect();
    let mut group = c.benchmark_group("open + first frame by file size");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (spec, path) in &files {
        group.bench_function(spec.label, |b| b.iter(|| open_and_draw(black_box(path))));
    }
    group.finish();
}

fn enter() -> Event {
    Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))
}

/// An explorer on `options`, its tables ready, moved to the explorer at the first token.
fn ready_app(options: Options) -> App {
    let mut app = App::new(options);
    while app.waiting_for_tables() {
        std::thread::sleep(Duration::from_millis(10));
        app.update(embedlens::action::Action::Tick);
    }
    app.handle_event(&enter());
    app
}

fn draw(app: &App, terminal: &mut Terminal<TestBackend>) {
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .expect("draw");
}

/// One full 200 × 60 frame for vocabularies from 6 rows to 152,064: it should not grow.
fn frame_by_vocabulary(c: &mut Criterion) {
    use embedlens::core::text::vocabulary::VocabKind;
    let qwen = ensure_file(&bench_dir(), &specs()[2]);
    let vocab = |vocab| Options {
        vocab,
        ..Options::default()
    };
    let table = |rows| Options {
        sentence: SENTENCE.to_owned(),
        model: Some(
            embedlens::core::tables::weights::EmbeddingModel::shaped(rows, 256, 16, 123)
                .expect("shape"),
        ),
        ..Options::default()
    };
    let apps = vec![
        ("6x256 table", ready_app(table(6))),
        ("50257x256 table", ready_app(table(50_257))),
        ("seed, 6 rows", ready_app(vocab(VocabKind::Seed))),
        ("words, 2037 rows", ready_app(vocab(VocabKind::Words))),
        ("gpt2, 50257 rows", ready_app(vocab(VocabKind::Gpt2))),
        (
            "152064x896 bf16 file",
            ready_app(Options {
                sentence: SENTENCE.to_owned(),
                model: Some(
                    open(&FileSource::path(&qwen), &OpenOptions::default())
                        .map(|opened| opened.model)
                        .expect("opens"),
                ),
                ..Options::default()
            }),
        ),
    ];
    let mut group = c.benchmark_group("frame 200x60");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(3));
    for (label, app) in &apps {
        let mut terminal = Terminal::new(TestBackend::new(200, 60)).expect("test backend");
        group.bench_function(*label, |b| b.iter(|| draw(black_box(app), &mut terminal)));
    }
    group.finish();
}

/// A key typed into a sentence of 10 to 10,000 tokens: re-tokenise, look up, redraw.
fn key_press_by_sentence_length(c: &mut Criterion) {
    use embedlens::core::text::vocabulary::VocabKind;
    let mut group = c.benchmark_group("key press + redraw");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(3));
    for words in [10usize, 1_000, 10_000] {
        let pattern = ["the", "quick", "brown", "fox", "jumps"];
        let sentence = (0..words)
            .map(|index| pattern[index % pattern.len()])
            .collect::<Vec<_>>()
            .join(" ");
        let mut app = App::new(Options {
            sentence,
            vocab: VocabKind::Words,
            ..Options::default()
        });
        let mut terminal = Terminal::new(TestBackend::new(200, 60)).expect("test backend");
        let mut toggle = false;
        group.bench_function(format!("{words} tokens"), |b| {
            b.iter(|| {
                // Type a letter, then take it back, so the sentence keeps its length.
                let key = if toggle {
                    KeyCode::Backspace
                } else {
                    KeyCode::Char('s')
                };
                toggle = !toggle;
                app.handle_event(&Event::Key(KeyEvent::new(key, KeyModifiers::NONE)));
                draw(&app, &mut terminal);
            });
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    open_first_frame,
    open_by_file_size,
    frame_by_vocabulary,
    key_press_by_sentence_length
);
criterion_main!(benches);
