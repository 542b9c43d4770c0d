//! conform's text output: a header, a line per check as it ends (FAIL with its evidence below
//! it, every check's with `-v`), and the summary.

use crate::conform::{CheckResult, Report, Skip, Status};
use std::io::{self, Write};

/// What conform runs against, as its header names it.
pub struct Header<'a> {
    /// The resource's qualified name (`configmaps`, `widgets.example.com`).
    pub resource: &'a str,
    pub api_version: &'a str,
    pub server: &'a str,
    pub context: &'a str,
    /// Who the requests act as: `user "admin"`, `acting as "lister"`.
    pub identity: &'a crate::conform::Identity,
    /// The namespace, `None` for all namespaces.
    pub namespace: Option<&'a str>,
    /// Whether the namespace is a scratch namespace conform made (else it only reads).
    pub scratch: bool,
    /// In a namespace the user named: the label selector of the objects conform writes there.
    pub labelled: Option<&'a str>,
}

/// `conform configmaps (v1) at https://..., context "admin", user "admin", scratch namespace x`.
pub fn write_header(out: &mut impl Write, target: &Header) -> io::Result<()> {
    let scope = match (target.namespace, target.scratch, target.labelled) {
        (Some(ns), true, _) => format!("scratch namespace {ns}"),
        (Some(ns), false, Some(selector)) => {
            format!("namespace {ns}, writing only objects labelled {selector}")
        }
        (Some(ns), false, None) => format!("namespace {ns}, read-only"),
        (None, _, _) => "all namespaces, read-only".to_string(),
    };
    writeln!(
        out,
        "conform {} ({}) at {}, context \"{}\", {}, {scope}",
        target.resource,
        target.api_version,
        target.server,
        target.context,
        target.identity.describe()
    )
}

/// ` 7  FAIL  watch-list        the server accepted ...`, then its evidence when it failed or
/// `all_evidence`.
pub fn write_check(
    out: &mut impl Write,
    check: &CheckResult,
    all_evidence: bool,
) -> io::Result<()> {
    writeln!(
        out,
        "{:>2}  {}  {:<16}  {}",
        check.number,
        check.status.as_str(),
        check.name,
        check.detail
    )?;
    if check.status == Status::Fail || all_evidence {
        for line in &check.evidence {
            writeln!(out, "{:28}> {line}", "")?;
        }
    }
    Ok(())
}

/// `10 passed, 1 failed, 0 skipped`, with the skips that do not fail the run named
/// (`, 1 not applicable here: watch-list`).
pub fn write_summary(out: &mut impl Write, report: &Report) -> io::Result<()> {
    let not_applicable: Vec<&str> = report
        .checks
        .iter()
        .filter(|c| c.skip == Some(Skip::NotApplicable))
        .map(|c| c.name)
        .collect();
    let aside = if not_applicable.is_empty() {
        String::new()
    } else {
        format!(
            " ({} not applicable here: {})",
            not_applicable.len(),
            not_applicable.join(", ")
        )
    };
    writeln!(
        out,
        "{} passed, {} failed, {} skipped{aside}",
        report.passed, report.failed, report.skipped
    )
}
