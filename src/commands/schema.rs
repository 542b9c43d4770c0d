//! `kubectl informer schema [DOCUMENT]`: the documentation of every JSON output (docs/json.md),
//! or one document's JSON Schema (schemas/), from the binary itself, for those who installed the
//! binary without the source and for CI scripts that validate outputs.

use crate::cli::SchemaDocument;
use std::io::Write;

/// docs/json.md.
const DOCUMENTATION: &str = include_str!("../../docs/json.md");

/// The JSON Schema of `document`, at its current version.
pub fn json_schema(document: SchemaDocument) -> &'static str {
    match document {
        SchemaDocument::Recording => include_str!("../../schemas/recording.v2.schema.json"),
        SchemaDocument::DiffReport => include_str!("../../schemas/diff-report.v2.schema.json"),
        SchemaDocument::BenchReport => include_str!("../../schemas/bench-report.v2.schema.json"),
        SchemaDocument::ConformReport => {
            include_str!("../../schemas/conform-report.v1.schema.json")
        }
        SchemaDocument::TopLine => include_str!("../../schemas/top-line.v1.schema.json"),
        SchemaDocument::ProxyLine => include_str!("../../schemas/proxy-line.v1.schema.json"),
    }
}

pub fn exec(document: Option<SchemaDocument>, out: &mut impl Write) -> std::io::Result<()> {
    let text = document.map_or(DOCUMENTATION, json_schema);
    out.write_all(text.as_bytes())
}
