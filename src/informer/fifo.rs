//! The FIFO between the reflector and the informer loop: deltas delivered strictly in the order
//! they happened (client-go's in-order `RealFIFO`), never compacted per key. Its length is how
//! far the informer loop is behind the reflector.

use super::object::RawObject;
use crate::signal::Signal;
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
    queue: Mutex<Queue>,
    ready: Notify,
    closed: AtomicBool,
    /// Raised when a `pop` leaves fewer items than a waiter of `until_below` asked for.
    taken: Signal,
}

#[derive(Debug, Default)]
struct Queue {
    items: VecDeque<FifoItem>,
    /// The highest `n` of the `until_below` calls waiting (0 when none waits, and `pop`
    /// raises nothing).
    below: usize,
    waiters: usize,
}

impl Fifo {
    pub fn new() -> Self {
        Fifo::default()
    }

    pub fn push(&self, item: FifoItem) {
        self.lock().items.push_back(item);
        self.ready.notify_one();
    }

    /// The oldest item; waits while the FIFO is empty; `None` once closed and drained.
    pub async fn pop(&self) -> Option<FifoItem> {
        loop {
            let notified = self.ready.notified();
            let popped = {
                let mut queue = self.lock();
                let item = queue.items.pop_front();
                item.map(|item| (item, queue.items.len() < queue.below))
            };
            if let Some((item, wanted)) = popped {
                if wanted {
                    self.taken.raise();
                }
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
        self.lock().items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Waits until the FIFO holds fewer than `n` items: the informer loop has taken the rest
    /// (`until_below(1)`: everything queued so far).
    pub async fn until_below(&self, n: usize) {
        /// Leaves the waiters however the wait ends (also dropped by a `select!`).
        struct Waiting<'a>(&'a Fifo);
        impl Drop for Waiting<'_> {
            fn drop(&mut self) {
                let mut queue = self.0.lock();
                queue.waiters -= 1;
                if queue.waiters == 0 {
                    queue.below = 0;
                }
            }
        }
        {
            let mut queue = self.lock();
            queue.waiters += 1;
            queue.below = queue.below.max(n);
        }
        let _waiting = Waiting(self);
        self.taken.until(|| self.len() < n).await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
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

    #[tokio::test(start_paused = true)]
    async fn until_below_returns_once_the_loop_has_taken_enough_and_not_before() {
        let fifo = Arc::new(Fifo::new());
        for rv in 0..5 {
            fifo.push(delta(DeltaType::Added, "a", rv));
        }
        let waiter = {
            let fifo = fifo.clone();
            tokio::spawn(async move { fifo.until_below(2).await })
        };
        tokio::task::yield_now().await;
        for _ in 0..3 {
            fifo.pop().await;
            tokio::task::yield_now().await;
            assert!(!waiter.is_finished(), "{} left", fifo.len());
        }
        fifo.pop().await;
        tokio::time::timeout(std::time::Duration::from_secs(1), waiter)
            .await
            .expect("one left: below 2")
            .unwrap();
        assert_eq!(fifo.lock().below, 0, "nobody waits any more");
    }
}
