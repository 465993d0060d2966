//! The README's screens of the explorer are exports: each text block after a
//! `<!-- export: ARGS -->` comment is what `embedlens export ARGS -o screen.txt` draws now.

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::{TempDir, arg};

/// Words of an argument list as a shell splits them: spaces separate, double quotes group.
fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut started = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            c if c.is_whitespace() && !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    assert!(!quoted, "an unclosed quote in {line}");
    if started {
        words.push(word);
    }
    words
}

/// Each screen of the README: the export's arguments and the block as written.
fn readme_screens() -> Vec<(Vec<String>, String)> {
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md is readable");
    let mut screens = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        let Some(args) = line
            .strip_prefix("<!-- export:")
            .and_then(|rest| rest.strip_suffix("-->"))
        else {
            continue;
        };
        assert_eq!(lines.next(), Some("```text"), "a text block follows {line}");
        let block: String = lines
            .by_ref()
            .take_while(|line| *line != "```")
            .map(|line| line.to_owned() + "\n")
            .collect();
        screens.push((split_words(args), block));
    }
    screens
}

#[test]
fn every_readme_screen_is_what_export_draws_now() {
    let screens = readme_screens();
    assert!(!screens.is_empty(), "the README marks no screen");
    let dir = TempDir::new("readme-screens");
    for (index, (args, block)) in screens.into_iter().enumerate() {
        let out = dir.path().join(format!("screen-{index}.txt"));
        let output = Command::new(env!("CARGO_BIN_EXE_embedlens"))
            .arg("export")
            .args(&args)
            .args(["-o", arg(&out)])
            .env_remove("NO_COLOR")
            .output()
            .expect("the binary runs");
        assert!(
            output.status.success(),
            "export {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let drawn = fs::read_to_string(&out).expect("the export is written");
        assert!(
            drawn == block,
            "the README's screen for `embedlens export {}` differs from what it draws now; \
             replace the block with:\n{drawn}",
            args.join(" ")
        );
    }
}

#[test]
fn arguments_split_as_a_shell_splits_them() {
    assert_eq!(
        split_words(r#" --size 120x40 --keys "Enter → → → p" "#),
        ["--size", "120x40", "--keys", "Enter → → → p"]
    );
    assert_eq!(split_words(r#"--keys "" x"#), ["--keys", "", "x"]);
}
