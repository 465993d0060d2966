//! Inputs the fuzz targets in `fuzz/` once crashed on, kept so `cargo test` guards them
//! without the fuzzer.
//!
//! Each crash has a small hand-made input here that shows what went wrong, and the fuzzer's own
//! input is kept in `tests/fixtures/fuzz/<target>/`, replayed through the same checks the target
//! makes.

use std::path::{Path, PathBuf};

use embedlens::core::text::tokenizer::{HuggingFaceTokenizer, TextTokenizer};

/// Every stored input of one fuzz target.
fn fixtures(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(target);
    let mut inputs: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&folder)
        .unwrap_or_else(|error| panic!("{}: {error}", folder.display()))
        .map(|entry| {
            let path = entry.expect("a readable folder").path();
            let bytes = std::fs::read(&path).expect("a readable input");
            (path, bytes)
        })
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no inputs in {}", folder.display());
    inputs
}

/// What the `tokenizer_json` target does with an input: read it, and if it reads, tokenise
/// with spans on character boundaries, in order, and ids below the tokenizer's `vocab_size`.
fn read_and_tokenize(json: &[u8]) -> anyhow::Result<()> {
    let tokenizer = TextTokenizer::HuggingFace(HuggingFaceTokenizer::from_json(json, "fuzz")?);
    for text in [
        "fox bites the fox",
        "",
        "naïve café — 東京 🦊\n",
        "[CLS] the [SEP]",
    ] {
        for special_tokens in [false, true] {
            let Ok(tokens) = tokenizer.tokenize(text, special_tokens) else {
                continue;
            };
            let mut end = 0;
            for token in &tokens {
                let span = token.span.clone();
                assert!(span.start >= end && span.end <= text.len(), "{token:?}");
                assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
                end = span.end;
                assert!(
                    token.id.is_some_and(|id| id < tokenizer.vocab_size()),
                    "{token:?}"
                );
            }
        }
    }
    Ok(())
}

#[test]
fn stored_tokenizer_json_inputs_are_read_or_refused_without_a_panic() {
    for (path, json) in fixtures("tokenizer_json") {
        let outcome =
            std::panic::catch_unwind(|| read_and_tokenize(&json).map_err(|e| e.to_string()));
        assert!(outcome.is_ok(), "{} panicked", path.display());
    }
}

/// tokenizers 0.22 panicked (`expect("Helper")` in its decoder's deserializer) on a decoder
/// holding invalid UTF-8, instead of returning an error.
#[test]
fn a_decoder_with_invalid_utf8_is_an_error_not_a_panic() {
    let json =
        b"{\"decoder\": {\"type\": \"Metaspa\x90\x90ce\"}, \"model\": {\"type\": \"WordLevel\", \
                 \"vocab\": {}, \"unk_token\": \"a\"}}";
    let error = HuggingFaceTokenizer::from_json(json, "fuzz").unwrap_err();
    assert!(format!("{error:#}").contains("not valid JSON"), "{error:#}");
}

/// A word-level model whose post-processor is the given JSON.
fn with_post_processor(post_processor: &str) -> String {
    format!(
        r#"{{"post_processor": {post_processor},
             "model": {{"type": "WordLevel", "vocab": {{"fox": 0, "[CLS]": 1}}, "unk_token": "fox"}}}}"#
    )
}

/// tokenizers 0.22 reads a template that adds a special token `special_tokens` does not
/// define, then panics (`no entry found for key`) on the first encode with special tokens.
#[test]
fn a_template_adding_an_undefined_special_token_is_refused() {
    let template = r#"{"type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                   {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"[CLX]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}}}"#;
    for post_processor in [
        template.to_owned(),
        format!(r#"{{"type": "Sequence", "processors": [{template}]}}"#),
    ] {
        let json = with_post_processor(&post_processor);
        let error = HuggingFaceTokenizer::from_json(json.as_bytes(), "fuzz").unwrap_err();
        assert!(format!("{error:#}").contains("[CLS]"), "{error:#}");
    }
    // The same template with the token defined reads, and adds it.
    let defined = template.replace("[CLX]", "[CLS]");
    let json = with_post_processor(&defined);
    let tokenizer = TextTokenizer::HuggingFace(
        HuggingFaceTokenizer::from_json(json.as_bytes(), "fuzz").unwrap(),
    );
    let tokens = tokenizer.tokenize("fox", true).unwrap();
    let ids: Vec<_> = tokens.iter().map(|token| token.id).collect();
    assert_eq!(ids, [Some(1), Some(0)]);
}

/// A post-processor may add ids the model's vocabulary lacks; they count towards `vocab_size`,
/// so opening a model checks its table has rows for them too (the `tokenizer_json` target's
/// check that ids stay below `vocab_size` failed on this).
#[test]
fn ids_a_post_processor_adds_count_towards_the_vocabulary() {
    for post_processor in [
        r#"{"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}],
            "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [99], "tokens": ["[CLS]"]}}}"#,
        r#"{"type": "BertProcessing", "sep": ["[SEP]", 7], "cls": ["[CLS]", 99]}"#,
    ] {
        let json = with_post_processor(post_processor);
        let tokenizer = TextTokenizer::HuggingFace(
            HuggingFaceTokenizer::from_json(json.as_bytes(), "fuzz").unwrap(),
        );
        assert_eq!(tokenizer.vocab_size(), 100, "{post_processor}");
        let tokens = tokenizer.tokenize("fox", true).unwrap();
        assert_eq!(tokens[0].id, Some(99));
    }
}

/// The display cache holds a string for every id up to the highest, so one huge id in a tiny
/// file took over 2 GB (libFuzzer's out-of-memory limit); such a file is now refused.
#[test]
fn a_tiny_file_naming_a_huge_id_is_refused() {
    let json = br#"{"model":{"type":"WordLevel","vocab":{"a":49999999},"unk_token":"a"}}"#;
    let error = HuggingFaceTokenizer::from_json(json, "fuzz").unwrap_err();
    assert!(format!("{error:#}").contains("49999999"), "{error:#}");
}
