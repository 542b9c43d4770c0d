//! Before a replay (`--from-rv`) opens its watch: whether the RV it resumes from is ahead of
//! the collection's current one, which kube-apiserver would answer with a silent watch.

use super::{ListOptions, ListerWatcher, Reflector, ReflectorEvent, State, WatchFailure};
use tokio::time::Instant;

impl<L: ListerWatcher> Reflector<L> {
    /// Before a replay's watch opens: whether its RV is ahead of the collection's current one,
    /// read with one LIST of one object. kube-apiserver takes a watch from such an RV and
    /// keeps it open sending nothing until the collection's RV passes it, which looks like a
    /// quiet resource; so the reflector says so (a `WatchFailed` that names both RVs) and
    /// reads it again after the backoff. `None`: not ahead, or not known (the LIST failed, an
    /// RV that is not a number); the watch opens.
    pub(super) async fn replay_ahead(&mut self) -> Option<State> {
        use crate::cluster::resource_version::ResourceVersion;
        let opts = ListOptions {
            limit: Some(1),
            ..ListOptions::default()
        };
        let current = match self.lw.list_page(&opts).await {
            Ok(page) => page.resource_version,
            Err(_) => String::new(),
        };
        let (Ok(from), Ok(now)) = (
            ResourceVersion::parse(&self.resource_version),
            ResourceVersion::parse(&current),
        ) else {
            self.replay_checked = true;
            return None;
        };
        if from <= now {
            self.replay_checked = true;
            return None;
        }
        let delay = self.backoff.next_delay();
        self.pending.push_back(ReflectorEvent::WatchFailed {
            resource_version: self.resource_version.clone(),
            error: WatchFailure::AheadOfServer {
                current: now.to_string(),
                resource: self.lw.resource_name(),
            },
            retry_in: delay,
        });
        Some(State::Sleep {
            until: Instant::now() + delay,
            then: Box::new(State::OpenWatch),
        })
    }
}
