# The workload benches/explore_operators.sh explores external-secrets with: its fake provider's
# example from its docs ($SNIPPETS: docs/snippets in the module as released), the store made
# namespaced (a SecretStore, not a ClusterSecretStore: each run is in a namespace of its own);
# then the version read changed (v1 -> v2), and the Secret it made deleted, which it makes again.
# Each step waits for the operator's reaction with a limit.
set -eu
k() { kubectl -n "$KUBECTL_INFORMER_NAMESPACE" "$@"; }
sed 's/ClusterSecretStore/SecretStore/' "$SNIPPETS/fake-provider-store.yaml" | k apply -f -
k wait secretstore/fake --timeout=120s --for=condition=Ready
sed 's/ClusterSecretStore/SecretStore/' "$SNIPPETS/fake-provider-es.yaml" | k apply -f -
k wait externalsecret/example --timeout=120s --for=condition=Ready
k wait secret/secret-to-be-created --timeout=120s --for=jsonpath='{.data.foo_bar}'=SEVMTE8x
k patch externalsecret/example --type=json -p '[{"op":"replace","path":"/spec/data/0/remoteRef/version","value":"v2"}]'
k wait secret/secret-to-be-created --timeout=120s --for=jsonpath='{.data.foo_bar}'=SEVMTE8y
k delete secret/secret-to-be-created
k wait secret/secret-to-be-created --timeout=120s --for=create
