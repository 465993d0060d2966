//! Conformance with llama.cpp's own tokenizer tests: every `ggml-vocab-*.gguf` of a pinned
//! llama-cpp-python source distribution, its tokenizer rebuilt from the metadata, reads every
//! test string of its `.inp` into the ids of its `.out` (which llama.cpp's
//! `convert_hf_to_gguf_update.py` wrote with the model's own Hugging Face tokenizer,
//! `add_special_tokens=False`, and `test-tokenizer-0` compares llama.cpp with).
//!
//! llama.cpp ships `nomic-bert-moe` (`t5`, a `SentencePiece` unigram model) without test strings:
//! its `.inp` is the common strings and its `.out` the ids the `sentencepiece` library (which
//! llama.cpp's UGM tokenizer ports) reads them into with a model made back from the GGUF's
//! metadata (`scripts/nomic_bert_moe_expected.py`).
//!
//! The strings and ids are fixtures (`tests/fixtures/llama-vocab/*.inp|out`); the vocabularies,
//! 75 MB, are fetched by `scripts/fetch_llama_vocab.sh` (CI runs it first). Without them the
//! test says so loudly and checks only that the fixtures parse.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use embedlens::core::files::gguf::{GgufFile, lazy_tokenizer, metadata_tokenizer, tokenizer_plan};

/// Vocabularies whose tokenizer is not yet read as llama.cpp reads it, and why. The test fails
/// when one of them passes, so the list stays true.
const KNOWN_DIFFERENT: &[(&str, &str)] = &[];

/// The vocabularies llama.cpp ships without test strings: they must still be rebuilt.
const WITHOUT_TESTS: &[&str] = &["aquila", "baichuan", "gpt-neox"];

/// Vocabularies not rebuilt yet, and why: the test fails when one is, so the list stays true.
const NOT_REBUILT: &[(&str, &str)] = &[];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llama-vocab")
}

/// The test strings and their expected ids, as `test-tokenizer-0` reads them.
fn cases(name: &str) -> Vec<(String, Vec<usize>)> {
    let read = |ext: &str| {
        std::fs::read_to_string(fixtures().join(format!("{name}.{ext}")))
            .unwrap_or_else(|error| panic!("{name}.{ext}: {error}"))
    };
    let input = read("inp");
    let output = read("out");
    let separator = "\n__ggml_vocab_test__\n";
    let mut texts: Vec<&str> = input.split(separator).collect();
    // Nothing after a last separator is a test (as test-tokenizer-0 reads the file).
    if texts.last() == Some(&"") {
        texts.pop();
    }
    let ids: Vec<Vec<usize>> = output
        .lines()
        .map(|line| {
            line.split_whitespace()
                .map(|id| id.parse().expect("an id"))
                .collect()
        })
        .collect();
    assert_eq!(texts.len(), ids.len(), "{name}: one line of ids per string");
    texts.into_iter().map(str::to_owned).zip(ids).collect()
}

fn names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().ok()?;
            name.strip_suffix(".inp").map(str::to_owned)
        })
        .collect();
    names.sort();
    names
}

/// What went wrong for one vocabulary: the first strings read differently (or why it could not
/// be read at all).
fn differences(name: &str, path: &Path) -> Vec<String> {
    let file = match GgufFile::open(path) {
        Ok(file) => file,
        Err(error) => return vec![format!("not opened: {error:#}")],
    };
    // Both ways a tokenizer is made from metadata: its tokenizer.json read by the tokenizers
    // crate, and the one a model opens with (built straight from the arrays when text is read).
    let through_json = match metadata_tokenizer(&file).and_then(|built| built.build(name)) {
        Ok(tokenizer) => tokenizer,
        Err(error) => return vec![format!("not rebuilt: {error:#}")],
    };
    let file = Arc::new(file);
    let opened = match tokenizer_plan(&file) {
        Ok(plan) => lazy_tokenizer(&file, &plan, name),
        Err(error) => return vec![format!("not planned: {error:#}")],
    };
    let mut wrong = Vec::new();
    for (way, tokenizer) in [("json", &through_json), ("opened", &opened)] {
        for (text, expected) in cases(name) {
            let got: Result<Vec<usize>, _> = tokenizer
                .tokenize(&text, false)
                .map(|tokens| tokens.iter().filter_map(|token| token.id).collect());
            match got {
                Ok(ids) if ids == expected => {}
                Ok(ids) => wrong.push(format!("{way}: {text:?}: {ids:?}, llama.cpp {expected:?}")),
                Err(error) => wrong.push(format!("{way}: {text:?}: {error:#}")),
            }
        }
    }
    wrong
}

#[test]
fn every_vocabulary_of_llama_cpps_suite_reads_text_as_llama_cpp_does() {
    let names = names();
    assert!(
        names.len() >= 15,
        "the fixtures hold {} vocabularies",
        names.len()
    );
    let vocabularies = fixtures().join("gguf");
    if !vocabularies.join("gpt-2.gguf").exists() {
        // Loud, but not a failure: the strings and ids are here, the vocabularies are fetched.
        for name in &names {
            assert!(!cases(name).is_empty());
        }
        eprintln!(
            "\n*** llama.cpp's vocabularies are not in {}: the conformance test checked only \
             its fixtures. Run scripts/fetch_llama_vocab.sh to fetch them (CI does). ***\n",
            vocabularies.display()
        );
        return;
    }
    // Every vocabulary fetched is tested: with its strings and ids, or named as having none.
    for entry in std::fs::read_dir(&vocabularies).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        if let Some(name) = file.strip_suffix(".gguf") {
            assert!(
                names.iter().any(|known| known == name) || WITHOUT_TESTS.contains(&name),
                "{file} has no test strings here and is not in WITHOUT_TESTS: copy its .inp and \
                 .out from the source package (scripts/fetch_llama_vocab.sh compares them)"
            );
        }
    }
    let mut report = BTreeMap::new();
    for name in &names {
        let wrong = differences(name, &vocabularies.join(format!("{name}.gguf")));
        report.insert(name.clone(), wrong);
    }
    let mut failures = Vec::new();
    for (name, wrong) in &report {
        let known = KNOWN_DIFFERENT.iter().find(|(known, _)| known == name);
        match (wrong.is_empty(), known) {
            (true, None) => eprintln!("{name}: every string as llama.cpp"),
            (true, Some(_)) => failures.push(format!(
                "{name} now reads every string as llama.cpp does: take it off KNOWN_DIFFERENT"
            )),
            (false, Some((_, why))) => eprintln!(
                "{name}: {} strings differ (known: {why}); first: {}",
                wrong.len(),
                wrong[0]
            ),
            (false, None) => failures.push(format!(
                "{name}: {} strings differ:\n  {}",
                wrong.len(),
                wrong
                    .iter()
                    .take(8)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n  ")
            )),
        }
    }
    for name in WITHOUT_TESTS {
        let path = vocabularies.join(format!("{name}.gguf"));
        let built = GgufFile::open(&path)
            .and_then(|file| metadata_tokenizer(&file))
            .and_then(|built| built.build(*name))
            .and_then(|tokenizer| tokenizer.tokenize("Hello world, 3.14 ½ 🦙", false));
        if let Err(error) = built {
            failures.push(format!("{name}: not rebuilt: {error:#}"));
        }
    }
    for (name, why) in NOT_REBUILT {
        let path = vocabularies.join(format!("{name}.gguf"));
        match GgufFile::open(&path).and_then(|file| metadata_tokenizer(&file)) {
            Ok(_) => failures.push(format!(
                "{name} is rebuilt now: take it off NOT_REBUILT and check its ids"
            )),
            Err(error) => eprintln!("{name}: not rebuilt (known: {why}): {error:#}"),
        }
    }
    assert!(failures.is_empty(), "\n{}\n", failures.join("\n"));
}
