//! Model-based property test of the informer: random sequences of writes on a simulated server
//! and of reflector behaviours (watch events delivered, bookmarks, disconnects and resumes, 410s
//! with relists, relists cut short and started over); after every step the store equals the server's state at the store's synced
//! RV, and at the end every listener has seen the final state of every object.

use kubectl_informer::informer::core::InformerCore;
use kubectl_informer::informer::fifo::{Delta, DeltaType, FifoItem};
use kubectl_informer::informer::object::RawObject;
use kubectl_informer::informer::processor::{Notification, NotificationKind, Processor};
use proptest::prelude::*;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tokio::time::Instant;

#[derive(Debug, Clone)]
enum Op {
    Create(u8),
    Update(u8),
    Delete(u8),
    /// Deliver up to n pending watch events.
    Deliver(u8),
    /// A bookmark at the server's RV, once the watch has caught up.
    Bookmark,
    /// The connection drops and the watch resumes from the last RV: nothing is lost.
    Disconnect,
    /// 410: the undelivered history is gone; the reflector relists.
    Expire,
    /// 410, and the relist's continue token expires too: its first pass shows the first
    /// objects of an older state (`back` writes ago), then the LIST starts over.
    ExpireMidList {
        back: u8,
        shown: u8,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..6).prop_map(Op::Create),
        3 => (0u8..6).prop_map(Op::Update),
        2 => (0u8..6).prop_map(Op::Delete),
        4 => (1u8..5).prop_map(Op::Deliver),
        1 => Just(Op::Bookmark),
        1 => Just(Op::Disconnect),
        1 => Just(Op::Expire),
        1 => (0u8..6, 1u8..6).prop_map(|(back, shown)| Op::ExpireMidList { back, shown }),
    ]
}

type State = BTreeMap<String, (String, u64)>;

/// The simulated API server: current state, every write in order, the state after each.
struct Server {
    rv: u64,
    state: State,
    history: Vec<(DeltaType, String, String, u64)>,
    snapshots: BTreeMap<u64, State>,
    generation: u64,
}

impl Server {
    fn new() -> Self {
        Server {
            rv: 1,
            state: State::new(),
            history: Vec::new(),
            snapshots: BTreeMap::from([(1, State::new())]),
            generation: 0,
        }
    }

    fn write(&mut self, t: DeltaType, name: String) {
        self.rv += 1;
        let uid = match t {
            DeltaType::Added => {
                self.generation += 1;
                format!("uid-{}", self.generation)
            }
            _ => self.state[&name].0.clone(),
        };
        match t {
            DeltaType::Deleted => {
                self.state.remove(&name);
            }
            _ => {
                self.state.insert(name.clone(), (uid.clone(), self.rv));
            }
        }
        self.history.push((t, name, uid, self.rv));
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
}

fn object(name: &str, uid: &str, rv: u64) -> RawObject {
    let json = format!(
        r#"{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"ns","uid":"{uid}","resourceVersion":"{rv}"}}}}"#
    );
    RawObject::parse(RawValue::from_string(json).unwrap(), None).unwrap()
}

fn delta(t: DeltaType, o: RawObject) -> FifoItem {
    FifoItem::Delta(Delta {
        delta_type: t,
        object: o,
        received_at: Instant::now(),
        final_state_unknown: false,
    })
}

fn relist(core: &mut InformerCore, server: &Server) {
    for (name, (uid, rv)) in &server.state {
        core.process(delta(DeltaType::Replaced, object(name, uid, *rv)));
    }
    core.process(FifoItem::ReplaceDone {
        resource_version: server.rv.to_string(),
    });
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

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
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
        let mut server = Server::new();
        relist(&mut core, &server);
        let mut delivered = 0usize;
        for op in ops {
            match op {
                Op::Create(k) => {
                    let name = format!("cm{k}");
                    if !server.state.contains_key(&name) {
                        server.write(DeltaType::Added, name);
                    }
                }
                Op::Update(k) | Op::Delete(k) => {
                    let name = format!("cm{k}");
                    if server.state.contains_key(&name) {
                        let t = if matches!(op, Op::Update(_)) {
                            DeltaType::Updated
                        } else {
                            DeltaType::Deleted
                        };
                        server.write(t, name);
                    }
                }
                Op::Deliver(n) => {
                    for (t, name, uid, rv) in server.history.iter().skip(delivered).take(n as usize)
                    {
                        core.process(delta(*t, object(name, uid, *rv)));
                        delivered += 1;
                    }
                }
                Op::Bookmark => {
                    if delivered == server.history.len() {
                        core.process(FifoItem::Bookmark {
                            resource_version: server.rv.to_string(),
                        });
                    }
                }
                // Resuming from the last RV replays exactly the undelivered events: the model's
                // `delivered` cursor stays where it is.
                Op::Disconnect => {}
                Op::Expire => {
                    relist(&mut core, &server);
                    delivered = server.history.len();
                }
                Op::ExpireMidList { back, shown } => {
                    let older = server.at(server.rv.saturating_sub(back as u64).max(1));
                    for (name, (uid, rv)) in older.iter().take(shown as usize) {
                        core.process(delta(DeltaType::Replaced, object(name, uid, *rv)));
                    }
                    core.process(FifoItem::ReplaceRestarted);
                    relist(&mut core, &server);
                    delivered = server.history.len();
                }
            }
            let (rv, state) = store_state(&core);
            prop_assert_eq!(
                &state,
                server.at(rv),
                "store at RV {} differs from the server's state",
                rv
            );
        }
        // Catch up, then every listener must hold the final state.
        relist(&mut core, &server);
        let processor = std::mem::take(&mut core.processor);
        processor.shutdown().await;
        let (_, state) = store_state(&core);
        prop_assert_eq!(&state, &server.state);
        prop_assert_eq!(&*seen.lock().unwrap(), &server.state, "the listener's view");
        Ok(())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn the_store_always_equals_the_server_at_its_synced_rv(ops in proptest::collection::vec(op(), 0..80)) {
        run(ops)?;
    }
}
