//! Input a hostile user would try, through the real binary: each run is bounded in time and
//! memory by the test itself, and must end with a clear message and an exit code, never a
//! panic, an abort or a hang.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use common::{TempDir, arg, word_level_tokenizer, write_f32_safetensors};
use serde_json::json;

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

#[test]
fn options_that_read_model_files_are_refused_without_a_model() {
    for flag in [
        "--tokenizer",
        "--revision",
        "--token-tensor",
        "--position-tensor",
    ] {
        // Beside an explicit --vocab, clap lets them through; they must not be ignored.
        let run = run(&["lookup", "--vocab", "words", flag, "/dev/zero", "hi"]);
        run.assert_refused(&format!(
            "{flag} reads a model's files: it goes with --model PATH"
        ));
        assert!(run.stdout.is_empty(), "{flag}: {}", run.stdout);
    }
}

// ---------------------------------------------------------------------------------------------
// Files

/// A Llama-style token table of 8 rows of 4, the smallest model embedlens opens.
fn write_small_model(path: &Path) {
    write_f32_safetensors(
        path,
        &[("model.embed_tokens.weight", &[8, 4], &[0.5, -1.0])],
    );
}

#[test]
fn fifos_and_devices_are_refused_at_once_wherever_they_are_named() {
    let dir = TempDir::new("special");
    let fifo = dir.fifo("lone/model.safetensors");
    let refused_fifo = "is a FIFO (named pipe), not a file";
    run(&["lookup", "--model", arg(&fifo), "--ids", "0"]).assert_refused(refused_fifo);
    run(&["inspect", arg(&fifo)]).assert_refused(refused_fifo);
    // The explorer opens the model before it looks for a terminal.
    run(&["--model", arg(&fifo)]).assert_refused(refused_fifo);
    // A folder whose model.safetensors is a FIFO.
    let folder = fifo.parent().expect("a folder");
    run(&["lookup", "--model", arg(folder), "--ids", "0"])
        .assert_refused("model.safetensors: is a FIFO");
    // A FIFO or a device as the tokenizer.
    let model = dir.join("model/model.safetensors");
    write_small_model(&model);
    let tokenizer = dir.fifo("tokenizer.json");
    for (tokenizer, refusal) in [
        (arg(&tokenizer), refused_fifo),
        ("/dev/zero", "/dev/zero: is a character device, not a file"),
    ] {
        run(&[
            "lookup",
            "--model",
            arg(&model),
            "--tokenizer",
            tokenizer,
            "fox",
        ])
        .assert_refused(refusal);
    }
    // A FIFO as a shard an index names.
    dir.fifo("sharded/model-00001-of-00001.safetensors");
    std::fs::write(
        dir.join("sharded/model.safetensors.index.json"),
        json!({"weight_map": {"model.embed_tokens.weight": "model-00001-of-00001.safetensors"}})
            .to_string(),
    )
    .expect("an index");
    run(&["lookup", "--model", arg(&dir.join("sharded")), "--ids", "0"])
        .assert_refused(refused_fifo);
}

#[test]
fn a_tokenizer_json_beyond_the_size_limit_is_refused_unread() {
    let dir = TempDir::new("huge-json");
    let model = dir.join("model.safetensors");
    write_small_model(&model);
    let huge = dir.join("tokenizer.json");
    std::fs::File::create(&huge)
        .and_then(|file| file.set_len((64 << 20) + 1))
        .expect("a sparse file");
    run(&[
        "lookup",
        "--model",
        arg(&model),
        "--tokenizer",
        arg(&huge),
        "fox",
    ])
    .assert_refused("larger than 64 MiB, the most embedlens reads of a tokenizer.json");
    // An Ollama manifest is held to 16 MiB: a 229 MB one used to take 2.7 GB to parse.
    let models = dir.join("ollama");
    let manifest = models.join("manifests/registry.ollama.ai/library/big/latest");
    std::fs::create_dir_all(manifest.parent().expect("a folder")).expect("folders");
    std::fs::File::create(&manifest)
        .and_then(|file| file.set_len((16 << 20) + 1))
        .expect("a sparse manifest");
    let run = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v \"$1\" || exit 99; shift; exec \"$@\"")
        .arg("sh")
        .arg(MEMORY_LIMIT_KIB.to_string())
        .arg(env!("CARGO_BIN_EXE_embedlens"))
        .args(["lookup", "--model", "ollama:big", "--ids", "0"])
        .env("OLLAMA_MODELS", &models)
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("larger than 16 MiB, the most embedlens reads of an Ollama manifest"),
        "{stderr}"
    );
}

#[test]
fn folders_say_what_they_hold_instead_of_a_safetensors_file() {
    let dir = TempDir::new("folders");
    let looped = dir.join("looped/model.safetensors");
    std::os::unix::fs::symlink("model.safetensors", &looped).expect("a link to itself");
    run(&["lookup", "--model", arg(&dir.join("looped")), "--ids", "0"])
        .assert_refused("model.safetensors: cannot be read: Too many levels of symbolic links");
    dir.fifo("odd/weights.safetensors");
    std::fs::create_dir_all(dir.join("odd/more.safetensors")).expect("a folder");
    run(&["lookup", "--model", arg(&dir.join("odd")), "--ids", "0"]).assert_refused(
        "no readable safetensors file in this folder: more.safetensors is a folder; \
         weights.safetensors is a FIFO (named pipe)",
    );
}

#[test]
fn an_index_may_only_name_shards_inside_its_folder() {
    let dir = TempDir::new("escape");
    let secret = dir.join("outside/secret.safetensors");
    write_small_model(&secret);
    let model = dir.join("model/README");
    std::fs::write(&model, "a model folder").expect("a file");
    let folder = dir.join("model");
    std::os::unix::fs::symlink(&secret, folder.join("linked.safetensors")).expect("a link");
    let index = folder.join("model.safetensors.index.json");
    for (shard, refusal) in [
        (
            "../outside/secret.safetensors",
            "a path outside the model folder",
        ),
        (arg(&secret), "a path outside the model folder"),
        ("/etc/passwd", "a path outside the model folder"),
        (
            "linked.safetensors",
            "outside the model folder; an index may only name files",
        ),
    ] {
        let map = json!({"weight_map": {"model.embed_tokens.weight": shard}});
        std::fs::write(&index, map.to_string()).expect("an index");
        for args in [
            &["lookup", "--model", arg(&folder), "--ids", "0"][..],
            &["inspect", arg(&folder)][..],
        ] {
            let run = run(args);
            run.assert_refused(refusal);
            assert!(!run.stderr.contains("header length"), "{}", run.stderr);
        }
    }
    // The Hugging Face cache links a snapshot's files into the repository's blobs: allowed.
    let blob = dir.join("models--org--name/blobs/0123abcd");
    write_small_model(&blob);
    let snapshot = dir.join("models--org--name/snapshots/c0ffee/model.safetensors.index.json");
    let snapshot = snapshot.parent().expect("a folder");
    std::os::unix::fs::symlink(
        "../../blobs/0123abcd",
        snapshot.join("model-00001-of-00001.safetensors"),
    )
    .expect("a link");
    std::fs::write(
        snapshot.join("model.safetensors.index.json"),
        json!({"weight_map": {"model.embed_tokens.weight": "model-00001-of-00001.safetensors"}})
            .to_string(),
    )
    .expect("an index");
    let cached = run(&["lookup", "--model", arg(snapshot), "--ids", "1"]);
    assert!(cached.status.success(), "{}", cached.stderr);
    assert!(cached.stdout.contains("-1.0000"), "{}", cached.stdout);
}

#[test]
fn tensor_names_are_printed_escaped_whatever_their_length() {
    let dir = TempDir::new("names");
    let path = dir.join("model.safetensors");
    let long = "a".repeat(70_000);
    write_f32_safetensors(
        &path,
        &[
            ("model.embed_tokens.weight", &[8, 4], &[0.5]),
            ("evil\u{1b}]0;owned\u{7}\u{1b}[2J", &[2], &[1.0]),
            (&long, &[1], &[1.0]),
        ],
    );
    let run = run(&["inspect", arg(&path)]);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(
        run.stdout.contains("evil\\u{1b}]0;owned\\u{7}\\u{1b}[2J"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains(&long));
    assert!(!run.stdout.contains('\u{1b}') && !run.stdout.contains('\u{7}'));
    // A message quoting a name escapes it too.
    let run = run_redirected(
        &[
            "lookup",
            "--model",
            arg(&path),
            "--token-tensor",
            "evil\u{1b}[2J",
            "--ids",
            "0",
        ],
        "",
    );
    run.assert_refused("no tensor named evil\\u{1b}[2J");
    assert!(!run.stderr.contains('\u{1b}'));
}

/// A BERT-style folder (token, position and token-type tables, `LayerNorm`) with `config`.
fn write_bert_folder(
    dir: &TempDir,
    name: &str,
    prefix: &str,
    config: &serde_json::Value,
) -> PathBuf {
    let tensor = |suffix: &str| format!("{prefix}embeddings.{suffix}");
    let names = [
        tensor("word_embeddings.weight"),
        tensor("position_embeddings.weight"),
        tensor("token_type_embeddings.weight"),
        tensor("LayerNorm.weight"),
        tensor("LayerNorm.bias"),
    ];
    let model = dir.join(&format!("{name}/model.safetensors"));
    write_f32_safetensors(
        &model,
        &[
            (&names[0], &[8, 4], &[0.5, -1.0]),
            (&names[1], &[16, 4], &[0.25]),
            (&names[2], &[2, 4], &[0.125]),
            (&names[3], &[4], &[1.0]),
            (&names[4], &[4], &[0.0]),
        ],
    );
    let folder = model.parent().expect("a folder").to_owned();
    std::fs::write(folder.join("config.json"), config.to_string()).expect("a config");
    folder
}

#[test]
fn config_values_that_cannot_be_right_are_named() {
    let dir = TempDir::new("config");
    let eps = write_bert_folder(
        &dir,
        "eps",
        "bert.",
        &json!({"model_type": "bert", "layer_norm_eps": 1e39}),
    );
    run(&["lookup", "--model", arg(&eps), "--ids", "0"])
        .assert_refused("layer_norm_eps 1e+39 is not a small positive number (at most 1");
    let pad = write_bert_folder(
        &dir,
        "pad",
        "roberta.",
        &json!({"model_type": "roberta", "pad_token_id": 1e9}),
    );
    run(&["lookup", "--model", arg(&pad), "--ids", "0"])
        .assert_refused("pad_token_id 1000000000 would put position 0 at row 1000000001");
    let fine = write_bert_folder(
        &dir,
        "fine",
        "bert.",
        &json!({"model_type": "bert", "layer_norm_eps": 1e-12}),
    );
    let run = run(&["lookup", "--model", arg(&fine), "--ids", "0"]);
    assert!(run.status.success(), "{}", run.stderr);
}

#[test]
fn json_says_when_it_wrote_nan_or_infinity_as_null() {
    let dir = TempDir::new("nan");
    let path = dir.join("model.safetensors");
    write_f32_safetensors(
        &path,
        &[(
            "model.embed_tokens.weight",
            &[3, 2],
            &[f32::NAN, 1.0, f32::INFINITY, 2.0],
        )],
    );
    for args in [
        &[
            "lookup",
            "--model",
            arg(&path),
            "--ids",
            "0",
            "--format",
            "json",
        ][..],
        &["matrix", "--model", arg(&path), "--format", "json"][..],
    ] {
        let run = run(args);
        assert!(run.status.success(), "{}", run.stderr);
        let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("valid JSON");
        let warning = json["warning"].as_str().unwrap_or_default();
        assert!(warning.contains("written as null"), "{args:?}: {json}");
    }
    let finite = run(&["matrix", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&finite.stdout).expect("valid JSON");
    assert!(json.get("warning").is_none(), "{json}");
}

/// Runs `embedlens args…` under the limits, reads the first `bytes` of its output and closes
/// the pipe, as `| head -c` would; returns how it ended.
fn run_reading_first(args: &[&str], bytes: usize) -> (ExitStatus, String, String) {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v \"$1\" || exit 99; shift; exec \"$@\"")
        .arg("sh")
        .arg(MEMORY_LIMIT_KIB.to_string())
        .arg(env!("CARGO_BIN_EXE_embedlens"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh starts");
    let stderr = drain(child.stderr.take());
    let mut stdout = child.stdout.take().expect("piped");
    let reader = thread::spawn(move || {
        let mut first = vec![0; bytes];
        let read = stdout.read(&mut first).unwrap_or(0);
        let mut rest = first[read..].to_vec();
        let more = stdout.read_exact(&mut rest).map_or(0, |()| rest.len());
        first.truncate(read);
        first.extend(&rest[..more]);
        String::from_utf8_lossy(&first).into_owned()
    });
    let status = wait_bounded(&mut child, &format!("embedlens {args:?}"));
    (
        status,
        reader.join().expect("stdout is read"),
        stderr.join().expect("stderr is read"),
    )
}

/// Writes a safetensors file of one `rows × dims` float32 table of zeros, sparse on disk.
fn write_sparse_table(path: &Path, rows: usize, dims: usize) {
    let mut header = json!({"model.embed_tokens.weight":
        {"dtype": "F32", "shape": [rows, dims], "data_offsets": [0, rows * dims * 4]}})
    .to_string();
    while !header.len().is_multiple_of(8) {
        header.push(' ');
    }
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend(header.as_bytes());
    std::fs::write(path, &bytes).expect("the header");
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|file| file.set_len((bytes.len() + rows * dims * 4) as u64))
        .expect("the zeros");
}

#[test]
fn the_matrix_of_a_large_file_streams_in_little_memory() {
    let dir = TempDir::new("large");
    let path = dir.join("model.safetensors");
    // 100,000 × 256 zeros (102 MB, sparse on disk): held as text it would need over 1 GiB.
    write_sparse_table(&path, 100_000, 256);
    for format in ["table", "json"] {
        let (status, first, stderr) =
            run_reading_first(&["matrix", "--model", arg(&path), "--format", format], 4096);
        assert!(status.success(), "{format}: {status}: {stderr}");
        assert!(
            first.contains("0.0000") || first.contains("0.0"),
            "{format}: {first}"
        );
    }
}

#[test]
fn the_compare_subcommand_takes_a_long_sentence_within_bounds() {
    // Just under Linux's 128 KiB limit for one argument.
    let long = "the dog bites the man ".repeat(120_000 / 22);
    let run = run(&[
        "compare",
        &long,
        "the man bites the dog",
        "--vocab",
        "words",
    ]);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(
        run.stdout
            .contains("Only the first 128 tokens of each sentence are compared (A has"),
        "{}",
        &run.stdout[..run.stdout.len().min(2000)]
    );
}

/// Writes a sparse GGUF file of `len` bytes whose header holds `header` and zeros after it.
fn write_sparse_gguf(path: &Path, header: &[u8], len: u64) {
    std::fs::write(path, header).expect("the header is written");
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|file| file.set_len(len))
        .expect("the file is made sparse to its length");
}

#[test]
fn crafted_gguf_counts_backed_by_a_sparse_file_are_refused_in_bounded_memory() {
    let dir = TempDir::new("gguf-counts");
    let len: u64 = 512 << 20;
    // One metadata array of u8 as long as the file: 32 bytes of memory a value would be 16 GB.
    let mut array = b"GGUF".to_vec();
    array.extend(3u32.to_le_bytes());
    array.extend(0u64.to_le_bytes());
    array.extend(1u64.to_le_bytes());
    array.extend(1u64.to_le_bytes());
    array.push(b'a');
    array.extend(9u32.to_le_bytes());
    array.extend(0u32.to_le_bytes());
    array.extend((len - 64).to_le_bytes());
    let path = dir.join("array.gguf");
    write_sparse_gguf(&path, &array, len);
    run(&["inspect", arg(&path)]).assert_refused("a holds 536870848 values, more than the");
    // A tensor count the bytes could hold, each entry far larger in memory than in the file.
    let mut tensors = b"GGUF".to_vec();
    tensors.extend(3u32.to_le_bytes());
    tensors.extend((len / 40).to_le_bytes());
    tensors.extend(0u64.to_le_bytes());
    let path = dir.join("tensors.gguf");
    write_sparse_gguf(&path, &tensors, len);
    run(&["inspect", arg(&path)])
        .assert_refused("it lists 13421772 tensors (at most 1048576 are read)");
}

/// A copy of the small BERT layer-0 fixture (config, tokenizer, weights) in `dir/name`.
fn copy_bert_fixture(dir: &TempDir, name: &str) -> PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layer0/bert");
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).expect("a folder");
    for entry in std::fs::read_dir(&fixture).expect("the fixture") {
        let entry = entry.expect("an entry");
        std::fs::copy(entry.path(), folder.join(entry.file_name())).expect("a copy");
    }
    folder
}

#[test]
fn a_hostile_model_type_is_printed_escaped_on_every_output_path() {
    let dir = TempDir::new("model-type");
    let folder = copy_bert_fixture(&dir, "bert");
    let config_path = folder.join("config.json");
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config_path).expect("the config"))
            .expect("JSON");
    config["model_type"] = json!("bert\u{1b}]0;pwned\u{7}\u{1b}[2J");
    std::fs::write(&config_path, config.to_string()).expect("the config is written");
    let model = arg(&folder);
    for args in [
        &["attention", "--model", model, "the dog"][..],
        &["attention", "--model", model, "the dog", "--format", "json"][..],
        &["compare", "--model", model, "the dog", "dog the"][..],
        &[
            "compare", "--model", model, "the dog", "dog the", "--format", "json",
        ][..],
        &["lookup", "--model", model, "the dog"][..],
        &["lookup", "--model", model, "the dog", "--format", "json"][..],
        &["inspect", model][..],
    ] {
        let run = run(args);
        assert!(run.status.success(), "{args:?}: {}", run.stderr);
        for (name, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            assert!(
                !text.contains('\u{1b}') && !text.contains('\u{7}'),
                "{args:?} wrote a control character to {name}:\n{text}"
            );
        }
    }
}

/// Overwrites every number of the float32 tensor `name` in a safetensors file with `value`.
fn fill_f32_tensor(path: &Path, name: &str, value: f32) {
    let mut bytes = std::fs::read(path).expect("the model file");
    let header_len =
        usize::try_from(u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"))).expect("len");
    let header: serde_json::Value =
        serde_json::from_slice(&bytes[8..8 + header_len]).expect("a JSON header");
    let offsets = &header[name]["data_offsets"];
    let start = 8 + header_len + usize::try_from(offsets[0].as_u64().expect("a start")).expect("");
    let end = 8 + header_len + usize::try_from(offsets[1].as_u64().expect("an end")).expect("");
    for number in bytes[start..end].chunks_exact_mut(4) {
        number.copy_from_slice(&value.to_le_bytes());
    }
    std::fs::write(path, bytes).expect("the model file is written");
}

#[test]
fn non_numbers_from_a_model_are_never_the_same_bit_for_bit_and_json_warns() {
    let dir = TempDir::new("nan-layer0");
    let folder = copy_bert_fixture(&dir, "bert");
    fill_f32_tensor(
        &folder.join("model.safetensors"),
        "embeddings.word_embeddings.weight",
        f32::NAN,
    );
    let model = arg(&folder);
    let table = run(&["compare", "--model", model, "the dog", "dog the"]);
    assert!(table.status.success(), "{}", table.stderr);
    assert!(
        table.stdout.contains("non-numbers") && !table.stdout.contains("bit for bit"),
        "{}",
        table.stdout
    );
    for args in [
        &["attention", "--model", model, "the dog", "--format", "json"][..],
        &[
            "compare", "--model", model, "the dog", "dog the", "--format", "json",
        ][..],
    ] {
        let run = run(args);
        assert!(run.status.success(), "{args:?}: {}", run.stderr);
        let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
        assert!(
            report["warning"]
                .as_str()
                .is_some_and(|w| w.contains("NaN")),
            "{args:?}: {}",
            run.stdout
        );
    }
}

#[test]
fn a_row_wider_than_the_bound_is_refused_before_anything_is_read() {
    let dir = TempDir::new("wide-row");
    let path = dir.join("model.safetensors");
    // Two rows of 2^26 numbers (512 MiB, sparse on disk): looked up, they took gigabytes.
    write_sparse_table(&path, 2, 1 << 26);
    for format in ["table", "json"] {
        run(&[
            "lookup",
            "--model",
            arg(&path),
            "--ids",
            "0,1,0",
            "--format",
            format,
        ])
        .assert_refused("rows are 67108864 numbers wide; embedlens reads rows of at most 1048576");
    }
}

#[test]
fn a_fifo_tokenizer_beside_a_model_and_an_empty_gguf_are_told_what_they_are() {
    let dir = TempDir::new("beside");
    write_small_model(&dir.join("model/model.safetensors"));
    dir.fifo("model/tokenizer.json");
    run(&["lookup", "--model", arg(&dir.join("model")), "fox"])
        .assert_refused("tokenizer.json: is a FIFO (named pipe), not a file");
    let empty = dir.join("empty.gguf");
    std::fs::write(&empty, b"").expect("an empty file");
    run(&["lookup", "--model", arg(&empty), "--ids", "0"])
        .assert_refused("empty.gguf: not a GGUF file (it does not start with the bytes GGUF)");
}

#[test]
fn a_very_long_special_token_is_refused_at_once_not_matched_for_minutes() {
    let dir = TempDir::new("long-token");
    let model = dir.join("model.safetensors");
    write_small_model(&model);
    let mut tokenizer = word_level_tokenizer(&["fox", "[UNK]"]);
    tokenizer["added_tokens"] = json!([{"id": 2, "content": "z".repeat(30_000),
        "single_word": false, "lstrip": false, "rstrip": false, "normalized": false,
        "special": true}]);
    let path = dir.join("tokenizer.json");
    std::fs::write(&path, tokenizer.to_string()).expect("a tokenizer");
    run(&[
        "lookup",
        "--model",
        arg(&model),
        "--tokenizer",
        arg(&path),
        "fox",
    ])
    .assert_refused("its added token 2 is 30000 bytes long");
}
