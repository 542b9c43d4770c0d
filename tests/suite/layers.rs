//! The module map at the head of `src/lib.rs` is what the code imports: every `crate::X` path in
//! a module of `src/`, and every `super::` path that climbs out of its layer, names a module that
//! the map lets it point to; inside `informer/`, a stage of the pipeline imports only the stages
//! the map says it drives. The rules below are the map's, one line per layer; a new edge fails
//! here until the map (and this list) says it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Leaves anyone may use (the map's last paragraph).
const LEAVES: &[&str] = &[
    "duration",
    "format",
    "metrics",
    "rng",
    "signal",
    "stop",
    "memory",
    "template",
    "verbosity",
];

/// What each layer may import besides the leaves.
fn allowed(layer: &str) -> Option<&'static [&'static str]> {
    Some(match layer {
        // main and the commands run everything.
        "main" | "commands" | "lib" => return None,
        // Flags parse into the value types of the layers below.
        "cli" => &["cluster", "informer", "bench", "proxy", "react"],
        // Completes a command line: the flags' definitions (cli), values they take (the fault
        // kinds, a metrics target's kinds) and names from the server.
        "complete" => &["cli", "cluster", "informer", "proxy", "scrape"],
        // Renders the reports of the domain layers, and the recording's records.
        "output" => &[
            "bench",
            "conform",
            "diff",
            "scrape",
            "proxy",
            "tail",
            "react",
            "recording",
            "informer",
            "cluster",
        ],
        "recording" => &["informer", "cluster", "output", "react"],
        // The domain layers compute: no rendering, no recording format, no flags, no
        // top-level error (each has its own, which the commands map), and not each other, but
        // for bench, which scrapes a running controller over its window (--metrics-from).
        "bench" => &["scrape", "react", "informer", "cluster"],
        "tail" => &["react", "informer", "cluster"],
        "diff" | "conform" | "scrape" => &["informer", "cluster"],
        // What a controller's reaction to a write is, and the matching of writes with
        // reactions: bench's and tail's, below both.
        "react" => &["informer", "cluster"],
        // The proxy forwards through the cluster's client, and reads watch events as the
        // informer decodes them.
        "proxy" => &["informer", "cluster"],
        "informer" => &["cluster"],
        "cluster" => &[],
        // The top-level error wraps the cluster's and the reflector's errors.
        "error" => &["cluster", "informer"],
        leaf if LEAVES.contains(&leaf) => &[],
        other => {
            panic!("src/{other} is in no layer of the map in src/lib.rs: add it there and here")
        }
    })
}

#[test]
fn every_import_is_an_edge_of_the_module_map() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut imports: BTreeMap<String, BTreeSet<(String, String)>> = BTreeMap::new();
    for (relative, text) in rust_files("") {
        let layer = relative
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        for target in module_paths(&relative, &text) {
            let name = target[0].clone();
            if name != layer {
                imports
                    .entry(layer.clone())
                    .or_default()
                    .insert((name, relative.clone()));
            }
        }
    }
    assert!(
        imports.contains_key("commands"),
        "no imports found under {}",
        src.display()
    );
    let mut wrong = Vec::new();
    for (layer, edges) in &imports {
        let Some(allowed) = allowed(layer) else {
            continue;
        };
        for (to, file) in edges {
            if !LEAVES.contains(&to.as_str()) && !allowed.contains(&to.as_str()) {
                wrong.push(format!("src/{file} ({layer}) imports crate::{to}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports the module map in src/lib.rs does not have:\n{}",
        wrong.join("\n")
    );
}

/// Every Rust file below `src/{under}`: its path relative to `src/`, and its text.
fn rust_files(under: &str) -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.join(under)];
    let mut found = Vec::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .to_string();
            found.push((relative, std::fs::read_to_string(&path).unwrap()));
        }
    }
    found
}

/// The module a file of `src/` is (`informer/listwatch/frames.rs` is `informer::listwatch::frames`,
/// `cluster/mod.rs` is `cluster`).
fn module_of(relative: &str) -> Vec<String> {
    let mut path: Vec<String> = relative
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if path
        .last()
        .is_some_and(|m| m == "mod" || m == "lib" || m == "main")
    {
        path.pop();
    }
    path
}

/// An identifier at the start of `text` (a module's name).
fn ident(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
        .collect()
}

/// Every module path a file names, from the crate's root: each `crate::X::Y` and each
/// `super::...::X::Y` resolved from where it is written (one level deeper inside an inline
/// `mod name {`, such as a file's tests). The first two segments of each.
fn module_paths(relative: &str, text: &str) -> Vec<Vec<String>> {
    let module = module_of(relative);
    // Where each inline module is: from a line's `mod name {` (or `pub mod`) to its `}`.
    let inline: Vec<(usize, usize)> = text
        .match_indices("mod ")
        .filter_map(|(at, _)| {
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let before = text[line_start..at].trim();
            let rest = &text[at + 4..];
            let name = ident(rest);
            let open = rest[name.len()..].trim_start();
            if (before.is_empty() || before == "pub") && !name.is_empty() && open.starts_with('{') {
                let open_at = text.len() - open.len();
                Some((open_at, closing_brace(text, open_at)))
            } else {
                None
            }
        })
        .collect();
    let mut paths = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + 7..];
        let first = ident(rest);
        if first.is_empty() {
            continue;
        }
        let second = rest[first.len()..]
            .strip_prefix("::")
            .map(ident)
            .unwrap_or_default();
        paths.push(vec![first, second]);
    }
    let mut at = 0;
    while let Some(found) = text[at..].find("super::") {
        let start = at + found;
        let mut climbs = 0;
        let mut rest = &text[start..];
        while let Some(after) = rest.strip_prefix("super::") {
            climbs += 1;
            rest = after;
        }
        at = text.len() - rest.len();
        // Only the first of a chain: `super::super::x` is one path.
        if text[..start].ends_with("::") {
            continue;
        }
        let mut base = module.clone();
        for _ in inline
            .iter()
            .filter(|(from, to)| *from < start && start < *to)
        {
            base.push("inline".into());
        }
        if climbs > base.len() {
            continue;
        }
        base.truncate(base.len() - climbs);
        let mut segments = rest.split("::").map(ident);
        for _ in 0..2 {
            match segments.next() {
                Some(name) if !name.is_empty() => base.push(name),
                _ => break,
            }
        }
        if base.len() >= 2 {
            base.truncate(2);
            paths.push(base);
        } else if let Some(only) = base.pop() {
            paths.push(vec![only, String::new()]);
        }
    }
    paths
}

/// Where the `}` that closes the `{` at `open` is, strings, characters and comments skipped
/// (the end of the text if none does).
fn closing_brace(text: &str, open: usize) -> usize {
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, open);
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            }
            b'r' if bytes.get(i + 1) == Some(&b'#') && bytes.get(i + 2) == Some(&b'"') => {
                i = text[i + 3..]
                    .find("\"#")
                    .map_or(bytes.len(), |n| i + 3 + n + 1);
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if bytes.get(i + 2) == Some(&b'\'') => i += 2,
            b'\'' if bytes.get(i + 1) == Some(&b'\\') => {
                i += text[i + 2..].find('\'').map_or(bytes.len(), |n| n + 2);
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// The pipeline's stages in `informer/`, in the order data flows through them, and the stages
/// each one imports: the reflector drives its ListerWatcher, the informer's core pops its FIFO
/// and hands to its processor; the others know no other stage. (`shared` assembles them all,
/// `merge` runs several reflectors; the rest of `informer/` is what every stage shares.)
const STAGES: &[(&str, &[&str])] = &[
    ("listwatch", &[]),
    ("reflector", &["listwatch"]),
    ("fifo", &[]),
    ("core", &["fifo", "processor"]),
    ("processor", &[]),
    ("workqueue", &[]),
];

#[test]
fn each_stage_of_the_informer_imports_only_the_stages_it_drives() {
    let mut wrong = Vec::new();
    let mut seen = 0;
    for (relative, text) in rust_files("informer") {
        let Some(stage) = module_of(&relative).get(1).cloned() else {
            continue;
        };
        let Some((_, drives)) = STAGES.iter().find(|(name, _)| *name == stage) else {
            continue;
        };
        seen += 1;
        for target in module_paths(&relative, &text) {
            let other = target[1].as_str();
            if target[0] == "informer"
                && other != stage
                && STAGES.iter().any(|(name, _)| *name == other)
                && !drives.contains(&other)
            {
                wrong.push(format!(
                    "src/{relative} ({stage}) imports informer::{other}"
                ));
            }
        }
    }
    assert!(seen >= STAGES.len(), "found {seen} files of the stages");
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "imports against the pipeline's order in src/lib.rs's map:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn super_paths_resolve_from_where_they_are_written() {
    let paths = module_paths(
        "informer/listwatch/frames.rs",
        "use super::decode::X;\nuse super::super::reflector::Y;\nuse crate::cluster::Z;\n\
         mod tests {\n    use super::super::super::fifo::W;\n    const S: &str = \"}\";\n}\n\
         // after the tests: a file's own level again\nuse super::super::store::V;\n",
    );
    let named: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        named,
        [
            "cluster::",
            "informer::listwatch",
            "informer::reflector",
            "informer::fifo",
            "informer::store"
        ]
    );
    // A module at a layer's top that climbs to the root names another layer.
    let paths = module_paths("diff/session.rs", "use super::super::output::drift;");
    assert_eq!(paths, [vec!["output".to_string(), "drift".to_string()]]);
}
