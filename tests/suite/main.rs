//! The integration tests of kubectl-informer, one test binary with a module per subject: the
//! helpers in `common` and the dependencies (kube, tokio, rustls) are compiled and linked once,
//! not once per file. `cargo test --test suite tail::` runs the tests of one module.
//!
//! The tests that need the test control plane (or the tools of tests/tools) are
//! `#[ignore = "..."]`, the reason saying what they need; tests/run.sh runs them.

mod common;

mod bench_cli;
mod bench_live;
mod bench_model;
mod bench_react;
mod cbor;
mod cluster_errors;
mod completion_dynamic;
mod completion_scripts;
mod completion_shells;
mod conform;
mod connection_flags;
mod connection_shapes;
mod controllers;
mod dead_peer;
mod diff;
mod diff_scripted_server;
mod docs;
mod encoding;
mod help;
mod informer_live;
mod informer_model;
mod json_naming;
mod kubectl_formats;
mod kubectl_templates;
mod layers;
mod older;
mod operator_metrics;
mod proxy;
mod proxy_coalesce;
mod proxy_controller;
mod proxy_explore;
mod proxy_stale;
mod proxy_verdict;
mod release;
mod replay;
mod resolve;
mod restarts;
mod samples;
mod schemas;
mod stalls;
mod tail;
mod tail_follow;
mod tail_multi;
mod tail_react;
mod tail_with_diff;
mod top;
mod version;
mod watch_decoder_fuzz;
mod wire;
