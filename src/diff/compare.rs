//! diff's comparisons: the informer's cache, frozen at its RV once settled, against a LIST at
//! exactly that RV (catching up when the server can no longer serve it), or a saved cache
//! against a consistent LIST now; each LIST page compared as it arrives.

use super::drift::{Comparison, Drift, FieldDetail};
use super::error::DiffError;
use super::report::{report, DiffReport, Method};
use crate::cluster::resource_version::ResourceVersion;
use crate::cluster::ClusterError;
use crate::informer::listwatch::{ListAt, ListOptions, ListWatch};
use crate::informer::object::RawObject;
use crate::informer::shared::{NotReached, RunningInformer};
use crate::informer::store::{Objects, Store};
use std::time::{Duration, Instant};

/// How long the cache may take to catch up with the server's newest RV in a fallback.
const CATCH_UP_DEADLINE: Duration = Duration::from_secs(60);

/// Told of each page of a LIST being compared, to show progress: diff's machinery computes, the
/// command renders.
pub trait PageProgress: Sync {
    /// A LIST begins (also when one starts over).
    fn begin(&self);
    /// A page of `objects` arrived; the server says `remaining` more objects follow (its
    /// `remainingItemCount`, when it counts), and `more` pages do.
    fn page(&self, objects: usize, remaining: Option<i64>, more: bool);
}

/// LISTs page by page (at `at` exactly, or consistently when `None`) and compares each page
/// with the frozen cache; returns the LIST's RV, objects compared and drift.
async fn list_and_compare(
    lw: &ListWatch,
    at: Option<&str>,
    cache: Objects,
    detail: FieldDetail,
    chunk_size: u32,
    redact_server: bool,
    progress: &dyn PageProgress,
) -> Result<(String, usize, Vec<Drift>), ClusterError> {
    let mut comparison = Comparison::new(cache, detail);
    let mut opts = ListOptions {
        limit: Some(chunk_size),
        continue_token: None,
        at: at.map_or(ListAt::Newest, |rv| ListAt::Exact(rv.to_string())),
    };
    progress.begin();
    loop {
        let page = lw.list_page(&opts).await?;
        progress.page(
            page.items.len(),
            page.remaining_item_count,
            page.continue_token.is_some(),
        );
        if redact_server {
            let redacted: Vec<RawObject> = page
                .items
                .iter()
                .map(|o| o.redacted().unwrap_or_else(|_| o.clone()))
                .collect();
            comparison.page(&redacted);
        } else {
            comparison.page(&page.items);
        }
        match page.continue_token {
            Some(token) => {
                opts.continue_token = Some(token);
            }
            None => {
                let (compared, drift) = comparison.finish();
                return Ok((page.resource_version, compared, drift));
            }
        }
    }
}

/// Compares a recorded cache (`cache`, synced at `cache_rv`) with a fresh LIST; `started` is
/// when the run began (the report's duration counts from it).
pub async fn compare_cache(
    lw: &ListWatch,
    chunk_size: u32,
    detail: FieldDetail,
    (cache_rv, cache): (String, Objects),
    started: Instant,
    progress: &dyn PageProgress,
) -> Result<DiffReport, DiffError> {
    // A recording made without --show-secret-data holds markers, not values: compare like with
    // like.
    let redact = lw.resource.is_secret()
        && cache
            .iter()
            .any(|o| o.json().is_some_and(|j| j.contains("\"<redacted: ")));
    // A LIST whose continue token expires mid-way (slower than the history window) starts over
    // in one request, as client-go's pager does.
    let (rv, compared, drift) = match list_and_compare(
        lw,
        None,
        cache.clone(),
        detail,
        chunk_size,
        redact,
        progress,
    )
    .await
    {
        Err(e) if e.status_code() == Some(410) => {
            list_and_compare(lw, None, cache, detail, 0, redact, progress).await?
        }
        other => other?,
    };
    let mut r = report(lw, rv, Method::CacheFile, compared, drift, started);
    r.cache_resource_version = Some(cache_rv).filter(|v| !v.is_empty());
    Ok(r)
}

/// Freezes the cache at its synced RV R and compares it with a LIST at exactly R. When the
/// server can no longer serve R (410, at the first page or mid-list when its history is compacted
/// under a long LIST), waits for the cache to reach the server's newest RV and compares there;
/// gives up after three such tries.
pub async fn compare_live(
    lw: &ListWatch,
    running: &RunningInformer,
    detail: FieldDetail,
    chunk_size: u32,
    progress: &dyn PageProgress,
) -> Result<DiffReport, DiffError> {
    const TRIES: usize = 3;
    let started = Instant::now();
    let mut method = Method::Exact;
    for _ in 0..TRIES {
        let (rv, cache) = settled_cache(running).await?;
        match list_and_compare(lw, Some(&rv), cache, detail, chunk_size, false, progress).await {
            Ok((_, compared, drift)) => {
                return Ok(report(lw, rv, method, compared, drift, started));
            }
            Err(e) if e.status_code() == Some(410) => {
                catch_up(lw, running, &rv).await?;
                method = Method::ExactAfterCatchUp;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(DiffError::HistoryGone {
        resource: lw.resource.qualified_name(),
        tries: TRIES,
    })
}

/// The error to show for `err`: the reflector's own, when it stopped (a failure it does not
/// retry, such as 403 after permissions were revoked), else `err`.
pub async fn why_stopped(running: RunningInformer, err: DiffError) -> DiffError {
    if running.reflector_finished() {
        if let Err(e) = running.stop().await {
            return e.into();
        }
    }
    err
}

/// The cache frozen at its RV, once no relist is part-way through replacing it (a half-replaced
/// cache holds objects newer than its RV and would show drift that is not there).
async fn settled_cache(running: &RunningInformer) -> Result<(String, Objects), DiffError> {
    when_settled(running, Store::frozen).await
}

/// `read` of the store once no relist is part-way through replacing it.
pub async fn when_settled<T>(
    running: &RunningInformer,
    read: impl Fn(&Store) -> T,
) -> Result<T, DiffError> {
    running
        .settled(read)
        .await
        .map_err(|stopped| DiffError::Stopped(stopped.to_string()))
}

/// Waits until the cache's RV reaches the server's newest (events and bookmarks advance it).
async fn catch_up(lw: &ListWatch, running: &RunningInformer, rv: &str) -> Result<(), DiffError> {
    let newest = lw
        .list_page(&ListOptions {
            limit: Some(1),
            ..Default::default()
        })
        .await?
        .resource_version;
    lw.cluster.verbosity().say(0, || {
        format!(
            "the cache's RV {rv} can no longer be listed exactly (410 Gone); waiting for the \
             cache to reach the server's newest RV {newest} and comparing there"
        )
    });
    let newest_rv = ResourceVersion::parse(&newest)
        .map_err(|e| DiffError::UnreadableResourceVersion(e.to_string()))?;
    match tokio::time::timeout(CATCH_UP_DEADLINE, running.reached(&newest_rv)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(NotReached::NotComparable(e))) => Err(DiffError::NotComparable {
            newest,
            reason: e.to_string(),
        }),
        _ => Err(DiffError::NotCaughtUp {
            current: running.read(|store| store.resource_version().to_string()),
            newest,
            limit: CATCH_UP_DEADLINE,
        }),
    }
}
