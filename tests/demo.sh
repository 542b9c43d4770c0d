#!/usr/bin/env bash
# The main job on a local control plane: builds kubectl-informer and the control plane, starts it,
# and runs `kubectl informer tail` while another process creates, updates and deletes ConfigMaps,
# so you see every event with its resourceVersion, the BOOKMARKs, and the watch being closed by
# the server and resumed; then `tail pods` while a Deployment's controllers create, schedule and
# run its Pods on kwok nodes; then a short `kubectl informer bench` with load. The control plane
# keeps running afterwards; stop it with
# `tests/controlplane/controlplane.sh down`.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

cargo build --locked
# The demo needs the current API server and its controllers, not the older servers the tests start.
KUBECTL_INFORMER_OLD_SERVERS=0 tests/controlplane/controlplane.sh up
run="$root/target/controlplane/run"
export KUBECONFIG="$run/kubeconfig"
export PATH="$root/target/debug:$PATH"
server="https://127.0.0.1:$(cat "$run/apiserver.port")"

# Changes are made with plain HTTP calls, so the demo needs no kubectl.
api() {
  curl -sf --cacert "$run/pki/ca.crt" -H "Authorization: Bearer $(cat "$run/admin.token")" \
    -H "Content-Type: ${4:-application/json}" -X "$1" "$server$2" ${3:+-d "$3"} >/dev/null
}
for ns in demo demo-elsewhere; do
  api DELETE "/api/v1/namespaces/$ns" || true
done
until api POST /api/v1/namespaces '{"metadata":{"name":"demo"}}'; do sleep 1; done
until api POST /api/v1/namespaces '{"metadata":{"name":"demo-elsewhere"}}'; do sleep 1; done
api POST /api/v1/namespaces/demo/configmaps '{"metadata":{"name":"before-tail"},"data":{"v":"1"}}'

changes() {
  sleep 2
  for i in 1 2 3; do
    api POST /api/v1/namespaces/demo/configmaps "{\"metadata\":{\"name\":\"app-$i\"},\"data\":{\"v\":\"1\"}}"
    sleep 1
  done
  api PATCH /api/v1/namespaces/demo/configmaps/app-1 '{"data":{"v":"2"}}' application/merge-patch+json
  api DELETE /api/v1/namespaces/demo/configmaps/app-2
  # Writes elsewhere advance the resourceVersion that the watch's BOOKMARKs carry.
  for i in $(seq 1 12); do
    api POST /api/v1/namespaces/demo-elsewhere/configmaps "{\"metadata\":{\"name\":\"tick-$i\"}}"
    sleep 1
  done
  api PATCH /api/v1/namespaces/demo/configmaps/app-3 '{"data":{"v":"3"}}' application/merge-patch+json
}
changes &

if command -v kubectl >/dev/null; then
  informer=(kubectl informer)
else
  informer=(kubectl-informer)
fi
tail_args=(configmaps -n demo --server-timeout 8s --for 20s --stats)
echo "\$ ${informer[*]} tail ${tail_args[*]}" >&2
"${informer[@]}" tail "${tail_args[@]}"
wait

# Real controllers: a Deployment becomes a ReplicaSet and Pods, the scheduler binds them to kwok
# nodes, kwok makes them Running and Ready; scaled down, one goes away. Every step is an event.
rollout() {
  sleep 2
  api POST /apis/apps/v1/namespaces/demo/deployments \
    '{"metadata":{"name":"web"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"registry.invalid/web:1"}]}}}}'
  sleep 5
  api PATCH /apis/apps/v1/namespaces/demo/deployments/web '{"spec":{"replicas":1}}' application/merge-patch+json
}
rollout &
pod_args=(pods -n demo --for 12s)
echo "\$ ${informer[*]} tail ${pod_args[*]}" >&2
"${informer[@]}" tail "${pod_args[@]}"
wait
# The objects the Pods came from, as an informer lists them now.
for resource in replicasets deployments; do
  echo "\$ ${informer[*]} tail $resource -n demo --max-events 1 -o wide" >&2
  "${informer[@]}" tail "$resource" -n demo --max-events 1 -o wide
done

# bench: a simulated controller under load in a scratch namespace, measured at every stage.
bench_args=(--objects 50 --rate 50 --for 10s --handler-time exp:2ms --work-time 1ms
  --fail-if 'queueDuration.p99 > 100ms')
echo "\$ ${informer[*]} bench ${bench_args[*]}" >&2
"${informer[@]}" bench "${bench_args[@]}"
echo "The control plane is still running: export KUBECONFIG=$KUBECONFIG; stop it with tests/controlplane/controlplane.sh down" >&2
