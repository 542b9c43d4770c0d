# docs/diff.md: a saved cache compared with the server after changes: every class of drift.
source "$(dirname "$0")/lib.sh"
for name in kept changed gone; do
  "$K" -n "$NS" create configmap "$name" --from-literal=v=1 >/dev/null
done
"$B" diff cm -n "$NS" --save-cache before.jsonl >/dev/null
"$K" -n "$NS" patch configmap changed --type merge -p '{"data":{"v":"2"}}' >/dev/null
"$K" -n "$NS" delete configmap gone >/dev/null
"$K" -n "$NS" create configmap new --from-literal=v=1 >/dev/null
show diff cm -n "$NS" --cache-file before.jsonl --show-fields || true
