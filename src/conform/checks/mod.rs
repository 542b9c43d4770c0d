//! The checks, one function each (the LIST checks in `list`, the WATCH checks in `watch`), and
//! what they share. Each notes what it sent and got as it goes; a step that fails ends it with
//! `?` (a 401 or 403 makes it SKIP, any other error FAIL).

mod list;
mod watch;

use super::probe::{
    describe_event, object_of, refused, rv_number, seconds, Evidence, Next, Verdict, Watch, Writer,
    EVENT_LIMIT,
};
use super::{Check, CheckResult, Skip, Status, Subject};
use crate::cluster::resource_version::ResourceVersion;
use crate::informer::listwatch::{
    ListAt, ListOptions, WatchEvent, WatchOptions, ACCEPT_METADATA_LIST,
};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
use tokio::time::Instant;

type Outcome = Result<Verdict, Verdict>;

/// The reason of every write check under `--read-only`.
const READ_ONLY: &str = "needs a write, and --read-only writes nothing";

/// The rounds of check 12: a write (unless --read-only), then a LIST at RV "" and one not
/// older than the newest RV seen.
const NEVER_BACK_ROUNDS: usize = 5;

/// Pages check 2 reads at most (enough to see tokens work and RVs stay put).
const MAX_PAGES: usize = 5;

/// The timeoutSeconds of check 6's watch: the API server sends a BOOKMARK 2s before it ends.
const BOOKMARK_WATCH_SECONDS: u64 = 10;
/// The timeoutSeconds of check 9's watch, and how far past it the server may end it.
const TIMEOUT_SECONDS: u64 = 5;
const TIMEOUT_SLACK: Duration = Duration::from_secs(10);
/// How long after check 6's watch should have ended a BOOKMARK is still waited for (a proxy
/// that holds the stream back delivers it late).
const BOOKMARK_SLACK: Duration = Duration::from_secs(20);
/// How long check 8 reads a watch from RV 1 for its 410; check 5 reads without writes.
const EXPIRED_LIMIT: Duration = Duration::from_secs(10);
const PASSIVE_LIMIT: Duration = Duration::from_secs(10);

use list::{list_consistent, list_exact_rv, list_never_back, list_pagination};
use watch::{
    watch_bookmarks, watch_expired, watch_from_list, watch_list, watch_metadata, watch_rv_order,
    watch_timeout, watch_unbuffered,
};

pub async fn run(check: &Check, subject: &mut Subject) -> CheckResult {
    let mut ev = Evidence::default();
    let outcome = match check.number {
        1 => list_consistent(subject, &mut ev).await,
        2 => list_pagination(subject, &mut ev).await,
        3 => list_exact_rv(subject, &mut ev).await,
        4 => watch_from_list(subject, &mut ev).await,
        5 => watch_rv_order(subject, &mut ev).await,
        6 => watch_bookmarks(subject, &mut ev).await,
        7 => watch_list(subject, &mut ev).await,
        8 => watch_expired(subject, &mut ev).await,
        9 => watch_timeout(subject, &mut ev).await,
        10 => watch_unbuffered(subject, &mut ev).await,
        11 => watch_metadata(subject, &mut ev).await,
        _ => list_never_back(subject, &mut ev).await,
    };
    let (status, skip, detail) = match outcome.unwrap_or_else(|early| early) {
        Verdict::Pass(d) => (Status::Pass, None, d),
        Verdict::Fail(d) => (Status::Fail, None, d),
        Verdict::Skip(why, d) => (Status::Skip, Some(why), d),
    };
    CheckResult {
        number: check.number,
        name: check.name,
        status,
        skip,
        detail,
        evidence: ev.lines,
        waited_seconds: ev.waited.map(|d| d.as_secs_f64()),
    }
}

fn writer(subject: &mut Subject) -> Result<&mut Writer, Verdict> {
    subject
        .writer
        .as_mut()
        .ok_or_else(|| Verdict::Skip(Skip::ReadOnly, READ_ONLY.to_string()))
}

/// The RV `name` has in `page`, if listed.
fn rv_in(page: &crate::informer::listwatch::ListPage, name: &str) -> Option<String> {
    page.items
        .iter()
        .find(|o| o.name() == name)
        .map(|o| o.resource_version().to_string())
}

/// A LIST's RV: where the watches start.
async fn list_rv(subject: &Subject, ev: &mut Evidence) -> Result<String, Verdict> {
    let page = ev.list(&subject.lw, &ListOptions::default()).await?;
    Ok(page.resource_version)
}

fn watch_from(rv: &str) -> WatchOptions {
    WatchOptions {
        resource_version: rv.to_string(),
        ..WatchOptions::default()
    }
}

/// Whether `event` is the MODIFIED of `name` at `rv`.
fn is_write(event: &WatchEvent, name: &str, rv: &str) -> bool {
    matches!(event, WatchEvent::Modified(o) if o.name() == name && o.resource_version() == rv)
}
