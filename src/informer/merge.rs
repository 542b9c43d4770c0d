//! Several reflectors at once (`tail deploy,rs,pods`): each driven in its own task with its own
//! LIST/WATCH, resourceVersions, bookmarks, reconnects and relists, their events merged into one
//! stream in arrival order, each tagged with the index of the reflector it came from. One
//! reflector alone is driven in place: a task and a channel per event would cost a single
//! `tail` a fifth to a third of its throughput (a watch's events come one by one, so they
//! cannot be sent in batches).

use super::listwatch::{ListWatch, ListerWatcher};
use super::reflector::{Reflector, ReflectorError};
use super::transition::ReflectorEvent;
use std::collections::VecDeque;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

/// Events a task sends at most at once: what its reflector had ready without waiting.
const BATCH: usize = 256;
/// Batches in flight per reflector before its task waits for the reader (backpressure: a slow
/// printer slows the watches down instead of buffering without end).
const IN_FLIGHT: usize = 4;

/// What a reflector's task sends.
enum Batch {
    /// Events, in the reflector's order.
    Events(Vec<ReflectorEvent>),
    /// The reflector ended for good (`reconnect` off and its watch closed).
    Ended,
    Failed(ReflectorError),
}

/// The events of several reflectors, in arrival order; each reflector's own order is kept.
pub struct Merged<L = ListWatch>(Inner<L>);

enum Inner<L> {
    /// One reflector, driven by `next` itself.
    One(Box<Reflector<L>>),
    Several {
        rx: mpsc::Receiver<(usize, Batch)>,
        /// Dropped with the stream: the reflectors stop with it.
        _tasks: JoinSet<()>,
        ready: VecDeque<(usize, ReflectorEvent)>,
        /// Reflectors that have not ended.
        running: usize,
    },
}

/// A reflector's fatal error, with the index of the reflector.
#[derive(Debug)]
pub struct MergedError {
    pub reflector: usize,
    pub error: ReflectorError,
}

impl<L: ListerWatcher> Merged<L> {
    /// Starts each reflector in a task of its own (one alone runs in place).
    pub fn start(mut reflectors: Vec<Reflector<L>>) -> Self {
        if reflectors.len() == 1 {
            if let Some(one) = reflectors.pop() {
                return Merged(Inner::One(Box::new(one)));
            }
        }
        let running = reflectors.len();
        let (tx, rx) = mpsc::channel(IN_FLIGHT * running.max(1));
        let mut tasks = JoinSet::new();
        for (index, reflector) in reflectors.into_iter().enumerate() {
            tasks.spawn(drive(index, reflector, tx.clone()));
        }
        Merged(Inner::Several {
            rx,
            _tasks: tasks,
            ready: VecDeque::new(),
            running,
        })
    }

    /// The next event and the index of its reflector; `Ok(None)` once every reflector ended.
    /// A reflector's fatal error ends the stream.
    pub async fn next(&mut self) -> Result<Option<(usize, ReflectorEvent)>, MergedError> {
        let (rx, ready, running) = match &mut self.0 {
            Inner::One(reflector) => {
                return match reflector.next().await {
                    Ok(event) => Ok(event.map(|e| (0, e))),
                    Err(error) => Err(MergedError {
                        reflector: 0,
                        error,
                    }),
                }
            }
            Inner::Several {
                rx, ready, running, ..
            } => (rx, ready, running),
        };
        loop {
            if let Some(next) = ready.pop_front() {
                return Ok(Some(next));
            }
            if *running == 0 {
                return Ok(None);
            }
            match rx.recv().await {
                Some((index, Batch::Events(events))) => {
                    ready.extend(events.into_iter().map(|e| (index, e)))
                }
                Some((_, Batch::Ended)) => *running -= 1,
                Some((reflector, Batch::Failed(error))) => {
                    *running = 0;
                    return Err(MergedError { reflector, error });
                }
                // Every task gone without a word: only when they panicked.
                None => *running = 0,
            }
        }
    }

    /// Whether `next` has an event without waiting (a printer flushes when it has none).
    pub fn has_pending(&mut self) -> bool {
        match &mut self.0 {
            Inner::One(reflector) => reflector.has_pending(),
            Inner::Several { rx, ready, .. } => !ready.is_empty() || !rx.is_empty(),
        }
    }
}

/// Runs `reflector` until it ends or the stream is dropped, sending what it had ready in batches.
async fn drive<L: ListerWatcher>(
    index: usize,
    mut reflector: Reflector<L>,
    tx: mpsc::Sender<(usize, Batch)>,
) {
    loop {
        let mut events = Vec::new();
        // A batch is what came without waiting after its first event; the end (or a fatal
        // error) follows the events before it.
        let end = loop {
            match reflector.next().await {
                Ok(Some(event)) => {
                    events.push(event);
                    if events.len() >= BATCH || !reflector.has_pending() {
                        break None;
                    }
                }
                Ok(None) => break Some(Batch::Ended),
                Err(e) => break Some(Batch::Failed(e)),
            }
        };
        if !events.is_empty() && tx.send((index, Batch::Events(events))).await.is_err() {
            return;
        }
        if let Some(end) = end {
            let _ = tx.send((index, end)).await;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::listwatch::WatchEvent;
    use crate::informer::reflector::{ReflectorConfig, Start};
    use crate::informer::script::{Script, Step};
    use crate::informer::store::tests::cm;
    use std::time::Duration;

    fn once(script: Script) -> Reflector<Script> {
        Reflector::new(
            script,
            ReflectorConfig {
                reconnect: false,
                ..ReflectorConfig::informer(Start::List, 10)
            },
        )
    }

    fn modified(name: &str, rv: u64, after: Duration) -> Vec<Step> {
        vec![
            Step::Wait(after),
            Step::Event(WatchEvent::Modified(cm("ns", name, rv, &[]))),
        ]
    }

    /// `(reflector, what)` of each event: `listed`, `watch-opened`, `name@rv`.
    fn shown(events: &[(usize, ReflectorEvent)]) -> Vec<(usize, String)> {
        events
            .iter()
            .filter_map(|(i, e)| {
                let what = match e {
                    ReflectorEvent::ListComplete { .. } => "listed".to_string(),
                    ReflectorEvent::WatchOpened { .. } => "watch-opened".to_string(),
                    ReflectorEvent::Watched { object, .. } => {
                        format!("{}@{}", object.name(), object.resource_version())
                    }
                    _ => return None,
                };
                Some((*i, what))
            })
            .collect()
    }

    #[tokio::test(start_paused = true)]
    async fn events_of_several_reflectors_come_in_arrival_order_each_in_its_own() {
        let a = Script::default().list(vec![], "10", None).watch(
            [
                modified("a1", 11, Duration::from_secs(1)),
                modified("a2", 12, Duration::from_secs(2)),
                vec![Step::End],
            ]
            .concat(),
        );
        let b = Script::default().list(vec![], "50", None).watch(
            [
                modified("b1", 51, Duration::from_millis(1500)),
                modified("b2", 52, Duration::from_secs(10)),
                vec![Step::End],
            ]
            .concat(),
        );
        let mut merged = Merged::start(vec![once(a), once(b)]);
        let mut events = Vec::new();
        while let Some(event) = merged.next().await.unwrap() {
            events.push(event);
        }
        let watched: Vec<(usize, String)> = shown(&events)
            .into_iter()
            .filter(|(_, w)| w.contains('@'))
            .collect();
        assert_eq!(
            watched,
            [
                (0, "a1@11".to_string()),
                (1, "b1@51".to_string()),
                (0, "a2@12".to_string()),
                (1, "b2@52".to_string())
            ]
        );
        for i in [0, 1] {
            let own: Vec<String> = shown(&events)
                .into_iter()
                .filter(|(j, _)| *j == i)
                .map(|(_, w)| w)
                .take(2)
                .collect();
            assert_eq!(own, ["listed", "watch-opened"], "reflector {i}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn one_reflector_alone_runs_in_place_with_the_same_stream() {
        let one = Script::default()
            .list(vec![], "10", None)
            .watch([modified("a1", 11, Duration::from_secs(1)), vec![Step::End]].concat());
        let mut merged = Merged::start(vec![once(one)]);
        assert!(matches!(merged.0, Inner::One(_)));
        let mut events = Vec::new();
        while let Some(event) = merged.next().await.unwrap() {
            events.push(event);
        }
        assert_eq!(
            shown(&events),
            [
                (0, "listed".to_string()),
                (0, "watch-opened".to_string()),
                (0, "a1@11".to_string())
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_fatal_error_of_one_reflector_ends_the_stream_naming_it() {
        let fine = Script::default()
            .list(vec![], "10", None)
            .watch(vec![Step::Hang]);
        let failing = Script::default().list_fails(crate::cluster::ClusterError::Api {
            what: "pods".to_string(),
            code: 403,
            reason: "Forbidden".to_string(),
            message: "pods is forbidden".to_string(),
            retry_after: None,
        });
        let mut merged = Merged::start(vec![once(fine), once(failing)]);
        let error = loop {
            match merged.next().await {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("the stream ended without the error"),
                Err(e) => break e,
            }
        };
        assert_eq!(error.reflector, 1);
        assert!(
            error.error.to_string().contains("forbidden"),
            "{}",
            error.error
        );
        assert!(merged.next().await.unwrap().is_none());
    }
}
