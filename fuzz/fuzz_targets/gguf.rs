//! Any bytes as a `model.gguf`: reading its header and metadata, rebuilding its tokenizer,
//! opening its tables and its layer 0 must answer Ok or Err, never panic, and never ask for
//! memory out of proportion to the file (the reader's bounds on counts).
#![no_main]

use std::path::PathBuf;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;

mod common;

/// A file of this process's own, so fuzzers running side by side never share one.
static MODEL_FILE: LazyLock<PathBuf> = LazyLock::new(|| common::own_file("gguf", "model.gguf"));

fuzz_target!(|data: &[u8]| {
    let Some(opened) = common::write_and_open(&MODEL_FILE, data) else {
        return;
    };
    let model = opened.model;
    let rows = common::check_rows(&model);
    if model.tokenizer().is_some()
        && let Ok(tokens) = model.tokenize_with("the fox bites the fox 12 ½", true)
    {
        for token in &tokens {
            if let Some(id) = token.id {
                let _ = model.lookup(id);
            }
        }
    }
    if let Ok(layer) = opened.layer0 {
        let ids: Vec<usize> = [0, rows - 1].into_iter().collect();
        let _ = layer.run(&ids, true);
        let _ = layer.run(&ids, false);
    }
});
