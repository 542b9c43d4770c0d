//! A running controller's own metrics, read from outside: where they are served (a pod or a
//! service through the API server's proxy, or a URL), the Prometheus text they come in, what they
//! say about the controller's queues, informers and client, and what changed between two scrapes.

pub mod controller;
pub mod forwarded;
pub mod interval;
pub mod lag;
pub mod leader;
mod replicas;
pub mod target;
pub mod text;
pub mod window;
pub mod workload;
