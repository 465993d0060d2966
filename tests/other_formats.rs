//! Models in other formats given where safetensors were expected: each is named, and pickles
//! say how to convert them, instead of "not a safetensors file".

use std::path::Path;
use std::process::Command;

/// The standard error of a run that must fail.
fn failure(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_embedlens"))
        .args(args)
        .output()
        .unwrap();
    assert!(!output.status.success(), "{args:?} should fail");
    String::from_utf8(output.stderr).unwrap()
}

fn path(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let file = dir.join(name);
    std::fs::write(&file, bytes).unwrap();
    file.display().to_string()
}

#[test]
fn pytorch_onnx_and_pickle_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let zip = path(
        dir.path(),
        "pytorch_model.bin",
        b"PK\x03\x04 a zip of pickles",
    );
    let message = failure(&["lookup", "--model", &zip, "--ids", "0"]);
    assert!(message.contains("a PyTorch checkpoint"), "{message}");
    assert!(
        message.contains("safetensors.torch import save_file"),
        "{message}"
    );
    let pickle = path(dir.path(), "old.pt", b"\x80\x02}q\x00(X\x01\x00");
    let message = failure(&["inspect", &pickle]);
    assert!(message.contains("a Python pickle"), "{message}");
    let onnx = path(dir.path(), "model.onnx", b"\x08\x07\x12\x05hello");
    let message = failure(&["lookup", "--model", &onnx, "--ids", "0"]);
    assert!(message.contains("an ONNX graph"), "{message}");
    assert!(!message.contains("truncated"), "{message}");
}

#[test]
fn a_folder_of_pytorch_weights_says_what_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    path(dir.path(), "config.json", b"{}");
    path(dir.path(), "pytorch_model.bin", b"PK\x03\x04");
    let folder = dir.path().display().to_string();
    let message = failure(&["lookup", "--model", &folder, "--ids", "0"]);
    assert!(
        message.contains("no safetensors file in this folder"),
        "{message}"
    );
    assert!(
        message.contains("pytorch_model.bin: a PyTorch checkpoint"),
        "{message}"
    );
}
