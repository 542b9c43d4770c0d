//! Simulated work: how long a handler or a worker takes, as a fixed duration or a distribution
//! (`2ms`, `exp:2ms`, `uniform:1ms..5ms`), drawn from a seeded generator so runs repeat.

pub use crate::rng::Rng;
use std::time::Duration;

/// A duration distribution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Dist {
    Fixed(Duration),
    /// Exponential with this mean.
    Exp(Duration),
    /// Uniform between the two, inclusive.
    Uniform(Duration, Duration),
}

impl Dist {
    /// Parses `2ms`, `exp:2ms` or `uniform:1ms..5ms`, each duration as every flag takes one
    /// (`crate::duration`); `0` is no work.
    pub fn parse(text: &str) -> Result<Dist, String> {
        let text = text.trim();
        let duration = |t: &str| crate::duration::parse(t).map_err(|e| e.to_string());
        if let Some(mean) = text.strip_prefix("exp:") {
            return Ok(Dist::Exp(duration(mean)?));
        }
        if let Some(range) = text.strip_prefix("uniform:") {
            let (lo, hi) = range
                .split_once("..")
                .ok_or_else(|| "write a range as uniform:1ms..5ms".to_string())?;
            let (lo, hi) = (duration(lo)?, duration(hi)?);
            if lo > hi {
                return Err("the range's low end is above its high end".to_string());
            }
            return Ok(Dist::Uniform(lo, hi));
        }
        Ok(Dist::Fixed(duration(text)?))
    }

    /// The mean of the distribution.
    pub fn mean(&self) -> Duration {
        match *self {
            Dist::Fixed(d) | Dist::Exp(d) => d,
            Dist::Uniform(lo, hi) => (lo + hi) / 2,
        }
    }

    pub fn is_zero(&self) -> bool {
        matches!(*self, Dist::Fixed(d) if d.is_zero())
    }

    /// One draw.
    pub fn sample(&self, rng: &mut Rng) -> Duration {
        match *self {
            Dist::Fixed(d) => d,
            Dist::Exp(mean) => {
                // Inverse transform; 1 - u is in (0, 1], so the log is finite.
                let u = rng.next_f64();
                mean.mul_f64(-(1.0 - u).ln())
            }
            Dist::Uniform(lo, hi) => lo + (hi - lo).mul_f64(rng.next_f64()),
        }
    }
}

impl std::fmt::Display for Dist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // As the flag takes it back.
        let d = crate::format::duration;
        match *self {
            Dist::Fixed(x) if x.is_zero() => write!(f, "0"),
            Dist::Fixed(x) => write!(f, "{}", d(x)),
            Dist::Exp(mean) => write!(f, "exp:{}", d(mean)),
            Dist::Uniform(lo, hi) => write!(f, "uniform:{}..{}", d(lo), d(hi)),
        }
    }
}

/// How simulated work passes time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timer {
    /// A blocking-pool thread sleeps: accurate to tens of microseconds and without using the
    /// CPU, like a handler waiting on I/O (tokio's own timer would round every sleep up to the
    /// next millisecond tick).
    Thread,
    /// tokio's timer: the one that follows a paused, simulated clock (deterministic tests).
    Tokio,
}

/// Takes `d` of simulated work.
pub async fn take(d: Duration, timer: Timer) {
    if d.is_zero() {
        return;
    }
    match timer {
        Timer::Tokio => tokio::time::sleep(d).await,
        Timer::Thread => {
            if tokio::task::spawn_blocking(move || std::thread::sleep(d))
                .await
                .is_err()
            {
                tokio::time::sleep(d).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_forms_parse_and_print_back() {
        for text in ["2ms", "exp:2ms", "uniform:1ms..5ms", "0", "exp:1.5ms"] {
            assert_eq!(Dist::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(
            Dist::parse("500us").unwrap(),
            Dist::Fixed(Duration::from_micros(500))
        );
    }

    #[test]
    fn malformed_distributions_say_what_to_write() {
        assert!(Dist::parse("exp:fast")
            .unwrap_err()
            .contains("not a duration"));
        assert!(Dist::parse("uniform:1ms").unwrap_err().contains("1ms..5ms"));
        assert!(Dist::parse("uniform:5ms..1ms")
            .unwrap_err()
            .contains("low end"));
        assert_eq!(
            Dist::parse("exp:2").unwrap_err(),
            "a duration needs a unit, e.g. 2s or 2ms"
        );
        assert_eq!(Dist::parse("0").unwrap(), Dist::Fixed(Duration::ZERO));
        assert_eq!(
            Dist::parse("uniform:1.5ms..1m30s").unwrap(),
            Dist::Uniform(Duration::from_micros(1500), Duration::from_secs(90))
        );
    }

    #[test]
    fn draws_have_the_distribution_s_mean_and_range() {
        let mut rng = Rng::new(7);
        let n = 20_000;
        let exp = Dist::parse("exp:2ms").unwrap();
        let mean = (0..n)
            .map(|_| exp.sample(&mut rng).as_secs_f64())
            .sum::<f64>()
            / n as f64;
        assert!((mean - 0.002).abs() < 0.0001, "{mean}");
        let uni = Dist::parse("uniform:1ms..5ms").unwrap();
        for _ in 0..n {
            let d = uni.sample(&mut rng);
            assert!(d >= Duration::from_millis(1) && d <= Duration::from_millis(5));
        }
        assert_eq!(uni.mean(), Duration::from_millis(3));
    }

    #[test]
    fn the_same_seed_gives_the_same_draws() {
        let (mut a, mut b) = (Rng::new(42), Rng::new(42));
        assert!((0..100).all(|_| a.next_u64() == b.next_u64()));
    }
}
