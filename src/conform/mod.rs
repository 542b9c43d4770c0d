//! `conform`: does a server (or a proxy, or an aggregated API) keep the watch contract that
//! informers rely on? A fixed list of checks, each run against one resource and answered PASS,
//! FAIL with its evidence (what was sent, what came back), or SKIP with the reason.
//!
//! The checks write only through a [`Writer`]: objects conform created, from a template, in a
//! scratch namespace of its own. With `--read-only` there is no writer, and the checks that need
//! one are SKIP.

mod checks;
mod probe;

pub use probe::{Evidence, Verdict, Writer};

use crate::informer::listwatch::ListWatch;
use crate::template::Template;
use serde::Serialize;
use std::time::Duration;

/// The version of the JSON report (docs/json.md).
pub const SCHEMA_VERSION: u32 = 1;

/// One check: its number, its name, and what it means for an informer.
pub struct Check {
    pub number: u8,
    pub name: &'static str,
    pub means: &'static str,
}

/// Every check, in the order they run.
pub const CHECKS: [Check; 11] = [
    Check {
        number: 1,
        name: "list-consistent",
        means: "a LIST at RV \"\" (what a reflector starts from) is not older than a write made \
                just before it: an informer started from a stale LIST misses that write",
    },
    Check {
        number: 2,
        name: "list-pagination",
        means: "limit is honoured, continue tokens work and every page is at the first page's \
                RV: a reflector's paged LIST is one consistent snapshot",
    },
    Check {
        number: 3,
        name: "list-exact-rv",
        means: "a LIST with resourceVersionMatch=Exact returns the state at that RV, as \
                client-go's consistency check and diff need",
    },
    Check {
        number: 4,
        name: "watch-from-list",
        means: "a WATCH from a LIST's RV delivers a write made after it, with a greater RV: \
                the LIST and the WATCH join without a gap",
    },
    Check {
        number: 5,
        name: "watch-rv-order",
        means: "RVs increase along a watch and are integers (KEP-5504): a reflector resumes \
                from the last one",
    },
    Check {
        number: 6,
        name: "watch-bookmarks",
        means: "with allowWatchBookmarks=true a BOOKMARK arrives (the API server sends one \
                about every minute and 2s before timeoutSeconds, when the RV moved): it keeps \
                a reflector's RV fresh, so that a re-watch does not get 410",
    },
    Check {
        number: 7,
        name: "watch-list",
        means: "sendInitialEvents=true sends the initial state then the \
                k8s.io/initial-events-end BOOKMARK; without it client-go's informer never \
                syncs. A server that refuses it is not supported (client-go falls back to LIST)",
    },
    Check {
        number: 8,
        name: "watch-expired",
        means: "a WATCH from a compacted RV answers 410 Expired, which makes a reflector relist",
    },
    Check {
        number: 9,
        name: "watch-timeout",
        means: "the server ends a watch at its timeoutSeconds, as reflectors ask it to",
    },
    Check {
        number: 10,
        name: "watch-unbuffered",
        means: "a write's event arrives promptly: a proxy that buffers the stream delays every \
                event an informer sees",
    },
    Check {
        number: 11,
        name: "watch-metadata",
        means: "a metadata-only (PartialObjectMetadata) LIST and WATCH are served, as \
                metadata informers use them",
    },
];

/// How a check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Skip,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
        }
    }
}

/// One check's result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckResult {
    pub number: u8,
    pub name: &'static str,
    pub status: Status,
    /// One line: what was found (PASS, FAIL) or why it did not run (SKIP).
    pub detail: String,
    /// The requests sent and what came back, one line each, in order.
    pub evidence: Vec<String>,
    /// How long the check waited for what it waited for (an event, a BOOKMARK, the end of a
    /// watch), when it waited.
    pub waited_seconds: Option<f64>,
}

/// The whole run, as `-o json` prints it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub schema_version: u32,
    /// Plural and group-qualified: `configmaps`, `widgets.example.com`.
    pub resource: String,
    pub api_version: String,
    pub server: String,
    pub context: String,
    /// Where the checks ran; null for all namespaces or a cluster-scoped resource.
    pub namespace: Option<String>,
    /// Whether `namespace` is the scratch namespace conform created (and deleted).
    pub scratch_namespace: bool,
    pub read_only: bool,
    pub checks: Vec<CheckResult>,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

impl Report {
    pub fn count(&self, status: Status) -> usize {
        self.checks.iter().filter(|c| c.status == status).count()
    }
}

/// The bounds the checks wait within.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Check 7: the end of the initial events after the watch opened or the last one.
    pub initial_events: Duration,
    /// Check 10: a write's event.
    pub delivery: Duration,
}

/// What the checks run against: the resource in one scope, and the writer unless read-only.
pub struct Subject {
    pub lw: ListWatch,
    pub writer: Option<Writer>,
    pub limits: Limits,
}

/// Runs every check in order, handing each result to `done` as it comes (text output prints it
/// then: some checks wait for seconds).
pub async fn run(subject: &mut Subject, mut done: impl FnMut(&CheckResult)) -> Vec<CheckResult> {
    let mut results = Vec::with_capacity(CHECKS.len());
    for check in &CHECKS {
        let result = checks::run(check, subject).await;
        done(&result);
        results.push(result);
    }
    results
}

/// The objects conform writes when given no template: ConfigMaps.
pub fn default_template() -> Template {
    Template::parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\ndata:\n  conform: \"1\"\n")
        .expect("the built-in template parses")
}
