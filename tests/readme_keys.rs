//! The README's key table names every binding of the program's key table, in the place it
//! works, so the two cannot drift apart again; and its "Tests" section names every test file.

use std::fs;
use std::path::Path;

use embedlens::action::{Scope, bindings};

/// The README's word for where a binding works.
fn place(scope: Scope) -> &'static str {
    match scope {
        Scope::Anywhere => "anywhere",
        Scope::Input => "typing",
        Scope::Explorer => "exploring",
        Scope::Help => "help",
        Scope::Prompt => "finding",
        Scope::Lesson => "lesson",
        Scope::Snippet => "snippet",
    }
}

/// The rows of the README's key table: where, and the keys named in backticks.
fn readme_rows() -> Vec<(String, Vec<String>)> {
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md is readable");
    let section = readme
        .split("\n## Keys\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("the README has a Keys section");
    section
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim().trim_matches('|').split('|').collect();
            let [where_, keys, _does] = cells.as_slice() else {
                return None;
            };
            let names = keys
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_owned)
                .collect();
            Some((where_.trim().to_owned(), names))
        })
        .collect()
}

#[test]
fn every_binding_is_in_the_readme_key_table() {
    let rows = readme_rows();
    assert!(rows.len() > 20, "the key table was not found: {rows:?}");
    for binding in bindings() {
        let where_ = place(binding.scope);
        for key in binding.keys {
            let name = key.name();
            assert!(
                rows.iter()
                    .any(|(row_place, keys)| row_place == where_ && keys.contains(&name)),
                "the README's key table has no `{name}` under '{where_}' ({})",
                binding.description
            );
        }
    }
}

#[test]
fn the_readme_names_no_key_the_program_does_not_bind_there() {
    for (where_, keys) in readme_rows() {
        let Some(scope) = [
            Scope::Anywhere,
            Scope::Input,
            Scope::Explorer,
            Scope::Help,
            Scope::Prompt,
            Scope::Lesson,
            Scope::Snippet,
        ]
        .into_iter()
        .find(|&scope| place(scope) == where_) else {
            continue;
        };
        for name in keys {
            // Keys typed after `/` or `#`, and examples such as `[CLS]`, are not bindings.
            let bound = bindings().iter().any(|binding| {
                (binding.scope == scope || binding.scope == Scope::Anywhere)
                    && binding.keys.iter().any(|key| key.name() == name)
            });
            let example = name.starts_with('[') && name.len() > 1
                || name.starts_with("--")
                || name.starts_with("embedlens");
            assert!(
                bound || example,
                "the README names `{name}` under '{where_}', but nothing is bound to it there"
            );
        }
    }
}

#[test]
fn the_tests_section_names_every_test_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("README.md")).expect("README.md");
    let section = readme
        .split("\n## Tests\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a \"Tests\" section in README.md");
    let mut unnamed = Vec::new();
    for entry in fs::read_dir(root.join("tests")).expect("tests/") {
        let name = entry.expect("an entry of tests/").file_name();
        let name = name.to_string_lossy();
        let Some(stem) = name.strip_suffix(".rs") else {
            continue;
        };
        // Named in full (`tests/ui.rs`) or, in a list of its siblings, by file name alone.
        if !section.contains(&format!("`tests/{name}`")) && !section.contains(&format!("`{name}`"))
        {
            unnamed.push(stem.to_owned());
        }
    }
    unnamed.sort();
    assert!(
        unnamed.is_empty(),
        "README.md's Tests section does not say what these test files test: {unnamed:?}"
    );
}
