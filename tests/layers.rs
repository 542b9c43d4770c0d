//! The module map at the head of `src/lib.rs` is what the code imports: every `crate::X` path in
//! a module of `src/` names a module that the map lets it point to. The rules below are the
//! map's, one line per layer; a new edge fails here until the map (and this list) says it.

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
        "cli" => &["cluster", "informer", "bench", "proxy"],
        // Renders the reports of the domain layers, and the recording's records.
        "output" => &[
            "bench",
            "conform",
            "diff",
            "scrape",
            "proxy",
            "tail",
            "recording",
            "informer",
            "cluster",
        ],
        "recording" => &["informer", "cluster", "output"],
        // The domain layers compute: no rendering, no recording format, no flags, no
        // top-level error (each has its own, which the commands map), and not each other, but
        // for bench, which scrapes a running controller over its window (--metrics-from).
        "bench" => &["scrape", "informer", "cluster"],
        "tail" | "diff" | "conform" | "scrape" => &["informer", "cluster"],
        // The proxy forwards through the cluster's client, and reads watch events as the
        // informer decodes them.
        "proxy" => &["informer", "cluster"],
        "informer" => &["cluster"],
        "cluster" => &[],
        // The top-level error wraps the cluster's and the reflector's errors.
        "error" => &["cluster", "informer"],
        // Ctrl-C and SIGTERM end with their exit codes.
        "stop" => &["error"],
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
    let mut files = vec![src.clone()];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .to_string();
        let layer = relative
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        for (at, _) in text.match_indices("crate::") {
            let name: String = text[at + 7..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if !name.is_empty() && name != layer {
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
