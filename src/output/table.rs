//! Tables for people (comfy-table): the drifted objects of `diff`.

use crate::diff::drift::Drift;
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};
use std::io::Write;

/// Writes a table of drifted objects (nothing when there is none); `fields` adds the FIELDS
/// column of `--show-fields`.
pub fn write_drift(out: &mut impl Write, drift: &[Drift], fields: bool) -> std::io::Result<()> {
    if drift.is_empty() {
        return Ok(());
    }
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    let mut header = vec!["CLASS", "OBJECT", "CACHE RV", "SERVER RV", "UID"];
    if fields {
        header.push("FIELDS");
    }
    table.set_header(header);
    for d in drift {
        let object = match &d.namespace {
            Some(ns) => format!("{ns}/{}", d.name),
            None => d.name.clone(),
        };
        let mut row = vec![
            d.class.as_str().to_string(),
            object,
            d.cache_resource_version
                .clone()
                .unwrap_or_else(|| "-".into()),
            d.server_resource_version
                .clone()
                .unwrap_or_else(|| "-".into()),
            d.uid.clone(),
        ];
        if fields {
            row.push(d.fields.clone().unwrap_or_default());
        }
        table.add_row(row);
    }
    writeln!(out, "{table}")
}
