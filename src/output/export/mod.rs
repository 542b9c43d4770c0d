//! bench's exports, one file per format (hyperfine's `export/`) behind one type, `Exporter`: each
//! turns a finished run into the bytes of its file; `bench` writes them whole.

pub mod chart;
pub mod html;
pub mod json;
pub mod markdown;
pub mod prometheus;

use crate::bench::report::BenchReport;
use crate::bench::snapshot::PipelineSnapshot;

/// A file format a run can be exported to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exporter {
    /// `--export-json`: the report document.
    Json,
    /// `--export-markdown`: tables and Mermaid charts for a pull-request comment.
    Markdown,
    /// `--export-html`: one self-contained page with the tables and SVG charts.
    Html,
    /// `--export-prometheus`: client-go's metric names, text exposition; with `--metrics-from`,
    /// the controller's figures over the window as `kubectl_informer_controller_*` gauges.
    Prometheus,
}

impl Exporter {
    /// The flag that asks for this export.
    pub fn flag(self) -> &'static str {
        match self {
            Exporter::Json => "--export-json",
            Exporter::Markdown => "--export-markdown",
            Exporter::Html => "--export-html",
            Exporter::Prometheus => "--export-prometheus",
        }
    }

    /// The whole file.
    pub fn serialize(
        self,
        report: &BenchReport,
        snapshot: &PipelineSnapshot,
    ) -> std::io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        match self {
            Exporter::Json => json::write(&mut bytes, report)?,
            Exporter::Markdown => markdown::write(&mut bytes, report)?,
            Exporter::Html => html::write(&mut bytes, report)?,
            Exporter::Prometheus => {
                prometheus::write(snapshot, report.controller.as_ref(), &mut bytes)?
            }
        }
        Ok(bytes)
    }
}
