# The workload benches/explore_operators.sh explores cert-manager with: the "bootstrapping a CA"
# example of cert-manager's SelfSigned issuer docs, in the run's namespace (an Issuer, not a
# ClusterIssuer: each run is in a namespace of its own): a self-signed Issuer, a CA Certificate
# signed by it, a CA Issuer from that Certificate's Secret, and a leaf Certificate from the CA
# Issuer; then the leaf's DNS names changed (a new revision is issued) and its Secret deleted
# (issued again). Each step waits for the operator's reaction with a limit.
set -eu
k() { kubectl -n "$KUBECTL_INFORMER_NAMESPACE" "$@"; }
k apply -f - <<'YAML'
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: selfsigned-issuer
spec:
  selfSigned: {}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: my-selfsigned-ca
spec:
  isCA: true
  commonName: my-selfsigned-ca
  secretName: root-secret
  privateKey:
    algorithm: ECDSA
    size: 256
  issuerRef:
    name: selfsigned-issuer
    kind: Issuer
    group: cert-manager.io
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: my-ca-issuer
spec:
  ca:
    secretName: root-secret
YAML
k wait certificate/my-selfsigned-ca --timeout=120s --for=condition=Ready
k wait issuer/my-ca-issuer --timeout=120s --for=condition=Ready
k apply -f - <<'YAML'
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: web
spec:
  secretName: web-tls
  dnsNames: [web.example.com]
  privateKey:
    algorithm: ECDSA
    size: 256
  issuerRef:
    name: my-ca-issuer
    kind: Issuer
    group: cert-manager.io
YAML
k wait certificate/web --timeout=120s --for=condition=Ready
k wait certificate/web --timeout=120s --for=jsonpath='{.status.revision}'=1
k patch certificate/web --type=merge -p '{"spec":{"dnsNames":["web.example.com","www.example.com"]}}'
k wait certificate/web --timeout=120s --for=jsonpath='{.status.revision}'=2
k wait certificate/web --timeout=120s --for=condition=Ready
k delete secret/web-tls
k wait secret/web-tls --timeout=120s --for=create
k wait certificate/web --timeout=120s --for=jsonpath='{.status.revision}'=3
k wait certificate/web --timeout=120s --for=condition=Ready
