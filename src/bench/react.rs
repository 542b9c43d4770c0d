//! What `bench --react` collects from its watches to match afterwards (`crate::react`): every
//! signal of a reaction and, without bench's own writes (`--no-churn`), every write seen as a
//! generation going up, in the order they arrived.

use crate::react::{Reaction, Signal, Signals, Write};
use std::time::SystemTime;

/// The signals and writes the watches showed so far.
#[derive(Debug)]
pub struct Collected {
    reading: Signals,
    pub signals: Vec<Signal>,
    /// `--no-churn`: the writes seen, timed from the arrival of the event that showed each.
    pub seen_writes: Vec<Write>,
}

impl Collected {
    pub fn new(reaction: Reaction) -> Self {
        Collected {
            reading: Signals::new(reaction),
            signals: Vec::new(),
            seen_writes: Vec::new(),
        }
    }

    /// An ADDED or MODIFIED of a written object, arrived at `at`.
    pub fn written(&mut self, object: &serde_json::Value, at: SystemTime) {
        let observed = self.reading.written(object, at);
        self.seen_writes.extend(observed.write);
        self.signals.extend(observed.signal);
    }

    /// An ADDED or MODIFIED of an object of the owned resource, arrived at `at`.
    pub fn owned(&mut self, object: &serde_json::Value, at: SystemTime) {
        let signals = self.reading.owned(object, at);
        self.signals.extend(signals);
    }
}
