//! `embedlens attention` and `embedlens compare --model` on the small checkpoints of
//! tests/fixtures/layer0, whose layer-0 values `transformers` computed (reference.json).

mod common;

use std::path::{Path, PathBuf};

use common::run;

use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/layer0")
        .join(name)
}

fn stdout_of(args: &[&str]) -> String {
    let output = run(args);
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "embedlens {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn failure(args: &[&str]) -> String {
    let output = run(args);
    let error = String::from_utf8(output.stderr).unwrap();
    assert!(!output.status.success(), "embedlens {args:?} should fail");
    assert!(
        output.stdout.is_empty() && !error.contains("panicked"),
        "{error}"
    );
    assert!(error.starts_with("embedlens: "), "{error}");
    error
}

fn floats(value: &Value) -> Vec<f64> {
    match value {
        Value::Array(items) => items.iter().flat_map(floats).collect(),
        Value::Number(number) => vec![number.as_f64().unwrap()],
        other => panic!("not a number: {other}"),
    }
}

fn path(name: &str) -> String {
    fixture(name).to_str().unwrap().to_owned()
}

#[test]
fn attention_json_has_every_head_and_matches_transformers() {
    for (name, positions) in [("bert", true), ("gpt2", false), ("gemma", true)] {
        let reference: Value = serde_json::from_str(
            &std::fs::read_to_string(fixture(name).join("reference.json")).unwrap(),
        )
        .unwrap();
        let ids: Vec<String> = floats(&reference["ids"])
            .iter()
            .map(ToString::to_string)
            .collect();
        let mut args = vec![
            "attention",
            "--model",
            &path(name),
            "--ids",
            &ids.join(","),
            "--format",
            "json",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
        if !positions {
            args.push("--no-positions".to_owned());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let json: Value = serde_json::from_str(&stdout_of(&args)).unwrap();
        assert_eq!(json["model"], name);
        assert_eq!(json["positions"], positions);
        assert!(json["family"].is_string());
        let heads = json["heads"].as_array().unwrap();
        assert_eq!(heads.len(), 4, "{name}: every head");
        for head in heads {
            for row in head["weights"].as_array().unwrap() {
                let sum: f64 = floats(row).iter().sum();
                assert!((sum - 1.0).abs() < 1e-5, "{name}: a row sums to {sum}");
            }
        }
        let key = if positions {
            "with_positions"
        } else {
            "without_positions"
        };
        let ours: Vec<f64> = heads
            .iter()
            .flat_map(|head| floats(&head["weights"]))
            .collect();
        let theirs = floats(&reference[key]["weights"]);
        for (a, b) in ours.iter().zip(&theirs) {
            assert!((a - b).abs() <= 1e-5, "{name}: weight {a} vs {b}");
        }
        let tokens = json["tokens"].as_array().unwrap();
        let outputs: Vec<f64> = tokens.iter().flat_map(|t| floats(&t["output"])).collect();
        let theirs = floats(&reference[key]["outputs"]);
        assert_eq!(outputs.len(), theirs.len());
        let size = theirs.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for (a, b) in outputs.iter().zip(&theirs) {
            assert!((a - b).abs() <= 1e-5 * size, "{name}: output {a} vs {b}");
        }
        // The output is every head's context side by side.
        let width = heads[0]["context"][0].as_array().unwrap().len();
        for (index, token) in tokens.iter().enumerate() {
            let output = floats(&token["output"]);
            for (head, values) in heads.iter().zip(output.chunks(width)) {
                assert_eq!(floats(&head["context"][index]), values);
            }
        }
    }
}

#[test]
fn attention_table_prints_one_head_and_the_outputs() {
    let table = stdout_of(&[
        "attention",
        "--model",
        &path("bert"),
        "the dog bites the man",
        "--head",
        "2",
    ]);
    assert!(
        table.starts_with("bert: layer 0 of a BERT-style (bert) model, 4 query heads"),
        "{table}"
    );
    assert!(table.contains("positions: on (the learned position table is added); no mask"));
    assert!(table.contains("head 2 (key/value head 2): weights"));
    assert!(!table.contains("head 1 "));
    assert!(table.contains("2 dog"));
    assert!(table.contains("layer-0 output of each token (all 4 heads' contexts side by side"));
}

#[test]
fn attention_refuses_what_it_cannot_compute() {
    let error = failure(&["attention", "--model", &path("bert"), "dog", "--head", "4"]);
    assert!(
        error.contains("head 4 does not exist: layer 0 has 4 heads, 0 to 3"),
        "{error}"
    );
    let error = failure(&["attention", "dog"]);
    assert!(error.contains("--model PATH"), "{error}");
    let lone = fixture("bert").join("model.safetensors");
    let error = failure(&[
        "attention",
        "--model",
        lone.to_str().unwrap(),
        "--ids",
        "1,2",
    ]);
    assert!(
        error.contains("without config.json its number of heads is unknown"),
        "{error}"
    );
    let error = failure(&["attention", "--model", &path("bert"), "--ids", "1,99"]);
    assert!(error.contains("id 99 has no row"), "{error}");
}

#[test]
fn attention_is_computed_for_a_stated_number_of_tokens_at_most() {
    // A Llama-style model with a long context: its own limit would allow 4096 tokens, whose
    // weights alone take heads × 4096² numbers; the stated cap refuses them first.
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(fixture("llama_gqa_bf16")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    let config = dir.path().join("config.json");
    let text = std::fs::read_to_string(&config).unwrap();
    let long = text.replace(
        "\"max_position_embeddings\": 64",
        "\"max_position_embeddings\": 4096",
    );
    assert_ne!(text, long, "the fixture states its context length");
    std::fs::write(&config, long).unwrap();
    let model = dir.path().to_str().unwrap();
    let ids = |count: usize| vec!["1"; count].join(",");
    let error = failure(&["attention", "--model", model, "--ids", &ids(1025)]);
    // The bound named is the one that refused them, with the model's own beside it.
    assert!(
        error.contains(
            "1025 tokens: layer 0 is computed for at most 1024 tokens here: the attention \
             weights grow with the square of the tokens, for every head (the model reads up to \
             4096)"
        ),
        "{error}"
    );
    // The header promises no more than that.
    let table = stdout_of(&["attention", "--model", model, "--ids", "1,2", "--head", "0"]);
    assert!(
        table.contains("  computed for at most 1024 tokens: the attention weights grow"),
        "{table}"
    );
    assert!(!table.contains("at most 4096"), "{table}");
    let json = stdout_of(&[
        "attention",
        "--model",
        model,
        "--ids",
        &ids(1024),
        "--head",
        "0",
        "--format",
        "json",
    ]);
    assert!(json.contains("\"heads\""));
}

#[test]
fn compare_with_a_bert_model_shows_the_claim_on_its_own_layer() {
    let table = stdout_of(&[
        "compare",
        "--model",
        &path("bert"),
        "the dog bites the man",
        "the man bites the dog",
    ]);
    assert!(table.contains("the model's own layer 0"), "{table}");
    assert!(table.contains(
        "without its position table, the model's own layer 0 gives every word the same output \
         in both orders, bit for bit"
    ));
    assert!(table.contains("with its position information, the outputs differ, by up to"));
    let json: Value = serde_json::from_str(&stdout_of(&[
        "compare",
        "--model",
        &path("bert"),
        "the dog bites the man",
        "the man bites the dog",
        "--format",
        "json",
    ]))
    .unwrap();
    let states = json["states"].as_array().unwrap();
    assert_eq!(states[0]["positions"], false);
    // Without positions "dog" (A's token 2, B's token 5) has the same output in both orders.
    assert_eq!(states[0]["a"][2]["output"], states[0]["b"][5]["output"]);
    assert_ne!(states[1]["a"][2]["output"], states[1]["b"][5]["output"]);
}

#[test]
fn compare_with_a_gpt2_model_explains_the_causal_mask() {
    let table = stdout_of(&[
        "compare",
        "--model",
        &path("gpt2"),
        "the dog bites the man",
        "the man bites the dog",
    ]);
    assert!(
        table.contains("the causal mask alone already tells the orders apart"),
        "{table}"
    );
}

#[test]
fn attention_and_compare_read_a_gguf_files_own_layer_0() {
    // The Llama fixture as llama.cpp's converter writes it (query and key rows interleaved),
    // with a word-level tokenizer.json beside it.
    let dir = common::TempDir::new("gguf");
    let gguf = dir.join("llama.gguf");
    common::convert_to_gguf(&fixture("llama_gqa_bf16"), &gguf, common::GgufWeights::F32);
    let tokenizer = common::word_level_tokenizer(&["[UNK]", "the", "dog", "bites", "man"]);
    dir.write("tokenizer.json", &tokenizer.to_string());
    let model = gguf.to_str().unwrap();

    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("llama_gqa_bf16").join("reference.json")).unwrap(),
    )
    .unwrap();
    let ids: Vec<String> = floats(&reference["ids"])
        .iter()
        .map(ToString::to_string)
        .collect();
    let json: Value = serde_json::from_str(&stdout_of(&[
        "attention",
        "--model",
        model,
        "--ids",
        &ids.join(","),
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(json["family"], "Llama-style (llama)");
    let ours: Vec<f64> = json["heads"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|head| floats(&head["weights"]))
        .collect();
    let theirs = floats(&reference["with_positions"]["weights"]);
    assert_eq!(ours.len(), theirs.len());
    for (a, b) in ours.iter().zip(&theirs) {
        assert!((a - b).abs() <= 1e-5, "weight {a} vs {b}");
    }

    let table = stdout_of(&["attention", "--model", model, "the dog bites the man"]);
    assert!(
        table.starts_with("llama: layer 0 of a Llama-style (llama) model, 4 query heads"),
        "{table}"
    );
    assert!(table.contains("the file interleaves each head's query and key rows"));
    let compared = stdout_of(&[
        "compare",
        "--model",
        model,
        "the dog bites the man",
        "the man bites the dog",
    ]);
    assert!(compared.contains("the model's own layer 0"), "{compared}");
    assert!(
        compared.contains("the causal mask alone already tells the orders apart"),
        "{compared}"
    );
}

#[test]
fn a_gguf_file_of_another_architecture_says_which_it_reads() {
    let dir = common::TempDir::new("gguf-arch");
    let gguf = dir.join("other.gguf");
    embedlens::core::files::gguf::GgufWriter::new()
        .text("general.architecture", "rwkv6")
        .f32_table("token_embd.weight", 2, 4, &[0.5; 8])
        .write(&gguf)
        .unwrap();
    let error = failure(&["attention", "--model", gguf.to_str().unwrap(), "--ids", "1"]);
    assert!(
        error.contains(
            "general.architecture rwkv6: embedlens reads the first attention layer of GGUF \
             files of the bert, gpt2, llama, qwen2, qwen3, stablelm, gemma, gemma2 and \
             gemma3 architectures only"
        ),
        "{error}"
    );
}

#[test]
fn compare_with_a_bert_gguf_file_shows_the_claim_on_its_own_layer() {
    // The BERT fixture as llama.cpp's converter writes it, its tokenizer.json beside it.
    let dir = common::TempDir::new("gguf-bert");
    let gguf = dir.join("bert.gguf");
    common::convert_to_gguf(&fixture("bert"), &gguf, common::GgufWeights::F32);
    std::fs::copy(
        fixture("bert").join("tokenizer.json"),
        dir.join("tokenizer.json"),
    )
    .unwrap();
    let table = stdout_of(&[
        "compare",
        "--model",
        gguf.to_str().unwrap(),
        "the dog bites the man",
        "the man bites the dog",
    ]);
    assert!(
        table.contains(
            "without its position table, the model's own layer 0 gives every word the same output \
         in both orders, bit for bit"
        ),
        "{table}"
    );
    assert!(table.contains("with its position information, the outputs differ, by up to"));
}

/// Whether `line` is `timings: ` then each of `stages` as `NAME N.NNN ms`, in order, then the
/// total: the shape of the line, never the times themselves.
fn is_timings_line(line: &str, stages: &[&str]) -> bool {
    let Some(rest) = line.strip_prefix("timings: ") else {
        return false;
    };
    let parts: Vec<&str> = rest.split(", ").collect();
    let names = stages.iter().copied().chain(["total"]);
    parts.len() == stages.len() + 1
        && parts.iter().zip(names).all(|(part, name)| {
            let Some(time) = part
                .strip_prefix(name)
                .and_then(|rest| rest.strip_prefix(' '))
                .and_then(|rest| rest.strip_suffix(" ms"))
            else {
                return false;
            };
            let (whole, millis) = time.split_once('.').unwrap_or((time, ""));
            !whole.is_empty()
                && millis.len() == 3
                && whole
                    .chars()
                    .chain(millis.chars())
                    .all(|c| c.is_ascii_digit())
        })
}

#[test]
fn attention_timings_is_one_line_on_stderr_naming_each_stage() {
    let args = [
        "attention",
        "--model",
        &path("bert"),
        "the dog",
        "--timings",
    ];
    let output = run(&args);
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        is_timings_line(lines[0], &["open", "norm", "projections", "heads", "print"]),
        "{stderr}"
    );
    // The output itself is what it is without --timings.
    let without = stdout_of(&args[..4]);
    assert_eq!(String::from_utf8(output.stdout).unwrap(), without);
}

#[test]
fn nearest_scans_a_models_own_table_and_times_it() {
    let output = run(&[
        "nearest",
        "--model",
        &path("bert"),
        "--id",
        "3",
        "--timings",
    ]);
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        is_timings_line(stderr.trim_end(), &["open", "scan", "print"]),
        "{stderr}"
    );
    let table = String::from_utf8(output.stdout).unwrap();
    let first = table.lines().nth(3).unwrap();
    assert!(
        first.starts_with("   1  ") && first.ends_with("  1.0000"),
        "{table}"
    );
    assert!(table.lines().nth(3).unwrap().contains(" 3 "), "{table}");
}
