//! `compare`, the trained vocabulary and `nearest` through the real binary: what the print
//! subcommands say about word order, a model's own rows and the rows nearest a word.

mod common;

use common::{bits, json_of, stderr_of_failure, stdout_of};
use serde_json::Value;

#[test]
fn compare_shows_that_word_order_is_invisible_without_positions() {
    let json = json_of(&[
        "compare",
        "dog bites man",
        "man bites dog",
        "--format",
        "json",
    ]);
    assert_eq!(json["same_token_vectors"], true);
    assert_eq!(json["same_mean_vector"], true);
    let sentences = json["sentences"].as_array().unwrap();
    assert_eq!(sentences.len(), 2);
    let dog_in_a = &sentences[0]["tokens"][0];
    let dog_in_b = &sentences[1]["tokens"][2];
    assert_eq!(dog_in_a["text"], "dog");
    assert_eq!(dog_in_b["text"], "dog");
    assert_eq!(
        dog_in_a["attention_output"], dog_in_b["attention_output"],
        "unmasked attention without positions gives a word the same output in both orders"
    );
    for key in [
        "position",
        "text",
        "id",
        "token_vector",
        "position_vector",
        "input_vector",
        "attention_output",
    ] {
        assert!(dog_in_a.get(key).is_some(), "{key}");
    }
    assert_eq!(json["wording"], "reordered");
    assert!(
        json.get("same_input_vectors").is_none(),
        "no positions: the input vectors are the token vectors"
    );
    let attention = &json["attention_verdict"];
    assert_eq!(attention["overall"], "identical");
    assert_eq!(attention["largest_difference"], 0.0);
    let words = attention["words"].as_array().unwrap();
    assert_eq!(words.len(), 3);
    assert_eq!(words[0]["text"], "dog");
    assert_eq!((&words[0]["a"], &words[0]["b"]), (&0.into(), &2.into()));
    assert!(words.iter().all(|word| word["output"] == "identical"));
    let verdicts: Vec<&str> = json["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|sentence| sentence.as_str().unwrap())
        .collect();
    assert!(
        verdicts.contains(
            &"Attention outputs: identical for all 3 shared words in A and B, bit for bit."
        ),
        "{verdicts:?}"
    );
}

#[test]
fn compare_json_judges_input_vectors_and_outputs_with_positions() {
    let json = json_of(&[
        "compare",
        "dog bites man",
        "man bites dog",
        "--positions",
        "learned",
        "--format",
        "json",
    ]);
    assert_eq!(json["same_token_vectors"], true);
    assert_eq!(json["same_input_vectors"], false);
    let attention = &json["attention_verdict"];
    assert_eq!(attention["overall"], "differs");
    assert!(attention["largest_difference"].as_f64().unwrap() > 0.0);
    let words = attention["words"].as_array().unwrap();
    let bites = words.iter().find(|word| word["text"] == "bites").unwrap();
    assert_eq!(
        bites["input_vector"], "identical",
        "bites stands at 1 in both"
    );
    let dog = words.iter().find(|word| word["text"] == "dog").unwrap();
    assert_eq!(dog["input_vector"], "differs");
    assert_eq!(dog["output"], "differs");
    let text = json["verdicts"].to_string();
    assert!(!text.contains("0.0000"), "{text}");
}

#[test]
fn compare_says_when_the_words_differ() {
    let json = json_of(&[
        "compare",
        "dog bites man",
        "dog bites fox",
        "--format",
        "json",
    ]);
    assert_eq!(json["wording"], "different_words");
    assert_eq!(
        json["verdicts"][0],
        "A and B hold different words, not just a different order."
    );
    let causal = json_of(&[
        "compare",
        "dog bites man",
        "man bites dog",
        "--causal",
        "--format",
        "json",
    ]);
    assert_eq!(causal["attention_verdict"]["overall"], "differs");
    assert!(
        causal["verdicts"].to_string().contains("The causal mask"),
        "{causal}"
    );
}

#[test]
fn compare_with_positions_or_a_causal_mask_tells_the_orders_apart() {
    for extra in [
        &["--positions", "learned"][..],
        &["--causal"][..],
        &["--positions", "rope"][..],
    ] {
        let mut args = vec![
            "compare",
            "dog bites man",
            "man bites dog",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        let json = json_of(&args);
        assert_eq!(json["same_token_vectors"], true, "{extra:?}");
        let sentences = json["sentences"].as_array().unwrap();
        assert_ne!(
            sentences[0]["tokens"][0]["attention_output"],
            sentences[1]["tokens"][2]["attention_output"],
            "{extra:?}"
        );
    }
}

#[test]
fn compare_under_gpt2_explains_different_pieces() {
    let json = json_of(&[
        "compare",
        "dog bites man",
        "man bites dog",
        "--vocab",
        "gpt2",
        "--dim",
        "4",
        "--format",
        "json",
    ]);
    assert_eq!(json["same_token_vectors"], false);
    let differences = json["id_differences"].as_array().unwrap();
    assert!(
        differences[0].as_str().unwrap().contains("leading space"),
        "{json}"
    );
}

#[test]
fn compare_table_and_errors() {
    let table = stdout_of(&["compare", "dog bites man", "man bites dog"]);
    assert!(table.contains("same token vectors: yes"), "{table}");
    assert!(
        table.contains("Attention outputs: identical for all 3 shared words"),
        "{table}"
    );
    let positions = stdout_of(&[
        "compare",
        "dog bites man",
        "man bites dog",
        "--positions",
        "sinusoidal",
    ]);
    assert!(positions.contains("same input vectors: no"), "{positions}");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_embedlens"))
        .args(["compare", "dog bites cat", "cat bites dog"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cat"), "{stderr}");
}

#[test]
fn trained_vocabulary_prints_the_models_own_rows() {
    let fixture: Value = serde_json::from_str(include_str!("fixtures/trained-rows.json")).unwrap();
    let expected: Vec<u32> =
        serde_json::from_value(fixture["tokens"]["king"]["bits"].clone()).unwrap();
    let output = json_of(&[
        "lookup",
        "--vocab",
        "trained",
        "--format",
        "json",
        "King zzyzzx",
    ]);
    assert_eq!(bits(&output["tokens"][0]["token_vector"]), expected);
    assert_eq!(output["tokens"][1]["text"], "zzyzzx");
    assert_eq!(
        output["tokens"][1]["id"], 1988,
        "unknown words read [UNK], the last row"
    );
    let text = stdout_of(&["lookup", "--vocab", "trained", "the"]);
    assert!(
        text.starts_with("trained vocabulary, 1989x384 weights, positions: none, trained rows of all-MiniLM-L6-v2"),
        "{text}"
    );
}

#[test]
fn nearest_lists_the_rows_nearest_a_words_row_as_the_pane_does() {
    let table = stdout_of(&["nearest", "fox"]);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(
        lines[0],
        "Nearest rows to 'fox' (id 2) among all 6 rows, by cosine over all 3 dims, exact \
         (seed vocabulary, 6x3 weights):"
    );
    assert_eq!(lines[2], "rank  id  token  cosine");
    assert_eq!(lines[3], "   1   2  fox    1.0000");
    assert_eq!(lines[4], "   2   0  the    0.9087");
    assert_eq!(lines.len(), 8, "{table}");
    // The same rows from the id, and --top.
    let by_id = stdout_of(&["nearest", "--id", "2", "--top", "2"]);
    assert_eq!(by_id.lines().nth(4), Some(lines[4]));
    assert_eq!(by_id.lines().count(), 5);
}

/// `nearest` from the trained row of "cat" plus its learned position vector at the position
/// that follows.
const CAT_AT_POSITION: &[&str] = &[
    "nearest",
    "--vocab",
    "trained",
    "cat",
    "--positions",
    "learned",
    "--at",
];

#[test]
fn nearest_json_gives_the_input_vectors_rows_with_float64_cosines() {
    let json = json_of(&[CAT_AT_POSITION, &["3", "--top", "3", "--format", "json"]].concat());
    assert_eq!(json["query"]["text"], "cat");
    assert_eq!(json["query"]["positions"], "learned");
    assert_eq!(json["query"]["at"], 3);
    let nearest = json["nearest"].as_array().unwrap();
    assert_eq!(nearest.len(), 3);
    assert_eq!(nearest[0]["token"], "cat");
    let cosines: Vec<f64> = nearest
        .iter()
        .map(|row| row["cosine"].as_f64().unwrap())
        .collect();
    // Position 3's vector is added, so even the word's own row is not at cosine 1.
    assert!(cosines[0] < 1.0 && cosines.windows(2).all(|pair| pair[0] >= pair[1]));
    let plain = json_of(&["nearest", "--vocab", "trained", "cat", "--format", "json"]);
    let own = plain["nearest"][0]["cosine"].as_f64().unwrap();
    assert!((own - 1.0).abs() < 1e-12, "{own}");
    assert!(plain["query"].get("at").is_none());
}

#[test]
fn nearest_refuses_what_it_cannot_scan() {
    let two = stderr_of_failure(&["nearest", "--vocab", "words", "the fox"]);
    assert!(
        two.contains("\"the fox\" is 2 tokens (the, fox): nearest starts from one row"),
        "{two}"
    );
    let unknown = stderr_of_failure(&["nearest", "--vocab", "words", "zzyzzx"]);
    assert!(
        unknown.contains("\"zzyzzx\" is not in the words vocabulary"),
        "{unknown}"
    );
    let far = stderr_of_failure(&["nearest", "--id", "6"]);
    assert!(far.contains("id 6 has no row"), "{far}");
    let beyond = stderr_of_failure(&[CAT_AT_POSITION, &["9999"]].concat());
    assert!(
        beyond.contains("position 9999 is beyond the context length"),
        "{beyond}"
    );
    for bad in [["--top", "0"], ["--top", "1001"]] {
        let error = stderr_of_failure(&["nearest", "fox", bad[0], bad[1]]);
        assert!(error.contains("--top"), "{error}");
    }
}
