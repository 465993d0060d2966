//! Any bytes as a `model.gguf`: reading its header and metadata, rebuilding its tokenizer,
//! opening its tables and its layer 0 must answer Ok or Err, never panic, and never ask for
//! memory out of proportion to the file (the reader's bounds on counts).
#![no_main]

use std::path::PathBuf;
use std::sync::LazyLock;

use embedlens::core::files::{FileSource, OpenOptions, inspect, open};
use libfuzzer_sys::fuzz_target;

/// A file of this process's own, so fuzzers running side by side never share one.
static MODEL_FILE: LazyLock<PathBuf> = LazyLock::new(|| {
    let folder = std::env::temp_dir().join(format!("embedlens-fuzz-gguf-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a temporary folder");
    folder.join("model.gguf")
});

fuzz_target!(|data: &[u8]| {
    let path = &*MODEL_FILE;
    std::fs::write(path, data).expect("the temporary file is writable");
    if let Ok(inspection) = inspect(&FileSource::path(path)) {
        let _ = inspection.to_string();
    }
    let Ok(opened) = open(&FileSource::path(path), &OpenOptions::default()) else {
        return;
    };
    let model = opened.model;
    let rows = model.rows();
    assert!(
        rows > 0 && model.dims() > 0,
        "an opened table has rows and columns"
    );
    for id in [0, rows / 2, rows - 1] {
        let row = model.lookup(id).expect("every id below rows has a row");
        assert_eq!(row.len(), model.dims());
    }
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
