//! The offline event source: a recording's events fed to the informer loop as if they came from
//! the watch, as fast as possible or at the recorded pace (`--speed 1x`, `10x`). The recording
//! is read elsewhere (its format is `recording`'s) and handed over event by event.

use crate::informer::fifo::{Delta, DeltaType, Fifo, FifoItem};
use crate::informer::object::RawObject;
use crate::metrics::ArrivalWindow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio::time::Instant;

/// How fast a recording is replayed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Speed {
    /// No pauses: the pipeline's own limit.
    Max,
    /// The recorded spacing divided by this (1.0 keeps it).
    Factor(f64),
}

impl Speed {
    /// `max`, `1x`, `2.5x`.
    pub fn parse(text: &str) -> Result<Speed, String> {
        let text = text.trim();
        if text == "max" {
            return Ok(Speed::Max);
        }
        text.strip_suffix('x')
            .and_then(|n| n.parse::<f64>().ok())
            .filter(|f| (0.001..=1_000_000.0).contains(f))
            .map(Speed::Factor)
            .ok_or_else(|| {
                "use max, 1x (the recorded pace) or e.g. 10x (from 0.001x to 1000000x)".to_string()
            })
    }
}

impl std::fmt::Display for Speed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Speed::Max => write!(f, "max"),
            Speed::Factor(x) => write!(f, "{x}x"),
        }
    }
}

/// At `--speed max`, the replay waits while the FIFO holds this many items, until the loop has
/// taken half: "as fast as possible" then means as fast as the informer loop takes them (a
/// reflector is held back by the network and decoding), and events per second is the informer
/// loop's throughput, not the speed of filling a queue.
const MAX_SPEED_FIFO: usize = 4096;

/// What happens at one point of a recording.
#[derive(Debug, Clone)]
enum Step {
    Object(DeltaType, RawObject),
    Bookmark(String),
}

/// A recording, parsed, with each event's offset from the first. Its objects are kept
/// [`RawObject::compact`]: the simulated controller reads their keys, never their JSON, so a
/// recording of a million Pods is held in about 0.4 KiB per event, not in its JSON.
#[derive(Debug, Default)]
pub struct Replay {
    /// The resources the recording says it holds (its `start` notices).
    pub resources: Vec<String>,
    steps: Vec<(Duration, Step)>,
    /// When the first timed event was recorded, and the offset of the last.
    first: Option<SystemTime>,
    last_offset: Duration,
}

impl Replay {
    /// An object event recorded at `time` (without one, at the previous event's offset).
    pub fn push_object(
        &mut self,
        time: Option<SystemTime>,
        delta_type: DeltaType,
        object: RawObject,
    ) {
        let offset = self.offset(time);
        self.steps
            .push((offset, Step::Object(delta_type, object.compact())));
    }

    /// The cache synced to `resource_version` (a bookmark, or the end of a LIST), at the previous
    /// event's offset.
    pub fn push_synced(&mut self, resource_version: String) {
        let offset = self.offset(None);
        self.steps.push((offset, Step::Bookmark(resource_version)));
    }

    /// The offset of an event at `time` from the first: lines are in arrival order, so a clock
    /// step backwards keeps the last offset.
    fn offset(&mut self, time: Option<SystemTime>) -> Duration {
        if let Some(t) = time {
            let start = *self.first.get_or_insert(t);
            self.last_offset = self
                .last_offset
                .max(t.duration_since(start).unwrap_or_default());
        }
        self.last_offset
    }

    /// Object events in the recording.
    pub fn events(&self) -> u64 {
        self.steps
            .iter()
            .filter(|(_, s)| matches!(s, Step::Object(..)))
            .count() as u64
    }

    /// From the first event to the last, at the recorded pace.
    pub fn span(&self) -> Duration {
        self.steps.last().map(|(d, _)| *d).unwrap_or_default()
    }

    /// Pushes every event into `fifo` at `speed` (each received now, as the reflector would
    /// stamp it), counting object events in `played` and those that arrive in `window` there;
    /// closes the FIFO at the end.
    pub async fn play(
        self,
        fifo: Arc<Fifo>,
        speed: Speed,
        played: Arc<AtomicU64>,
        window: ArrivalWindow,
    ) {
        let start = Instant::now();
        for (offset, step) in self.steps {
            match speed {
                Speed::Factor(f) => tokio::time::sleep_until(start + offset.div_f64(f)).await,
                // Refilled once the loop has taken half, not after every item it takes.
                Speed::Max if fifo.len() >= MAX_SPEED_FIFO => {
                    fifo.until_below(MAX_SPEED_FIFO / 2).await
                }
                Speed::Max => {}
            }
            let item = match step {
                Step::Object(delta_type, object) => {
                    let received_at = Instant::now();
                    played.fetch_add(1, Ordering::Relaxed);
                    window.arrived(received_at);
                    FifoItem::Delta(Delta {
                        delta_type,
                        object,
                        received_at,
                        final_state_unknown: false,
                    })
                }
                Step::Bookmark(resource_version) => FifoItem::Bookmark { resource_version },
            };
            fifo.push(item);
        }
        fifo.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_parse() {
        assert_eq!(Speed::parse("max").unwrap(), Speed::Max);
        assert_eq!(Speed::parse("1x").unwrap(), Speed::Factor(1.0));
        assert_eq!(Speed::parse("2.5x").unwrap(), Speed::Factor(2.5));
        for bad in ["fast", "0x", "-1x", "2", "1e-30x"] {
            assert!(Speed::parse(bad).unwrap_err().contains("use max"), "{bad}");
        }
    }
}
