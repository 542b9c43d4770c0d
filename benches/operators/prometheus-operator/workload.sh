# The workload benches/explore_operators.sh explores prometheus-operator with: the objects of
# its getting-started guide (example/user-guides/getting-started and example/rbac/prometheus in
# the module as released, $EXAMPLES), then a scale-down and a ServiceMonitor removed. Each step
# waits for the operator's reaction with a limit; the proxy then takes the end state once the
# operator has been quiet for --settle.
set -eu
k() { kubectl -n "$KUBECTL_INFORMER_NAMESPACE" "$@"; }
k apply -f "$EXAMPLES/rbac/prometheus/prometheus-service-account.yaml"
for f in example-app-deployment example-app-service example-app-service-monitor; do
  k apply -f "$EXAMPLES/user-guides/getting-started/$f.yaml"
done
k apply -f "$EXAMPLES/rbac/prometheus/prometheus.yaml"
k wait prometheus/prometheus --timeout=120s --for=jsonpath='{.status.availableReplicas}'=2
k patch prometheus/prometheus --type=merge -p '{"spec":{"replicas":1}}'
k wait statefulset/prometheus-prometheus --timeout=120s --for=jsonpath='{.spec.replicas}'=1
k wait prometheus/prometheus --timeout=120s --for=jsonpath='{.status.availableReplicas}'=1
k delete servicemonitor example-app
