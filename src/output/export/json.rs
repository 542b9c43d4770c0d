//! The JSON export (`--export-json`): the report document itself (schema in docs/json.md and schemas/), which
//! `--baseline` reads back.

use crate::bench::report::BenchReport;
use std::io::Write;

/// Writes `report` as pretty JSON, ending with a newline.
pub fn write(out: &mut impl Write, report: &BenchReport) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    out.write_all(b"\n")
}
