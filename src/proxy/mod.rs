//! `proxy`: the Kubernetes API on a loopback port, forwarded to the current context's server
//! with the user's credentials, for a controller to be started against; the place where
//! watch-level faults are put in front of it.

pub mod controller;
pub mod engine;
pub mod explore;
pub mod fault;
pub mod frames;
pub mod relay;
pub mod request;
pub mod serve;
pub mod silence;
pub mod stale;
pub mod state;
pub mod tls;
pub mod trace;
pub mod workload;
