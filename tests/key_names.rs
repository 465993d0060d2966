//! Every key named in on-screen text comes from the key table.
//!
//! Sentences ask the table (`key`, `key_name`, `fill_keys`); this test reads the source of
//! everything that draws or says something and fails on a string that names a key itself,
//! and on a `{Action}` placeholder that names no key.

use std::fs;
use std::path::Path;

use embedlens::action::{Scope, bindings, fill_keys};
use embedlens::lesson::STEPS;
use ratatui::crossterm::event::{Event, KeyCode};

mod common;

use common::draw;
use common::screen::{app_with, press, screen_text};

/// Words that follow a key when a sentence tells the learner to press it.
const KEY_VERBS: &[&str] = &[
    "adds",
    "cycles",
    "edits",
    "leaves",
    "resumes",
    "starts",
    "quits",
    "finishes",
    "brings",
    "switches",
    "closes",
    "opens",
    "finds",
    "toggles",
    "to edit",
    "to type",
    "to step",
    "to compare",
    "for the next",
    "for another",
    "for the",
    "back",
    "next",
    "the causal",
];

/// Names a key can have on screen.
fn is_key_name(word: &str) -> bool {
    let word = word.trim_matches(|c| c == '(' || c == ')' || c == ',' || c == ':');
    let single = word.chars().count() == 1
        && word
            .chars()
            .all(|c| c.is_ascii_graphic() && c != '-' && c != '=' || "←→↑↓".contains(c));
    single
        || ["Enter", "Esc", "Tab", "F1", "PgUp", "PgDn", "Space"].contains(&word)
        || word.starts_with("Ctrl+")
}

/// The string literals of a Rust source file, roughly: enough to find prose.
fn literals(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = source;
    while let Some(start) = rest.find('"') {
        let after = &rest[start + 1..];
        let mut end = None;
        let mut escaped = false;
        for (i, c) in after.char_indices() {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        found.push(after[..end].replace("\\\n", " "));
        rest = &after[end + 1..];
    }
    found
}

/// The places in a sentence where it names a key before a verb or inside "press …".
fn hard_coded_keys(sentence: &str) -> Vec<String> {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    let mut found = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if !is_key_name(word) {
            continue;
        }
        let before = i.checked_sub(1).map(|j| words[j].to_lowercase());
        let after = words[i + 1..].join(" ");
        let pressed = before.as_deref() == Some("press");
        let verb = KEY_VERBS.iter().any(|verb| after.starts_with(verb));
        // "a", "I" and digits start ordinary sentences; they count only after "press".
        let bare = word.trim_matches(|c| c == '(' || c == ')' || c == ',' || c == ':');
        let ordinary =
            ["a", "A", "I", "B", "W"].contains(&bare) || bare.chars().all(|c| c.is_ascii_digit());
        if pressed || (verb && !ordinary) {
            found.push(format!("{word} {after}"));
        }
    }
    found
}

fn sources(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn no_sentence_names_a_key_itself() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for dir in ["ui", "app", "core/explain"] {
        sources(&root.join(dir), &mut files);
    }
    for file in ["ui.rs", "lesson.rs", "help.rs"] {
        files.push(root.join(file));
    }
    let mut offenders = Vec::new();
    for file in files
        .iter()
        .filter(|f| f.exists() && !f.ends_with("tests.rs"))
    {
        let source = fs::read_to_string(file).unwrap();
        // Unit tests quote keys on purpose.
        let source = source.split("#[cfg(test)]").next().unwrap_or_default();
        for literal in literals(source) {
            for found in hard_coded_keys(&literal) {
                offenders.push(format!("{}: {found}", file.display()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "these sentences name keys themselves; ask the key table (action::key, key_name, \
         fill_keys):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_check_finds_a_hard_coded_key() {
    assert_eq!(hard_coded_keys("p adds positions").len(), 1);
    assert_eq!(
        hard_coded_keys("Press Enter, then L for the lesson").len(),
        2
    );
    assert_eq!(hard_coded_keys("{TogglePositions} adds positions").len(), 0);
    assert_eq!(hard_coded_keys("a token adds nothing").len(), 0);
}

#[test]
fn every_lesson_placeholder_names_a_key() {
    for step in &STEPS {
        for text in [step.question, step.reveal] {
            let filled = fill_keys(text);
            assert!(!filled.contains('{'), "{}: {filled}", step.title);
        }
    }
}

#[test]
fn the_help_asks_the_table_for_the_keys_its_descriptions_name() {
    for binding in bindings() {
        let found = hard_coded_keys(binding.description);
        assert!(found.is_empty(), "{}: {found:?}", binding.description);
        let text = binding.help_text();
        assert!(!text.contains('{'), "a placeholder names no key: {text}");
    }
    let clear = bindings()
        .iter()
        .find(|binding| binding.action == embedlens::action::Action::ClearInput)
        .expect("clearing the sentence has a key");
    assert_eq!(
        clear.help_text(),
        "clear the sentence (Ctrl+Z brings it back)"
    );
}

/// The names of the keys that do something in `scope` (its own and those bound anywhere).
fn live_keys(scope: Scope) -> Vec<String> {
    bindings()
        .iter()
        .filter(|binding| binding.scope == scope || binding.scope == Scope::Anywhere)
        .flat_map(|binding| binding.keys.iter().map(|key| key.name()))
        .collect()
}

#[test]
fn the_lessons_screens_name_only_keys_that_work_in_the_lesson() {
    let live = live_keys(Scope::Lesson);
    let mut app = app_with("fox bites the fox");
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('L')]);
    let mut dead = Vec::new();
    loop {
        let progress = app.lesson().expect("the lesson runs");
        for answered in [false, true] {
            if answered && progress.content().choices.is_some() {
                let answer = progress.content().answer.to_string();
                press(&mut app, &[KeyCode::Char(answer.chars().next().unwrap())]);
            }
            for (width, height) in [(80, 24), (120, 40), (200, 60)] {
                // The app knows the size, as it would: at 200×60 the picture stands beside.
                app.handle_event(&Event::Resize(width, height));
                let text = screen_text(&draw(&app, width, height));
                // The help bar is the key table's own; the rest must agree with it.
                let rows = text.lines().take(usize::from(height) - 1);
                for prose in panes_prose(rows) {
                    for found in hard_coded_keys(&prose)
                        .into_iter()
                        .chain(key_colons(&prose))
                    {
                        let key = found.split_whitespace().next().unwrap_or_default();
                        let key =
                            key.trim_matches(|c| c == '(' || c == ')' || c == ',' || c == ':');
                        if !live.iter().any(|name| name == key) {
                            dead.push(format!(
                                "step {} {}at {width}x{height}: {found}",
                                progress.step + 1,
                                if answered { "answered " } else { "" }
                            ));
                        }
                    }
                }
            }
        }
        if progress.is_last() {
            break;
        }
        press(&mut app, &[KeyCode::Enter]);
    }
    dead.sort();
    dead.dedup();
    // The picture beside the lesson at 200×60 keeps its finding, without the hint.
    let mut app = app_with("fox bites the fox");
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('L')]);
    press(
        &mut app,
        &[KeyCode::Char('2'), KeyCode::Enter, KeyCode::Char('1')],
    );
    app.handle_event(&Event::Resize(200, 60));
    let text = screen_text(&draw(&app, 200, 60));
    assert!(text.contains("Picture"), "{text}");
    assert!(text.contains("one dot"), "{text}");
    assert!(!text.contains("adds positions"), "{text}");
    assert!(
        dead.is_empty(),
        "the lesson's panes name keys that do nothing in it:\n{}",
        dead.join("\n")
    );
}

/// The screen's text a pane at a time, roughly: the rows' stretches between borders, those
/// that start in the same column joined in order, so a hint wrapped over two rows is whole.
fn panes_prose<'a>(rows: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut columns: std::collections::BTreeMap<usize, String> = std::collections::BTreeMap::new();
    for row in rows {
        let mut start = 0;
        let mut cell = String::new();
        for (column, c) in row.chars().enumerate() {
            if matches!(c, '│' | '┃') {
                let prose = columns.entry(start).or_default();
                prose.push(' ');
                prose.push_str(&cell);
                cell.clear();
                start = column + 1;
            } else {
                cell.push(c);
            }
        }
        let prose = columns.entry(start).or_default();
        prose.push(' ');
        prose.push_str(&cell);
    }
    columns.into_values().collect()
}

/// Keys named as a label, `x: values`: a lower-case letter before a colon.
fn key_colons(prose: &str) -> Vec<String> {
    let words: Vec<&str> = prose.split_whitespace().collect();
    words
        .windows(2)
        .filter(|pair| {
            let mut chars = pair[0].chars();
            matches!((chars.next(), chars.next(), chars.next()), (Some(c), Some(':'), None) if c.is_ascii_lowercase())
        })
        .map(|pair| pair.join(" "))
        .collect()
}
