#!/usr/bin/env bash
# Runs every test of kubectl-informer on a fresh machine: installs the Debian packages the checks
# need, starts building etcd and kube-apiserver (the current, the oldest supported and the minors
# between that upstream supports) from their Go modules if needed, and the validators the tests
# run on the release files and exports (tests/tools/tools.sh), in the background; checks
# formatting and lints (for Linux and for Windows) and runs the tests that need no cluster
# meanwhile; then, the current server and the tools built, starts a private control plane on
# loopback and runs the tests that need it, while the older servers build; then starts those and
# runs their tests (tests/suite/older); checks that the crate packages, and stops the control
# plane (also on failure).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

controlplane=tests/controlplane/controlplane.sh
failed=0

# `cargo test -- --ignored`, with libtest running $RUST_TEST_THREADS (default 6) tests at once
# in the one test binary (tests/suite): most of their time is spent waiting on the control plane
# (controllers, compaction, restarts), not on the CPU. Every test runs even when one fails; the
# output goes to the terminal and to target/test-logs/NAME.log, and the step ends with the
# time it took and the names of the tests that failed.
# `run_ignored NAME ARGS...`: ARGS are libtest's filters (`--skip older::`, `older::`); the log is
# target/test-logs/NAME.log.
run_ignored() {
  local name=$1 logs="$root/target/test-logs" started=$SECONDS rc=0
  shift
  mkdir -p "$logs"
  cargo test --locked --no-fail-fast --tests -- --ignored --test-threads="${RUST_TEST_THREADS:-6}" \
    "$@" 2>&1 | tee "$logs/$name.log" || rc=$?
  echo "run.sh: the tests that need the control plane ($name) took $((SECONDS - started)) s:" \
    "$(grep -E '^test result' "$logs/$name.log" | grep -v ' 0 passed; 0 failed' | tail -1)"
  ((rc != 0)) || return 0
  local failed_tests
  failed_tests=$(sed -n -E 's/^test (.*) \.\.\. FAILED$/  \1/p' "$logs/$name.log")
  # A test that aborts the process (not a panic) ends the binary with no FAILED line of its own.
  echo "run.sh: failed:" >&2
  echo "${failed_tests:-  (no test reported a failure: the test binary ended early, see the log)}" >&2
  echo "run.sh: log in $logs/$name.log" >&2
  return 1
}

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
# tests/suite/top.rs serves a pod's metrics from a network namespace of its own (the API server
# will not proxy to loopback): `ip` from Debian's iproute2, run as root.
if ! command -v ip >/dev/null; then
  sudo=""; [[ $(id -u) == 0 ]] || sudo=sudo
  $sudo apt-get update -qq && $sudo apt-get install -y -qq iproute2 >/dev/null \
    || { echo "run.sh: installing iproute2 (for tests/suite/top.rs) failed" >&2; exit 2; }
fi

# tests/suite/completion_shells.rs runs the zsh and fish completion scripts in those shells:
# Debian's packages zsh and fish.
if ! command -v zsh >/dev/null || ! command -v fish >/dev/null; then
  sudo=""; [[ $(id -u) == 0 ]] || sudo=sudo
  $sudo apt-get update -qq && $sudo apt-get install -y -qq zsh fish >/dev/null \
    || { echo "run.sh: installing zsh and fish (for tests/suite/completion_shells.rs) failed" >&2; exit 2; }
fi

# The Go builds (the control plane's servers and controllers, the test tools) start now, in the
# background: on a cold machine they take longer than everything before step 2 together, and much
# of either is not on both cores (module downloads, linking, rustc on one large crate), so side by
# side the two finish sooner than one after the other. First the current server, its controllers
# and the tools, which step 2 waits for (target/go-build.current marks them done); then the older
# servers, which build while step 2's tests run (those tests mostly wait on the control plane) and
# which step 3 waits for. Their output goes to target/go-build.log, shown when step 2 begins and
# when step 3 does. A build that finds its binaries built (the stamps match) does nothing.
mkdir -p target
go_log="$root/target/go-build.log" go_current="$root/target/go-build.current"
rm -f "$go_current"
# In a process group of its own (setsid), so that one signal stops it with the compilers it runs.
setsid bash -c 'KUBECTL_INFORMER_OLD_SERVERS=0 "$1" build && "$2" build && touch "$3" && "$1" build' \
  go-builds "$controlplane" tests/tools/tools.sh "$go_current" >"$go_log" 2>&1 </dev/null &
go_build=$!
# On any exit: builds still running are stopped, and a control plane started is stopped.
plane_started=0
cleanup() {
  kill -- "-$go_build" 2>/dev/null && wait "$go_build" 2>/dev/null || true
  ((plane_started == 0)) || "$controlplane" down
}
trap cleanup EXIT

cargo fmt --check
cargo clippy --all-targets --locked -- -D warnings
cargo clippy --locked --target x86_64-pc-windows-gnu -- -D warnings

# 1. What `cargo test` runs on any machine: unit, model, fake-server and document tests. They run
# with the control plane and the tools pointed at paths that do not exist, so that a test which
# needs them and is not marked `#[ignore = "needs the test control plane ..."]` fails here. Every
# test runs even when one fails (--no-fail-fast: the unit tests, the suite and the doc tests), and
# so does step 2: one failure does not hide others; the run still fails at the end.
# The supported minors' kubeconfigs (KUBECTL_INFORMER_TEST_KUBECONFIG_1_MINOR) are unset too,
# whichever minors they are.
minor_kubeconfigs=()
for name in $(compgen -e | grep -E '^KUBECTL_INFORMER_TEST_KUBECONFIG_1_[0-9]+$' || true); do
  minor_kubeconfigs+=(-u "$name")
done
env -u KUBECTL_INFORMER_CONTROLPLANE_RUN -u KUBECTL_INFORMER_TEST_OLD_KUBECONFIG \
  -u KUBECTL_INFORMER_TEST_LEGACY_KUBECONFIG "${minor_kubeconfigs[@]}" \
  KUBECTL_INFORMER_TEST_KUBECONFIG="$root/target/no-control-plane/kubeconfig" \
  KUBECTL_INFORMER_TOOLS="$root/target/no-tools" \
  cargo test --locked --no-fail-fast || failed=1

# 2. The tests marked ignored: against a private control plane on loopback (built from the Go
# modules the first time), with the validators of the release files and exports built
# (tests/tools/tools.sh), several tests at a time (run_ignored). Benches are only built (by
# clippy above), not run. First every test but those of the older servers (tests/suite/older),
# against the current server, while the older ones build; then, those built and started, theirs.
export KUBECTL_INFORMER_CONTROLPLANE_RUN="$root/target/controlplane/test-run"
export KUBECTL_INFORMER_TEST_KUBECONFIG="$KUBECTL_INFORMER_CONTROLPLANE_RUN/kubeconfig"
go_failed() {
  cat "$go_log" >&2
  echo "run.sh: building the control plane or the test tools failed (above; log in $go_log)" >&2
  exit 2
}
go_started=$SECONDS
# The build marks the current server and the tools done, or ends (having failed) without: polled,
# as the marker is a file and the build goes on after it.
until [[ -f "$go_current" ]]; do
  kill -0 "$go_build" 2>/dev/null || { wait "$go_build" || true; [[ -f "$go_current" ]] || go_failed; }
  sleep 1
done
cat "$go_log"
go_shown=$(wc -c <"$go_log")
echo "run.sh: the current server's and the tools' Go builds had $((SECONDS - go_started)) s left" \
  "to run when step 1 ended"
rm -rf "$root/target/test-logs"
plane_started=1
KUBECTL_INFORMER_OLD_SERVERS=0 "$controlplane" up
run_ignored current --skip older:: || failed=1

# 3. The older servers' tests, once they are built (the rest of target/go-build.log) and started.
go_started=$SECONDS
wait "$go_build" || go_failed
tail -c +$((go_shown + 1)) "$go_log"
echo "run.sh: the older servers' Go builds had $((SECONDS - go_started)) s left to run when" \
  "step 2 ended"
"$controlplane" up
run_ignored older older:: || failed=1

# The crate as `cargo package` ships it (Cargo.toml's include list) builds on its own. Checked in
# a target directory of its own: cargo's own verification builds into target/debug, where its
# kubectl-informer (stamped `unknown`: an unpacked crate has no commit) would replace the one the
# tests of the next run start.
cargo package --locked --allow-dirty --quiet --no-verify
packaged="$root/target/package-check"
rm -rf "$packaged/src" && mkdir -p "$packaged/src"
tar -xzf "$(ls -t "$root"/target/package/kubectl-informer-*.crate | head -1)" -C "$packaged/src"
cargo check --locked --quiet --manifest-path "$(ls -d "$packaged"/src/kubectl-informer-*)/Cargo.toml" \
  --target-dir "$packaged/target"
if ((failed)); then
  echo "run.sh: tests failed (see above)" >&2
  exit 1
fi
