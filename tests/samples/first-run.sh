# README, "First run": a tail of a namespace that holds one ConfigMap.
source "$(dirname "$0")/lib.sh"
"$K" -n "$NS" create configmap app-config --from-literal=log.level=info >/dev/null
show tail configmaps -n "$NS" --for 2s
