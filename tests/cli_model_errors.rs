//! Every way a model file can be wrong, through the real binary: missing and empty folders,
//! corrupt safetensors files, tables that cannot be embedding tables, bad tokenizers and
//! configs; each named in one clean message, never a panic.

mod common;
mod model_files;

use std::path::Path;

use common::{
    TempDir, Tensor, arg, f32_bytes, json_of, raw_safetensors, stdout_of, word_level_tokenizer,
    write_safetensors,
};
use model_files::{
    BertFolder, GPT2_WORDS, Gpt2Folder, assert_fails_naming, awkward_values, f32_table, failure,
    tokens,
};
use safetensors::Dtype;
use serde_json::Value;

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
