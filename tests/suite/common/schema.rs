//! The JSON Schemas of `schemas/` (draft 2020-12), compiled once per test binary, and a document
//! checked against one with every error it breaks, each at its instance path.

use jsonschema::Validator;
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// `schemas/`.
pub fn schemas_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

/// `schemas/<file>`, parsed.
pub fn schema(file: &str) -> Value {
    let path = schemas_dir().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// `schemas/<file>` compiled as draft 2020-12, with `format` asserted (`date-time`); compiled
/// once, as every line of a recording is checked against the same one.
fn validator(file: &str) -> Arc<Validator> {
    static COMPILED: OnceLock<Mutex<HashMap<String, Arc<Validator>>>> = OnceLock::new();
    let mut compiled = COMPILED.get_or_init(Default::default).lock().unwrap();
    let validator = compiled.entry(file.to_string()).or_insert_with(|| {
        let built = jsonschema::draft202012::options()
            .should_validate_formats(true)
            .build(&schema(file));
        Arc::new(built.unwrap_or_else(|e| panic!("schemas/{file} does not compile: {e}")))
    });
    Arc::clone(validator)
}

/// What `doc` breaks of `schemas/<file>`: each error as `<instance path>: <message>` (the path
/// `/` for the document itself).
pub fn schema_errors(file: &str, doc: &Value) -> Vec<String> {
    validator(file)
        .iter_errors(doc)
        .map(|e| {
            let path = e.instance_path().to_string();
            let path = if path.is_empty() { "/".into() } else { path };
            format!("{path}: {e}")
        })
        .collect()
}

/// Fails unless `doc` (a real output: `what` says which) matches `schemas/<schema_file>`,
/// listing every error with its instance path.
pub fn assert_matches_schema(schema_file: &str, what: &str, doc: &Value) {
    let errors = schema_errors(schema_file, doc);
    assert!(
        errors.is_empty(),
        "{what} does not match schemas/{schema_file}:\n  {}\nin {doc}",
        errors.join("\n  ")
    );
}
