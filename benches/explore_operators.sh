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
# v0.16.2 (its fake provider's store and an ExternalSecret become a Secret, and their statuses);
# cert-manager v1.21.2 (its certificate controllers, run by benches/operators/cert-manager/main.go
# because the release's own main is a module the Go module proxy does not serve: Issuers and
# Certificates become Secrets and CertificateRequests). `benches/explore_operators.sh OUT_DIR NAME`
# explores one of them (prometheus-operator, external-secrets or cert-manager); NAME
# sieve-rabbitmq explores Sieve's resize-pvc workload on rabbitmq cluster-operator v1.6.0, which
# has the bugs Sieve found (rabbitmq/cluster-operator#782, #653), then runs the faults that found
# them on v1.14.0, which has them fixed (sieve-rabbitmq-fixed: that part alone). The figures and
# the triage of every difference are in docs/proxy.md ("Exploring a real operator").
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
  "$informer" proxy -n "${name//./-}-$RANDOM" --explore --settle 3s --settle-limit "${settle_limit:-2m}" \
    --workload "sh $root/benches/operators/${workload:-$name/workload.sh}" --state "$state" -- "$@" \
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

cert_manager() {
  build cert-manager .
  local module; module=$(module_dir cert-manager github.com/cert-manager/cert-manager@v1.21.2)
  local crds=()
  for crd in certificates certificaterequests issuers clusterissuers; do
    crds+=(-f "$module/deploy/crds/cert-manager.io_$crd.yaml")
  done
  kubectl apply --server-side --force-conflicts "${crds[@]}" >/dev/null
  kubectl wait --for=condition=Established --timeout=60s "${crds[@]}" >/dev/null
  explore cert-manager v1.21.2 secrets,certificates,certificaterequests,issuers -- \
    "$bin/cert-manager" '--namespace={namespace}'
}

# How the rabbitmq operator is started (`sh -c "$rabbitmq_launch" BINARY NAMESPACE METRICS_FLAG`): its
# namespaces and the kubeconfig of its exec client from the environment, a 4 s leader lease.
rabbitmq_launch='export KUBE_CONFIG="$KUBECONFIG" OPERATOR_NAMESPACE="$1" OPERATOR_SCOPE_NAMESPACE="$1"
export LEASE_DURATION=4 RENEW_DEADLINE=3 RETRY_PERIOD=1; exec "$0" "$2"'

# rabbitmq_setup VERSION: the operator built, its CRD, and the class of the workload's volumes.
rabbitmq_setup() {
  local version=$1
  build "rabbitmq-$version" github.com/rabbitmq/cluster-operator
  local module; module=$(module_dir "rabbitmq-$version" "github.com/rabbitmq/cluster-operator@$version")
  local crd="$module/config/crd/bases/rabbitmq.com_rabbitmqclusters.yaml"
  kubectl apply --server-side --force-conflicts -f "$crd" >/dev/null
  kubectl wait --for=condition=Established --timeout=60s -f "$crd" >/dev/null
  # The class of the workload's volumes: bound as soon as claimed, and expandable (the API
  # server refuses to resize a claim of a class that is not).
  kubectl apply -f - >/dev/null <<'YAML'
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: kubectl-informer-expandable
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
allowVolumeExpansion: true
YAML
}

# Sieve's rabbitmq bugs: the resize-pvc workload explored on a version (v1.6.0: rabbitmq/cluster-operator
# #782 and #653 not fixed). It always elects a leader: the 4 s lease of $rabbitmq_launch lets a
# restarted operator lead soon.
rabbitmq() {
  local version=$1 metrics=$2
  rabbitmq_setup "$version"
  # Its end state is taken 30 s after the workload at the latest: on kwok its exec into the
  # pods (to enable feature flags) fails for ever, and it retries, writing Events and the
  # annotations of its ConfigMaps, so it is never quiet; what the workload asked for is done
  # within seconds.
  workload=rabbitmq/resize-pvc.sh settle_limit=30s \
    explore "rabbitmq-$version" "$version" statefulsets,persistentvolumeclaims,services,configmaps,secrets,rabbitmqclusters -- \
    sh -c "$rabbitmq_launch" "$bin/rabbitmq-$version" '{namespace}' "$metrics"
  # The runs' volumes, released once their namespaces are gone.
  kubectl delete persistentvolumes -l kubectl-informer.bench/rabbitmq=true --wait=false >/dev/null
}

# rabbitmq_fixed VERSION METRICS_FLAG: the faults that found #782 and #653 on v1.6.0 (its runs 14
# and 17) and the lost createdAt mark (run 27), on VERSION: two fault-free runs saved, then each
# faulted run compared with them, as the exploration's report repeats a run. The condition
# AllReplicasReady is left out: v1.14.0, backing off from its failed exec into the kwok Pod, has
# not refreshed it 30 s after the workload in a fault-free run, and has in a restarted one.
rabbitmq_fixed() {
  local version=$1 metrics=$2
  local dir="$out/rabbitmq-$version-runs" prefix="${version//./-}-$RANDOM"
  rabbitmq_setup "$version"
  mkdir -p "$dir"
  local common=(--workload "sh $root/benches/operators/rabbitmq/resize-pvc.sh" --settle 3s
    --settle-limit 30s --state statefulsets,persistentvolumeclaims,services,configmaps,secrets,rabbitmqclusters
    --ignore-field '.status.conditions[AllReplicasReady]')
  one() { # NAME FLAGS...: one run in namespace PREFIX-NAME, its exit and its differences
    local ns="$prefix-$1" rc=0; shift
    kubectl create namespace "$ns" >/dev/null
    "$informer" proxy -p 0 -o json --seed 1 -n "$ns" "${common[@]}" "$@" -- \
      sh -c "$rabbitmq_launch" "$bin/rabbitmq-$version" "$ns" "$metrics" >"$dir/$ns.out" 2>"$dir/$ns.err" || rc=$?
    local found; found=$(grep '"type":"verdict"' "$dir/$ns.out" | python3 -c 'import json,sys
for l in sys.stdin: print([(d["resource"], d["name"], d["difference"], [f["path"] for f in d.get("fields", [])]) for d in json.loads(l)["differences"]])')
    echo "$ns: exit $rc${found:+ $found}"
  }
  one base-1 --save-state "$dir/base-1.json" & one base-2 --save-state "$dir/base-2.json" & wait
  local compare=(--compare-state "$dir/base-1.json" --compare-state "$dir/base-2.json")
  one crash-after-delete --fault crash:after=delete,resource=statefulsets.apps "${compare[@]}" &
  one stale-statefulsets --fault crash:after=update,resource=persistentvolumeclaims \
    --fault stale:by=45s,on=restart,for=45s,resource=statefulsets.apps "${compare[@]}" &
  wait
  one coalesce-statefulsets --fault coalesce:window=10s,resource=statefulsets.apps "${compare[@]}"
  kubectl get namespaces -o name | grep "/$prefix-" | xargs kubectl delete --wait=false >/dev/null
  kubectl delete persistentvolumes -l kubectl-informer.bench/rabbitmq=true --wait=false >/dev/null
}

case "${2:-all}" in
  prometheus-operator) prometheus_operator ;;
  external-secrets) external_secrets ;;
  cert-manager) cert_manager ;;
  sieve-rabbitmq) rabbitmq v1.6.0 --metrics-addr=0; rabbitmq_fixed v1.14.0 --metrics-bind-address=0 ;;
  sieve-rabbitmq-fixed) rabbitmq_fixed v1.14.0 --metrics-bind-address=0 ;;
  all) prometheus_operator; external_secrets; cert_manager ;;
  *) echo "explore_operators.sh: no operator ${2}: prometheus-operator, external-secrets, cert-manager, sieve-rabbitmq or sieve-rabbitmq-fixed" >&2; exit 2 ;;
esac
