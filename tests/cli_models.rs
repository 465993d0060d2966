//! Model files through the real binary, as a new user meets them: GPT-2 and BERT folders and
//! single `.safetensors` files that each test writes itself, every float dtype, tensor-name
//! overrides, `inspect`, GPT-2's own vocabulary. Every way a file can be wrong is in
//! `cli_model_errors.rs`; the files both write are in `model_files/`.

mod common;
mod model_files;

use common::{TempDir, arg, bits, float32, json_of, stdout_of, write_safetensors};
use model_files::{
    BertFolder, GPT2_WORDS, Gpt2Folder, WIDTH, assert_fails_naming, awkward_values, bits_of,
    column, f32_sum, f32_table, failure, row_of, tokens,
};
use safetensors::Dtype;
use serde_json::{Value, json};

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
