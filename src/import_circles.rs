//! No import circles between the crate's files: a test that reads every source file's
//! `use crate::…`, `use super::…` and inline `crate::…` paths and fails when modules import
//! each other round a loop.
//!
//! A module may use its parent's items and a parent declares and re-exports its children, so a
//! parent's imports of its own descendants are structure, not dependency, and are left out.
//! Test code (`#[cfg(test)]` modules and the test-only files) is left out too.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `folder`, sorted.
fn source_files(folder: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![folder.to_owned()];
    while let Some(folder) = pending.pop() {
        for entry in fs::read_dir(&folder).expect("the source folder reads") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// `src/core/files/mod.rs` → `["core", "files"]`; `src/lib.rs` → `[]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// A file that only tests compile.
fn is_test_only(file: &Path) -> bool {
    let name = file.file_stem().unwrap_or_default().to_string_lossy();
    name == "tests" || name.ends_with("_tests") || name == "test_fixtures"
}

/// The file's code before its first `#[cfg(test)]` module, without comments.
fn code_outside_tests(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]")
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod "))
        {
            if lines
                .peek()
                .is_some_and(|next| next.trim_end().ends_with(';'))
            {
                lines.next();
                continue;
            }
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// The paths of one `use` tree, its braces expanded: `a::{b, c::d}` → `a::b`, `a::c::d`.
fn expand(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (at, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|part| !part.is_empty())
        .flat_map(|part| {
            expand(part)
                .into_iter()
                .map(move |path| format!("{prefix}{path}"))
        })
        .collect()
}

/// Every path a file's code names: its `use` trees and inline `crate::…` paths.
fn named_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for statement in code.split(';') {
        let statement = statement.trim_start();
        let tree = statement
            .strip_prefix("pub use ")
            .or_else(|| statement.strip_prefix("pub(crate) use "))
            .or_else(|| statement.strip_prefix("pub(super) use "))
            .or_else(|| statement.strip_prefix("use "));
        if let Some(tree) = tree {
            paths.extend(expand(tree));
        }
    }
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let path: String = rest[at..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        rest = &rest[at + path.len()..];
        paths.push(path);
    }
    paths
}

/// The module a path lands in, as the longest known module its segments name.
fn target_module(
    from: &[String],
    path: &str,
    modules: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let mut segments = path.split("::").filter(|segment| !segment.is_empty());
    let first = segments.next()?;
    let mut module: Vec<String> = match first {
        "crate" => Vec::new(),
        "self" => from.to_vec(),
        "super" => from[..from.len().checked_sub(1)?].to_vec(),
        child => {
            let mut child_path = from.to_vec();
            child_path.push(child.to_owned());
            if !modules.contains(&child_path) {
                return None;
            }
            child_path
        }
    };
    for segment in segments {
        if segment == "super" {
            module.pop();
            continue;
        }
        let mut next = module.clone();
        next.push(segment.to_owned());
        if modules.contains(&next) {
            module = next;
        } else {
            break;
        }
    }
    Some(module)
}

/// Which module imports which, leaving out a module's imports of its own descendants.
fn import_graph(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files: Vec<PathBuf> = source_files(src)
        .into_iter()
        .filter(|file| !is_test_only(file))
        .collect();
    let modules: BTreeSet<Vec<String>> = files.iter().map(|file| module_of(src, file)).collect();
    let mut graph = BTreeMap::new();
    for file in &files {
        let from = module_of(src, file);
        let text = fs::read_to_string(file).expect("a source file reads");
        let targets: BTreeSet<Vec<String>> = named_paths(&code_outside_tests(&text))
            .iter()
            .filter_map(|path| target_module(&from, path, &modules))
            .filter(|target| !target.starts_with(&from))
            .collect();
        graph.insert(from, targets);
    }
    graph
}

/// The groups of modules that import each other round a loop (Tarjan's strongly connected
/// components of more than one module).
fn circles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<String>> {
    struct Search<'a> {
        graph: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Search<'a> {
        fn visit(&mut self, module: &'a Vec<String>) {
            let number = self.index.len();
            self.index.insert(module, number);
            self.low.insert(module, number);
            self.stack.push(module);
            for target in self.graph.get(module).into_iter().flatten() {
                if !self.index.contains_key(target) {
                    self.visit(target);
                    let low = self.low[module].min(self.low[target]);
                    self.low.insert(module, low);
                } else if self.stack.contains(&target) {
                    let low = self.low[module].min(self.index[target]);
                    self.low.insert(module, low);
                }
            }
            if self.low[module] == self.index[module] {
                let mut group = Vec::new();
                while let Some(member) = self.stack.pop() {
                    group.push(member.join("::"));
                    if member == module {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.found.push(group);
                }
            }
        }
    }
    let mut search = Search {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for module in graph.keys() {
        if !search.index.contains_key(module) {
            search.visit(module);
        }
    }
    search.found
}

#[test]
fn no_module_imports_itself_round_a_loop() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = import_graph(&src);
    let found = circles(&graph);
    let described: Vec<String> = found
        .iter()
        .map(|group| {
            let edges: Vec<String> = group
                .iter()
                .flat_map(|from| {
                    let key: Vec<String> = from.split("::").map(str::to_owned).collect();
                    graph[&key]
                        .iter()
                        .map(|target| target.join("::"))
                        .filter(|target| group.contains(target))
                        .map(move |target| format!("{from} → {target}"))
                })
                .collect();
            format!("{{{}}}: {}", group.join(", "), edges.join("; "))
        })
        .collect();
    assert!(
        found.is_empty(),
        "modules that import each other round a loop:\n{}",
        described.join("\n")
    );
}

#[test]
fn the_parser_finds_paths_in_braces_and_resolves_super() {
    assert_eq!(
        expand("crate::core::{a::B, c::{D, e}}"),
        [
            "crate::core::a::B",
            "crate::core::c::D",
            "crate::core::c::e"
        ]
    );
    let modules: BTreeSet<Vec<String>> = [
        vec![],
        vec!["core".to_owned()],
        vec!["core".to_owned(), "a".to_owned()],
        vec!["core".to_owned(), "b".to_owned()],
    ]
    .into_iter()
    .collect();
    let from = vec!["core".to_owned(), "a".to_owned()];
    assert_eq!(
        target_module(&from, "super::b::Thing", &modules),
        Some(vec!["core".to_owned(), "b".to_owned()])
    );
    let graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = [
        (vec!["a".to_owned()], [vec!["b".to_owned()]].into()),
        (vec!["b".to_owned()], [vec!["a".to_owned()]].into()),
    ]
    .into();
    assert_eq!(circles(&graph), [vec!["a".to_owned(), "b".to_owned()]]);
}
