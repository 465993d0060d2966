//! Fixtures every test shares: a temp folder of its own, and the pieces of `tokenizer.json`
//! that tests build.
//!
//! The unit tests reach this as `crate::core::test_fixtures`; the integration tests include the
//! same file from `tests/common/mod.rs`, so there is one of each.
#![allow(
    dead_code,
    reason = "each test build uses some of the fixtures; `expect` would fail where all are used"
)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

/// A fresh folder of its own under the system temp dir, removed when dropped.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    /// A new empty folder named `embedlens-test-…-name`: it ends with `name`, as a model or
    /// tokenizer read from it is named.
    pub(crate) fn new(name: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "embedlens-test-{}-{unique}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("a temp folder");
        Self(path)
    }

    /// The folder itself.
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    /// A path inside the folder, its parent folders made.
    pub(crate) fn join(&self, name: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::create_dir_all(path.parent().expect("inside the folder")).expect("a folder");
        path
    }

    /// The folder's own name: what embedlens calls a model read from it.
    pub(crate) fn name(&self) -> String {
        self.0.file_name().unwrap().to_string_lossy().into_owned()
    }

    /// Writes a text file into the folder and returns its path.
    pub(crate) fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.join(name);
        std::fs::write(&path, contents).expect("a written file");
        path
    }

    /// A FIFO (named pipe) inside the folder.
    pub(crate) fn fifo(&self, name: &str) -> PathBuf {
        let path = self.join(name);
        let made = Command::new("mkfifo")
            .arg(&path)
            .status()
            .expect("mkfifo runs");
        assert!(made.success(), "mkfifo {}", path.display());
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An added (special) token as `tokenizer.json` lists it.
pub(crate) fn added_token(id: usize, content: &str) -> Value {
    json!({"id": id, "content": content, "single_word": false, "lstrip": false,
           "rstrip": false, "normalized": false, "special": true})
}

/// BERT's post-processor: `[CLS]` (id 2) before a sentence, `[SEP]` (id 3) after it.
pub(crate) fn bert_post_processor() -> Value {
    json!({
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                   {"Sequence": {"id": "A", "type_id": 0}},
                   {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                 {"Sequence": {"id": "A", "type_id": 0}},
                 {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                 {"Sequence": {"id": "B", "type_id": 1}},
                 {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
        "special_tokens": {
            "[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
            "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}
        }
    })
}
