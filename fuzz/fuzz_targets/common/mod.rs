//! What the fuzz targets share: a file of the process's own that the input is written to and
//! opened from as a model, the checks every opened table passes, and the checks on a
//! tokenizer's spans.
//!
//! Each target takes what it needs with `mod common;`, so any one target leaves some unused.
#![allow(
    dead_code,
    reason = "each target uses some of these; `expect` would fail in the targets that use them all"
)]

use std::path::{Path, PathBuf};

use embedlens::core::files::{FileSource, OpenOptions, Opened, inspect, open};
use embedlens::core::tables::weights::EmbeddingModel;
use embedlens::core::text::vocabulary::Token;

/// A file named `name` in a folder of this process's own (named after the `target`), so
/// fuzzers running side by side never share one.
pub fn own_file(target: &str, name: &str) -> PathBuf {
    let folder =
        std::env::temp_dir().join(format!("embedlens-fuzz-{target}-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a temporary folder");
    folder.join(name)
}

/// Writes `data` to `path`, inspects it (which must answer Ok or Err, never panic) and opens
/// it as a model: `None` when it does not open.
pub fn write_and_open(path: &Path, data: &[u8]) -> Option<Opened> {
    std::fs::write(path, data).expect("the temporary file is writable");
    if let Ok(inspection) = inspect(&FileSource::path(path)) {
        let _ = inspection.to_string();
    }
    open(&FileSource::path(path), &OpenOptions::default()).ok()
}

/// An opened table has rows and columns, and its first, middle and last ids have rows of its
/// width; says how many rows.
pub fn check_rows(model: &EmbeddingModel) -> usize {
    let rows = model.rows();
    assert!(
        rows > 0 && model.dims() > 0,
        "an opened table has rows and columns"
    );
    for id in [0, rows / 2, rows - 1] {
        let row = model.lookup(id).expect("every id below rows has a row");
        assert_eq!(row.len(), model.dims());
        let _ = model.non_finite_warning(id);
    }
    rows
}

/// Spans on character boundaries, within the text, in order, without overlap; positions count
/// from 0. With `whole`, the spans together cover the text exactly.
pub fn check_spans(text: &str, tokens: &[Token], whole: bool, what: &str) {
    let mut end = 0;
    for (position, token) in tokens.iter().enumerate() {
        let span = &token.span;
        assert_eq!(token.position, position, "{what}: {token:?}");
        assert!(
            span.start <= span.end && span.end <= text.len(),
            "{what}: {token:?} runs past the text"
        );
        assert!(
            text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
            "{what}: {token:?} cuts a character"
        );
        assert!(
            span.start >= end,
            "{what}: {token:?} overlaps the token before"
        );
        if whole {
            assert_eq!(span.start, end, "{what}: {token:?} leaves a gap before it");
        }
        end = span.end;
    }
    if whole {
        assert_eq!(
            end,
            text.len(),
            "{what}: the spans stop short of the text's end"
        );
    }
}
