#!/usr/bin/env bash
# Runs every test of kubectl-informer on a fresh machine: builds etcd and kube-apiserver from their
# Go modules if needed, starts a private control plane on loopback, builds the validators the tests
# run on the release files and exports (tests/tools/tools.sh), checks formatting and lints, runs all unit and
# integration tests against it, checks the crate packages, and stops it (also on failure).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

export KUBECTL_INFORMER_CONTROLPLANE_RUN="$root/target/controlplane/test-run"
export KUBECTL_INFORMER_TEST_KUBECONFIG="$KUBECTL_INFORMER_CONTROLPLANE_RUN/kubeconfig"
controlplane=tests/controlplane/controlplane.sh

trap '"$controlplane" down' EXIT
"$controlplane" up
tests/tools/tools.sh build

cargo fmt --check
cargo clippy --all-targets --locked -- -D warnings
# Unit, integration and doc tests; benches are only built (by clippy above), not run.
cargo test --locked
# The crate as `cargo package` ships it (Cargo.toml's include list) builds on its own.
cargo package --locked --allow-dirty --quiet
