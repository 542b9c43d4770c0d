//! `conform`: does a server (or a proxy, or an aggregated API) keep the watch contract that
//! informers rely on? A fixed list of checks, each run against one resource and answered PASS,
//! FAIL with its evidence (what was sent, what came back), or SKIP with the reason.
//!
//! The checks write only through a [`Writer`]: objects conform created, from a template, in a
//! scratch namespace of its own. With `--read-only` there is no writer, and the checks that need
//! one are SKIP.
//!
//! A SKIP is not a pass: [`judge`] turns the results into the run's [`Outcome`], where a run
//! that ran no watch check checked nothing, and a skip fails the run unless it is one the server
//! cannot be held to ([`Skip::NotApplicable`]) or the user said skips are expected.

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
pub const CHECKS: [Check; 12] = [
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
    Check {
        number: 12,
        name: "list-never-back",
        means: "across several LISTs (at RV \"\", and not older than the newest RV seen), \
                between writes, no answer is older than an earlier one: behind a load \
                balancer, an API server whose watch cache lags takes an informer's relist \
                back in time",
    },
];

/// Why a check was skipped, which decides whether the skip fails the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Skip {
    /// The identity conform acts as may not make a request the check needs (401, 403).
    Forbidden,
    /// The check needs a write (or, reading only, found too little to compare), and
    /// `--read-only` writes nothing.
    ReadOnly,
    /// The check could not decide: what it read did not settle it (an RV that is not an
    /// integer, a watch from RV 1 that answered nothing).
    Inconclusive,
    /// Not a check this server can be held to: it does not serve the optional feature the
    /// check is about (watch-list, metadata-only), or has no history to expire yet (RV 1 still
    /// in it). It does not fail the run.
    NotApplicable,
}

impl Skip {
    /// Whether the skip leaves part of the contract unchecked on this server (and so fails the
    /// run unless `--allow-skips`).
    pub fn counts(self) -> bool {
        self != Skip::NotApplicable
    }
}

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
    /// Why it was skipped; `None` unless SKIP.
    pub skip: Option<Skip>,
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
    /// Who the requests were made as.
    pub identity: Identity,
    /// Where the checks ran; null for all namespaces or a cluster-scoped resource.
    pub namespace: Option<String>,
    /// Whether `namespace` is the scratch namespace conform created (and deleted).
    pub scratch_namespace: bool,
    pub read_only: bool,
    /// `--allow-skips`: skips do not fail the run.
    pub allow_skips: bool,
    pub checks: Vec<CheckResult>,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    /// What the run amounts to, and its exit code.
    pub outcome: Outcome,
}

/// Who conform's requests act as: the kubeconfig's user, or the one `--as` impersonates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Identity {
    /// `--as`'s user, else the name of the kubeconfig's user entry.
    pub user: String,
    /// `--as-group`'s groups; empty without.
    pub groups: Vec<String>,
    /// Whether `user` is impersonated (`--as`) rather than the kubeconfig's own.
    pub impersonated: bool,
}

impl Identity {
    /// `user "admin"`, or `acting as "lister" in groups "a", "b"`.
    pub fn describe(&self) -> String {
        if !self.impersonated {
            return format!("user \"{}\"", self.user);
        }
        let mut text = format!("acting as \"{}\"", self.user);
        if !self.groups.is_empty() {
            let groups: Vec<String> = self.groups.iter().map(|g| format!("\"{g}\"")).collect();
            text.push_str(&format!(" in groups {}", groups.join(", ")));
        }
        text
    }
}

/// What a run amounts to: every applicable check passed, a check failed, nothing (of the
/// watch) was checked, or checks were skipped that the user did not say to expect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub result: RunResult,
    /// The exit code the run ends with: 0, 1 or 2.
    pub exit_code: u8,
    /// One line: which checks failed, or why the run checked nothing or too little; empty when
    /// it passed.
    pub detail: String,
}

impl Report {
    pub fn count(&self, status: Status) -> usize {
        self.checks.iter().filter(|c| c.status == status).count()
    }
}

/// What a run amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunResult {
    /// Every check that applies to this server ran and passed (with `--allow-skips`, every
    /// check that ran): exit 0.
    Passed,
    /// A check failed: exit 1.
    Failed,
    /// No watch check ran (each was skipped): nothing of the watch contract was checked,
    /// whatever `--allow-skips` says: exit 2.
    NothingChecked,
    /// Checks that apply were skipped, and `--allow-skips` did not say to expect it: exit 2.
    Skipped,
}

impl RunResult {
    pub fn exit_code(self) -> u8 {
        match self {
            RunResult::Passed => 0,
            RunResult::Failed => 1,
            RunResult::NothingChecked | RunResult::Skipped => 2,
        }
    }
}

/// The run's outcome from its checks: a FAIL is a finding whatever else happened; else a run
/// in which no watch check passed checked nothing; else a skip that applies fails the run
/// unless `allow_skips`.
pub fn judge(checks: &[CheckResult], allow_skips: bool) -> Outcome {
    let outcome = |result: RunResult, detail: String| Outcome {
        result,
        exit_code: result.exit_code(),
        detail,
    };
    let failed: Vec<&str> = checks
        .iter()
        .filter(|c| c.status == Status::Fail)
        .map(|c| c.name)
        .collect();
    if !failed.is_empty() {
        return outcome(
            RunResult::Failed,
            format!(
                "{} failed: {}",
                crate::format::count(failed.len() as u64, "check"),
                failed.join(", ")
            ),
        );
    }
    let watch_checks = || checks.iter().filter(|c| c.name.starts_with("watch-"));
    if !watch_checks().any(|c| c.status == Status::Pass) {
        return outcome(
            RunResult::NothingChecked,
            format!(
                "nothing checked: no watch check ran ({}); a check of nothing is not a pass",
                skip_reasons(watch_checks())
            ),
        );
    }
    let counted = || checks.iter().filter(|c| c.skip.is_some_and(Skip::counts));
    if counted().next().is_some() && !allow_skips {
        return outcome(
            RunResult::Skipped,
            format!(
                "not every check ran: {} skipped ({}); a skipped check is not a pass: pass \
                 --allow-skips if these skips are expected",
                counted().count(),
                skip_reasons(counted())
            ),
        );
    }
    outcome(RunResult::Passed, String::new())
}

/// The reasons of the skipped among `checks`, each once, with the checks it skipped:
/// `needs a write, and --read-only writes nothing (checks 4, 10); ...`.
fn skip_reasons<'a>(checks: impl Iterator<Item = &'a CheckResult>) -> String {
    let mut reasons: Vec<(&str, Vec<String>)> = Vec::new();
    for c in checks.filter(|c| c.status == Status::Skip) {
        match reasons.iter_mut().find(|(why, _)| *why == c.detail) {
            Some((_, numbers)) => numbers.push(c.number.to_string()),
            None => reasons.push((&c.detail, vec![c.number.to_string()])),
        }
    }
    reasons
        .iter()
        .map(|(why, numbers)| {
            let which = match numbers.as_slice() {
                [one] => format!("check {one}"),
                many => format!("checks {}", many.join(", ")),
            };
            format!("{why} ({which})")
        })
        .collect::<Vec<_>>()
        .join("; ")
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The twelve checks, each PASS but those given.
    fn run_with(others: &[(u8, Status, Option<Skip>, &str)]) -> Vec<CheckResult> {
        CHECKS
            .iter()
            .map(|check| {
                let (status, skip, detail) = others
                    .iter()
                    .find(|(n, ..)| *n == check.number)
                    .map_or((Status::Pass, None, "ok"), |(_, s, k, d)| (*s, *k, *d));
                CheckResult {
                    number: check.number,
                    name: check.name,
                    status,
                    skip,
                    detail: detail.to_string(),
                    evidence: Vec::new(),
                    waited_seconds: None,
                }
            })
            .collect()
    }

    const FORBIDDEN: &str = "watch forbidden for user \"lister\"";
    const READ_ONLY: &str = "needs a write, and --read-only writes nothing";

    #[test]
    fn a_run_whose_watches_were_all_refused_checked_nothing_even_with_allow_skips() {
        let mut skips = vec![(1, Status::Skip, Some(Skip::ReadOnly), READ_ONLY)];
        for n in 4..=11 {
            let (kind, why) = if matches!(n, 4 | 10) {
                (Skip::ReadOnly, READ_ONLY)
            } else {
                (Skip::Forbidden, FORBIDDEN)
            };
            skips.push((n, Status::Skip, Some(kind), why));
        }
        let checks = run_with(&skips);
        for allow_skips in [false, true] {
            let outcome = judge(&checks, allow_skips);
            assert_eq!(outcome.result, RunResult::NothingChecked);
            assert_eq!(outcome.exit_code, 2);
            assert_eq!(
                outcome.detail,
                "nothing checked: no watch check ran (needs a write, and --read-only writes \
                 nothing (checks 4, 10); watch forbidden for user \"lister\" (checks 5, 6, 7, 8, \
                 9, 11)); a check of nothing is not a pass"
            );
        }
    }

    #[test]
    fn a_skip_fails_the_run_unless_skips_are_allowed() {
        let checks = run_with(&[(1, Status::Skip, Some(Skip::ReadOnly), READ_ONLY)]);
        let outcome = judge(&checks, false);
        assert_eq!(outcome.result, RunResult::Skipped);
        assert_eq!(outcome.exit_code, 2);
        assert!(outcome
            .detail
            .starts_with("not every check ran: 1 skipped (needs a write"));
        assert!(
            outcome.detail.contains("--allow-skips"),
            "{}",
            outcome.detail
        );
        assert_eq!(judge(&checks, true).result, RunResult::Passed);
    }

    #[test]
    fn a_feature_the_server_does_not_serve_does_not_fail_the_run() {
        let checks = run_with(&[
            (7, Status::Skip, Some(Skip::NotApplicable), "not supported"),
            (8, Status::Skip, Some(Skip::NotApplicable), "RV 1 is still"),
        ]);
        let outcome = judge(&checks, false);
        assert_eq!(outcome.result, RunResult::Passed);
        assert_eq!(outcome.exit_code, 0);
    }

    #[test]
    fn a_failure_is_a_finding_whatever_was_skipped() {
        let checks = run_with(&[
            (1, Status::Skip, Some(Skip::ReadOnly), READ_ONLY),
            (6, Status::Fail, None, "no BOOKMARK"),
        ]);
        let outcome = judge(&checks, false);
        assert_eq!(outcome.result, RunResult::Failed);
        assert_eq!(outcome.exit_code, 1);
        assert_eq!(outcome.detail, "1 check failed: watch-bookmarks");
    }

    #[test]
    fn the_identity_is_the_kubeconfig_user_or_the_one_impersonated() {
        let mut id = Identity {
            user: "admin".into(),
            groups: Vec::new(),
            impersonated: false,
        };
        assert_eq!(id.describe(), "user \"admin\"");
        id.user = "lister".into();
        id.impersonated = true;
        assert_eq!(id.describe(), "acting as \"lister\"");
        id.groups = vec!["a".into(), "b".into()];
        assert_eq!(id.describe(), "acting as \"lister\" in groups \"a\", \"b\"");
    }
}
