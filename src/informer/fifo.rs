//! The FIFO between the reflector and the informer loop: deltas delivered strictly in the order
//! they happened (client-go's in-order `RealFIFO`), never compacted per key. Its length is how
//! far the informer loop is behind the reflector.

use super::object::RawObject;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use tokio::sync::Notify;
use tokio::time::Instant;

/// What happened to an object (client-go's `DeltaType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeltaType {
    Added,
    Updated,
    Deleted,
    /// Listed by a LIST (initial or relist).
    Replaced,
    /// Re-delivered by a resync.
    Sync,
}

/// One change of one object.
#[derive(Debug, Clone)]
pub struct Delta {
    pub delta_type: DeltaType,
    pub object: RawObject,
    /// When the reflector received it from the server.
    pub received_at: Instant,
    /// A deletion the informer inferred from a relist (client-go's
    /// `DeletedFinalStateUnknown`): `object` is the last state the cache had.
    pub final_state_unknown: bool,
}

/// An entry of the FIFO.
#[derive(Debug, Clone)]
pub enum FifoItem {
    Delta(Delta),
    /// A LIST ended: keys not `Replaced` since the previous `ReplaceDone` have vanished.
    ReplaceDone {
        resource_version: String,
    },
    /// The LIST was cut short and starts over: keys `Replaced` so far stand, and the next pass
    /// decides what vanished from the cache as it is then.
    ReplaceRestarted,
    /// A bookmark: the cache is synced to this RV once everything before it is applied.
    Bookmark {
        resource_version: String,
    },
    /// Time to re-deliver the cache to the listeners that asked for resyncs.
    Resync,
}

/// An unbounded in-order queue with an async `pop`.
#[derive(Debug, Default)]
pub struct Fifo {
    items: Mutex<VecDeque<FifoItem>>,
    ready: Notify,
    closed: AtomicBool,
}

impl Fifo {
    pub fn new() -> Self {
        Fifo::default()
    }

    pub fn push(&self, item: FifoItem) {
        self.items
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(item);
        self.ready.notify_one();
    }

    /// The oldest item; waits while the FIFO is empty; `None` once closed and drained.
    pub async fn pop(&self) -> Option<FifoItem> {
        loop {
            let notified = self.ready.notified();
            if let Some(item) = self
                .items
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .pop_front()
            {
                return Some(item);
            }
            if self.closed.load(Ordering::Acquire) {
                return None;
            }
            notified.await;
        }
    }

    /// No more pushes: `pop` drains what is queued, then returns `None`.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.ready.notify_waiters();
        self.ready.notify_one();
    }

    pub fn len(&self) -> usize {
        self.items.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::store::tests::cm;
    use std::sync::Arc;

    fn delta(t: DeltaType, name: &str, rv: u64) -> FifoItem {
        FifoItem::Delta(Delta {
            delta_type: t,
            object: cm("ns", name, rv, &[]),
            received_at: Instant::now(),
            final_state_unknown: false,
        })
    }

    fn describe(item: &FifoItem) -> String {
        match item {
            FifoItem::Delta(d) => format!(
                "{:?} {} {}",
                d.delta_type,
                d.object.key(),
                d.object.resource_version()
            ),
            other => format!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn every_delta_comes_out_in_order_even_for_the_same_key() {
        let fifo = Fifo::new();
        fifo.push(delta(DeltaType::Added, "a", 1));
        fifo.push(delta(DeltaType::Updated, "a", 2));
        fifo.push(delta(DeltaType::Added, "b", 3));
        fifo.push(delta(DeltaType::Deleted, "a", 4));
        assert_eq!(fifo.len(), 4);
        let mut out = Vec::new();
        for _ in 0..4 {
            out.push(describe(&fifo.pop().await.unwrap()));
        }
        assert_eq!(
            out,
            vec![
                "Added ns/a 1",
                "Updated ns/a 2",
                "Added ns/b 3",
                "Deleted ns/a 4"
            ]
        );
        assert!(fifo.is_empty());
    }

    #[tokio::test]
    async fn pop_waits_for_a_push_and_close_drains_then_ends() {
        let fifo = Arc::new(Fifo::new());
        let popper = {
            let fifo = fifo.clone();
            tokio::spawn(async move {
                let mut seen = Vec::new();
                while let Some(item) = fifo.pop().await {
                    seen.push(describe(&item));
                }
                seen
            })
        };
        tokio::task::yield_now().await;
        fifo.push(delta(DeltaType::Added, "a", 1));
        fifo.push(FifoItem::Bookmark {
            resource_version: "2".into(),
        });
        fifo.close();
        let seen = popper.await.unwrap();
        assert_eq!(seen.len(), 2);
        assert!(seen[1].contains("Bookmark"));
    }
}
