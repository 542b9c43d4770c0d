# Sieve's "resize-pvc" workload for rabbitmq cluster-operator (sieve-project/sieve,
# examples/rabbitmq-operator/test/test.py, with its rmqc-1.yaml: one replica, 10Gi), which
# triggers rabbitmq/cluster-operator#782 (a crash right after the operator deletes the
# StatefulSet to resize its volumes: the PVC is never resized) and #653 (a restart onto a stale
# view of the StatefulSet: it is deleted again). What kwok cannot give, added: the volume
# (a PersistentVolume bound in advance to the claim the StatefulSet will make, of the class
# benches/explore_operators.sh creates, which allows expansion, as resizing needs). Each step
# waits for the operator's reaction with a limit.
set -eu
ns=$KUBECTL_INFORMER_NAMESPACE
k() { kubectl -n "$ns" "$@"; }
kubectl apply -f - <<YAML
apiVersion: v1
kind: PersistentVolume
metadata:
  name: rabbitmq-$ns
  labels: {kubectl-informer.bench/rabbitmq: "true"}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: kubectl-informer-expandable
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: /tmp/kubectl-informer-rabbitmq-$ns}
  claimRef: {namespace: $ns, name: persistence-rabbitmq-cluster-server-0}
YAML
k apply -f - <<'YAML'
apiVersion: rabbitmq.com/v1beta1
kind: RabbitmqCluster
metadata:
  name: rabbitmq-cluster
spec:
  replicas: 1
  persistence:
    storageClassName: kubectl-informer-expandable
    storage: 10Gi
YAML
k wait pod/rabbitmq-cluster-server-0 --timeout=120s --for=create
k wait pod/rabbitmq-cluster-server-0 --timeout=120s --for=jsonpath='{.status.phase}'=Running
k patch rabbitmqcluster/rabbitmq-cluster --type=merge -p '{"spec":{"persistence":{"storage":"15Gi"}}}'
storage='{.spec.volumeClaimTemplates[0].spec.resources.requests.storage}'
end=$(($(date +%s) + 120))
until [ "$(k get statefulset/rabbitmq-cluster-server -o jsonpath="$storage" 2>/dev/null)" = 15Gi ]; do
  [ "$(date +%s)" -lt "$end" ] || { echo "resize-pvc.sh: the StatefulSet asks for no 15Gi within 120 s" >&2; exit 1; }
  sleep 1
done
