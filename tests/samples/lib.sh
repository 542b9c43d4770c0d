# Sourced by each sample script (tests/suite/samples.rs runs them): what a sample in the docs shows
# is what these commands print. The test gives $B (kubectl-informer), $K (the real kubectl),
# KUBECONFIG (the test control plane) and $NS, the namespace the sample shows, created here
# and deleted when the script ends.
set -euo pipefail
T=$(mktemp -d)
cd "$T"
# The name the docs show (`demo`): the last sample's namespace is gone first.
"$K" delete namespace "$NS" --ignore-not-found --wait=true --timeout=120s >/dev/null
"$K" create namespace "$NS" >/dev/null
trap '"$K" delete namespace "$NS" --wait=false >/dev/null 2>&1 || true; rm -rf "$T"' EXIT

# The command line as a shell reads it: a word with a space or a shell character quoted.
shown() {
  local word line="\$ kubectl informer"
  for word in "$@"; do
    if [[ $word =~ ^[A-Za-z0-9_./:=,@%+-]+$ ]]; then
      line+=" $word"
    else
      line+=" '$word'"
    fi
  done
  echo "$line"
}

# show ARGS...: the command line as the docs show it, then its stdout and stderr as they come.
show() {
  shown "$@"
  "$B" "$@" 2>&1
}

# show_while ARGS...: as show, for a watching command: once it says its watch is open (within
# 60 s), the script's `act` function makes the changes it is to see; then waits for its end.
show_while() {
  shown "$@"
  "$B" "$@" >"$T/out" 2>&1 &
  local pid=$! i
  for i in $(seq 600); do
    grep -q "watch opened\|watch-list opened" "$T/out" && break
    sleep 0.1
  done
  act >/dev/null
  wait "$pid" || true
  cat "$T/out"
}
