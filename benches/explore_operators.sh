#!/usr/bin/env bash
# `kubectl informer proxy --explore` on operators people run, unmodified, each built from its own
# Go module at a released version (benches/operators/NAME/go.mod pins it), with the CRDs and a
# workload from its own examples, on the test control plane (kwok nodes: Pods are Running and
# Ready, nothing runs in them). Prints each exploration's report and keeps every run's output in
# OUT_DIR/NAME.
#
#     tests/controlplane/controlplane.sh up && tests/tools/tools.sh build   # the plane, kubectl
#     cargo build && benches/explore_operators.sh [OUT_DIR [NAME]]
#
# Operators: prometheus-operator v0.85.0 (a Prometheus becomes a StatefulSet, its config Secrets,
# a rule-files ConfigMap, a governing Service, and the Prometheus's status); external-secrets
# v0.16.2 (its fake provider's store and an ExternalSecret become a Secret, and their statuses).
# `benches/explore_operators.sh OUT_DIR NAME` explores one of them (prometheus-operator or
# external-secrets). The figures and the triage of every difference are in docs/proxy.md
# ("Exploring a real operator").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
run_dir="${KUBECTL_INFORMER_CONTROLPLANE_RUN:-$root/target/controlplane/run}"
export KUBECONFIG="$run_dir/kubeconfig"
export PATH="$root/target/tools/bin:$PATH"   # kubectl, for the workloads
informer="${CARGO_TARGET_DIR:-$root/target}/debug/kubectl-informer"
bin="$root/target/operators/bin"
out=${1:-$(mktemp -d)}
mkdir -p "$out" "$bin"
[[ -s "$KUBECONFIG" ]] || { echo "explore_operators.sh: no control plane at $run_dir: start it with tests/controlplane/controlplane.sh up" >&2; exit 2; }
command -v kubectl >/dev/null || { echo "explore_operators.sh: no kubectl: build it with tests/tools/tools.sh build" >&2; exit 2; }

# build NAME PACKAGE: the operator's main package, built from benches/operators/NAME's module
# (its go.sum pins every module), once per go.sum.
build() {
  local name=$1 package=$2 dir="$root/benches/operators/$1"
  local want; want=$(cat "$dir/go.mod" "$dir/go.sum" | sha256sum | cut -d' ' -f1)
  if [[ "$(cat "$bin/$name.stamp" 2>/dev/null)" != "$want" ]]; then
    echo "explore_operators.sh: building $name ($package)" >&2
    (cd "$dir" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "-s -w" -o "$bin/$name" "$package")
    echo "$want" > "$bin/$name.stamp"
  fi
}

# module_dir NAME MODULE@VERSION: where the module as released is, in Go's module cache (as
# benches/operators/NAME's go.sum pins it).
module_dir() {
  (cd "$root/benches/operators/$1" && go mod download -json "$2") \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])'
}

# explore NAME VERSION STATE -- CONTROLLER...: the exploration, its report on stdout.
explore() {
  local name=$1 version=$2 state=$3; shift 4
  local started=$SECONDS rc=0
  "$informer" proxy -n "$name-$RANDOM" --explore --settle 3s \
    --workload "sh $root/benches/operators/$name/workload.sh" --state "$state" -- "$@" \
    >"$out/$name.report" 2>"$out/$name.err" || rc=$?
  echo "$name $version: exit $rc in $((SECONDS - started)) s"
  cat "$out/$name.report"
}

prometheus_operator() {
  build prometheus-operator github.com/prometheus-operator/prometheus-operator/cmd/operator
  local module; module=$(module_dir prometheus-operator github.com/prometheus-operator/prometheus-operator@v0.85.0)
  # Server-side: the Prometheus CRD is over the 256 KiB a client-side apply's annotation holds.
  kubectl apply --server-side --force-conflicts -f "$module/example/prometheus-operator-crd/" >/dev/null
  kubectl wait --for=condition=Established --timeout=60s -f "$module/example/prometheus-operator-crd/" >/dev/null
  export EXAMPLES="$module/example"
  explore prometheus-operator v0.85.0 statefulsets,secrets,configmaps,services,prometheuses -- \
    "$bin/prometheus-operator" '--namespaces={namespace}' --web.listen-address=127.0.0.1:0
}

external_secrets() {
  build external-secrets github.com/external-secrets/external-secrets
  local module; module=$(module_dir external-secrets github.com/external-secrets/external-secrets@v0.16.2)
  kubectl apply --server-side --force-conflicts -f "$module/deploy/crds/bundle.yaml" >/dev/null
  kubectl wait --for=condition=Established --timeout=60s -f "$module/deploy/crds/bundle.yaml" >/dev/null
  export SNIPPETS="$module/docs/snippets"
  # The controller alone, in the run's namespace: no cluster-wide reconcilers, no metrics port.
  explore external-secrets v0.16.2 secrets,externalsecrets,secretstores -- \
    "$bin/external-secrets" '--namespace={namespace}' --metrics-addr=0 \
    --enable-cluster-store-reconciler=false --enable-cluster-external-secret-reconciler=false \
    --enable-push-secret-reconciler=false --enable-cluster-push-secret-reconciler=false
}

case "${2:-all}" in
  prometheus-operator) prometheus_operator ;;
  external-secrets) external_secrets ;;
  all) prometheus_operator; external_secrets ;;
  *) echo "explore_operators.sh: no operator ${2}: prometheus-operator or external-secrets" >&2; exit 2 ;;
esac
