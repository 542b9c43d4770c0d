#!/usr/bin/env bash
# What kube-controller-manager does under each of the proxy's faults: its ReplicationController
# controller alone, started on the kubeconfig `kubectl informer proxy` writes, while `bench
# --react observed-generation` writes 10 ReplicationControllers twice a second for 30 s through
# the API server directly and times each reaction. One run per fault (and one without), one line
# each: writes, those without a reaction, superseded, reaction p50/p99/max.
#
#     tests/controlplane/controlplane.sh up      # its kube-controller-manager runs every other controller
#     cargo build && benches/proxy_faults.sh [OUT_DIR]
#
# Figures in BENCHMARKS.md and docs/proxy.md. Needs python3 (to read the reports).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
run_dir="${KUBECTL_INFORMER_CONTROLPLANE_RUN:-$root/target/controlplane/run}"
export KUBECONFIG="$run_dir/kubeconfig"
informer="${CARGO_TARGET_DIR:-$root/target}/debug/kubectl-informer"
kcm="$root/target/controlplane/bin/kube-controller-manager"
out=${1:-$(mktemp -d)}
mkdir -p "$out"

# run NAME [FAULT...]
run() {
  local name=$1; shift
  local faults=() proxy controller
  for f in "$@"; do faults+=(--fault "$f"); done
  rm -f "$out/$name.kubeconfig"
  "$informer" proxy -p 0 --write-kubeconfig "$out/$name.kubeconfig" --seed 1 "${faults[@]}" \
    >"$out/$name.proxy.out" 2>"$out/$name.proxy.err" &
  proxy=$!
  until [[ -s "$out/$name.kubeconfig" ]]; do sleep 0.2; done
  "$kcm" --kubeconfig="$out/$name.kubeconfig" --secure-port=0 --leader-elect=false \
    --controllers=replicationcontroller -v=2 >"$out/$name.kcm.log" 2>&1 &
  controller=$!
  "$informer" bench --template "$root/tests/fixtures/replication-controller.yaml" --react observed-generation --objects 10 --rate 2 \
    --warmup 2s --for 30s --reaction-timeout 90s --export-json "$out/$name.json" \
    >"$out/$name.bench.out" 2>&1 || true
  kill "$controller"; wait "$controller" 2>/dev/null || true
  kill -INT "$proxy"; wait "$proxy" 2>/dev/null || true
  python3 - "$out/$name.json" "$name" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); r = d["metrics"]["reactionLatency"]; c = d["counters"]
f = lambda v: "-" if v is None else ("%.0f ms" % (v * 1000) if v < 1 else "%.2f s" % v)
print("| %s | %d | %d | %d | %s | %s | %s |" % (sys.argv[2], c["writes"], c["writesWithoutReaction"],
      c["superseded"], f(r["p50"]), f(r["p99"]), f(r["max"])))
PY
}

echo "| faults | writes | without a reaction | superseded | reaction p50 | p99 | max |"
echo "|---|---|---|---|---|---|---|"
run none
run sever-end-gone sever:every=3s,how=end,resource=replicationcontrollers gone:resource=replicationcontrollers
run sever-reset sever:every=3s,resource=replicationcontrollers
run silence silence:at=15s,for=100s,resource=replicationcontrollers
run update-429 error:status=429,retry-after=1s,verb=update,share=50%,resource=replicationcontrollers
run update-500 error:status=500,verb=update,share=50%,resource=replicationcontrollers
run no-initial-events-end drop-initial-events-end:resource=replicationcontrollers
echo "(each run's proxy notices, controller log, bench output and report: $out)"
