#!/usr/bin/env bash
# Runs every test of kubectl-informer on a fresh machine: checks formatting and lints (for Linux and
# for Windows), runs the tests that need no cluster, then builds etcd and kube-apiserver from their
# Go modules if needed, starts a private control plane on loopback, builds the validators the tests
# run on the release files and exports (tests/tools/tools.sh), runs the tests that need them, checks
# that the crate packages, and stops the control plane (also on failure).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

controlplane=tests/controlplane/controlplane.sh
failed=0

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

# 1. What `cargo test` runs on any machine: unit, model, fake-server and document tests. They run
# with the control plane and the tools pointed at paths that do not exist, so that a test which
# needs them and is not marked `#[ignore = "needs the test control plane ..."]` fails here. Every
# test binary runs even when one fails (--no-fail-fast), and so does step 2: one failure does not
# hide others; the run still fails at the end.
env -u KUBECTL_INFORMER_CONTROLPLANE_RUN -u KUBECTL_INFORMER_TEST_OLD_KUBECONFIG \
  -u KUBECTL_INFORMER_TEST_LEGACY_KUBECONFIG \
  KUBECTL_INFORMER_TEST_KUBECONFIG="$root/target/no-control-plane/kubeconfig" \
  KUBECTL_INFORMER_TOOLS="$root/target/no-tools" \
  cargo test --locked --no-fail-fast || failed=1

# 2. The tests marked ignored: against a private control plane on loopback (built from the Go
# modules the first time), with the validators of the release files and exports built
# (tests/tools/tools.sh). Benches are only built (by clippy above), not run.
export KUBECTL_INFORMER_CONTROLPLANE_RUN="$root/target/controlplane/test-run"
export KUBECTL_INFORMER_TEST_KUBECONFIG="$KUBECTL_INFORMER_CONTROLPLANE_RUN/kubeconfig"
trap '"$controlplane" down' EXIT
"$controlplane" up
tests/tools/tools.sh build
cargo test --locked --no-fail-fast -- --ignored || failed=1

# The crate as `cargo package` ships it (Cargo.toml's include list) builds on its own.
cargo package --locked --allow-dirty --quiet
if ((failed)); then
  echo "run.sh: tests failed (see above)" >&2
  exit 1
fi
