//! Any bytes as the `config.json` beside a small real checkpoint (a BERT or a Qwen3 layer 0,
//! chosen by the first byte): every model setting goes through the settings' checks, so opening
//! the model and its layer 0 must answer Ok or Err, never panic; a layer that opens must run.
#![no_main]

use std::path::PathBuf;
use std::sync::LazyLock;

use embedlens::core::files::{FileSource, OpenOptions, open};
use libfuzzer_sys::fuzz_target;

/// The two checkpoints' weights, written once into folders of this process's own.
static FOLDERS: LazyLock<[PathBuf; 2]> = LazyLock::new(|| {
    let root = std::env::temp_dir().join(format!("embedlens-fuzz-settings-{}", std::process::id()));
    let bert = root.join("bert");
    let qwen3 = root.join("qwen3");
    for (folder, weights) in [
        (
            &bert,
            &include_bytes!("../../tests/fixtures/layer0/bert/model.safetensors")[..],
        ),
        (
            &qwen3,
            &include_bytes!("../../tests/fixtures/layer0/qwen3/model.safetensors")[..],
        ),
    ] {
        std::fs::create_dir_all(folder).expect("a temporary folder");
        std::fs::write(folder.join("model.safetensors"), weights).expect("the weights");
    }
    [bert, qwen3]
});

fuzz_target!(|data: &[u8]| {
    let Some((&choice, config)) = data.split_first() else {
        return;
    };
    let folder = &FOLDERS[usize::from(choice & 1)];
    std::fs::write(folder.join("config.json"), config).expect("the config is writable");
    let Ok(opened) = open(&FileSource::path(folder), &OpenOptions::default()) else {
        return;
    };
    let rows = opened.model.rows();
    let _ = opened.model.lookup(rows - 1);
    if let Ok(layer) = opened.layer0 {
        let _ = layer.run(&[0, rows - 1, 0], true);
        let _ = layer.run(&[0, rows - 1, 0], false);
    }
});
