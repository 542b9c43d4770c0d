#!/usr/bin/env bash
# The test operator's replicas as a cluster would run them, on the test control plane: each Pod of
# a Deployment (scheduled on a kwok node, made Running and Ready by kwok) gets a test-operator
# process on the host that stands for it, and a kwok PortForward object that sends the Pod's
# metrics port there, so that `kubectl port-forward pod/POD 8443` (pods/portforward through the
# API server, then kwok's kubelet API) reaches that process's secure metrics server.
#
#   tests/operator/run.sh manifest NAME            print a Deployment NAME (2 replicas, container
#                                                  `manager`, port `https` 8443), as kubebuilder's
#                                                  config/manager scaffolds it, for `kubectl apply`
#   tests/operator/run.sh up DIR NS DEPLOY [-- FLAGS...]
#                                                  wait for DEPLOY's Pods to be Ready; for each POD,
#                                                  start test-operator on free loopback ports with
#                                                  --pod-name=POD --namespace=NS (and FLAGS), and
#                                                  write the PortForward POD (port 8443 -> its metrics
#                                                  port); DIR/POD.pid, .log, .metrics-port,
#                                                  .probe-port; prints "POD METRICS_PORT" lines once
#                                                  every process answers /readyz
#   tests/operator/run.sh down DIR                 stop the processes started in DIR (also after
#                                                  an `up` that failed half-way)
#
# The processes use the admin kubeconfig ($KUBECONFIG, else target/controlplane/run/kubeconfig):
# the operator needs leases, configmaps, tokenreviews and subjectaccessreviews. They elect a
# leader on the Lease test-operator.informer.test in NS, whose holderIdentity is POD_UUID.
# Needs target/tools/bin/test-operator and kubectl (tests/tools/tools.sh build).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="$root/target/tools/bin"
export KUBECONFIG="${KUBECONFIG:-$root/target/controlplane/run/kubeconfig}"
metrics_port=8443

die() { printf 'operator: error: %s\n' "$*" >&2; exit 2; }
kubectl() { "$bin/kubectl" "$@"; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

manifest() {
  local name=${1:-}
  [[ -n "$name" ]] || die "usage: $0 manifest NAME"
  cat <<EOF
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $name
  labels: {control-plane: controller-manager, app.kubernetes.io/name: $name}
spec:
  replicas: 2
  selector:
    matchLabels: {control-plane: controller-manager, app.kubernetes.io/name: $name}
  template:
    metadata:
      labels: {control-plane: controller-manager, app.kubernetes.io/name: $name}
    spec:
      containers:
      - name: manager
        image: test-operator:dev
        args: [--leader-elect, --metrics-bind-address=:$metrics_port, --health-probe-bind-address=:8081]
        ports:
        - {name: https, containerPort: $metrics_port, protocol: TCP}
EOF
}

up() {
  local dir=${1:-} ns=${2:-} deploy=${3:-}
  [[ -n "$dir" && -n "$ns" && -n "$deploy" ]] || die "usage: $0 up DIR NS DEPLOY [-- FLAGS...]"
  shift 3
  [[ "${1:-}" != -- ]] || shift
  [[ -x "$bin/test-operator" && -x "$bin/kubectl" ]] \
    || die "no test-operator or kubectl in $bin: build them with tests/tools/tools.sh build"
  mkdir -p "$dir"
  kubectl -n "$ns" rollout status "deploy/$deploy" --timeout=60s >&2 \
    || die "deployment $ns/$deploy did not become ready within 60s"
  local selector pods pod
  selector=$(kubectl -n "$ns" get "deploy/$deploy" \
    -o go-template='{{range $k, $v := .spec.selector.matchLabels}}{{$k}}={{$v}},{{end}}')
  pods=$(kubectl -n "$ns" get pods -l "${selector%,}" --field-selector=status.phase=Running \
    -o go-template='{{range .items}}{{if not .metadata.deletionTimestamp}}{{.metadata.name}}{{"\n"}}{{end}}{{end}}')
  [[ -n "$pods" ]] || die "no running pods of deployment $ns/$deploy"
  for pod in $pods; do start_pod "$dir" "$ns" "$pod" "$@"; done
  for pod in $pods; do wait_ready "$dir" "$pod"; done
  for pod in $pods; do printf '%s %s\n' "$pod" "$(cat "$dir/$pod.metrics-port")"; done
}

# One process for POD, and the PortForward that leads the Pod's port to it.
start_pod() {
  local dir=$1 ns=$2 pod=$3 metrics probe
  shift 3
  metrics=$(free_port); probe=$(free_port)
  "$bin/test-operator" --kubeconfig="$KUBECONFIG" --namespace="$ns" --pod-name="$pod" \
    --metrics-bind-address="127.0.0.1:$metrics" --health-probe-bind-address="127.0.0.1:$probe" "$@" \
    >"$dir/$pod.log" 2>&1 &
  echo $! > "$dir/$pod.pid"
  echo "$metrics" > "$dir/$pod.metrics-port"
  echo "$probe" > "$dir/$pod.probe-port"
  kubectl -n "$ns" apply -f - >/dev/null <<EOF
apiVersion: kwok.x-k8s.io/v1alpha1
kind: PortForward
metadata:
  name: $pod
spec:
  forwards:
  - ports: [$metrics_port]
    target: {address: 127.0.0.1, port: $metrics}
EOF
}

wait_ready() {
  local dir=$1 pod=$2 deadline=$((SECONDS + 60))
  until curl -sf --max-time 2 "http://127.0.0.1:$(cat "$dir/$pod.probe-port")/readyz" >/dev/null 2>&1; do
    kill -0 "$(cat "$dir/$pod.pid")" 2>/dev/null \
      || die "test-operator for $pod exited; its log: $dir/$pod.log ($(tail -n 3 "$dir/$pod.log" | tr '\n' ' '))"
    ((SECONDS < deadline)) || die "test-operator for $pod not ready within 60s; its log: $dir/$pod.log"
    sleep 0.2
  done
}

down() {
  local dir=${1:-} f pid
  [[ -n "$dir" ]] || die "usage: $0 down DIR"
  for f in "$dir"/*.pid; do
    [[ -f "$f" ]] || continue
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$f"
  done
}

case "${1:-}" in
  manifest) manifest "${2:-}" ;;
  up) shift; up "$@" ;;
  down) down "${2:-}" ;;
  *) die "usage: $0 manifest NAME | up DIR NS DEPLOY [-- FLAGS...] | down DIR" ;;
esac
