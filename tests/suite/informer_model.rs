//! Model-based property test of the informer, reflector included: random sequences of writes on a
//! simulated API server, and of what the server does to the watch (delivers some of its events,
//! sends a bookmark, drops the connection, answers 410 in the stream or when a watch resumes from
//! a compacted RV, lets a relist's continue token expire after a page of an older state), and of
//! how the informer starts (LIST, or a watch-list that is refused, cut, told 410, or never sends
//! its initial-events-end bookmark). The real `Reflector` lists and watches the simulated server
//! through the `ListerWatcher` trait and decides every request itself (the RV it resumes from,
//! when it relists, how it falls back); its events go through `fifo_item` into the real
//! `InformerCore`. Whenever the reflector waits on an open watch with nothing to read, the store
//! must equal the server's state at the store's RV, and that RV must never go back; at the end
//! the store and every listener hold the server's final state.

use futures::Stream;
use kubectl_informer::cluster::ClusterError;
use kubectl_informer::informer::core::{fifo_item, InformerCore};
use kubectl_informer::informer::fifo::FifoItem;
use kubectl_informer::informer::listwatch::{
    ApiStatus, ListOptions, ListPage, ListerWatcher, StreamError, WatchEvent, WatchOptions,
    WatchStream,
};
use kubectl_informer::informer::object::RawObject;
use kubectl_informer::informer::processor::{Notification, NotificationKind, Processor};
use kubectl_informer::informer::reflector::{Reflector, ReflectorConfig, Start};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::value::RawValue;
use std::collections::{BTreeMap, VecDeque};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// The LIST page size the reflector asks for: small, so that relists take several pages.
const CHUNK: u32 = 2;

#[derive(Debug, Clone)]
enum Op {
    Create(u8),
    Update(u8),
    Delete(u8),
    /// The server lets up to n more of its events through to the open watch.
    Deliver(u8),
    /// A bookmark at the server's RV, once the watch has caught up.
    Bookmark,
    /// The connection drops; the reflector resumes from the RV it reached.
    Disconnect,
    /// History up to now is compacted: a watch resumed from an older RV is answered 410.
    Compact,
    /// History is compacted and the open watch gets a 410 ERROR event: the reflector relists.
    Expire,
    /// As `Expire`, and the relist's first page shows the state of `back` writes ago; its
    /// continue token then expires, so the LIST starts over.
    ExpireMidList {
        back: u8,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..6).prop_map(Op::Create),
        3 => (0u8..6).prop_map(Op::Update),
        2 => (0u8..6).prop_map(Op::Delete),
        4 => (1u8..5).prop_map(Op::Deliver),
        1 => Just(Op::Bookmark),
        2 => Just(Op::Disconnect),
        1 => Just(Op::Compact),
        1 => Just(Op::Expire),
        1 => (1u8..6).prop_map(|back| Op::ExpireMidList { back }),
    ]
}

/// How the informer gets its first state.
#[derive(Debug, Clone, Copy)]
enum Opening {
    List,
    WatchList,
    /// The server refuses `sendInitialEvents` (a 422, as a server without the feature does).
    WatchListRefused,
    /// The connection drops after this many initial events, and `cm0` is deleted meanwhile.
    WatchListCut(u8),
    /// A 410 ERROR after this many initial events, and `cm0` is deleted meanwhile.
    WatchListExpired(u8),
    /// The initial events come, their end bookmark never does (something on the way drops it).
    WatchListWithoutEnd,
}

fn opening() -> impl Strategy<Value = Opening> {
    prop_oneof![
        Just(Opening::List),
        Just(Opening::WatchList),
        Just(Opening::WatchListRefused),
        (1u8..4).prop_map(Opening::WatchListCut),
        (1u8..4).prop_map(Opening::WatchListExpired),
        Just(Opening::WatchListWithoutEnd),
    ]
}

/// name → (uid, resourceVersion)
type State = BTreeMap<String, (String, u64)>;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Added,
    Modified,
    Deleted,
}

struct Write {
    kind: Kind,
    name: String,
    uid: String,
    rv: u64,
}

/// What the reflector's task and the watches send the test, in the order they happen.
enum Msg {
    Item(FifoItem),
    /// The reflector waits on an open watch with nothing to read, after step `n`.
    Idle(u64),
    Failed(String),
}

/// The simulated API server, and what it is about to do to the watch.
struct Server {
    rv: u64,
    state: State,
    history: Vec<Write>,
    snapshots: BTreeMap<u64, State>,
    uids: u64,
    /// A watch from an RV below this is answered 410.
    compacted: u64,
    /// How many more events the open watch may deliver.
    allowance: usize,
    bookmark_due: bool,
    disconnect_due: bool,
    expire_due: bool,
    /// The next LIST's first page shows the state at this RV, and its continue token expires.
    older_first_page: Option<u64>,
    continue_expires: bool,
    opening: Opening,
    /// The watch opened last; an older one is over.
    current_watch: u64,
    /// The test's step, and the last step an idle watch reported.
    step: u64,
    idle_reported: u64,
    waker: Option<Waker>,
    tx: mpsc::UnboundedSender<Msg>,
}

impl Server {
    fn write(&mut self, kind: Kind, name: String) {
        self.rv += 1;
        let uid = match kind {
            Kind::Added => {
                self.uids += 1;
                format!("uid-{}", self.uids)
            }
            _ => self.state[&name].0.clone(),
        };
        match kind {
            Kind::Deleted => {
                self.state.remove(&name);
            }
            _ => {
                self.state.insert(name.clone(), (uid.clone(), self.rv));
            }
        }
        self.history.push(Write {
            kind,
            name,
            uid,
            rv: self.rv,
        });
        self.snapshots.insert(self.rv, self.state.clone());
    }

    /// The state at `rv`: after the last write at or before it.
    fn at(&self, rv: u64) -> &State {
        self.snapshots
            .range(..=rv)
            .next_back()
            .map(|(_, s)| s)
            .unwrap()
    }

    fn gone(&self, rv: u64) -> String {
        format!("too old resource version: {rv} ({})", self.compacted)
    }
}

fn object(name: &str, uid: &str, rv: u64) -> RawObject {
    let json = format!(
        r#"{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"ns","uid":"{uid}","resourceVersion":"{rv}"}}}}"#
    );
    RawObject::parse(RawValue::from_string(json).unwrap(), None).unwrap()
}

#[derive(Clone)]
struct Model(Arc<Mutex<Server>>);

impl ListerWatcher for Model {
    async fn list_page(&self, opts: &ListOptions) -> Result<ListPage, ClusterError> {
        let mut s = self.0.lock().unwrap();
        let (at, offset) = match &opts.continue_token {
            None => match s.older_first_page.take() {
                Some(older) if s.at(older).len() > CHUNK as usize => {
                    s.continue_expires = true;
                    (older, 0)
                }
                _ => (s.rv, 0),
            },
            Some(_) if std::mem::take(&mut s.continue_expires) => {
                return Err(ClusterError::Api {
                    what: "configmaps".to_string(),
                    code: 410,
                    reason: "Expired".to_string(),
                    message: "The provided continue parameter is too old".to_string(),
                    retry_after: None,
                });
            }
            Some(token) => {
                let (at, offset) = token.split_once(':').unwrap();
                (at.parse().unwrap(), offset.parse().unwrap())
            }
        };
        let snapshot = s.at(at);
        let take = opts.limit.map_or(usize::MAX, |l| l as usize);
        let items: Vec<RawObject> = snapshot
            .iter()
            .skip(offset)
            .take(take)
            .map(|(name, (uid, rv))| object(name, uid, *rv))
            .collect();
        let end = offset + items.len();
        Ok(ListPage {
            items,
            resource_version: at.to_string(),
            continue_token: (end < snapshot.len()).then(|| format!("{at}:{end}")),
            remaining_item_count: None,
        })
    }

    async fn watch(&self, opts: &WatchOptions) -> Result<WatchStream, ClusterError> {
        let mut s = self.0.lock().unwrap();
        s.current_watch += 1;
        let mut watch = Watch {
            id: s.current_watch,
            server: self.clone(),
            initial: VecDeque::new(),
            cursor: s.history.len(),
            silent: false,
        };
        if opts.send_initial_events {
            let added = s
                .state
                .iter()
                .map(|(name, (uid, rv))| Ok(WatchEvent::Added(object(name, uid, *rv))));
            let end = Ok(WatchEvent::Bookmark {
                resource_version: s.rv.to_string(),
                initial_events_end: true,
            });
            watch.initial = match s.opening {
                Opening::List => panic!("a watch-list where the informer starts with a LIST"),
                Opening::WatchListRefused => {
                    return Err(ClusterError::Api {
                        what: "configmaps".to_string(),
                        code: 422,
                        reason: "Invalid".to_string(),
                        message: "sendInitialEvents is forbidden for watch unless the \
                                  WatchList feature gate is enabled"
                            .to_string(),
                        retry_after: None,
                    });
                }
                Opening::WatchList => added.chain([end]).collect(),
                Opening::WatchListCut(n) => added
                    .take(n as usize)
                    .chain([Err(StreamError::Io("connection reset by peer".to_string()))])
                    .collect(),
                Opening::WatchListExpired(n) => added
                    .take(n as usize)
                    .chain([Ok(WatchEvent::Error(ApiStatus {
                        code: 410,
                        reason: "Expired".to_string(),
                        message: s.gone(0),
                    }))])
                    .collect(),
                Opening::WatchListWithoutEnd => {
                    watch.silent = true;
                    added.collect()
                }
            };
        } else {
            let from: u64 = opts.resource_version.parse().unwrap_or_else(|_| {
                panic!(
                    "a watch without initial events from RV {:?}",
                    opts.resource_version
                )
            });
            if from < s.compacted {
                return Err(ClusterError::Api {
                    what: "configmaps".to_string(),
                    code: 410,
                    reason: "Expired".to_string(),
                    message: s.gone(from),
                    retry_after: None,
                });
            }
            watch.cursor = s.history.partition_point(|w| w.rv <= from);
        }
        Ok(WatchStream::from_events(watch))
    }

    fn resource_name(&self) -> String {
        "configmaps".to_string()
    }
}

/// One watch response: its initial events (a watch-list), then the server's history from
/// `cursor` as the test lets it through.
struct Watch {
    id: u64,
    server: Model,
    initial: VecDeque<Result<WatchEvent, StreamError>>,
    cursor: usize,
    /// After its initial events, nothing ever: no end bookmark, no idle report.
    silent: bool,
}

impl Stream for Watch {
    type Item = Result<WatchEvent, StreamError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let server = self.server.clone();
        let mut s = server.0.lock().unwrap();
        assert_eq!(
            s.current_watch, self.id,
            "a watch read after a newer one opened"
        );
        if let Some(event) = self.initial.pop_front() {
            if matches!(event, Err(_) | Ok(WatchEvent::Error(_))) && s.state.contains_key("cm0") {
                // The server changes while the reflector is away: what it showed of the initial
                // state is not all still true.
                s.write(Kind::Deleted, "cm0".to_string());
            }
            return Poll::Ready(Some(event));
        }
        if self.silent {
            return Poll::Pending;
        }
        if std::mem::take(&mut s.disconnect_due) {
            return Poll::Ready(Some(Err(StreamError::Io(
                "connection reset by peer".to_string(),
            ))));
        }
        if std::mem::take(&mut s.expire_due) {
            let message = s.gone(s.history.get(self.cursor).map_or(s.rv, |w| w.rv - 1));
            return Poll::Ready(Some(Ok(WatchEvent::Error(ApiStatus {
                code: 410,
                reason: "Expired".to_string(),
                message,
            }))));
        }
        if s.allowance > 0 && self.cursor < s.history.len() {
            s.allowance -= 1;
            let w = &s.history[self.cursor];
            let o = object(&w.name, &w.uid, w.rv);
            let event = match w.kind {
                Kind::Added => WatchEvent::Added(o),
                Kind::Modified => WatchEvent::Modified(o),
                Kind::Deleted => WatchEvent::Deleted(o),
            };
            self.cursor += 1;
            return Poll::Ready(Some(Ok(event)));
        }
        if s.bookmark_due && self.cursor == s.history.len() {
            s.bookmark_due = false;
            return Poll::Ready(Some(Ok(WatchEvent::Bookmark {
                resource_version: s.rv.to_string(),
                initial_events_end: false,
            })));
        }
        s.waker = Some(cx.waker().clone());
        if s.idle_reported < s.step {
            s.idle_reported = s.step;
            let _ = s.tx.send(Msg::Idle(s.step));
        }
        Poll::Pending
    }
}

fn store_state(core: &InformerCore) -> (u64, State) {
    let store = core.store().read().unwrap();
    let rv = store.resource_version().parse().unwrap();
    let state = store
        .list()
        .into_iter()
        .map(|o| {
            (
                o.name().to_string(),
                (o.uid().to_string(), o.resource_version().parse().unwrap()),
            )
        })
        .collect();
    (rv, state)
}

/// Applies what the reflector sent until it waits idle after `step`, within an hour of tokio's
/// (paused) clock: time moves only while everything waits, through the reflector's backoffs.
async fn settle(
    rx: &mut mpsc::UnboundedReceiver<Msg>,
    core: &mut InformerCore,
    step: u64,
) -> Result<(), TestCaseError> {
    let limit = Instant::now() + Duration::from_secs(3600);
    loop {
        let msg = tokio::time::timeout_at(limit, rx.recv()).await;
        match msg {
            Ok(Some(Msg::Item(item))) => core.process(item),
            Ok(Some(Msg::Idle(n))) if n == step => return Ok(()),
            Ok(Some(Msg::Idle(_))) => {}
            Ok(Some(Msg::Failed(e))) => return Err(TestCaseError::fail(e)),
            Ok(None) => return Err(TestCaseError::fail("the reflector's task ended")),
            Err(_) => {
                return Err(TestCaseError::fail(format!(
                    "the reflector did not settle on a watch within an hour after step {step}"
                )))
            }
        }
    }
}

fn run(opening: Opening, initial: u8, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async move {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut server = Server {
            rv: 1,
            state: State::new(),
            history: Vec::new(),
            snapshots: BTreeMap::from([(1, State::new())]),
            uids: 0,
            compacted: 0,
            allowance: 0,
            bookmark_due: false,
            disconnect_due: false,
            expire_due: false,
            older_first_page: None,
            continue_expires: false,
            opening,
            current_watch: 0,
            step: 1,
            idle_reported: 0,
            waker: None,
            tx: tx.clone(),
        };
        for k in 0..initial {
            server.write(Kind::Added, format!("cm{k}"));
        }
        let model = Model(Arc::new(Mutex::new(server)));

        let seen: Arc<Mutex<State>> = Arc::default();
        let mut processor = Processor::new();
        let sink = seen.clone();
        processor.add_listener(
            "model",
            None,
            Box::new(move |n: Notification| {
                let mut s = sink.lock().unwrap();
                match n.kind {
                    NotificationKind::Add { object, .. }
                    | NotificationKind::Update { new: object, .. } => {
                        s.insert(
                            object.name().to_string(),
                            (
                                object.uid().to_string(),
                                object.resource_version().parse().unwrap(),
                            ),
                        );
                    }
                    NotificationKind::Delete { object, .. } => {
                        s.remove(object.name());
                    }
                }
                Box::pin(async {})
            }),
        );
        let mut core = InformerCore::new(processor);

        let start = match opening {
            Opening::List => Start::List,
            _ => Start::WatchList,
        };
        let mut reflector = Reflector::new(model.clone(), ReflectorConfig::informer(start, CHUNK));
        let task = tokio::spawn(async move {
            loop {
                match reflector.next().await {
                    Ok(Some(event)) => {
                        if let Some(item) = fifo_item(event, Instant::now()) {
                            let _ = tx.send(Msg::Item(item));
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        let _ = tx.send(Msg::Failed(format!("the reflector failed: {e}")));
                        break;
                    }
                }
            }
        });

        settle(&mut rx, &mut core, 1).await?;
        prop_assert!(core.has_synced(), "idle on a watch before the first sync");
        let mut last_rv = 0;
        let mut step = 1;
        // The steps, then one that lets everything through and sends a bookmark.
        let last_step = ops.len() as u64 + 2;
        for op in ops.into_iter().chain([Op::Deliver(0)]) {
            step += 1;
            let last = step == last_step;
            {
                let mut s = model.0.lock().unwrap();
                s.step = step;
                apply(&mut s, &op);
                if last {
                    s.allowance = usize::MAX;
                    s.bookmark_due = true;
                }
                if let Some(waker) = s.waker.take() {
                    waker.wake();
                }
            }
            settle(&mut rx, &mut core, step).await?;
            let (rv, state) = store_state(&core);
            let s = model.0.lock().unwrap();
            prop_assert_eq!(
                &state,
                s.at(rv),
                "after {:?}: the store at RV {} differs from the server's state then",
                op,
                rv
            );
            prop_assert!(
                rv >= last_rv,
                "the store's RV went back from {last_rv} to {rv}"
            );
            last_rv = rv;
        }
        task.abort();
        // Caught up: everything delivered, then a bookmark at the server's RV.
        let processor = std::mem::take(&mut core.processor);
        processor.shutdown().await;
        let (rv, state) = store_state(&core);
        let s = model.0.lock().unwrap();
        prop_assert_eq!(rv, s.rv, "the store's RV after the final bookmark");
        prop_assert_eq!(&state, &s.state);
        prop_assert_eq!(&*seen.lock().unwrap(), &s.state, "the listener's view");
        Ok(())
    })
}

fn apply(s: &mut Server, op: &Op) {
    match *op {
        Op::Create(k) => {
            let name = format!("cm{k}");
            if !s.state.contains_key(&name) {
                s.write(Kind::Added, name);
            }
        }
        Op::Update(k) | Op::Delete(k) => {
            let name = format!("cm{k}");
            if s.state.contains_key(&name) {
                let kind = match op {
                    Op::Update(_) => Kind::Modified,
                    _ => Kind::Deleted,
                };
                s.write(kind, name);
            }
        }
        Op::Deliver(n) => s.allowance += n as usize,
        Op::Bookmark => s.bookmark_due = true,
        Op::Disconnect => s.disconnect_due = true,
        Op::Compact => s.compacted = s.rv,
        Op::Expire => {
            s.compacted = s.rv;
            s.expire_due = true;
        }
        Op::ExpireMidList { back } => {
            s.compacted = s.rv;
            s.expire_due = true;
            s.older_first_page = Some(s.rv.saturating_sub(back as u64).max(1));
        }
    }
}

proptest! {
    // Failures found are kept beside this file, as tests/suite/watch_decoder_fuzz.rs keeps its own.
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::with_cases(300)
    })]
    #[test]
    fn the_store_always_equals_the_server_at_its_synced_rv(
        opening in opening(),
        initial in 0u8..6,
        ops in proptest::collection::vec(op(), 0..80),
    ) {
        run(opening, initial, ops)?;
    }
}
