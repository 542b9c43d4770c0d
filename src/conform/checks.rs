//! The checks, one function each. Each notes what it sent and got as it goes; a step that fails
//! ends it with `?` (a 401 or 403 makes it SKIP, any other error FAIL).

use super::probe::{
    describe_event, object_of, refused, rv_number, seconds, Evidence, Next, Verdict, Writer,
    EVENT_LIMIT,
};
use super::{Check, CheckResult, Status, Subject};
use crate::informer::listwatch::{ListOptions, WatchEvent, WatchOptions, ACCEPT_METADATA_LIST};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
use tokio::time::Instant;

type Outcome = Result<Verdict, Verdict>;

/// The reason of every write check under `--read-only`.
const READ_ONLY: &str = "needs a write, and --read-only writes nothing";

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
        _ => watch_metadata(subject, &mut ev).await,
    };
    let (status, detail) = match outcome.unwrap_or_else(|early| early) {
        Verdict::Pass(d) => (Status::Pass, d),
        Verdict::Fail(d) => (Status::Fail, d),
        Verdict::Skip(d) => (Status::Skip, d),
    };
    CheckResult {
        number: check.number,
        name: check.name,
        status,
        detail,
        evidence: ev.lines,
        waited_seconds: ev.waited.map(|d| d.as_secs_f64()),
    }
}

fn writer(subject: &mut Subject) -> Result<&mut Writer, Verdict> {
    subject
        .writer
        .as_mut()
        .ok_or_else(|| Verdict::Skip(READ_ONLY.to_string()))
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

/// 1. A LIST at RV "" is not older than a write made just before it.
async fn list_consistent(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    let writer = writer(subject)?;
    let name = writer.object(0);
    let written = writer.touch(ev, &name).await?;
    let page = ev.list(&subject.lw, &ListOptions::default()).await?;
    let (w, l) = (rv_number(&written)?, rv_number(&page.resource_version)?);
    if l < w {
        return Ok(Verdict::Fail(format!(
            "a LIST at RV \"\" answered RV {l}, older than the write made just before it (RV \
             {w}): the LIST was served stale, and an informer started from it misses that write \
             until it relists"
        )));
    }
    match rv_in(&page, &name) {
        Some(seen) if rv_number(&seen)? >= w => Ok(Verdict::Pass(format!(
            "a LIST at RV \"\" answered RV {l}, not older than the write made just before it \
             (RV {w}), and shows it"
        ))),
        seen => Ok(Verdict::Fail(format!(
            "a LIST at RV \"\" answered RV {l} but shows {name} at {}, not the write made just \
             before it (RV {w})",
            seen.map_or("no RV (not listed)".to_string(), |rv| format!("RV {rv}"))
        ))),
    }
}

/// 2. `limit` is honoured, continue tokens work, and the pages are at the first page's RV.
async fn list_pagination(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    let mut opts = ListOptions {
        limit: Some(1),
        ..ListOptions::default()
    };
    let first = ev.list(&subject.lw, &opts).await?;
    let at = first.resource_version.clone();
    let mut names: Vec<String> = Vec::new();
    let mut page = first;
    let mut pages = 1;
    loop {
        if page.items.len() > 1 {
            return Ok(Verdict::Fail(format!(
                "a LIST with limit=1 answered {} objects in one page: the server ignores \
                 limit, so a reflector's LIST of a large collection comes in one response",
                page.items.len()
            )));
        }
        if page.resource_version != at {
            return Ok(Verdict::Fail(format!(
                "page {pages} is at RV {}, the first page at RV {at}: the pages are not one \
                 snapshot, so a paged LIST can show an object twice or miss one",
                page.resource_version
            )));
        }
        for o in &page.items {
            if names.iter().any(|n| n == o.name()) {
                return Ok(Verdict::Fail(format!(
                    "{} came in two pages: the continue token did not go on after it",
                    o.name()
                )));
            }
            names.push(o.name().to_string());
        }
        let Some(token) = page.continue_token.take() else {
            break;
        };
        if pages == MAX_PAGES {
            return Ok(Verdict::Pass(format!(
                "the first {pages} pages of a LIST with limit=1 each had 1 object, all at RV \
                 {at}; their continue tokens worked"
            )));
        }
        opts.continue_token = Some(token);
        page = ev.list(&subject.lw, &opts).await?;
        pages += 1;
    }
    if names.len() < 2 {
        return Ok(Verdict::Skip(format!(
            "needs 2 objects to page through, found {}{}",
            names.len(),
            if subject.writer.is_none() {
                " (--read-only creates none)"
            } else {
                ""
            }
        )));
    }
    if let Some(writer) = &subject.writer {
        let expected: BTreeSet<&String> = writer.names.iter().collect();
        let got: BTreeSet<&String> = names.iter().collect();
        if expected != got {
            return Ok(Verdict::Fail(format!(
                "the {pages} pages held {got:?}, the namespace holds {expected:?}"
            )));
        }
    }
    Ok(Verdict::Pass(format!(
        "{pages} pages of a LIST with limit=1, 1 object each, all at RV {at}; the last had no \
         continue token"
    )))
}

/// 3. A LIST at an exact RV returns the state at that RV.
async fn list_exact_rv(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    let before = ev.list_all(&subject.lw, ListOptions::default()).await?;
    let x = before.resource_version.clone();
    let exact = ListOptions {
        resource_version: Some(x.clone()),
        version_match: Some("Exact"),
        ..ListOptions::default()
    };
    let changed = match subject.writer.as_mut() {
        Some(writer) => {
            let name = writer.object(1);
            let was = rv_in(&before, &name).unwrap_or_default();
            let now = writer.touch(ev, &name).await?;
            Some((name, was, now))
        }
        None => None,
    };
    let at_x = ev.list_all(&subject.lw, exact).await?;
    if at_x.resource_version != x {
        return Ok(Verdict::Fail(format!(
            "a LIST with resourceVersion={x}&resourceVersionMatch=Exact answered RV {}",
            at_x.resource_version
        )));
    }
    let state = |page: &crate::informer::listwatch::ListPage| -> BTreeMap<String, String> {
        page.items
            .iter()
            .map(|o| (o.name().to_string(), o.resource_version().to_string()))
            .collect()
    };
    let (expected, got) = (state(&before), state(&at_x));
    if expected != got {
        let differ: Vec<String> = expected
            .keys()
            .chain(got.keys())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .filter(|k| expected.get(*k) != got.get(*k))
            .map(|k| {
                let rv = |m: &BTreeMap<String, String>| {
                    m.get(k)
                        .map_or("absent".to_string(), |rv| format!("RV {rv}"))
                };
                format!(
                    "{k} {} at RV {x}, {} in the exact LIST",
                    rv(&expected),
                    rv(&got)
                )
            })
            .collect();
        return Ok(Verdict::Fail(format!(
            "a LIST at exactly RV {x} is not the state at RV {x}: {}",
            differ.join("; ")
        )));
    }
    Ok(Verdict::Pass(match changed {
        Some((name, was, now)) => format!(
            "a LIST at exactly RV {x} made after {name} changed (RV {now}) shows it as it was \
             (RV {was}), and the other {} objects as they were",
            got.len().saturating_sub(1)
        ),
        None => format!(
            "a LIST at exactly RV {x} shows the {} objects the LIST at RV {x} showed",
            got.len()
        ),
    }))
}

/// 4. A WATCH from a LIST's RV delivers a write made after, with a greater RV.
async fn watch_from_list(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    writer(subject)?;
    let x = list_rv(subject, ev).await?;
    let from = rv_number(&x)?;
    let mut watch = ev
        .watch(&subject.lw, &watch_from(&x))
        .await
        .map_err(refused)?;
    let writer = writer(subject)?;
    let name = writer.object(2);
    let written = writer.touch(ev, &name).await?;
    let (found, before, _) = watch
        .until(ev, Instant::now() + EVENT_LIMIT, |e| {
            is_write(e, &name, &written)
        })
        .await;
    if let Some(old) = before
        .iter()
        .filter_map(object_of)
        .find(|o| rv_number(o.resource_version()).is_ok_and(|rv| rv <= from))
    {
        return Ok(Verdict::Fail(format!(
            "the WATCH from RV {x} delivered {} at RV {}, not after the LIST's RV: an informer \
             applies it again",
            old.name(),
            old.resource_version()
        )));
    }
    match found {
        Some(_) if rv_number(&written)? > from => Ok(Verdict::Pass(format!(
            "a WATCH from the LIST's RV {x} delivered the write made after it ({name} at RV \
             {written})"
        ))),
        Some(_) => Ok(Verdict::Fail(format!(
            "the write made after the LIST has RV {written}, not greater than the LIST's RV {x}"
        ))),
        None => Ok(Verdict::Fail(format!(
            "a WATCH from the LIST's RV {x} did not deliver the write made after it ({name} at \
             RV {written}) within {}s",
            EVENT_LIMIT.as_secs()
        ))),
    }
}

/// 5. RVs increase along a watch, as integers.
async fn watch_rv_order(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    let x = list_rv(subject, ev).await?;
    let mut watch = ev
        .watch(&subject.lw, &watch_from(&x))
        .await
        .map_err(refused)?;
    let mut events: Vec<WatchEvent> = Vec::new();
    match subject.writer.as_mut() {
        Some(writer) => {
            // Four writes of three kinds: a create, two updates, a delete.
            let extra = "conform-order";
            let mut written = vec![writer.create(ev, extra).await?];
            for i in 0..2 {
                let name = writer.object(i);
                written.push(writer.touch(ev, &name).await?);
            }
            writer.delete(ev, extra).await?;
            let deadline = Instant::now() + EVENT_LIMIT;
            while events.len() < 4 {
                let (found, _, end) = watch.until(ev, deadline, |e| object_of(e).is_some()).await;
                match found {
                    Some(e) => events.push(e),
                    None => {
                        return Ok(Verdict::Fail(format!(
                            "{} of the 4 writes' events came ({}) before {}",
                            events.len(),
                            written.join(", "),
                            match end {
                                Next::Quiet => format!("{}s passed", EVENT_LIMIT.as_secs()),
                                _ => "the watch ended".to_string(),
                            }
                        )))
                    }
                }
            }
        }
        None => {
            let deadline = Instant::now() + PASSIVE_LIMIT;
            loop {
                let (found, _, _) = watch.until(ev, deadline, |e| object_of(e).is_some()).await;
                match found {
                    Some(e) => events.push(e),
                    None => break,
                }
            }
            if events.len() < 2 {
                return Ok(Verdict::Skip(format!(
                    "{} event{} in {}s to compare, and --read-only makes none",
                    events.len(),
                    if events.len() == 1 { "" } else { "s" },
                    PASSIVE_LIMIT.as_secs()
                )));
            }
        }
    }
    let mut last: Option<(u64, String)> = None;
    for e in &events {
        let rv = object_of(e)
            .map(|o| o.resource_version())
            .unwrap_or_default();
        let Ok(n) = rv.parse::<u64>() else {
            return Ok(Verdict::Fail(format!(
                "{} has resourceVersion {rv:?}, not an integer: KEP-5504 makes RVs comparable \
                 integers, and informers that compare them misorder this server's events",
                describe_event(e)
            )));
        };
        if let Some((previous, what)) = &last {
            if n <= *previous {
                return Ok(Verdict::Fail(format!(
                    "{} came after {what}: RVs went backwards along the watch",
                    describe_event(e)
                )));
            }
        }
        last = Some((n, describe_event(e)));
    }
    let rvs: Vec<&str> = events
        .iter()
        .filter_map(object_of)
        .map(|o| o.resource_version())
        .collect();
    Ok(Verdict::Pass(format!(
        "{} events in increasing RV order: {}",
        events.len(),
        rvs.join(" < ")
    )))
}

/// 6. With allowWatchBookmarks=true a BOOKMARK arrives before the watch ends.
async fn watch_bookmarks(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    let x = list_rv(subject, ev).await?;
    let opts = WatchOptions {
        bookmarks: true,
        timeout_seconds: Some(BOOKMARK_WATCH_SECONDS),
        ..watch_from(&x)
    };
    let mut watch = ev.watch(&subject.lw, &opts).await.map_err(refused)?;
    // The server sends a BOOKMARK only when the RV moved since the watch began.
    let moved = match subject.writer.as_mut() {
        Some(writer) => {
            let name = writer.object(0);
            writer.touch(ev, &name).await?;
            true
        }
        None => false,
    };
    let deadline = watch.opened + Duration::from_secs(BOOKMARK_WATCH_SECONDS) + BOOKMARK_SLACK;
    let (found, _, end) = watch
        .until(ev, deadline, |e| matches!(e, WatchEvent::Bookmark { .. }))
        .await;
    let waited = watch.opened.elapsed();
    ev.waited = Some(waited);
    match found {
        Some(WatchEvent::Bookmark {
            resource_version, ..
        }) => Ok(Verdict::Pass(format!(
            "a BOOKMARK at RV {resource_version} came {} after the watch opened \
             (timeoutSeconds={BOOKMARK_WATCH_SECONDS})",
            seconds(waited)
        ))),
        _ => {
            let how = match end {
                Next::Closed => format!(
                    "before the watch ended ({} after it opened",
                    seconds(waited)
                ),
                Next::Quiet => format!("in {} (the watch did not end either", seconds(waited)),
                _ => format!(
                    "before the connection failed ({} after it opened",
                    seconds(waited)
                ),
            };
            let what = format!(
                "no BOOKMARK {how}, timeoutSeconds={BOOKMARK_WATCH_SECONDS}; the API server sends \
                 one 2s before the end when the RV moved)"
            );
            if moved {
                Ok(Verdict::Fail(format!(
                    "{what}: the server sends none here (a resource served from etcd without a \
                     watch cache) or something between drops them, so a reflector's RV goes \
                     stale while nothing changes and its re-watch gets 410 and relists"
                )))
            } else {
                Ok(Verdict::Skip(format!(
                    "{what}, and with --read-only conform could not make the RV move"
                )))
            }
        }
    }
}

/// 7. sendInitialEvents=true: the initial state, then the initial-events-end BOOKMARK.
async fn watch_list(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    // What the initial events should hold: in the scratch namespace nothing changes between
    // this LIST and the watch (elsewhere, what was created or deleted in between would differ).
    let listed: BTreeSet<String> = ev
        .list_all(&subject.lw, ListOptions::default())
        .await?
        .items
        .iter()
        .map(|o| o.name().to_string())
        .collect();
    let opts = WatchOptions {
        resource_version: String::new(),
        send_initial_events: true,
        bookmarks: true,
        ..WatchOptions::default()
    };
    let mut watch = match ev.watch(&subject.lw, &opts).await {
        Ok(watch) => watch,
        Err(e) => {
            return match e.status_code() {
                Some(401 | 403) | Some(500..) | None => Err(refused(e)),
                Some(_) => Ok(Verdict::Skip(format!(
                    "not supported: the server refused sendInitialEvents ({e}); client-go falls \
                     back to LIST + WATCH, and so does kubectl-informer"
                ))),
            }
        }
    };
    let limit = subject.limits.initial_events;
    let mut initial = BTreeSet::new();
    let mut other = Vec::new();
    let mut last = Instant::now();
    loop {
        let (found, _, end) = watch.until(ev, last + limit, |_| true).await;
        match found {
            Some(WatchEvent::Bookmark {
                resource_version,
                initial_events_end: true,
            }) => {
                ev.waited = Some(watch.opened.elapsed());
                if !other.is_empty() {
                    return Ok(Verdict::Fail(format!(
                        "the initial events were not all ADDED: {}",
                        other.join(", ")
                    )));
                }
                if subject.writer.is_some() && initial != listed {
                    return Ok(Verdict::Fail(format!(
                        "the initial events held {initial:?}, a LIST just before held {listed:?}"
                    )));
                }
                return Ok(Verdict::Pass(format!(
                    "{} ADDED events, then the k8s.io/initial-events-end BOOKMARK at RV \
                     {resource_version}, {} after the watch opened",
                    initial.len(),
                    seconds(watch.opened.elapsed())
                )));
            }
            Some(WatchEvent::Added(o)) => {
                initial.insert(o.name().to_string());
                last = Instant::now();
            }
            // A BOOKMARK without the annotation is not the end.
            Some(WatchEvent::Bookmark { .. }) => {}
            Some(e) => {
                other.push(describe_event(&e));
                last = Instant::now();
            }
            None => {
                let after = match end {
                    Next::Quiet => format!(
                        "then nothing for {} (--initial-events-timeout)",
                        seconds(limit)
                    ),
                    Next::Closed => "then the server ended the watch".to_string(),
                    _ => "then the connection failed".to_string(),
                };
                return Ok(Verdict::Fail(format!(
                    "the server accepted sendInitialEvents and sent {} ADDED events, {after}, \
                     with no k8s.io/initial-events-end BOOKMARK: client-go's informer never \
                     syncs here (kubectl-informer falls back to a LIST)",
                    initial.len()
                )));
            }
        }
    }
}

/// 8. A WATCH from a compacted RV answers 410 Expired.
async fn watch_expired(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    let opts = watch_from("1");
    let mut watch = match ev.watch(&subject.lw, &opts).await {
        Ok(watch) => watch,
        Err(e) if e.status_code() == Some(410) => {
            return Ok(Verdict::Pass(format!(
                "a WATCH from RV 1 was refused with 410: {e}"
            )))
        }
        Err(e) => return Err(refused(e)),
    };
    let (found, _, end) = watch
        .until(ev, Instant::now() + EXPIRED_LIMIT, |_| true)
        .await;
    match found {
        Some(WatchEvent::Error(status))
            if status.code == 410 || matches!(status.reason.as_str(), "Expired" | "Gone") =>
        {
            Ok(Verdict::Pass(format!(
                "a WATCH from RV 1 answered an ERROR event {} {}: {}",
                status.code, status.reason, status.message
            )))
        }
        Some(WatchEvent::Error(status)) => Ok(Verdict::Fail(format!(
            "a WATCH from RV 1 answered an ERROR event {} {} ({}), not 410 Expired: a \
             reflector does not relist on it",
            status.code, status.reason, status.message
        ))),
        Some(e) => Ok(Verdict::Skip(format!(
            "RV 1 is still in the server's history: the WATCH from it delivered {} (nothing \
             compacted yet, so no older RV to try)",
            describe_event(&e)
        ))),
        None => Ok(Verdict::Skip(match end {
            Next::Quiet => format!(
                "a WATCH from RV 1 answered nothing in {}s: RV 1 may still be in the server's \
                 history",
                EXPIRED_LIMIT.as_secs()
            ),
            _ => "a WATCH from RV 1 ended without an event or an error".to_string(),
        })),
    }
}

/// 9. The server ends a watch at its timeoutSeconds.
async fn watch_timeout(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    let x = list_rv(subject, ev).await?;
    let opts = WatchOptions {
        timeout_seconds: Some(TIMEOUT_SECONDS),
        ..watch_from(&x)
    };
    let mut watch = ev.watch(&subject.lw, &opts).await.map_err(refused)?;
    let asked = Duration::from_secs(TIMEOUT_SECONDS);
    let deadline = watch.opened + asked + TIMEOUT_SLACK;
    let (_, _, end) = watch.until(ev, deadline, |_| false).await;
    let after = watch.opened.elapsed();
    ev.waited = Some(after);
    match end {
        Next::Quiet => Ok(Verdict::Fail(format!(
            "the watch with timeoutSeconds={TIMEOUT_SECONDS} was still open {} after it \
             opened: the server ignores timeoutSeconds, or a proxy keeps the connection",
            seconds(after)
        ))),
        Next::Broken(e) => Ok(Verdict::Fail(format!(
            "the watch with timeoutSeconds={TIMEOUT_SECONDS} failed {} after it opened instead \
             of ending: {e}",
            seconds(after)
        ))),
        _ if after + Duration::from_secs(1) < asked => Ok(Verdict::Fail(format!(
            "the watch with timeoutSeconds={TIMEOUT_SECONDS} ended after {}: something closes \
             watches early, and informers re-watch more often than they ask",
            seconds(after)
        ))),
        _ => Ok(Verdict::Pass(format!(
            "the server ended the watch with timeoutSeconds={TIMEOUT_SECONDS} after {}",
            seconds(after)
        ))),
    }
}

/// 10. A write's event arrives within the delivery limit.
async fn watch_unbuffered(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    writer(subject)?;
    let x = list_rv(subject, ev).await?;
    let mut watch = ev
        .watch(&subject.lw, &watch_from(&x))
        .await
        .map_err(refused)?;
    let writer = writer(subject)?;
    let name = writer.object(1);
    let sent = Instant::now();
    let written = writer.touch(ev, &name).await?;
    let (found, _, _) = watch
        .until(ev, sent + EVENT_LIMIT, |e| is_write(e, &name, &written))
        .await;
    let delay = sent.elapsed();
    ev.waited = Some(delay);
    let limit = subject.limits.delivery;
    match found {
        None => Ok(Verdict::Fail(format!(
            "the event of a write ({name} at RV {written}) did not arrive within {}s",
            EVENT_LIMIT.as_secs()
        ))),
        Some(_) if delay > limit => Ok(Verdict::Fail(format!(
            "the event of a write ({name} at RV {written}) arrived {} after it, past the {} \
             limit (--delivery-limit): something between the server and this client buffers \
             the watch stream",
            seconds(delay),
            seconds(limit)
        ))),
        Some(_) => Ok(Verdict::Pass(format!(
            "the event of a write ({name} at RV {written}) arrived {} after it (limit {})",
            seconds(delay),
            seconds(limit)
        ))),
    }
}

/// 11. A metadata-only LIST and WATCH are served.
async fn watch_metadata(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    let meta = crate::informer::listwatch::ListWatch {
        metadata_only: true,
        ..subject.lw.clone()
    };
    let not_served = |what: String| {
        Verdict::Skip(format!(
            "not served: {what}; a metadata informer of this resource gets whole objects or \
             fails"
        ))
    };
    // The list's own kind says what the server made of the Accept header (a server that
    // ignores it answers a ConfigMapList).
    let url = meta.list_url(&ListOptions {
        limit: Some(1),
        ..ListOptions::default()
    });
    let asked = format!("GET {url} (Accept: {ACCEPT_METADATA_LIST})");
    let body = match meta
        .cluster
        .get(&url, ACCEPT_METADATA_LIST, &meta.operation("list"))
        .await
    {
        Ok(body) => body,
        Err(e) => {
            ev.note(format!("{asked} -> {e}"));
            return match e.status_code() {
                Some(401 | 403) => Err(refused(e)),
                _ => Ok(not_served(e.to_string())),
            };
        }
    };
    let list: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let kind = list["kind"].as_str().unwrap_or("no kind").to_string();
    let rv = list["metadata"]["resourceVersion"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    ev.note(format!("{asked} -> {kind}, RV {rv}"));
    if kind != "PartialObjectMetadataList" {
        return Ok(not_served(format!(
            "the metadata-only LIST answered a {kind}"
        )));
    }
    let mut watch = match ev.watch(&meta, &watch_from(&rv)).await {
        Ok(watch) => watch,
        Err(e) if matches!(e.status_code(), Some(401 | 403)) => return Err(refused(e)),
        Err(e) => return Ok(not_served(e.to_string())),
    };
    let Some(writer) = subject.writer.as_mut() else {
        return Ok(Verdict::Pass(
            "the metadata-only LIST answered a PartialObjectMetadataList, and the WATCH opened \
             (--read-only makes no write to see an event)"
                .to_string(),
        ));
    };
    let name = writer.object(2);
    let written = writer.touch(ev, &name).await?;
    let (found, _, _) = watch
        .until(ev, Instant::now() + EVENT_LIMIT, |e| {
            object_of(e).is_some_and(|o| o.name() == name && o.resource_version() == written)
        })
        .await;
    match found.as_ref().and_then(object_of) {
        Some(o) if o.kind() == "PartialObjectMetadata" => Ok(Verdict::Pass(format!(
            "the metadata-only LIST and WATCH answered PartialObjectMetadata ({name} at RV \
             {written})"
        ))),
        Some(o) => Ok(not_served(format!(
            "the metadata-only WATCH answered whole objects ({} {})",
            o.api_version(),
            o.kind()
        ))),
        None => Ok(Verdict::Fail(format!(
            "the metadata-only WATCH did not deliver a write ({name} at RV {written}) within \
             {}s",
            EVENT_LIMIT.as_secs()
        ))),
    }
}
