# docs/tail.md, --diff: a ConfigMap changed twice while tail watches it; tail ends after the third
# object event (the initial ADDED and the two MODIFIED), not at a time a loaded machine may miss.
source "$(dirname "$0")/lib.sh"
"$K" -n "$NS" create configmap app-config \
  --from-literal=app.properties=$'log.level=info\ncache.size=128\ntimeout=30s\n' \
  --from-literal=replicas=3 --from-literal=mode=fast >/dev/null
act() {
  "$K" -n "$NS" patch configmap app-config --type merge -p \
    '{"data":{"app.properties":"log.level=debug\ncache.size=128\nfeature.x=off\ntimeout=30s\n","replicas":"5","owner":"team-a","mode":null}}'
  # Values it already has, by another field manager: only managedFields change.
  "$K" -n "$NS" get configmap app-config -o json |
    python3 -c 'import json,sys; o=json.load(sys.stdin); print(json.dumps({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":o["metadata"]["name"]},"data":o["data"]}))' |
    "$K" -n "$NS" apply --server-side --field-manager deploy-bot -f -
}
show_while tail cm app-config -n "$NS" --diff --max-events 3 --for 60s
