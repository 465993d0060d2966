//! The print subcommands through the real binary: output formats, exact float32 values, errors.
//! Compare mode, the trained vocabulary and the nearest rows are in `cli_compare.rs`.

mod common;

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use common::{bits, json_of, run, stderr_of_failure, stdout_of};
use serde_json::Value;

/// A case of the PyTorch reference file: its tables as float32 bit patterns.
fn reference(case: &str) -> Vec<Vec<Vec<u32>>> {
    let file: Value =
        serde_json::from_str(include_str!("fixtures/torch-embedding-init.json")).unwrap();
    serde_json::from_value(file["cases"][case]["bits"].clone()).unwrap()
}

/// The sorted keys of a JSON object.
fn keys(object: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = object
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

const FOX: &str = "fox bites the fox";

#[test]
fn lookup_table_shows_the_articles_numbers() {
    let table = stdout_of(&["lookup", FOX]);
    assert_eq!(
        table,
        "seed vocabulary, 6x3 weights, positions: none, seed 123\n\
         pos  text   id  token vector\n  \
           0  fox     2   1.2753 -0.2010 -0.1606\n  \
           1  bites   4  -1.1589  0.3255 -0.6315\n  \
           2  the     0   0.3374 -0.1778 -0.1690\n  \
           3  fox     2   1.2753 -0.2010 -0.1606\n\
         \n\
         fox at 0 and 3: same row 2, Euclidean distance 0.0000\n"
    );
}

#[test]
fn lookup_table_with_positions_adds_and_reads_out_the_distance() {
    let table = stdout_of(&["lookup", FOX, "--positions", "learned"]);
    assert!(table.starts_with(
        "seed vocabulary, 6x3 weights, positions: learned (the table randomly initialised, not trained; context length 16), seed 123\n"
    ));
    assert!(table.contains("+ position vector"), "{table}");
    assert!(table.contains("= input vector"), "{table}");
    // Row 0 of the learned position table, as PyTorch prints it.
    assert!(table.contains("-2.1338  1.0524 -0.3885"), "{table}");
    let readout = table.lines().last().unwrap();
    let distance = readout
        .strip_prefix(
            "fox at 0 and 3: same row 2, Euclidean distance 0.0000; with learned positions ",
        )
        .unwrap_or_else(|| panic!("{readout}"));
    assert!(distance.parse::<f64>().unwrap() > 0.1, "{readout}");
}

#[test]
fn lookup_table_notes_words_without_a_row() {
    let table = stdout_of(&["lookup", "the cat"]);
    let cat = table.lines().nth(3).unwrap();
    assert!(cat.contains("cat"), "{table}");
    assert!(cat.contains('—'), "{table}");
    assert!(cat.ends_with("not in the seed vocabulary"), "{table}");
}

#[test]
fn lookup_json_has_the_exact_schema() {
    let json = json_of(&["lookup", FOX, "--format", "json", "--positions", "learned"]);
    assert_eq!(keys(&json), ["positions", "shape", "tokens", "vocab"]);
    assert_eq!(json["vocab"], "seed");
    assert_eq!(json["shape"], serde_json::json!([6, 3]));
    assert_eq!(json["positions"], "learned");
    let tokens = json["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 4);
    for (position, token) in tokens.iter().enumerate() {
        assert_eq!(
            keys(token),
            [
                "id",
                "input_vector",
                "model_embedding",
                "position",
                "position_vector",
                "special",
                "text",
                "token_vector",
                "warning"
            ]
        );
        assert_eq!(token["position"], position);
        assert_eq!(token["warning"], Value::Null);
    }
    assert_eq!(tokens[0]["text"], "fox");
    assert_eq!(tokens[0]["id"], 2);
}

#[test]
fn lookup_json_values_are_pytorchs_float32_bits() {
    let [token_table, position_table] = &reference("seed123_tok6x3_pos16x3")[..] else {
        panic!("two tables")
    };
    let json = json_of(&["lookup", FOX, "--format", "json", "--positions", "learned"]);
    for token in json["tokens"].as_array().unwrap() {
        let id = usize::try_from(token["id"].as_u64().unwrap()).unwrap();
        let position = usize::try_from(token["position"].as_u64().unwrap()).unwrap();
        assert_eq!(bits(&token["token_vector"]), token_table[id]);
        assert_eq!(bits(&token["position_vector"]), position_table[position]);
        // The input vector is the float32 sum, element by element.
        let sum: Vec<u32> = token_table[id]
            .iter()
            .zip(&position_table[position])
            .map(|(&a, &b)| (f32::from_bits(a) + f32::from_bits(b)).to_bits())
            .collect();
        assert_eq!(bits(&token["input_vector"]), sum);
    }
}

#[test]
fn json_writes_each_float32_in_its_shortest_form() {
    let text = stdout_of(&["lookup", "the", "--format", "json"]);
    for shortest in ["0.3373702", "-0.17777722", "-0.16895628"] {
        assert!(text.contains(&format!("{shortest},")) || text.contains(&format!("{shortest}\n")));
    }
    assert!(!text.contains("0.3373701870441437"), "no float64 detours");
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        bits(&json["tokens"][0]["token_vector"]),
        [1_051_507_657, 3_191_212_859, 3_190_620_896]
    );
}

#[test]
fn repeated_words_share_a_vector_until_positions_are_added() {
    let plain = json_of(&["lookup", FOX, "--format", "json"]);
    let tokens = &plain["tokens"];
    assert_eq!(plain["positions"], "none");
    assert_eq!(tokens[0]["token_vector"], tokens[3]["token_vector"]);
    assert_eq!(tokens[0]["input_vector"], tokens[3]["input_vector"]);
    for token in tokens.as_array().unwrap() {
        assert_eq!(token["position_vector"], Value::Null);
        assert_eq!(token["input_vector"], token["token_vector"]);
    }

    let learned = json_of(&["lookup", FOX, "--format", "json", "--positions", "learned"]);
    let tokens = &learned["tokens"];
    assert_eq!(tokens[0]["token_vector"], tokens[3]["token_vector"]);
    assert_ne!(tokens[0]["input_vector"], tokens[3]["input_vector"]);
    for token in tokens.as_array().unwrap() {
        let [token_vector, position_vector, input_vector] =
            ["token_vector", "position_vector", "input_vector"].map(|key| bits(&token[key]));
        for ((t, p), i) in token_vector.iter().zip(&position_vector).zip(&input_vector) {
            assert_eq!(
                (f32::from_bits(*t) + f32::from_bits(*p)).to_bits(),
                *i,
                "{token}"
            );
        }
    }

    let sinusoidal = json_of(&[
        "lookup",
        FOX,
        "--format",
        "json",
        "--positions",
        "sinusoidal",
    ]);
    assert_eq!(
        bits(&sinusoidal["tokens"][0]["position_vector"]),
        [0.0f32, 1.0, 0.0].map(f32::to_bits)
    );
}

#[test]
fn unknown_words_have_no_id_and_no_vectors() {
    let json = json_of(&[
        "lookup",
        "the cat",
        "--format",
        "json",
        "--positions",
        "learned",
    ]);
    let cat = &json["tokens"][1];
    assert_eq!(cat["text"], "cat");
    assert_eq!(cat["position"], 1);
    for key in [
        "id",
        "token_vector",
        "position_vector",
        "input_vector",
        "warning",
    ] {
        assert_eq!(cat[key], Value::Null, "{key}");
    }
    let words = json_of(&["lookup", "--vocab", "words", "zzyzzx", "--format", "json"]);
    let vocabulary = json_of(&["matrix", "--vocab", "words", "--format", "json"]);
    let unknown = words["tokens"][0]["id"].as_u64().unwrap();
    assert_eq!(
        vocabulary["tokens"][usize::try_from(unknown).unwrap()],
        "<|unk|>",
        "the words vocabulary reads unknown words as <|unk|>"
    );
}

#[test]
fn ids_on_a_shape_read_the_same_rows_as_the_seed_vocabulary() {
    let shaped = json_of(&[
        "lookup", "--shape", "6x3", "--ids", "3,1,4", "--format", "json",
    ]);
    let named = json_of(&["lookup", "--ids", "3,1,4", "--format", "json"]);
    assert_eq!(shaped["vocab"], Value::Null);
    assert_eq!(shaped["shape"], serde_json::json!([6, 3]));
    let texts = |json: &Value| -> Vec<String> {
        json["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|token| token["text"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(texts(&shaped), ["#3", "#1", "#4"]);
    assert_eq!(texts(&named), ["dog", "quick", "bites"]);
    let token_table = &reference("seed123_tok6x3_pos16x3")[0];
    for (index, id) in [3, 1, 4].into_iter().enumerate() {
        assert_eq!(shaped["tokens"][index]["id"], id);
        assert_eq!(
            bits(&shaped["tokens"][index]["token_vector"]),
            token_table[id]
        );
        assert_eq!(
            shaped["tokens"][index]["token_vector"],
            named["tokens"][index]["token_vector"]
        );
    }
}

#[test]
fn the_context_length_sizes_the_learned_table_of_a_shape() {
    // manual_seed(42); Embedding(5,3); Embedding(4,3): the position table follows the tokens.
    let tables = reference("seed42_seq_5x3_4x3_6x3_1x3");
    let json = json_of(&[
        "lookup",
        "--shape",
        "5x3",
        "--context-length",
        "4",
        "--seed",
        "42",
        "--positions",
        "learned",
        "--ids",
        "0,1,2,3,4",
        "--format",
        "json",
    ]);
    let tokens = json["tokens"].as_array().unwrap();
    for (position, token) in tokens.iter().enumerate().take(4) {
        assert_eq!(bits(&token["token_vector"]), tables[0][position]);
        assert_eq!(bits(&token["position_vector"]), tables[1][position]);
        assert_eq!(token["warning"], Value::Null);
    }
    let beyond = &tokens[4];
    assert_eq!(bits(&beyond["token_vector"]), tables[0][4]);
    assert_eq!(beyond["position_vector"], Value::Null);
    assert_eq!(beyond["input_vector"], Value::Null);
    assert_eq!(
        beyond["warning"],
        "position 4 is beyond the context length 4"
    );
}

#[test]
fn learned_positions_end_at_the_context_length() {
    let sentence = ["the"; 17].join(" ");
    let json = json_of(&[
        "lookup",
        &sentence,
        "--positions",
        "learned",
        "--format",
        "json",
    ]);
    assert_eq!(json["tokens"][15]["warning"], Value::Null);
    assert_eq!(
        json["tokens"][16]["warning"],
        "position 16 is beyond the context length 16"
    );
    assert_eq!(json["tokens"][16]["input_vector"], Value::Null);
    let table = stdout_of(&["lookup", &sentence, "--positions", "learned"]);
    assert!(
        table.contains("position 16 is beyond the context length 16"),
        "{table}"
    );
}

#[test]
fn the_seed_changes_the_values() {
    let seed_123 = json_of(&["matrix", "--format", "json"]);
    let seed_1 = json_of(&["matrix", "--format", "json", "--seed", "1"]);
    assert_ne!(seed_123["rows"], seed_1["rows"]);
    assert_eq!(seed_123["tokens"], seed_1["tokens"]);
    for (case, shape, seed) in [
        ("seed42_3x7", "3x7", "42"),
        ("seed0_4x4", "4x4", "0"),
        ("seed123_10x8", "10x8", "123"),
    ] {
        let json = json_of(&[
            "matrix", "--shape", shape, "--seed", seed, "--format", "json",
        ]);
        let rows: Vec<Vec<u32>> = json["rows"].as_array().unwrap().iter().map(bits).collect();
        assert_eq!(rows, reference(case)[0], "{case}");
    }
}

#[test]
fn lookup_csv_has_a_header_and_a_row_per_token() {
    let csv = stdout_of(&[
        "lookup",
        "the cat fox",
        "--format",
        "csv",
        "--positions",
        "learned",
    ]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "position,text,id,token_0,token_1,token_2,position_0,position_1,position_2,\
         input_0,input_1,input_2"
    );
    assert_eq!(lines.len(), 4);
    for line in &lines {
        assert_eq!(line.split(',').count(), 12, "{line}");
    }
    assert!(
        lines[1].starts_with(
            "0,the,0,0.3373702,-0.17777722,-0.16895628,-2.133753,1.0523578,-0.38848308,"
        ),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "1,cat,,,,,,,,,,");
    let fox: Vec<f32> = lines[3]
        .split(',')
        .skip(3)
        .map(|cell| cell.parse().unwrap())
        .collect();
    let token_table = &reference("seed123_tok6x3_pos16x3")[0];
    assert_eq!(
        fox[..3].iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        token_table[2]
    );
}

#[test]
fn csv_quotes_punctuation_tokens() {
    let csv = stdout_of(&[
        "lookup",
        "--vocab",
        "words",
        "\"hi\", he said",
        "--format",
        "csv",
    ]);
    let texts: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|line| line.split_once(',').unwrap().1)
        .collect();
    assert!(texts[0].starts_with(r#""""","#), "{csv}");
    assert!(texts[3].starts_with(r#"",","#), "{csv}");
}

#[test]
fn matrix_json_has_shape_tokens_and_rows() {
    let json = json_of(&["matrix", "--format", "json"]);
    assert_eq!(keys(&json), ["rows", "shape", "tokens"]);
    assert_eq!(json["shape"], serde_json::json!([6, 3]));
    assert_eq!(
        json["tokens"],
        serde_json::json!(["the", "quick", "fox", "dog", "bites", "man"])
    );
    let rows: Vec<Vec<u32>> = json["rows"].as_array().unwrap().iter().map(bits).collect();
    assert_eq!(rows, reference("seed123_tok6x3_pos16x3")[0]);

    let shaped = json_of(&["matrix", "--shape", "6x3", "--format", "json"]);
    assert_eq!(shaped["tokens"], Value::Null);
    assert_eq!(shaped["rows"], json["rows"]);
}

#[test]
fn words_matrix_has_about_two_thousand_rows_of_eight() {
    let json = json_of(&["matrix", "--vocab", "words", "--format", "json"]);
    let tokens = json["tokens"].as_array().unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert!(
        (1900..=2100).contains(&tokens.len()),
        "{} tokens",
        tokens.len()
    );
    assert_eq!(rows.len(), tokens.len());
    assert_eq!(json["shape"], serde_json::json!([tokens.len(), 8]));
    assert!(rows.iter().all(|row| row.as_array().unwrap().len() == 8));
    assert_eq!(tokens[tokens.len() - 2], "<|endoftext|>");
    assert_eq!(tokens[tokens.len() - 1], "<|unk|>");

    let csv = stdout_of(&["matrix", "--vocab", "words", "--format", "csv"]);
    assert_eq!(csv.lines().count(), tokens.len() + 1);
    assert_eq!(csv.lines().next(), Some("id,token,d0,d1,d2,d3,d4,d5,d6,d7"));
}

#[test]
fn matrix_table_prints_like_pytorch() {
    let table = stdout_of(&["matrix"]);
    assert!(table.starts_with("seed vocabulary, 6x3 weights, seed 123\n"));
    assert!(
        table.contains("man    -2.8400 -0.7849 -1.4096\n"),
        "{table}"
    );
    assert!(
        table.contains("fox     1.2753 -0.2010 -0.1606\n"),
        "{table}"
    );
}

#[test]
fn an_id_without_a_row_is_an_error() {
    let error = stderr_of_failure(&["lookup", "--ids", "2,9"]);
    assert!(error.starts_with("embedlens: "), "{error}");
    assert!(error.contains("id 9"), "{error}");
    let error = stderr_of_failure(&["lookup", "--shape", "4x2", "--ids", "4"]);
    assert!(error.contains("id 4"), "{error}");
}

#[test]
fn a_bad_shape_is_a_usage_error() {
    let output = run(&["lookup", "--shape", "6by3", "--ids", "1"]);
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8(output.stderr).unwrap();
    assert!(
        error.contains("6by3") && error.contains("ROWSxDIMS"),
        "{error}"
    );
    let error = stderr_of_failure(&["matrix", "--shape", "0x3"]);
    assert!(error.contains("at least 1"), "{error}");
}

#[test]
fn a_shape_takes_ids_not_words() {
    let error = stderr_of_failure(&["lookup", "--shape", "6x3", "fox"]);
    assert!(error.contains("--ids"), "{error}");
}

#[test]
fn an_empty_sentence_is_an_error() {
    for sentence in ["", "   "] {
        let error = stderr_of_failure(&["lookup", sentence]);
        assert!(error.contains("the sentence has no tokens"), "{error}");
    }
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_embedlens"))
        .args(["matrix", "--vocab", "words", "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut start = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut start).unwrap();
    // The read end is dropped: the rest of the (much larger) output meets a closed pipe.
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

#[test]
fn help_and_version_succeed() {
    let help = stdout_of(&["--help"]);
    assert!(help.contains("lookup") && help.contains("matrix"), "{help}");
    let lookup_help = stdout_of(&["lookup", "--help"]);
    assert!(lookup_help.contains("--positions"), "{lookup_help}");
    let version = stdout_of(&["--version"]);
    let prefix = format!("embedlens {}", env!("CARGO_PKG_VERSION"));
    let rest = version
        .trim()
        .strip_prefix(&prefix)
        .expect("the version first");
    // Built from this checkout, the commit follows in brackets: hex digits.
    let commit = rest
        .strip_prefix(" (")
        .and_then(|rest| rest.strip_suffix(')'));
    assert!(
        rest.is_empty()
            || commit.is_some_and(|commit| commit.chars().all(|c| c.is_ascii_hexdigit())),
        "{version}"
    );
}

#[test]
fn completion_scripts_are_printed_for_each_shell_and_bash_parses_its_own() {
    for (shell, mark) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef embedlens"),
        ("fish", "complete -c embedlens"),
        ("elvish", "edit:completion:arg-completer[embedlens]"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let script = stdout_of(&["completions", shell]);
        assert!(script.contains(mark), "{shell}: {script}");
        // Every subcommand and the explorer's options are offered.
        for word in ["lookup", "export", "completions", "vocab"] {
            assert!(script.contains(word), "{shell} lacks {word}");
        }
    }
    let script = stdout_of(&["completions", "bash"]);
    let checked = Command::new("bash")
        .arg("-n")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut bash| {
            bash.stdin.take().unwrap().write_all(script.as_bytes())?;
            bash.wait_with_output()
        })
        .expect("bash runs");
    assert!(
        checked.status.success(),
        "bash -n refuses the script: {}",
        String::from_utf8_lossy(&checked.stderr)
    );
    let error = stderr_of_failure(&["completions", "tcsh"]);
    assert!(
        error.contains("possible values: bash, elvish, fish, powershell, zsh"),
        "{error}"
    );
}
