//! The JSON Schemas of `schemas/`, one per document the commands write, named by the document's
//! current version. Each is a valid draft 2020-12 schema and keeps what makes it strict and
//! readable: every object of ours closed, every property described, no misspelt keyword (which a
//! schema would silently ignore). That real outputs match them, and that a key added or removed
//! breaks them, is checked where the outputs are made (`tests/suite/json_naming.rs`).

use crate::common;
use crate::common::schema::{schema, schemas_dir};
use kubectl_informer::{bench, conform, diff, recording};
use serde_json::Value;

/// Each document and its current version: its schema is `schemas/<document>.v<version>.schema.json`.
const DOCUMENTS: [(&str, u32); 6] = [
    ("recording", recording::SCHEMA_VERSION),
    ("diff-report", diff::report::REPORT_SCHEMA_VERSION),
    ("bench-report", bench::report::BENCH_SCHEMA_VERSION),
    ("conform-report", conform::SCHEMA_VERSION),
    (
        "top-line",
        kubectl_informer::commands::top::TOP_SCHEMA_VERSION,
    ),
    (
        "proxy-line",
        kubectl_informer::output::proxy::SCHEMA_VERSION,
    ),
];

/// Where each document's `schemaVersion` is pinned: the top of a report, the `start` notice of
/// a recording.
fn pinned_version(document: &str, schema: &Value) -> Value {
    let at = match document {
        "recording" => "/$defs/start/properties/schemaVersion/const",
        "proxy-line" => "/$defs/serving/properties/schemaVersion/const",
        _ => "/properties/schemaVersion/const",
    };
    schema.pointer(at).cloned().unwrap_or_default()
}

/// The parts that are the Kubernetes API server's, left open: a record's `object`, and the
/// `value` of each operation of its `patch`.
const EMBEDDED: [(&str, &str); 2] = [
    (
        "recording.v2.schema.json",
        "/$defs/objectEvent/properties/object",
    ),
    (
        "recording.v2.schema.json",
        "/$defs/patchOperation/properties/value",
    ),
];

/// The draft 2020-12 keywords the schemas use; anything else is a typo.
const KEYWORDS: [&str; 31] = [
    "$schema",
    "$id",
    "$ref",
    "$defs",
    "$comment",
    "title",
    "description",
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "unevaluatedProperties",
    "dependentRequired",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "pattern",
    "format",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
];

fn file_name(document: &str, version: u32) -> String {
    format!("{document}.v{version}.schema.json")
}

/// Every file in `schemas/`.
fn schema_files() -> Vec<String> {
    let dir = schemas_dir();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    files
}

#[test]
fn every_schema_is_valid_against_the_draft_2020_12_meta_schema() {
    let meta = jsonschema::draft202012::meta::validator();
    let files = schema_files();
    assert!(!files.is_empty(), "no schemas in schemas/");
    for file in files {
        let schema = schema(&file);
        let errors: Vec<String> = meta
            .iter_errors(&schema)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "schemas/{file}:\n  {}",
            errors.join("\n  ")
        );
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "schemas/{file}"
        );
        assert_eq!(
            schema["$id"],
            format!("https://github.com/kubectl-informer/kubectl-informer/schemas/{file}"),
            "schemas/{file}"
        );
        for key in ["title", "description"] {
            assert!(
                schema[key].as_str().is_some_and(|s| !s.is_empty()),
                "schemas/{file} has no {key}"
            );
        }
        jsonschema::draft202012::new(&schema)
            .unwrap_or_else(|e| panic!("schemas/{file} does not compile: {e}"));
    }
}

#[test]
fn each_document_has_a_schema_named_by_its_current_version_and_pinning_it() {
    let files = schema_files();
    for (document, version) in DOCUMENTS {
        let file = file_name(document, version);
        assert!(
            files.contains(&file),
            "no schemas/{file}: {document} is at version {version} (when a document's version \
             is raised, its schema gets a file of the new version)"
        );
        assert_eq!(
            pinned_version(document, &schema(&file)),
            version,
            "schemas/{file}: schemaVersion"
        );
    }
    // Nothing else: an older version of a document, or none of ours.
    for file in files {
        let known = DOCUMENTS
            .iter()
            .any(|(document, version)| (1..=*version).any(|v| file == file_name(document, v)));
        assert!(
            known,
            "schemas/{file} is not the schema of a document's version"
        );
    }
}

/// Whether `schema` describes objects (`"type": "object"`, or a list with it).
fn of_objects(schema: &serde_json::Map<String, Value>) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => false,
    }
}

/// What breaks the conventions in `node` (at `at` in `schemas/<file>`) and under it.
fn breaches(file: &str, at: &str, node: &Value, out: &mut Vec<String>) {
    // `true` and `false` are schemas too, with nothing to check.
    let Value::Object(map) = node else { return };
    let here = |key: &str| format!("{at}/{key}");
    for (key, value) in map {
        match key.as_str() {
            "properties" | "$defs" => {
                for (name, sub) in value.as_object().into_iter().flatten() {
                    breaches(file, &format!("{}/{name}", here(key)), sub, out);
                }
            }
            "prefixItems" | "allOf" | "anyOf" | "oneOf" => {
                for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                    breaches(file, &format!("{}/{i}", here(key)), sub, out);
                }
            }
            "items"
            | "additionalProperties"
            | "unevaluatedProperties"
            | "not"
            | "if"
            | "then"
            | "else" => breaches(file, &here(key), value, out),
            k if KEYWORDS.contains(&k) => {}
            k => out.push(format!("{file}#{at}: unknown keyword {k}")),
        }
    }
    let embedded = |path: &str| EMBEDDED.contains(&(file, path));
    if !of_objects(map) {
        return;
    }
    let Some(properties) = map.get("properties").and_then(Value::as_object) else {
        if !embedded(at) {
            out.push(format!("{file}#{at}: an object of ours with no properties"));
        }
        return;
    };
    let closed = ["additionalProperties", "unevaluatedProperties"]
        .iter()
        .any(|k| map.get(*k) == Some(&Value::Bool(false)));
    // An object whose discriminator (`type`, `notice`, `kind`) says which closed schema it is.
    let dispatches = map
        .get("allOf")
        .and_then(Value::as_array)
        .is_some_and(|all| {
            all.iter()
                .all(|s| s.get("if").is_some() && s.get("then").is_some())
        });
    if !closed && !dispatches {
        out.push(format!(
            "{file}#{at}: not closed (additionalProperties: false)"
        ));
    }
    for (name, property) in properties {
        let path = format!("{at}/properties/{name}");
        let described = property["description"]
            .as_str()
            .is_some_and(|d| !d.is_empty());
        if !described {
            out.push(format!("{file}#{path}: no description"));
        }
        let constrains = property
            .as_object()
            .is_some_and(|p| p.keys().any(|k| k != "description" && k != "title"));
        if !constrains && !embedded(&path) {
            out.push(format!("{file}#{path}: says nothing of its value"));
        }
    }
    for name in map["required"].as_array().into_iter().flatten() {
        if !properties.contains_key(name.as_str().unwrap_or_default()) {
            out.push(format!(
                "{file}#{at}: {name} is required but not a property"
            ));
        }
    }
}

#[test]
fn every_object_of_ours_is_closed_and_every_property_is_described() {
    let mut out = Vec::new();
    for file in schema_files() {
        breaches(&file, "", &schema(&file), &mut out);
    }
    assert!(out.is_empty(), "{out:#?}");
    // The open parts are there, and open: the server's objects are not described here.
    for (file, path) in EMBEDDED {
        let open = schema(file).pointer(path).cloned();
        assert!(
            open.as_ref()
                .and_then(Value::as_object)
                .is_some_and(|p| !p.contains_key("properties")),
            "{file}#{path}: {open:?}"
        );
    }
}

#[test]
fn the_binary_prints_each_schema_as_the_file_and_the_documentation_without_one() {
    for (document, version) in DOCUMENTS {
        let out = common::run(&["schema", document]);
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        let file = schemas_dir().join(format!("{document}.v{version}.schema.json"));
        assert_eq!(
            out.stdout,
            std::fs::read_to_string(&file).unwrap(),
            "{document}"
        );
    }
    let out = common::run(&["schema"]);
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json.md");
    assert_eq!(out.stdout, std::fs::read_to_string(docs).unwrap());
}
