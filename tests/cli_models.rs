//! Model files through the real binary, as a new user meets them: GPT-2 and BERT folders and
//! single `.safetensors` files that each test writes itself, every float dtype, tensor-name
//! overrides, `inspect`, and every way a file can be wrong.

mod common;

use std::path::Path;

use common::{
    TempDir, Tensor, added_token, arg, bert_post_processor, bits, f32_bytes, float32,
    raw_safetensors, run, word_level_tokenizer, write_safetensors,
};
use safetensors::Dtype;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Files

/// An f32 tensor of `rows × cols` values.
fn f32_table(name: &'static str, rows: usize, cols: usize, values: &[f32]) -> Tensor<'static> {
    assert_eq!(values.len(), rows * cols, "{name}");
    (name, Dtype::F32, vec![rows, cols], f32_bytes(values))
}

/// `count` values that are not round in binary (sixty-firsts), so a float32 sum rounds and a
/// bit-for-bit comparison means something; `salt` makes each table different.
fn awkward_values(count: usize, salt: usize) -> Vec<f32> {
    (0..count)
        .map(|i| {
            let step = u16::try_from((i * 37 + salt * 101) % 199).unwrap();
            f32::from(step) / 61.0 - 1.5
        })
        .collect()
}

/// Row `row` of a row-major table `cols` wide.
fn row_of(values: &[f32], cols: usize, row: usize) -> &[f32] {
    &values[row * cols..(row + 1) * cols]
}

// ---------------------------------------------------------------------------------------------
// Running the binary

/// The standard output of a run that must succeed quietly.
fn stdout_of(args: &[&str]) -> String {
    let output = run(args);
    assert!(
        output.status.success(),
        "embedlens {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stderr.is_empty(),
        "embedlens {args:?} wrote to stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// The parsed JSON output of a successful run.
fn json_of(args: &[&str]) -> Value {
    serde_json::from_str(&stdout_of(args)).expect("valid JSON")
}

/// The standard error of a run that must fail cleanly: a non-zero exit, nothing on stdout,
/// one `embedlens: ` message, and no panic.
fn failure(args: &[&str]) -> String {
    let output = run(args);
    let error = String::from_utf8(output.stderr).expect("UTF-8 errors");
    assert!(
        !output.status.success(),
        "embedlens {args:?} should fail; it printed {}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(
        !error.contains("panicked"),
        "embedlens {args:?} panicked: {error}"
    );
    assert!(
        output.stdout.is_empty(),
        "embedlens {args:?} wrote to stdout"
    );
    assert!(error.starts_with("embedlens: "), "{error}");
    error
}

/// Checks that a run fails with a message naming `file` and saying `problem`.
fn assert_fails_naming(args: &[&str], file: &Path, problem: &str) {
    let error = failure(args);
    assert!(
        error.contains(&file.display().to_string()),
        "embedlens {args:?}: the message does not name {}: {error}",
        file.display()
    );
    assert!(
        error.contains(problem),
        "embedlens {args:?}: wanted {problem:?} in: {error}"
    );
}

fn bits_of(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// The float32 sum, element by element, as PyTorch's `wte(ids) + wpe(positions)` computes it.
fn f32_sum(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

fn tokens(json: &Value) -> &[Value] {
    json["tokens"].as_array().expect("a tokens array")
}

fn column<'a>(json: &'a Value, key: &str) -> Vec<&'a Value> {
    tokens(json).iter().map(|token| &token[key]).collect()
}

// ---------------------------------------------------------------------------------------------
// Model folders

const WIDTH: usize = 4;

/// A GPT-2-style folder: `transformer.wte.weight` 10×4, `transformer.wpe.weight` 8×4, a final
/// `LayerNorm` weight for company, a word-level `tokenizer.json` and a `config.json`.
struct Gpt2Folder {
    dir: TempDir,
    wte: Vec<f32>,
    wpe: Vec<f32>,
}

const GPT2_WORDS: [&str; 10] = [
    "the", "fox", "bites", "dog", "man", "quick", "brown", "jumps", "over", "[UNK]",
];
const GPT2_CONTEXT: usize = 8;

impl Gpt2Folder {
    fn write(name: &str) -> Self {
        let dir = TempDir::new(name);
        let wte = awkward_values(GPT2_WORDS.len() * WIDTH, 1);
        let wpe = awkward_values(GPT2_CONTEXT * WIDTH, 2);
        write_safetensors(
            &dir.join("model.safetensors"),
            &[
                f32_table("transformer.wte.weight", GPT2_WORDS.len(), WIDTH, &wte),
                f32_table("transformer.wpe.weight", GPT2_CONTEXT, WIDTH, &wpe),
                (
                    "transformer.ln_f.weight",
                    Dtype::F32,
                    vec![WIDTH],
                    f32_bytes(&[1.0; WIDTH]),
                ),
            ],
        );
        dir.write(
            "tokenizer.json",
            &word_level_tokenizer(&GPT2_WORDS).to_string(),
        );
        dir.write(
            "config.json",
            &json!({"model_type": "gpt2", "n_embd": WIDTH, "n_positions": GPT2_CONTEXT,
                    "vocab_size": GPT2_WORDS.len()})
            .to_string(),
        );
        Self { dir, wte, wpe }
    }

    fn token_row(&self, id: usize) -> &[f32] {
        row_of(&self.wte, WIDTH, id)
    }

    fn position_row(&self, position: usize) -> &[f32] {
        row_of(&self.wpe, WIDTH, position)
    }
}

/// A BERT-style folder: word, position and token-type tables, the embeddings' `LayerNorm`,
/// a `config.json` with `layer_norm_eps`, and a `tokenizer.json` that adds `[CLS]`/`[SEP]` and
/// also asks (as real BERT files do) for padding and truncation.
struct BertFolder {
    dir: TempDir,
    words: Vec<f32>,
    positions: Vec<f32>,
    token_types: Vec<f32>,
    norm_weight: Vec<f32>,
    norm_bias: Vec<f32>,
}

const BERT_WORDS: [&str; 10] = [
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "quick", "fox", "dog", "bites", "man",
];
const BERT_CONTEXT: usize = 12;
/// Far from BERT's default 1e-12, so a `LayerNorm` that ignored `config.json` would show.
const BERT_EPS: f64 = 1e-3;

impl BertFolder {
    fn write(name: &str) -> Self {
        let dir = TempDir::new(name);
        let folder = Self {
            words: awkward_values(BERT_WORDS.len() * WIDTH, 3),
            positions: awkward_values(BERT_CONTEXT * WIDTH, 4),
            token_types: awkward_values(2 * WIDTH, 5),
            norm_weight: vec![1.5, 0.5, -1.0, 2.0],
            norm_bias: vec![0.25, -0.5, 0.0, 1.0],
            dir,
        };
        let vector = |name, values: &[f32]| (name, Dtype::F32, vec![WIDTH], f32_bytes(values));
        write_safetensors(
            &folder.dir.join("model.safetensors"),
            &[
                f32_table(
                    "bert.embeddings.word_embeddings.weight",
                    BERT_WORDS.len(),
                    WIDTH,
                    &folder.words,
                ),
                f32_table(
                    "bert.embeddings.position_embeddings.weight",
                    BERT_CONTEXT,
                    WIDTH,
                    &folder.positions,
                ),
                f32_table(
                    "bert.embeddings.token_type_embeddings.weight",
                    2,
                    WIDTH,
                    &folder.token_types,
                ),
                vector("bert.embeddings.LayerNorm.weight", &folder.norm_weight),
                vector("bert.embeddings.LayerNorm.bias", &folder.norm_bias),
            ],
        );
        folder
            .dir
            .write("tokenizer.json", &bert_tokenizer().to_string());
        folder.dir.write(
            "config.json",
            &json!({"model_type": "bert", "hidden_size": WIDTH, "layer_norm_eps": BERT_EPS,
                    "max_position_embeddings": BERT_CONTEXT, "type_vocab_size": 2})
            .to_string(),
        );
        folder
    }

    /// `LayerNorm((word + token type 0) + position)`, the sum in f32 as PyTorch adds, the
    /// normalisation in f64.
    fn expected_embedding(&self, id: usize, position: usize) -> Vec<f64> {
        let sum = f32_sum(
            &f32_sum(
                row_of(&self.words, WIDTH, id),
                row_of(&self.token_types, WIDTH, 0),
            ),
            row_of(&self.positions, WIDTH, position),
        );
        let sum: Vec<f64> = sum.into_iter().map(f64::from).collect();
        #[expect(clippy::cast_precision_loss, reason = "a width of 4")]
        let count = sum.len() as f64;
        let mean = sum.iter().sum::<f64>() / count;
        let variance = sum.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / count;
        let inverse_std = 1.0 / (variance + BERT_EPS).sqrt();
        sum.iter()
            .zip(self.norm_weight.iter().zip(&self.norm_bias))
            .map(|(v, (w, b))| (v - mean) * inverse_std * f64::from(*w) + f64::from(*b))
            .collect()
    }
}

/// BERT's `tokenizer.json` in small: lower-cases, splits on whitespace, wraps the text in
/// `[CLS]`…`[SEP]`, and asks for padding to 16 and truncation to 3, which embedlens must ignore.
fn bert_tokenizer() -> Value {
    let mut tokenizer = word_level_tokenizer(&BERT_WORDS);
    tokenizer["truncation"] =
        json!({"direction": "Right", "max_length": 3, "strategy": "LongestFirst", "stride": 0});
    tokenizer["padding"] = json!({"strategy": {"Fixed": 16}, "direction": "Right",
        "pad_to_multiple_of": null, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"});
    tokenizer["added_tokens"] = json!([
        added_token(0, "[PAD]"),
        added_token(1, "[UNK]"),
        added_token(2, "[CLS]"),
        added_token(3, "[SEP]")
    ]);
    tokenizer["normalizer"] = json!({"type": "Lowercase"});
    tokenizer["post_processor"] = bert_post_processor();
    tokenizer
}

// ---------------------------------------------------------------------------------------------
// 1. GPT-2

#[test]
fn a_gpt2_folder_looks_up_its_own_rows_and_adds_its_own_positions() {
    let model = Gpt2Folder::write("gpt2");
    let json = json_of(&[
        "lookup",
        "--model",
        arg(model.dir.path()),
        "the fox bites the fox",
        "--positions",
        "learned",
        "--format",
        "json",
    ]);
    assert_eq!(json["vocab"], model.dir.name(), "named after the folder");
    assert_eq!(json["shape"], json!([10, 4]));
    assert_eq!(json["positions"], "learned");
    let ids: Vec<u64> = column(&json, "id")
        .iter()
        .map(|id| id.as_u64().unwrap())
        .collect();
    assert_eq!(ids, [0, 1, 2, 0, 1]);
    let texts: Vec<&str> = column(&json, "text")
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(texts, ["the", "fox", "bites", "the", "fox"]);
    for (position, token) in tokens(&json).iter().enumerate() {
        let id = usize::try_from(token["id"].as_u64().unwrap()).unwrap();
        let sum = f32_sum(model.token_row(id), model.position_row(position));
        assert_eq!(token["position"], position);
        assert_eq!(bits(&token["token_vector"]), bits_of(model.token_row(id)));
        assert_eq!(
            bits(&token["position_vector"]),
            bits_of(model.position_row(position)),
            "--positions learned reads the file's wpe"
        );
        assert_eq!(bits(&token["input_vector"]), bits_of(&sum));
        assert_eq!(bits(&token["model_embedding"]), bits_of(&sum), "wte + wpe");
        assert_eq!(token["special"], false);
        assert_eq!(token["warning"], Value::Null);
    }
    // The two foxes share a row until their positions are added.
    let all = tokens(&json);
    assert_eq!(all[1]["token_vector"], all[4]["token_vector"]);
    assert_ne!(all[1]["input_vector"], all[4]["input_vector"]);

    let table = stdout_of(&["lookup", "--model", arg(model.dir.path()), "the fox"]);
    assert!(
        table.starts_with(&format!(
            "{} vocabulary, 10x4 weights, positions: none\n",
            model.dir.name()
        )),
        "no seed for a table read from a file: {table}"
    );
}

#[test]
fn a_gpt2_folder_takes_ids_and_names_them_with_its_tokenizer() {
    let model = Gpt2Folder::write("gpt2-ids");
    let json = json_of(&[
        "lookup",
        "--ids",
        "1,2,1",
        "--model",
        arg(model.dir.path()),
        "--format",
        "json",
    ]);
    let texts: Vec<&str> = column(&json, "text")
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(texts, ["fox", "bites", "fox"]);
    for (position, (token, id)) in tokens(&json).iter().zip([1, 2, 1]).enumerate() {
        assert_eq!(token["id"], id);
        assert_eq!(bits(&token["token_vector"]), bits_of(model.token_row(id)));
        assert_eq!(token["position_vector"], Value::Null, "positions: none");
        assert_eq!(token["input_vector"], token["token_vector"]);
        // The model's own block adds wpe whatever scheme is shown.
        let sum = f32_sum(model.token_row(id), model.position_row(position));
        assert_eq!(bits(&token["model_embedding"]), bits_of(&sum));
    }
    let error = failure(&["lookup", "--ids", "10", "--model", arg(model.dir.path())]);
    assert!(error.contains("id 10 has no row"), "{error}");
}

#[test]
fn positions_beyond_the_files_position_table_are_warned_about() {
    let model = Gpt2Folder::write("gpt2-far");
    let json = json_of(&[
        "lookup",
        "--model",
        arg(model.dir.path()),
        "--ids",
        "0,1,2,3,4,5,6,7,8",
        "--positions",
        "learned",
        "--format",
        "json",
    ]);
    let last = &tokens(&json)[8];
    assert_eq!(last["warning"], "position 8 is beyond the context length 8");
    assert_eq!(last["input_vector"], Value::Null);
    assert_eq!(last["model_embedding"], Value::Null);
}

// ---------------------------------------------------------------------------------------------
// 2. BERT

#[test]
fn a_bert_folder_adds_cls_and_sep_but_never_pads_or_truncates() {
    let model = BertFolder::write("bert");
    let sentence = "The quick fox bites the dog";
    let json = json_of(&[
        "lookup",
        "--model",
        arg(model.dir.path()),
        sentence,
        "--format",
        "json",
    ]);
    let texts: Vec<&str> = column(&json, "text")
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "[CLS]", "the", "quick", "fox", "bites", "the", "dog", "[SEP]"
        ],
        "exactly the typed words between [CLS] and [SEP]: no padding to 16, no truncation to 3"
    );
    let ids: Vec<u64> = column(&json, "id")
        .iter()
        .map(|id| id.as_u64().unwrap())
        .collect();
    assert_eq!(ids, [2, 4, 5, 6, 8, 4, 7, 3]);
    let special: Vec<bool> = column(&json, "special")
        .iter()
        .map(|s| s.as_bool().unwrap())
        .collect();
    assert_eq!(
        special,
        [true, false, false, false, false, false, false, true]
    );
    assert_model_embeddings_are_layer_norms(&model, &json);

    let plain = json_of(&[
        "lookup",
        "--model",
        arg(model.dir.path()),
        "--no-special-tokens",
        sentence,
        "--format",
        "json",
    ]);
    let texts: Vec<&str> = column(&plain, "text")
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(texts, ["the", "quick", "fox", "bites", "the", "dog"]);
    assert!(
        column(&plain, "special")
            .iter()
            .all(|s| s.as_bool() == Some(false))
    );
    assert_model_embeddings_are_layer_norms(&model, &plain);
}

/// Each token's `model_embedding` is the `LayerNorm` of its sum, computed here (within 1e-5).
fn assert_model_embeddings_are_layer_norms(model: &BertFolder, json: &Value) {
    for (position, token) in tokens(json).iter().enumerate() {
        assert_eq!(token["position"], position);
        let id = usize::try_from(token["id"].as_u64().unwrap()).unwrap();
        let expected = model.expected_embedding(id, position);
        let shown: Vec<f32> = token["model_embedding"]
            .as_array()
            .unwrap_or_else(|| panic!("no model_embedding: {token}"))
            .iter()
            .map(float32)
            .collect();
        assert_eq!(shown.len(), WIDTH);
        for (shown, expected) in shown.iter().zip(&expected) {
            assert!(
                (f64::from(*shown) - expected).abs() < 1e-5,
                "{token}: {shown} is not {expected}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Half-precision files

#[test]
fn f16_and_bf16_files_read_exactly() {
    // Every value needs at most 8 significant bits, so f16 and bf16 both hold it exactly.
    let values: [f32; 12] = [
        1.0,
        -2.5,
        0.375,
        96.0,
        -0.75,
        0.007_812_5,
        12.5,
        -3.25,
        0.0,
        -0.0,
        1.5,
        -96.0,
    ];
    for (dtype, bytes) in [
        (
            Dtype::F16,
            values
                .iter()
                .flat_map(|&v| half::f16::from_f32(v).to_le_bytes())
                .collect::<Vec<u8>>(),
        ),
        (
            Dtype::BF16,
            values
                .iter()
                .flat_map(|&v| half::bf16::from_f32(v).to_le_bytes())
                .collect(),
        ),
    ] {
        let dir = TempDir::new("half");
        let file = dir.join("halves.safetensors");
        write_safetensors(&file, &[("wte.weight", dtype, vec![4, 3], bytes)]);
        let json = json_of(&[
            "lookup",
            "--model",
            arg(&file),
            "--ids",
            "3,0,2",
            "--format",
            "json",
        ]);
        assert_eq!(json["shape"], json!([4, 3]), "{dtype}");
        assert_eq!(
            json["vocab"],
            Value::Null,
            "{dtype}: no tokenizer beside one file"
        );
        for (token, id) in tokens(&json).iter().zip([3, 0, 2]) {
            assert_eq!(
                bits(&token["token_vector"]),
                bits_of(row_of(&values, 3, id)),
                "{dtype} row {id}"
            );
            assert_eq!(token["text"], format!("#{id}"));
        }
        let listing = stdout_of(&["inspect", arg(&file)]);
        assert!(
            listing.contains(&dtype.to_string()),
            "{dtype} not listed: {listing}"
        );
        assert!(
            listing.contains(&dtype.to_string().to_lowercase()),
            "{listing}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 4. Overrides

#[test]
fn tensor_names_can_be_given_and_a_wrong_one_is_named() {
    let dir = TempDir::new("override");
    let file = dir.join("custom.safetensors");
    let tok = awkward_values(5 * 2, 6);
    let pos = awkward_values(3 * 2, 7);
    write_safetensors(
        &file,
        &[
            f32_table("encoder.tok.weight", 5, 2, &tok),
            f32_table("encoder.pos.weight", 3, 2, &pos),
        ],
    );
    // Undetected names: the error says so and lists what the file holds.
    let error = failure(&["lookup", "--model", arg(&file), "--ids", "1"]);
    assert!(error.contains(&file.display().to_string()), "{error}");
    assert!(error.contains("found no embedding table"), "{error}");
    assert!(error.contains("encoder.tok.weight"), "{error}");

    let json = json_of(&[
        "lookup",
        "--model",
        arg(&file),
        "--token-tensor",
        "encoder.tok.weight",
        "--position-tensor",
        "encoder.pos.weight",
        "--ids",
        "4,1",
        "--positions",
        "learned",
        "--format",
        "json",
    ]);
    assert_eq!(json["shape"], json!([5, 2]));
    for (position, (token, id)) in tokens(&json).iter().zip([4, 1]).enumerate() {
        assert_eq!(bits(&token["token_vector"]), bits_of(row_of(&tok, 2, id)));
        assert_eq!(
            bits(&token["position_vector"]),
            bits_of(row_of(&pos, 2, position))
        );
        let sum = f32_sum(row_of(&tok, 2, id), row_of(&pos, 2, position));
        assert_eq!(bits(&token["input_vector"]), bits_of(&sum));
    }

    for flag in ["--token-tensor", "--position-tensor"] {
        let mut args = vec!["lookup", "--model", arg(&file), "--ids", "1"];
        if flag == "--position-tensor" {
            args.extend(["--token-tensor", "encoder.tok.weight"]);
        }
        args.extend([flag, "encoder.missing.weight"]);
        assert_fails_naming(&args, &file, "no tensor named encoder.missing.weight");
    }
}

// ---------------------------------------------------------------------------------------------
// 5. Inspect

#[test]
fn inspect_lists_every_tensor_and_says_what_was_detected() {
    let model = Gpt2Folder::write("inspect");
    let listing = stdout_of(&["inspect", arg(model.dir.path())]);
    assert!(
        listing
            .lines()
            .next()
            .unwrap()
            .ends_with(": 3 tensors in 1 file"),
        "{listing}"
    );
    let rows: Vec<Vec<&str>> = listing
        .lines()
        .map(|line| line.split_whitespace().collect())
        .collect();
    for expected in [
        ["transformer.ln_f.weight", "F32", "4", "model.safetensors"],
        ["transformer.wpe.weight", "F32", "8×4", "model.safetensors"],
        ["transformer.wte.weight", "F32", "10×4", "model.safetensors"],
    ] {
        assert!(
            rows.iter().any(|row| row == &expected),
            "{expected:?} not listed: {listing}"
        );
    }
    let detected = listing
        .split_once("\ndetected:\n")
        .unwrap_or_else(|| panic!("no detected section: {listing}"))
        .1;
    assert!(
        detected.contains("token table: transformer.wte.weight"),
        "{listing}"
    );
    assert!(detected.contains("wte"), "{listing}");
    assert!(
        detected.contains("position table: transformer.wpe.weight"),
        "{listing}"
    );
    assert!(detected.contains("tokenizer.json"), "{listing}");

    let bert = BertFolder::write("inspect-bert");
    let listing = stdout_of(&["inspect", arg(bert.dir.path())]);
    assert!(listing.contains(": 5 tensors in 1 file"), "{listing}");
    assert!(listing.contains("LayerNorm"), "{listing}");
    assert!(listing.contains("eps 1e-3"), "{listing}");
}

// ---------------------------------------------------------------------------------------------
// 6. Matrix

#[test]
fn matrix_csv_of_a_file_has_every_value() {
    let dir = TempDir::new("matrix");
    let file = dir.join("table.safetensors");
    let (rows, cols) = (7, 5);
    let values = awkward_values(rows * cols, 8);
    write_safetensors(&file, &[f32_table("wte.weight", rows, cols, &values)]);
    let csv = stdout_of(&["matrix", "--model", arg(&file), "--format", "csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "id,token,d0,d1,d2,d3,d4");
    assert_eq!(lines.len(), rows + 1, "{csv}");
    let mut read = Vec::new();
    for (id, line) in lines[1..].iter().enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), 2 + cols, "{line}");
        assert_eq!(cells[0], id.to_string());
        assert_eq!(cells[1], "", "no tokenizer, so no token text");
        read.extend(cells[2..].iter().map(|cell| cell.parse::<f32>().unwrap()));
    }
    assert_eq!(read.len(), rows * cols);
    assert_eq!(bits_of(&read), bits_of(&values));

    // A folder's tokenizer names each row.
    let model = Gpt2Folder::write("matrix-named");
    let csv = stdout_of(&[
        "matrix",
        "--model",
        arg(model.dir.path()),
        "--format",
        "csv",
    ]);
    let names: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|line| line.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(names, GPT2_WORDS);
}

// ---------------------------------------------------------------------------------------------
// 7. Bad input

/// The ways of reading a model that must each fail with the same message.
fn model_commands(path: &Path) -> [Vec<&str>; 2] {
    [
        vec!["lookup", "--model", arg(path), "--ids", "0"],
        vec!["matrix", "--model", arg(path)],
    ]
}

#[test]
fn missing_and_empty_folders_are_named() {
    let dir = TempDir::new("missing");
    let missing = dir.join("no-such-model");
    for args in model_commands(&missing) {
        assert_fails_naming(&args, &missing, "no such file or folder");
    }
    assert_fails_naming(
        &["inspect", arg(&missing)],
        &missing,
        "no such file or folder",
    );

    let empty = TempDir::new("empty");
    empty.write("config.json", "{}");
    empty.write("weights.bin", "not safetensors");
    for args in model_commands(empty.path()) {
        assert_fails_naming(&args, empty.path(), "no safetensors file in this folder");
    }
    assert_fails_naming(
        &["inspect", arg(empty.path())],
        empty.path(),
        "no safetensors file",
    );
}

#[test]
fn corrupt_safetensors_files_are_named() {
    let dir = TempDir::new("corrupt");
    let file = dir.join("model.safetensors");
    write_safetensors(
        &file,
        &[f32_table("wte.weight", 3, 4, &awkward_values(12, 9))],
    );
    let valid = std::fs::read(&file).unwrap();
    let mut huge_header_length = valid.clone();
    huge_header_length[..8].copy_from_slice(&1_000_000u64.to_le_bytes());
    let mut endless_header_length = valid.clone();
    endless_header_length[..8].copy_from_slice(&u64::MAX.to_le_bytes());
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("an empty file", Vec::new(), "only 0 bytes, too short"),
        (
            "a file cut inside the length",
            valid[..5].to_vec(),
            "only 5 bytes, too short",
        ),
        (
            "a file cut inside the header",
            valid[..20].to_vec(),
            "the header length in the first 8 bytes says",
        ),
        (
            "a file cut inside the data",
            valid[..valid.len() - 6].to_vec(),
            "the header says the tensor data takes 48 bytes, but only 42 follow",
        ),
        (
            "a header length larger than the file",
            huge_header_length,
            "says 1000000 bytes, but only",
        ),
        (
            "a header length of u64::MAX",
            endless_header_length,
            "the header length in the first 8 bytes says",
        ),
        (
            "data_offsets past the end",
            raw_safetensors(
                r#"{"wte.weight":{"dtype":"F32","shape":[2,4],"data_offsets":[0,32]}}"#,
                &[0; 24],
            ),
            "the header says the tensor data takes 32 bytes, but only 24 follow",
        ),
        (
            "data_offsets of u64::MAX",
            raw_safetensors(
                r#"{"wte.weight":{"dtype":"F32","shape":[2,4],"data_offsets":[0,18446744073709551615]}}"#,
                &[0; 32],
            ),
            "not a readable safetensors file",
        ),
        (
            "a shape whose size overflows",
            raw_safetensors(
                r#"{"wte.weight":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,32]}}"#,
                &[0; 32],
            ),
            "not a readable safetensors file",
        ),
        (
            "a header that is not JSON",
            raw_safetensors(r#"{"wte.weight": not json"#, &[]),
            "not valid safetensors JSON",
        ),
        (
            "data_offsets that disagree with the shape",
            raw_safetensors(
                r#"{"wte.weight":{"dtype":"F32","shape":[2,3],"data_offsets":[0,32]}}"#,
                &[0; 32],
            ),
            "data_offsets do not match its shape and dtype",
        ),
    ];
    for (case, bytes, problem) in cases {
        std::fs::write(&file, &bytes).unwrap();
        for path in [dir.path(), file.as_path()] {
            for args in model_commands(path) {
                let error = failure(&args);
                assert!(
                    error.contains(&file.display().to_string()) && error.contains(problem),
                    "{case}: wanted {problem:?} naming {}: {error}",
                    file.display()
                );
            }
        }
        assert_fails_naming(&["inspect", arg(&file)], &file, problem);
    }
}

#[test]
fn tables_that_cannot_be_embedding_tables_are_named() {
    let dir = TempDir::new("tables");
    let file = dir.join("model.safetensors");
    let ids: Vec<u8> = (0..6i64).flat_map(i64::to_le_bytes).collect();
    let cases: Vec<(Vec<Tensor>, &str)> = vec![
        (
            vec![("wte.weight", Dtype::I64, vec![2, 3], ids)],
            "tensor wte.weight is I64; embedding tables must be f32, f16 or bf16",
        ),
        (
            vec![(
                "wte.weight",
                Dtype::F32,
                vec![2, 2, 3],
                f32_bytes(&[0.5; 12]),
            )],
            "tensor wte.weight has shape [2, 2, 3]; an embedding table must be two-dimensional",
        ),
        (
            vec![
                f32_table("wte.weight", 2, 3, &[0.5; 6]),
                f32_table("wpe.weight", 2, 4, &[0.5; 8]),
            ],
            "the token table wte.weight is 3 wide but the position table wpe.weight is 4 wide",
        ),
    ];
    for (tensors, problem) in cases {
        write_safetensors(&file, &tensors);
        for path in [dir.path(), file.as_path()] {
            for args in model_commands(path) {
                assert_fails_naming(&args, &file, problem);
            }
        }
        // Inspect still lists the tensors, and says why they cannot be read.
        let listing = stdout_of(&["inspect", arg(&file)]);
        assert!(listing.contains("wte.weight"), "{listing}");
        assert!(listing.contains(problem), "{listing}");
    }
}

#[test]
fn bad_tokenizer_and_config_files_are_named() {
    let model = Gpt2Folder::write("bad-json");
    let folder = model.dir.path();
    let tokenizer = model.dir.join("tokenizer.json");
    let config = model.dir.join("config.json");

    // Twelve words for a ten-row table, as a published tokenizer's placeholder ids can be: the
    // model opens, the tokens past the table have no row, and inspect warns.
    let mut words = GPT2_WORDS.to_vec();
    words.extend(["cat", "sat"]);
    model
        .dir
        .write("tokenizer.json", &word_level_tokenizer(&words).to_string());
    let past = "the tokenizer hands out ids up to 11, but the token table transformer.wte.weight \
                has only 10 rows";
    let sentence = format!("{} sat", GPT2_WORDS[0]);
    let json = json_of(&[
        "lookup",
        "--model",
        arg(folder),
        &sentence,
        "--format",
        "json",
    ]);
    let sat = &tokens(&json)[1];
    assert_eq!(
        (sat["text"].as_str(), sat["id"].as_u64()),
        (Some("sat"), Some(11))
    );
    assert_eq!(sat["token_vector"], Value::Null, "id 11 has no row");
    assert!(tokens(&json)[0]["token_vector"].is_array());
    let listing = stdout_of(&["inspect", arg(folder)]);
    assert!(listing.contains(past), "{listing}");

    for malformed in ["{ not json", "[]", ""] {
        model.dir.write("tokenizer.json", malformed);
        for args in model_commands(folder) {
            assert_fails_naming(
                &args,
                &tokenizer,
                "not a tokenizer.json the tokenizers library can read",
            );
        }
    }
    // JSON the tokenizers library cannot build a tokenizer from: ids and the listing never
    // build it, so they answer; text is refused, naming the file and why.
    model
        .dir
        .write("tokenizer.json", r#"{"model": {"type": "NoSuchModel"}}"#);
    for args in model_commands(folder) {
        stdout_of(&args);
    }
    stdout_of(&["inspect", arg(folder)]);
    assert_fails_naming(
        &["lookup", "--model", arg(folder), "the fox"],
        &tokenizer,
        "not a tokenizer.json the tokenizers library can read: data did not match any variant",
    );
    model.dir.write(
        "tokenizer.json",
        &word_level_tokenizer(&GPT2_WORDS).to_string(),
    );

    // A --tokenizer that is not there.
    let absent = model.dir.join("absent.json");
    assert_fails_naming(
        &[
            "lookup",
            "--model",
            arg(folder),
            "--tokenizer",
            arg(&absent),
            "the fox",
        ],
        &absent,
        "no such file",
    );

    for (malformed, problem) in [
        ("{ not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
    ] {
        model.dir.write("config.json", malformed);
        for args in model_commands(folder) {
            assert_fails_naming(&args, &config, problem);
        }
        assert_fails_naming(&["inspect", arg(folder)], &config, problem);
    }

    let bert = BertFolder::write("bad-eps");
    let config = bert.dir.join("config.json");
    bert.dir
        .write("config.json", r#"{"layer_norm_eps": "small"}"#);
    for args in model_commands(bert.dir.path()) {
        assert_fails_naming(&args, &config, "layer_norm_eps is \"small\", not a number");
    }
    bert.dir.write("config.json", r#"{"layer_norm_eps": -1}"#);
    for args in model_commands(bert.dir.path()) {
        assert_fails_naming(
            &args,
            &config,
            "layer_norm_eps -1 is not a small positive number",
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 8. The built-in GPT-2 vocabulary

/// `lookup --vocab gpt2 SENTENCE --format json --dim 4`.
fn gpt2_lookup(sentence: &str) -> Value {
    let json = json_of(&[
        "lookup", "--vocab", "gpt2", sentence, "--format", "json", "--dim", "4",
    ]);
    assert_eq!(json["vocab"], "gpt2");
    assert_eq!(json["shape"], json!([50_257, 4]));
    json
}

#[test]
fn the_gpt2_vocabulary_gives_tiktokens_ids() {
    let ids = |sentence: &str| -> Vec<u64> {
        column(&gpt2_lookup(sentence), "id")
            .iter()
            .map(|id| id.as_u64().unwrap())
            .collect()
    };
    assert_eq!(ids("dog bites man"), [9_703, 26_081, 582]);
    assert_eq!(ids("man bites dog"), [805, 26_081, 3_290]);
    // The first fox has no space before it; the second does, and is another token.
    assert_eq!(ids("fox bites the fox"), [12_792, 26_081, 262, 21_831]);
}

#[test]
fn the_gpt2_vocabulary_prints_its_vectors() {
    let json = gpt2_lookup("dog bites man");
    for token in tokens(&json) {
        let vector = token["token_vector"].as_array();
        assert_eq!(vector.map(Vec::len), Some(4), "{token}");
    }
    let csv = stdout_of(&["matrix", "--vocab", "gpt2", "--dim", "2", "--format", "csv"]);
    assert_eq!(csv.lines().count(), 50_257 + 1);
}

// ---------------------------------------------------------------------------------------------
// 9. The explorer without a terminal

#[test]
fn the_explorer_needs_a_terminal() {
    let error = failure(&[]);
    assert!(error.contains("needs a terminal"), "{error}");
    assert!(
        error.contains("embedlens lookup"),
        "it points to the print subcommands: {error}"
    );

    // A missing model: the terminal check comes first today; either message is clear.
    let dir = TempDir::new("explorer");
    let missing = dir.join("missing-dir");
    let error = failure(&["--model", arg(&missing)]);
    assert!(
        error.contains("needs a terminal") || error.contains(&missing.display().to_string()),
        "{error}"
    );
}

// ---------------------------------------------------------------------------------------------
// Opened at once: ids and listings never build the tokenizer

/// A GGUF file whose tokenizer is described well enough to name its ids, but cannot be built:
/// its one merge has no space between its halves, which only building the tokenizer reads.
fn gguf_whose_tokenizer_cannot_be_built(folder: &TempDir) -> std::path::PathBuf {
    use embedlens::core::files::gguf::GgufWriter;
    let path = folder.join("broken-merges.gguf");
    GgufWriter::new()
        .text("general.architecture", "llama")
        .text("tokenizer.ggml.model", "gpt2")
        .text("tokenizer.ggml.pre", "qwen2")
        .texts("tokenizer.ggml.tokens", &["a", "b", "ab", "Ġfox"])
        .texts("tokenizer.ggml.merges", &["ab"])
        .f32_table("token_embd.weight", 4, 2, &[0.5; 8])
        .write(&path)
        .expect("a written GGUF file");
    path
}

#[test]
fn ids_and_inspect_answer_without_building_the_tokenizer() {
    let folder = TempDir::new("unbuilt");
    let path = gguf_whose_tokenizer_cannot_be_built(&folder);
    // The names come from the metadata, as the tokenizer would show them.
    let json = json_of(&[
        "lookup",
        "--model",
        arg(&path),
        "--ids",
        "3,2",
        "--format",
        "json",
    ]);
    let texts: Vec<_> = tokens(&json).iter().map(|t| t["text"].clone()).collect();
    assert_eq!(texts, [json!("␣fox"), json!("ab")]);
    stdout_of(&["matrix", "--model", arg(&path)]);
    let listing = stdout_of(&["inspect", arg(&path)]);
    assert!(
        listing.contains(
            "tokenizer: byte-level BPE (tokenizer.ggml.model gpt2, pre-tokenizer \
                          qwen2), 4 tokens, 1 merges, rebuilt from the file's metadata"
        ),
        "{listing}"
    );
    // Text needs the tokenizer: it is built, and the reason it cannot be is given.
    let error = failure(&["lookup", "--model", arg(&path), "a fox"]);
    assert!(
        error.contains(
            "the broken-merges table cannot read text: the file's tokenizer could not be \
             rebuilt: the merge \"ab\" is not two tokens with a space between; to read text, \
             name the model's tokenizer.json"
        ),
        "{error}"
    );
}
