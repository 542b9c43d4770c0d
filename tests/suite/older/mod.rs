//! The tests that need the older API servers of the test control plane: v1.29 (with aggregated
//! discovery as v2beta1, and legacy discovery only) and each supported minor between it and the
//! current one. tests/run.sh runs them last, once those servers are built and started: the rest
//! run against the current server while the older ones build.

mod conform;
mod discovery;
mod minors;
mod version;
