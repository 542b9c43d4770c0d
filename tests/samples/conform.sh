# docs/conform.md: every check on ConfigMaps, in a scratch namespace conform creates.
source "$(dirname "$0")/lib.sh"
# Check 8 passes where RV 1 is out of the server's history; on a young control plane the watch
# cache still holds it. Writes push it out (the cache drops its oldest events once full), within
# 60 rounds of 100 events.
expired() {
  "$K" get --raw "/api/v1/configmaps?watch=1&resourceVersion=1&timeoutSeconds=1" 2>/dev/null |
    head -1 | grep -q '"code":410'
}
for round in $(seq 60); do
  expired && break
  for i in $(seq 50); do
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: churn-%s}\n---\n' "$i"
  done | "$K" -n "$NS" apply -f - >/dev/null
  "$K" -n "$NS" delete configmap --all >/dev/null
done
expired
show conform configmaps || true
