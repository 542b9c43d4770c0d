//! The offline event source: a recording's events fed to the informer loop as if they came from
//! the watch, as fast as possible or at the recorded pace (`--speed 1x`, `10x`).

use crate::informer::fifo::{Delta, DeltaType, Fifo, FifoItem};
use crate::informer::object::{object_key, RawObject};
use crate::recording::reader::{lines, note_resource, RecordLine};
use std::io::BufRead;
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
                format!(
                    "invalid --speed \"{text}\": use max, 1x (the recorded pace) or e.g. 10x \
                     (from 0.001x to 1000000x)"
                )
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
    /// The resources of its `start` notices (see `recording::reader::one_resource`).
    pub resources: Vec<String>,
    steps: Vec<(Duration, Step)>,
}

impl Replay {
    /// Reads a recording; errors name the line.
    pub fn read(input: impl BufRead) -> Result<Replay, String> {
        let mut replay = Replay::default();
        let mut first: Option<SystemTime> = None;
        let mut offset = Duration::ZERO;
        let mut at = |time: Option<SystemTime>| {
            if let Some(t) = time {
                let start = *first.get_or_insert(t);
                // Lines are in arrival order; a clock step backwards keeps the last offset.
                offset = offset.max(t.duration_since(start).unwrap_or_default());
            }
            offset
        };
        for line in lines(input) {
            let (number, line) = line?;
            let step = match line {
                RecordLine::Start { resource, .. } => {
                    note_resource(&mut replay.resources, resource);
                    continue;
                }
                RecordLine::Upsert {
                    object,
                    modified,
                    time,
                } => (
                    at(time),
                    Step::Object(
                        if modified {
                            DeltaType::Updated
                        } else {
                            DeltaType::Added
                        },
                        object.compact(),
                    ),
                ),
                RecordLine::Deleted {
                    object: Some(object),
                    time,
                    ..
                } => (at(time), Step::Object(DeltaType::Deleted, object.compact())),
                RecordLine::Deleted {
                    namespace, name, ..
                } => {
                    return Err(format!(
                        "line {number}: the DELETED event of {} has no object: record with \
                         `tail -o json` or `tail --record`, which keep it",
                        object_key(namespace.as_deref(), &name)
                    ))
                }
                RecordLine::Synced {
                    resource_version, ..
                } => (at(None), Step::Bookmark(resource_version)),
                RecordLine::Other => continue,
            };
            replay.steps.push(step);
        }
        Ok(replay)
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
    /// stamp it), counting object events in `played`; closes the FIFO at the end.
    pub async fn play(self, fifo: Arc<Fifo>, speed: Speed, played: Arc<AtomicU64>) {
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
                    played.fetch_add(1, Ordering::Relaxed);
                    FifoItem::Delta(Delta {
                        delta_type,
                        object,
                        received_at: Instant::now(),
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
            assert!(Speed::parse(bad).unwrap_err().contains("--speed"), "{bad}");
        }
    }

    #[test]
    fn offsets_come_from_the_recorded_times() {
        let text = r#"{"type":"NOTICE","notice":"start","resource":"configmaps","time":"2026-01-01T00:00:00.000Z"}
{"type":"ADDED","resourceVersion":"1","namespace":"n","name":"a","time":"2026-01-01T00:00:01.000Z","object":{"metadata":{"name":"a","namespace":"n","resourceVersion":"1"}}}
{"type":"BOOKMARK","resourceVersion":"2","time":"2026-01-01T00:00:01.200Z"}
{"type":"DELETED","resourceVersion":"3","namespace":"n","name":"a","time":"2026-01-01T00:00:03.500Z","object":{"metadata":{"name":"a","namespace":"n","resourceVersion":"3"}}}
"#;
        let r = Replay::read(text.as_bytes()).unwrap();
        assert_eq!(r.resources, ["configmaps"]);
        assert_eq!(r.events(), 2);
        assert_eq!(r.span(), Duration::from_millis(2500));
    }

    #[test]
    fn a_deletion_without_its_object_is_refused() {
        let text = r#"{"type":"DELETED","resourceVersion":"3","namespace":"n","name":"a"}"#;
        let err = Replay::read(text.as_bytes()).unwrap_err();
        assert!(
            err.contains("line 1") && err.contains("tail -o json"),
            "{err}"
        );
    }
}
