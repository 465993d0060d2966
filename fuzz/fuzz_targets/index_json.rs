//! Any bytes as a `model.safetensors.index.json`, in a folder that holds one real shard and
//! beside a file outside it: opening and inspecting the folder must answer Ok or Err, never
//! panic, and never read a shard from outside the folder, whatever paths the index names.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use embedlens::core::files::{FileSource, OpenOptions, inspect, open};
use libfuzzer_sys::fuzz_target;

/// A safetensors file holding one float32 table `name` of `rows × 2`.
fn safetensors(name: &str, rows: usize) -> Vec<u8> {
    let mut header = format!(
        r#"{{"{name}":{{"dtype":"F32","shape":[{rows},2],"data_offsets":[0,{}]}}}}"#,
        rows * 8
    );
    while !header.len().is_multiple_of(8) {
        header.push(' ');
    }
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend(header.as_bytes());
    bytes.extend(std::iter::repeat_n(0.5f32.to_le_bytes(), rows * 2).flatten());
    bytes
}

/// This process's own folders: `model/` with a real shard, and `outside.safetensors` beside
/// it (with a link to it inside), which no index may reach.
static MODEL_FOLDER: LazyLock<PathBuf> = LazyLock::new(|| {
    let root = std::env::temp_dir().join(format!("embedlens-fuzz-index-{}", std::process::id()));
    let folder = root.join("model");
    std::fs::create_dir_all(&folder).expect("a temporary folder");
    let shard = safetensors("model.embed_tokens.weight", 4);
    std::fs::write(folder.join("model-00001-of-00001.safetensors"), shard).expect("a shard");
    let outside = root.join("outside.safetensors");
    std::fs::write(&outside, safetensors("outside.weight", 3)).expect("an outside file");
    let _ = std::os::unix::fs::symlink(&outside, folder.join("link.safetensors"));
    folder
});

/// Whether `file` lies inside `folder` once links are followed.
fn inside(file: &Path, folder: &Path) -> bool {
    let folder = folder.canonicalize().expect("the folder exists");
    file.canonicalize()
        .is_ok_and(|file| file.starts_with(folder))
}

fuzz_target!(|data: &[u8]| {
    let folder = &*MODEL_FOLDER;
    std::fs::write(folder.join("model.safetensors.index.json"), data)
        .expect("the temporary file is writable");
    if let Ok(inspection) = inspect(&FileSource::path(folder)) {
        for file in &inspection.files {
            assert!(
                inside(file, folder),
                "read {} outside the folder",
                file.display()
            );
        }
        let _ = inspection.to_string();
    }
    if let Ok(model) =
        open(&FileSource::path(folder), &OpenOptions::default()).map(|opened| opened.model)
    {
        assert_eq!(model.rows(), 4, "only the folder's own shard can be read");
    }
});
