//! `--model ORG/NAME` through the real binary, from a Hugging Face cache each test lays out as
//! `huggingface-cli download` does: `refs/` naming commits, `snapshots/<commit>/` of links into
//! `blobs/`.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use safetensors::Dtype;
use safetensors::tensor::TensorView;
use serde_json::Value;

const MAIN: &str = "1111111111111111111111111111111111111111";
const OLDER: &str = "2222222222222222222222222222222222222222";

/// A GPT-2-style checkpoint: a 4×2 token table and a 3×2 position table, whose values say
/// which snapshot they came from.
fn checkpoint(salt: f32) -> Vec<u8> {
    let token: Vec<u8> = (0..8u8)
        .flat_map(|i| (f32::from(i) + salt).to_le_bytes())
        .collect();
    let position: Vec<u8> = (0..6u8)
        .flat_map(|i| (f32::from(i) / 8.0).to_le_bytes())
        .collect();
    let views = vec![
        (
            "wte.weight",
            TensorView::new(Dtype::F32, vec![4, 2], &token).unwrap(),
        ),
        (
            "wpe.weight",
            TensorView::new(Dtype::F32, vec![3, 2], &position).unwrap(),
        ),
    ];
    safetensors::serialize(views, None).unwrap()
}

/// A cache folder `hub/` under a fresh temp folder, holding `org/tiny` at two commits
/// (`main` → [`MAIN`], `v1` → [`OLDER`]), its files links into `blobs/` as the hub lays them.
fn fake_cache() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("hub/models--org--tiny");
    std::fs::create_dir_all(repo.join("blobs")).unwrap();
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    for (commit, salt, reference) in [(MAIN, 0.5, "main"), (OLDER, 100.5, "v1")] {
        let snapshot = repo.join("snapshots").join(commit);
        std::fs::create_dir_all(&snapshot).unwrap();
        let blob = format!("blob-{commit}");
        std::fs::write(repo.join("blobs").join(&blob), checkpoint(salt)).unwrap();
        std::os::unix::fs::symlink(
            format!("../../blobs/{blob}"),
            snapshot.join("model.safetensors"),
        )
        .unwrap();
        std::fs::write(repo.join("refs").join(reference), commit).unwrap();
    }
    dir
}

/// Runs the binary with no Hugging Face variables but those given.
fn run(dir: &Path, env: &[(&str, PathBuf)], args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_embedlens"));
    command
        .args(args)
        .current_dir(dir)
        .env_remove("HF_HUB_CACHE")
        .env_remove("HF_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env("HOME", dir.join("home"));
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr_of_failure(output: &Output) -> String {
    assert!(!output.status.success(), "should fail");
    assert!(output.stdout.is_empty());
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// The first number of token 0's vector in `lookup --format json`.
fn first_value(output: &Output) -> f64 {
    let json: Value = serde_json::from_str(&stdout(output)).unwrap();
    json["tokens"][0]["token_vector"][0].as_f64().unwrap()
}

fn lookup<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "lookup", "--model", "org/tiny", "--ids", "0", "--format", "json",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn org_name_opens_the_snapshot_main_points_at() {
    let dir = fake_cache();
    let hub = dir.path().join("hub");
    let output = run(dir.path(), &[("HF_HUB_CACHE", hub)], &lookup(&[]));
    assert!((first_value(&output) - 0.5).abs() < 1e-9);
    let table = stdout(&run(
        dir.path(),
        &[("HF_HUB_CACHE", dir.path().join("hub"))],
        &["matrix", "--model", "org/tiny"],
    ));
    assert!(table.starts_with("unnamed table, 4x2 weights"), "{table}");
}

#[test]
fn the_cache_is_found_where_hf_home_and_home_put_it() {
    let dir = fake_cache();
    let home = dir.path().join("home/.cache/huggingface");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::rename(dir.path().join("hub"), home.join("hub")).unwrap();
    assert!((first_value(&run(dir.path(), &[], &lookup(&[]))) - 0.5).abs() < 1e-9);
    let output = run(dir.path(), &[("HF_HOME", home)], &lookup(&[]));
    assert!((first_value(&output) - 0.5).abs() < 1e-9);
}

#[test]
fn a_revision_is_a_reference_or_a_commit() {
    let dir = fake_cache();
    let env = [("HF_HUB_CACHE", dir.path().join("hub"))];
    for revision in ["v1", OLDER] {
        let output = run(dir.path(), &env, &lookup(&["--revision", revision]));
        assert!((first_value(&output) - 100.5).abs() < 1e-9, "{revision}");
    }
    let message = stderr_of_failure(&run(dir.path(), &env, &lookup(&["--revision", "v9"])));
    assert!(message.contains("revision v9"), "{message}");
    assert!(
        message.contains("huggingface-cli download org/tiny --revision v9"),
        "{message}"
    );
}

#[test]
fn inspect_says_the_model_came_from_the_cache() {
    let dir = fake_cache();
    let env = [("HF_HUB_CACHE", dir.path().join("hub"))];
    let text = stdout(&run(dir.path(), &env, &["inspect", "org/tiny"]));
    assert!(
        text.contains("from the Hugging Face cache: org/tiny at commit 111111111111"),
        "{text}"
    );
    assert!(text.contains("wte.weight"), "{text}");
    let older = stdout(&run(
        dir.path(),
        &env,
        &["inspect", "org/tiny", "--revision", "v1"],
    ));
    assert!(older.contains("at commit 222222222222"), "{older}");
}

#[test]
fn a_model_not_in_the_cache_names_each_place_looked() {
    let dir = fake_cache();
    let hub = dir.path().join("hub");
    let message = stderr_of_failure(&run(
        dir.path(),
        &[("HF_HUB_CACHE", hub.clone())],
        &["lookup", "--model", "org/other", "--ids", "0"],
    ));
    assert!(
        message.contains("no file or folder org/other here"),
        "{message}"
    );
    assert!(message.contains(&hub.display().to_string()), "{message}");
    assert!(message.contains("models--org--other"), "{message}");
    assert!(
        message.contains("huggingface-cli download org/other"),
        "{message}"
    );
    // With no variable set, the default folder under HOME is named, and that it is missing.
    let message = stderr_of_failure(&run(dir.path(), &[], &lookup(&[])));
    assert!(message.contains("home/.cache/huggingface/hub"), "{message}");
    assert!(message.contains("does not exist"), "{message}");
}

#[test]
fn a_local_path_wins_over_the_cache() {
    let dir = fake_cache();
    let local = dir.path().join("org");
    std::fs::create_dir_all(&local).unwrap();
    std::fs::write(local.join("tiny"), checkpoint(7.5)).unwrap();
    let output = run(
        dir.path(),
        &[("HF_HUB_CACHE", dir.path().join("hub"))],
        &lookup(&[]),
    );
    assert!((first_value(&output) - 7.5).abs() < 1e-9);
    let message = stderr_of_failure(&run(dir.path(), &[], &lookup(&["--revision", "v1"])));
    assert!(message.contains("is a path on disk"), "{message}");
}
