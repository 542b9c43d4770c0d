//! client-go's reflector backoff: 800 ms doubling to 30 s, with jitter, reset after 2 minutes
//! without a failure.

use crate::rng::Rng;
use std::time::Duration;
use tokio::time::Instant;

pub const INITIAL: Duration = Duration::from_millis(800);
pub const MAX: Duration = Duration::from_secs(30);
pub const RESET_AFTER: Duration = Duration::from_secs(120);
/// client-go's jitter factor: each delay is stretched by up to this fraction.
pub const JITTER: f64 = 1.0;

/// Exponential backoff with jitter; `next_delay` after each failure.
#[derive(Debug)]
pub struct Backoff {
    current: Duration,
    last_failure: Option<Instant>,
    rng: Rng,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff::with_rng(Rng::from_clock())
    }
}

impl Backoff {
    pub fn with_seed(seed: u64) -> Self {
        Backoff::with_rng(Rng::new(seed))
    }

    fn with_rng(rng: Rng) -> Self {
        Backoff {
            current: INITIAL,
            last_failure: None,
            rng,
        }
    }

    /// The delay before the next attempt after a failure now.
    pub fn next_delay(&mut self) -> Duration {
        let now = Instant::now();
        if self
            .last_failure
            .is_some_and(|t| now.duration_since(t) >= RESET_AFTER)
        {
            self.current = INITIAL;
        }
        let base = self.current;
        self.current = (self.current * 2).min(MAX);
        self.last_failure = Some(now);
        base + base.mul_f64(JITTER * self.unit())
    }

    /// A number in [0, 1), from the backoff's own generator (also spreads watch timeouts).
    pub fn unit(&mut self) -> f64 {
        self.rng.next_f64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn delays_double_from_800ms_to_30s_within_jitter() {
        let mut b = Backoff::with_seed(7);
        let mut base = INITIAL;
        for _ in 0..10 {
            let d = b.next_delay();
            assert!(
                d >= base && d <= base * 2,
                "{d:?} not in [{base:?}, {:?}]",
                base * 2
            );
            base = (base * 2).min(MAX);
        }
        assert_eq!(base, MAX);
    }

    #[tokio::test(start_paused = true)]
    async fn two_quiet_minutes_reset_the_backoff() {
        let mut b = Backoff::with_seed(3);
        for _ in 0..6 {
            b.next_delay();
        }
        tokio::time::advance(RESET_AFTER).await;
        let d = b.next_delay();
        assert!(d <= INITIAL * 2, "{d:?}");
    }
}
