//! Everything measured in one pipeline, per listener and per workqueue, as the exports take it.

use crate::informer::processor::ListenerMetrics;
use crate::informer::workqueue::{QueueGauges, QueueMetrics};
use crate::metrics::Latency;

/// One listener's figures.
pub struct ListenerSnapshot {
    pub name: String,
    pub metrics: ListenerMetrics,
    /// Pending notifications now.
    pub backlog: usize,
}

/// One workqueue's figures.
pub struct QueueSnapshot {
    pub name: String,
    pub metrics: QueueMetrics,
    pub gauges: QueueGauges,
}

/// Everything measured in one pipeline.
pub struct PipelineSnapshot {
    pub listeners: Vec<ListenerSnapshot>,
    pub queues: Vec<QueueSnapshot>,
    /// Write sent → its watch event received (`bench` against a cluster).
    pub watch_latency: Option<Latency>,
    /// Write sent → the controller's reaction received (`bench --react`).
    pub reaction_latency: Option<Latency>,
    /// The informer's watch re-opens and relists since its initial sync (`bench` against a
    /// cluster).
    pub watch_transitions: Option<WatchTransitions>,
}

/// How often an informer's watch was re-opened and relisted.
#[derive(Debug, Clone, Copy, Default)]
pub struct WatchTransitions {
    pub reconnects: u64,
    pub relists: u64,
}
