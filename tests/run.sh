#!/usr/bin/env bash
# Runs every test of kubectl-informer on a fresh machine: builds etcd and kube-apiserver from their
# Go modules if needed, starts a private control plane on loopback, builds the validators the tests
# run on the release files and exports (tests/tools/tools.sh), checks formatting and lints (for Linux
# and for Windows), runs all unit and integration tests against it, checks the crate packages, and
# stops it (also on failure).
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
# Windows, where krew ships windows/amd64 too: the crate builds there, lints included (what is
# Unix-only is behind cfg). The target's standard library comes from rustup; ring's C code needs
# MinGW's gcc, from Debian's packages.
rustup target add x86_64-pc-windows-gnu >/dev/null 2>&1 \
  || { echo "run.sh: rustup target add x86_64-pc-windows-gnu failed" >&2; exit 2; }
if ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  sudo=""; [[ $(id -u) == 0 ]] || sudo=sudo
  $sudo apt-get update -qq && $sudo apt-get install -y -qq gcc-mingw-w64-x86-64 >/dev/null \
    || { echo "run.sh: installing gcc-mingw-w64-x86-64 (for the Windows check) failed" >&2; exit 2; }
fi
cargo clippy --locked --target x86_64-pc-windows-gnu -- -D warnings
# Unit, integration and doc tests; benches are only built (by clippy above), not run. Every test
# binary runs even when one fails, so that one failure does not hide others; the run still fails.
cargo test --locked --no-fail-fast
# The crate as `cargo package` ships it (Cargo.toml's include list) builds on its own.
cargo package --locked --allow-dirty --quiet
