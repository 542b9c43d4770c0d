# docs/tail.md, -o wide: kind, uid, generation and the delay from arrival to print.
source "$(dirname "$0")/lib.sh"
act() {
  "$K" -n "$NS" create configmap w --from-literal=a=1
  "$K" -n "$NS" patch configmap w --type merge -p '{"metadata":{"labels":{"app":"web"}},"data":{"a":"2","b":"x"}}'
}
show_while tail cm -n "$NS" -o wide --max-events 2 --for 60s
