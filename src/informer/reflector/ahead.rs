//! Before a replay (`--from-rv`) opens its watch: whether the RV it resumes from is ahead of
//! the collection's current one, which kube-apiserver would answer with a silent watch.

use super::{ListOptions, ListerWatcher, Opening, Reflector, ReflectorEvent, State, WatchFailure};

impl<L: ListerWatcher> Reflector<L> {
    /// Before a replay's watch opens: whether `from` is ahead of the collection's current RV,
    /// read with one LIST of one object. kube-apiserver takes a watch from such an RV and
    /// keeps it open sending nothing until the collection's RV passes it, which looks like a
    /// quiet resource; so the reflector says so (a `WatchFailed` that names both RVs) and
    /// reads it again after the backoff. Not ahead, or not known (the LIST failed, an RV that
    /// is not a number): the watch opens.
    pub(super) async fn check_replay(&mut self, from: String) -> State {
        use crate::cluster::resource_version::ResourceVersion;
        let opts = ListOptions {
            limit: Some(1),
            ..ListOptions::default()
        };
        let current = match self.lw.list_page(&opts).await {
            Ok(page) => page.resource_version,
            Err(_) => String::new(),
        };
        let ahead = match (
            ResourceVersion::parse(&from),
            ResourceVersion::parse(&current),
        ) {
            (Ok(from), Ok(now)) => from > now,
            _ => false,
        };
        if !ahead {
            return State::OpenWatch(Opening::Replay { from });
        }
        let delay = self.backoff.next_delay();
        self.pending.push_back(ReflectorEvent::WatchFailed {
            resource_version: from.clone(),
            error: WatchFailure::AheadOfServer {
                current,
                resource: self.lw.resource_name(),
            },
            retry_in: delay,
        });
        State::after(delay, State::CheckReplay { from })
    }
}
