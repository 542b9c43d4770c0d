//! Checks 4 to 11: the WATCH side of the contract (joining a LIST, RV order, bookmarks,
//! watch-list, 410, timeoutSeconds, unbuffered delivery, metadata-only).

use super::*;

/// 4. A WATCH from a LIST's RV delivers a write made after, with a greater RV.
pub(super) async fn watch_from_list(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
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
pub(super) async fn watch_rv_order(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    let x = list_rv(subject, ev).await?;
    let mut watch = ev
        .watch(&subject.lw, &watch_from(&x))
        .await
        .map_err(refused)?;
    let events = match subject.writer.as_mut() {
        Some(writer) => events_of_writes(writer, &mut watch, ev).await?,
        None => events_passing_by(&mut watch, ev).await?,
    };
    Ok(rv_order(&events))
}

/// Makes four writes of three kinds and returns their events; FAIL when they do not all come.
async fn events_of_writes(
    writer: &mut Writer,
    watch: &mut Watch,
    ev: &mut Evidence,
) -> Result<Vec<WatchEvent>, Verdict> {
    // Four writes of three kinds: a create, two updates, a delete.
    let extra = writer.name("order");
    let mut written = vec![writer.create(ev, &extra).await?];
    for i in 0..2 {
        let name = writer.object(i);
        written.push(writer.touch(ev, &name).await?);
    }
    writer.delete(ev, &extra).await?;
    let mut events = Vec::new();
    let deadline = Instant::now() + EVENT_LIMIT;
    while events.len() < 4 {
        let (found, _, end) = watch.until(ev, deadline, |e| object_of(e).is_some()).await;
        match found {
            Some(e) => events.push(e),
            None => {
                return Err(Verdict::Fail(format!(
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
    Ok(events)
}

/// With --read-only: the events others' writes make within `PASSIVE_LIMIT`; SKIP when fewer
/// than two come, as there is nothing to compare.
async fn events_passing_by(
    watch: &mut Watch,
    ev: &mut Evidence,
) -> Result<Vec<WatchEvent>, Verdict> {
    let mut events = Vec::new();
    let deadline = Instant::now() + PASSIVE_LIMIT;
    loop {
        let (found, _, _) = watch.until(ev, deadline, |e| object_of(e).is_some()).await;
        match found {
            Some(e) => events.push(e),
            None => break,
        }
    }
    if events.len() < 2 {
        return Err(Verdict::Skip(
            Skip::ReadOnly,
            format!(
                "{} in {}s to compare, and --read-only makes none",
                crate::format::count(events.len() as u64, "event"),
                PASSIVE_LIMIT.as_secs()
            ),
        ));
    }
    Ok(events)
}

/// PASS when the RVs of `events` are integers that increase, else FAIL naming the first that
/// does not.
fn rv_order(events: &[WatchEvent]) -> Verdict {
    let mut last: Option<(ResourceVersion, String)> = None;
    for e in events {
        let rv = object_of(e)
            .map(|o| o.resource_version())
            .unwrap_or_default();
        let Ok(n) = ResourceVersion::parse(rv) else {
            return Verdict::Fail(format!(
                "{} has resourceVersion {rv:?}, not an integer: KEP-5504 makes RVs comparable \
                 integers, and informers that compare them misorder this server's events",
                describe_event(e)
            ));
        };
        if let Some((previous, what)) = &last {
            if n <= *previous {
                return Verdict::Fail(format!(
                    "{} came after {what}: RVs went backwards along the watch",
                    describe_event(e)
                ));
            }
        }
        last = Some((n, describe_event(e)));
    }
    let rvs: Vec<&str> = events
        .iter()
        .filter_map(object_of)
        .map(|o| o.resource_version())
        .collect();
    Verdict::Pass(format!(
        "{} events in increasing RV order: {}",
        events.len(),
        rvs.join(" < ")
    ))
}

/// 6. With allowWatchBookmarks=true a BOOKMARK arrives before the watch ends.
pub(super) async fn watch_bookmarks(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
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
                Ok(Verdict::Skip(
                    Skip::ReadOnly,
                    format!("{what}, and with --read-only conform could not make the RV move"),
                ))
            }
        }
    }
}

/// 7. sendInitialEvents=true: the initial state, then the initial-events-end BOOKMARK.
pub(super) async fn watch_list(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    // What the initial events should hold: in the scratch namespace nothing changes between
    // this LIST and the watch (elsewhere, what was created or deleted in between would differ).
    let listed: BTreeSet<String> = ev
        .list_all(&subject.lw, ListOptions::default())
        .await?
        .items
        .iter()
        .map(|o| o.name().to_string())
        .collect();
    let mut watch = open_watch_list(subject, ev).await?;
    let limit = subject.limits.initial_events;
    let (initial, end) = read_initial_events(&mut watch, ev, limit).await;
    let resource_version = match end {
        Ok(resource_version) => resource_version,
        Err(end) => {
            let after = match end {
                Next::Quiet => format!(
                    "then nothing for {} (--initial-events-timeout)",
                    seconds(limit)
                ),
                Next::Closed => "then the server ended the watch".to_string(),
                _ => "then the connection failed".to_string(),
            };
            return Ok(Verdict::Fail(format!(
                "the server accepted sendInitialEvents and sent {}, {after}, \
                 with no k8s.io/initial-events-end BOOKMARK: client-go's informer never \
                 syncs here (kubectl-informer falls back to a LIST)",
                crate::format::count(initial.added.len() as u64, "ADDED event")
            )));
        }
    };
    if !initial.other.is_empty() {
        return Ok(Verdict::Fail(format!(
            "the initial events were not all ADDED: {}",
            initial.other.join(", ")
        )));
    }
    if subject.writer.is_some() && initial.added != listed {
        return Ok(Verdict::Fail(format!(
            "the initial events held {:?}, a LIST just before held {listed:?}",
            initial.added
        )));
    }
    Ok(Verdict::Pass(format!(
        "{}, then the k8s.io/initial-events-end BOOKMARK at RV \
         {resource_version}, {} after the watch opened",
        crate::format::count(initial.added.len() as u64, "ADDED event"),
        seconds(watch.opened.elapsed())
    )))
}

/// A watch with sendInitialEvents=true; SKIP when the server refuses it as one it does not
/// support (an informer falls back to a LIST there).
async fn open_watch_list(subject: &Subject, ev: &mut Evidence) -> Result<Watch, Verdict> {
    let opts = WatchOptions {
        resource_version: String::new(),
        send_initial_events: true,
        bookmarks: true,
        ..WatchOptions::default()
    };
    ev.watch(&subject.lw, &opts)
        .await
        .map_err(|e| match e.status_code() {
            Some(401 | 403) | Some(500..) | None => refused(e),
            Some(_) => Verdict::Skip(
                Skip::NotApplicable,
                format!(
                    "not supported: the server refused sendInitialEvents ({e}); client-go \
                     falls back to LIST + WATCH, and so does kubectl-informer"
                ),
            ),
        })
}

/// What a watch-list delivered before its initial-events-end BOOKMARK.
#[derive(Default)]
struct InitialEvents {
    /// The names of the objects ADDED.
    added: BTreeSet<String>,
    /// Every other event but a BOOKMARK, described.
    other: Vec<String>,
}

/// Reads a watch-list's initial events until the initial-events-end BOOKMARK, noting when it
/// came; its RV, or (`Err`) how the watch went on without it: `limit` after the last event, or
/// ended.
async fn read_initial_events(
    watch: &mut Watch,
    ev: &mut Evidence,
    limit: Duration,
) -> (InitialEvents, Result<String, Next>) {
    let mut initial = InitialEvents::default();
    let mut last = Instant::now();
    loop {
        let (found, _, end) = watch.until(ev, last + limit, |_| true).await;
        match found {
            Some(WatchEvent::Bookmark {
                resource_version,
                initial_events_end: true,
            }) => {
                ev.waited = Some(watch.opened.elapsed());
                return (initial, Ok(resource_version));
            }
            Some(WatchEvent::Added(o)) => {
                initial.added.insert(o.name().to_string());
                last = Instant::now();
            }
            // A BOOKMARK without the annotation is not the end.
            Some(WatchEvent::Bookmark { .. }) => {}
            Some(e) => {
                initial.other.push(describe_event(&e));
                last = Instant::now();
            }
            None => return (initial, Err(end)),
        }
    }
}

/// 8. A WATCH from a compacted RV answers 410 Expired.
pub(super) async fn watch_expired(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
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
        Some(e) => Ok(Verdict::Skip(
            Skip::NotApplicable,
            format!(
                "RV 1 is still in the server's history: the WATCH from it delivered {} \
                 (nothing compacted yet, so no older RV to try)",
                describe_event(&e)
            ),
        )),
        None => Ok(Verdict::Skip(
            Skip::Inconclusive,
            match end {
                Next::Quiet => format!(
                    "a WATCH from RV 1 answered nothing in {}s: RV 1 may still be in the \
                     server's history",
                    EXPIRED_LIMIT.as_secs()
                ),
                _ => "a WATCH from RV 1 ended without an event or an error".to_string(),
            },
        )),
    }
}

/// 9. The server ends a watch at its timeoutSeconds.
pub(super) async fn watch_timeout(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
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
pub(super) async fn watch_unbuffered(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
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

/// Check 11's SKIP: the server does not serve metadata-only requests of this resource.
fn not_served(what: String) -> Verdict {
    Verdict::Skip(
        Skip::NotApplicable,
        format!(
            "not served: {what}; a metadata informer of this resource gets whole objects or fails"
        ),
    )
}

/// 11. A metadata-only LIST and WATCH are served.
pub(super) async fn watch_metadata(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    let meta = crate::informer::listwatch::ListWatch {
        metadata_only: true,
        ..subject.lw.clone()
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
