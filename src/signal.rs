//! A wake-up for conditions that other tasks make true: a waiter re-checks its condition each
//! time the signal is raised, so nothing waits by polling on a timer; and a deadline that may be
//! none, for a `select!` arm.

use tokio::sync::Notify;

/// Raised by whoever changes the state a condition reads; awaited with [`Signal::until`].
#[derive(Debug, Default)]
pub struct Signal(Notify);

impl Signal {
    /// Wakes every task waiting in `until`, to check its condition again.
    pub fn raise(&self) {
        self.0.notify_waiters();
    }

    /// Returns once `condition` holds: checked now, then after every `raise`. A raise between
    /// the check and the wait is not lost (the waiter registers before it checks).
    pub async fn until(&self, mut condition: impl FnMut() -> bool) {
        loop {
            let raised = self.0.notified();
            tokio::pin!(raised);
            raised.as_mut().enable();
            if condition() {
                return;
            }
            raised.await;
        }
    }
}

/// Sleeps until `deadline`, or forever without one (a `select!` arm for `--for`, `--timeout`, a
/// reflector's initial deadline, a watch's next event due).
pub async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn a_waiter_wakes_when_a_raise_makes_its_condition_true_and_not_before() {
        let signal = Arc::new(Signal::default());
        let count = Arc::new(AtomicUsize::new(0));
        let waiter = {
            let (signal, count) = (signal.clone(), count.clone());
            tokio::spawn(async move { signal.until(|| count.load(Ordering::SeqCst) >= 3).await })
        };
        for _ in 0..2 {
            count.fetch_add(1, Ordering::SeqCst);
            signal.raise();
            tokio::time::sleep(Duration::from_millis(1)).await;
            assert!(!waiter.is_finished());
        }
        count.fetch_add(1, Ordering::SeqCst);
        signal.raise();
        tokio::time::timeout(Duration::from_secs(1), waiter)
            .await
            .expect("woken by the third raise")
            .unwrap();
    }
}
