#!/usr/bin/env bash
# A real Kubernetes control plane (etcd + kube-apiserver, built from their Go modules) on loopback,
# for kubectl-informer's integration tests and demo; beside it, an older kube-apiserver
# (v1.29, on its own etcd; its kube-controller-manager is built too, for tests to start) to prove
# the oldest supported server and legacy discovery, and the
# other minors upstream supports (v1.35 and v1.36, on one more etcd) to prove every command there.
#
#   tests/controlplane/controlplane.sh build   build the binaries if the wrapper modules changed
#   tests/controlplane/controlplane.sh up      build if needed, start on free loopback ports, wait
#                                              until ready, write target/controlplane/run/kubeconfig
#                                              ($KUBECTL_INFORMER_CONTROLPLANE_RUN overrides the dir)
#                                              and the older servers' run/old/kubeconfig and
#                                              run/old/legacy.kubeconfig (see start_old), and
#                                              run/minors/1.MINOR/kubeconfig (see start_minors)
#   tests/controlplane/controlplane.sh down    stop every server and remove their data
#   tests/controlplane/controlplane.sh status  exit 0 when every server answers /readyz
#   tests/controlplane/controlplane.sh pair DIR
#                                              write the command lines of a private etcd +
#                                              kube-apiserver pair in DIR, for tests that kill and
#                                              restart servers (see pair)
#
# Beside the API server, real controllers make the traffic informers see in a cluster:
# kube-controller-manager and kube-scheduler (same module and version as the API server) and kwok
# (fake nodes on which scheduled Pods become Running and Ready, and deleted Pods go away).
# KUBECTL_INFORMER_CONTROLLERS=0 starts the bare API server instead (no controller writes);
# KUBECTL_INFORMER_NODES=N sets the number of kwok nodes (default 3; 0: no kwok).
#
# kwok also serves the kubelet API of its nodes (HTTPS on a free loopback port, run/kwok.port),
# so that pods/portforward (and log, exec) on their Pods reach it through the API server: each
# node names 127.0.0.1 as its Hostname address (the API server's first preferred address type)
# and that port as its kubelet endpoint. Where a Pod's port leads is a kwok PortForward object
# (kwok.x-k8s.io/v1alpha1, namespaced, named after the Pod; its CRD is installed by `up`):
#   spec: {forwards: [{ports: [8443], target: {address: 127.0.0.1, port: HOST_PORT}}]}
# tests/operator/run.sh starts a process for each Pod of a Deployment and writes them.
#
# KUBECTL_INFORMER_FEATURE_GATES=GATE=true,... turns on more of the current API server's feature
# gates (beside WatchList), e.g. CBORServingAndStorage=true for benches/scale.rs's CBOR figures.
#
# KUBECTL_INFORMER_OLD_SERVERS=0 leaves the older servers out, v1.29 and the other supported
# minors (neither built nor started): the demo needs only the current one; the tests
# (tests/run.sh) need them all.
#
# The kubeconfig has two contexts: `admin` (current; user `admin` in system:masters) and `nobody`
# (user `nobody`, authenticated, with no RBAC grants: for 403 tests).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# Binaries are shared; each running control plane has its own directory (data, certs, kubeconfig),
# so the test run (tests/run.sh) does not disturb one a developer keeps running.
bin="$root/target/controlplane/bin"
run="${KUBECTL_INFORMER_CONTROLPLANE_RUN:-$root/target/controlplane/run}"

k8s_version=v1.37.2
# The oldest minor that still builds with the Go here: it serves aggregated discovery only as
# apidiscovery.k8s.io/v2beta1, and can be told to serve none (legacy discovery only).
old_k8s_version=v1.29.15
# The other minors upstream supports beside the current one, each the newest patch the Go module
# proxy serves: kube-apiserver and kube-controller-manager from a wrapper module of its own
# (tests/controlplane/kube-apiserver-1.MINOR), started by start_minors. What they changed for a
# client: watch-list served by default (WatchList beta and on since 1.34), comparable
# resourceVersions (1.35), /readyz waiting for the watch cache (1.36).
minor_k8s_versions="v1.35.8 v1.36.5"
kwok_version=v0.8.0
# kwok's stages, as kwokctl's default set with node leases: nodes become Ready and keep a Lease;
# scheduled Pods become Running and Ready, Job Pods complete, deleted Pods go away.
kwok_stages="node/fast/node-initialize node/heartbeat-with-lease/node-heartbeat-with-lease
  pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete"

log() { printf 'controlplane: %s\n' "$*" >&2; }
die() { printf 'controlplane: error: %s\n' "$*" >&2; exit 2; }

# The stamp names the exact inputs of a build, so a cached binary is reused only when they match.
stamp() {
  cat "$here/kube-apiserver/go.mod" "$here/kube-apiserver/go.sum" "$here/kube-apiserver/main.go" \
      "$here/etcd/go.mod" "$here/etcd/go.sum" "$here/etcd/main.go" \
    | sha256sum | cut -d' ' -f1
  printf '%s\n' "$k8s_version"
  go version
}

# `1.MINOR` of a version v1.MINOR.PATCH: the name of its wrapper module and of its binaries.
minor_of() { printf '1.%s\n' "$(cut -d. -f2 <<<"$1")"; }

# The stamp of an older minor's build (`older_stamp VERSION`): its module's files, and the
# kube-controller-manager main where the module has one.
older_stamp() {
  local module; module="$here/kube-apiserver-$(minor_of "$1")"
  cat "$module/go.mod" "$module/go.sum" "$module/main.go" \
      $([[ -f "$module/kube-controller-manager/main.go" ]] && echo "$module/kube-controller-manager/main.go") \
    | sha256sum | cut -d' ' -f1
  printf '%s\n' "$1"
  go version
}

controllers_stamp() {
  cat "$here/kube-apiserver/go.mod" "$here/kube-apiserver/go.sum" \
      "$here/kube-apiserver/kube-controller-manager/main.go" "$here/kube-apiserver/kube-scheduler/main.go" \
    | sha256sum | cut -d' ' -f1
  printf '%s\n' "$k8s_version"
  go version
}

kwok_stamp() {
  cat "$here/kwok/go.mod" "$here/kwok/go.sum" "$here/kwok/main.go" | sha256sum | cut -d' ' -f1
  printf '%s\n' "$kwok_stages"
  go version
}

# Whether the controllers are wanted, and how many kwok nodes.
controllers_wanted() { [[ "${KUBECTL_INFORMER_CONTROLLERS:-1}" != 0 ]]; }
nodes() {
  local n=${KUBECTL_INFORMER_NODES:-3}
  [[ "$n" =~ ^[0-9]+$ ]] && ((n <= 250)) || die "KUBECTL_INFORMER_NODES=$n: a number of nodes from 0 to 250"
  printf '%s\n' "$n"
}
# What `up` starts, so that an `up` asking for something else restarts rather than reuses.
mode() {
  if controllers_wanted; then printf 'controllers, %s nodes serving port-forward' "$(nodes)"; else printf 'bare'; fi
  printf '%s\n' "${KUBECTL_INFORMER_FEATURE_GATES:+, feature gates $KUBECTL_INFORMER_FEATURE_GATES}"
}
# The current API server's feature gates: WatchList and the extra ones asked for (`up` and `pair`
# check them first: a die inside the command line's substitution would not stop the script).
feature_gates() {
  local gates=${KUBECTL_INFORMER_FEATURE_GATES:-}
  [[ -z "$gates" || "$gates" =~ ^[A-Za-z0-9]+=(true|false)(,[A-Za-z0-9]+=(true|false))*$ ]] \
    || die "KUBECTL_INFORMER_FEATURE_GATES=$gates: GATE=true|false, comma-separated"
  printf 'WatchList=true%s\n' "${gates:+,$gates}"
}

# Whether the older servers are wanted (see KUBECTL_INFORMER_OLD_SERVERS above).
old_wanted() { [[ "${KUBECTL_INFORMER_OLD_SERVERS:-1}" != 0 ]]; }

build() {
  command -v go >/dev/null || die "go is not on PATH; install Go 1.26 or newer"
  mkdir -p "$bin"
  build_current
  if controllers_wanted; then
    build_controllers
    if (($(nodes) > 0)); then build_kwok; fi
  fi
  if old_wanted; then
    local version
    for version in $old_k8s_version $minor_k8s_versions; do build_older "$version"; done
  fi
}

# Builds the Kubernetes command whose wrapper main is in module dir $1, at version $2
# (v1.MINOR.PATCH), into $3, with the version stamped in as upstream's build does (without it the
# binary reports v0.0.0 and clients' version checks go wrong).
build_k8s_main() {
  local dir=$1 version=$2 out=$3 pkg=${4:-.} minor
  minor=$(cut -d. -f2 <<<"$version")
  local ldflags="-s -w"
  ldflags+=" -X k8s.io/component-base/version.gitVersion=$version"
  ldflags+=" -X k8s.io/component-base/version.gitMajor=1"
  ldflags+=" -X k8s.io/component-base/version.gitMinor=$minor"
  ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -tags selinux,notest \
      -ldflags "$ldflags" -o "$out.new" "$pkg")
  mv "$out.new" "$out"
}

build_current() {
  local want; want=$(stamp)
  if [[ -x "$bin/kube-apiserver" && -x "$bin/etcd" && -f "$bin/stamp" ]] && [[ "$(cat "$bin/stamp")" == "$want" ]]; then
    return 0
  fi
  log "building etcd and kube-apiserver $k8s_version from their Go modules (a cold build takes several minutes)"
  (cd "$here/etcd" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "-s -w" -o "$bin/etcd.new" .)
  mv "$bin/etcd.new" "$bin/etcd"
  build_k8s_main "$here/kube-apiserver" "$k8s_version" "$bin/kube-apiserver"
  printf '%s\n' "$want" > "$bin/stamp"
  log "built $bin/etcd and $bin/kube-apiserver"
}

build_controllers() {
  local want; want=$(controllers_stamp)
  if [[ -x "$bin/kube-controller-manager" && -x "$bin/kube-scheduler" && -f "$bin/controllers.stamp" ]] \
      && [[ "$(cat "$bin/controllers.stamp")" == "$want" ]]; then
    return 0
  fi
  log "building kube-controller-manager and kube-scheduler $k8s_version from their Go module (a cold build takes several minutes)"
  build_k8s_main "$here/kube-apiserver" "$k8s_version" "$bin/kube-controller-manager" ./kube-controller-manager
  build_k8s_main "$here/kube-apiserver" "$k8s_version" "$bin/kube-scheduler" ./kube-scheduler
  printf '%s\n' "$want" > "$bin/controllers.stamp"
  log "built $bin/kube-controller-manager and $bin/kube-scheduler"
}

# kwok and its stages, taken from the module kwok's go.sum pins (so they match the binary).
build_kwok() {
  local want; want=$(kwok_stamp)
  if [[ -x "$bin/kwok" && -f "$bin/kwok-stages.yaml" && -f "$bin/kwok.stamp" ]] \
      && [[ "$(cat "$bin/kwok.stamp")" == "$want" ]]; then
    return 0
  fi
  log "building kwok $kwok_version from its Go module"
  (cd "$here/kwok" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "-s -w" -o "$bin/kwok.new" .)
  mv "$bin/kwok.new" "$bin/kwok"
  local dir stage
  dir=$(cd "$here/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  for stage in $kwok_stages; do
    printf -- '---\n'
    cat "$dir/kustomize/stage/$stage.yaml"
  done > "$bin/kwok-stages.yaml.new"
  mv "$bin/kwok-stages.yaml.new" "$bin/kwok-stages.yaml"
  printf '%s\n' "$want" > "$bin/kwok.stamp"
  log "built $bin/kwok"
}

# An older minor (`build_older VERSION`): kube-apiserver-1.MINOR, and kube-controller-manager-1.MINOR
# where its module has that main (a controller manager must not be newer than its API server),
# with a binary and a stamp of its own, so that each build is reused when only another changes.
build_older() {
  local version=$1 minor module want started=$SECONDS
  minor=$(minor_of "$version")
  module="$here/kube-apiserver-$minor"
  want=$(older_stamp "$version")
  local binaries=(kube-apiserver) name
  if [[ -f "$module/kube-controller-manager/main.go" ]]; then binaries+=(kube-controller-manager); fi
  local built=1
  for name in "${binaries[@]}"; do [[ -x "$bin/$name-$minor" ]] || built=0; done
  if ((built)) && [[ -f "$bin/kube-apiserver-$minor.stamp" ]] \
      && [[ "$(cat "$bin/kube-apiserver-$minor.stamp")" == "$want" ]]; then
    return 0
  fi
  log "building ${binaries[*]} $version from its Go module (a cold build takes several minutes)"
  build_k8s_main "$module" "$version" "$bin/kube-apiserver-$minor"
  if [[ ${#binaries[@]} == 2 ]]; then
    build_k8s_main "$module" "$version" "$bin/kube-controller-manager-$minor" ./kube-controller-manager
  fi
  printf '%s\n' "$want" > "$bin/kube-apiserver-$minor.stamp"
  log "built ${binaries[*]/%/-$minor} in $bin in $((SECONDS - started)) s"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

# A request to an API path of the current server as admin: `api PATH [CURL-ARGS...]` (curl's
# exit status says whether it answered 2xx).
api() {
  local path=$1
  shift
  curl -sf --max-time 5 --cacert "$run/pki/ca.crt" -H "Authorization: Bearer $(cat "$run/admin.token")" \
    "$@" "https://127.0.0.1:$(cat "$run/apiserver.port")$path"
}

ready() {
  [[ -f "$run/apiserver.port" ]] || return 1
  api /readyz >/dev/null 2>&1 || return 1
  [[ -f "$run/mode" ]] || return 0
  [[ "$(cat "$run/mode")" == bare ]] || controllers_ready
}

# A component's own health endpoint (served on loopback with the API server's certificate).
healthy() {
  [[ -f "$run/$1.port" ]] || return 1
  curl -sf --max-time 2 --cacert "$run/pki/ca.crt" "https://127.0.0.1:$(cat "$run/$1.port")/$2" >/dev/null 2>&1
}

# The controllers answer, and have acted: the ServiceAccount controller made `default`, and the
# kwok nodes are Ready without the not-ready taint (kwok's stage, then the node lifecycle
# controller's taint removal).
controllers_ready() {
  healthy kube-controller-manager healthz && healthy kube-scheduler readyz || return 1
  api /api/v1/namespaces/default/serviceaccounts/default >/dev/null 2>&1 || return 1
  local want; want=$(cat "$run/nodes")
  ((want == 0)) && return 0
  api "/api/v1/nodes?labelSelector=type%3Dkwok" 2>/dev/null | python3 -c '
import json, sys
nodes = json.load(sys.stdin)["items"]
ready = [n for n in nodes
         if any(c["type"] == "Ready" and c["status"] == "True" for c in n.get("status", {}).get("conditions", []))
         and not any(t["key"] == "node.kubernetes.io/not-ready" for t in n.get("spec", {}).get("taints") or [])]
sys.exit(0 if len(ready) == int(sys.argv[1]) else 1)' "$want"
}

certs() {
  local pki="$run/pki"
  mkdir -p "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=kubectl-informer-test-ca" \
    -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" \
    -keyout "$pki/apiserver.key" -out "$pki/apiserver.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\n' > "$pki/san.ext"
  openssl x509 -req -in "$pki/apiserver.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 3650 -extfile "$pki/san.ext" -out "$pki/apiserver.crt" 2>/dev/null
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
}

kubeconfig() {
  local port=$1 out=${2:-$run/kubeconfig} ca
  ca=$(base64 -w0 < "$run/pki/ca.crt")
  cat > "$out.new" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: informer-test
  cluster:
    server: https://127.0.0.1:$port
    certificate-authority-data: $ca
users:
- name: admin
  user:
    token: $(cat "$run/admin.token")
- name: nobody
  user:
    token: $(cat "$run/nobody.token")
contexts:
- name: admin
  context: {cluster: informer-test, user: admin, namespace: default}
- name: nobody
  context: {cluster: informer-test, user: nobody, namespace: default}
current-context: admin
EOF
  chmod 600 "$out.new"
  mv "$out.new" "$out"
}

# The command line of the current etcd, one argument a line (binary first): `etcd_args NAME
# DATA_DIR CLIENT_PORT PEER_PORT`. `up` and `pair` both start etcd from it.
etcd_args() {
  local name=$1 data=$2 client=$3 peer=$4
  printf '%s\n' "$bin/etcd" --name="$name" --data-dir="$data" --unsafe-no-fsync \
    --listen-client-urls="http://127.0.0.1:$client" --advertise-client-urls="http://127.0.0.1:$client" \
    --listen-peer-urls="http://127.0.0.1:$peer" --initial-advertise-peer-urls="http://127.0.0.1:$peer" \
    --initial-cluster="$name=http://127.0.0.1:$peer" \
    --watch-progress-notify-interval="${KUBECTL_INFORMER_ETCD_PROGRESS_NOTIFY:-5s}" \
    --quota-backend-bytes=8589934592 --log-level=warn
}

# The command line of the current kube-apiserver, one argument a line (binary first):
# `apiserver_args ETCD_PORT PORT CERT_DIR [BINARY FEATURE_GATES [ARG...]]`, with the certificates,
# tokens and service-account keys of $run/pki. `up` and `pair` start the current API server from
# it, start_minors the other supported minors (their own binary, their default feature gates: an
# empty FEATURE_GATES, and an etcd prefix of their own).
apiserver_args() {
  local etcd_port=$1 port=$2 cert_dir=$3 binary=${4:-$bin/kube-apiserver} gates
  if (($# >= 5)); then gates=$5; else gates=$(feature_gates); fi
  shift $(($# >= 5 ? 5 : $#))
  printf '%s\n' "$binary" --etcd-servers="http://127.0.0.1:$etcd_port" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$port" \
    --tls-cert-file="$run/pki/apiserver.crt" --tls-private-key-file="$run/pki/apiserver.key" \
    --cert-dir="$cert_dir" --token-auth-file="$run/tokens.csv" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$run/pki/sa.pub" --service-account-signing-key-file="$run/pki/sa.key" \
    --authorization-mode=RBAC --service-cluster-ip-range=10.0.0.0/24 \
    --disable-admission-plugins=ServiceAccount --allow-privileged=true \
    --endpoint-reconciler-type=none --profiling=false \
    ${gates:+--feature-gates="$gates"} \
    --watch-cache-sizes=podtemplates#0 \
    --etcd-compaction-interval="${KUBECTL_INFORMER_ETCD_COMPACTION_INTERVAL:-10s}" "$@"
}

# A private etcd + kube-apiserver pair, for a test that kills, stops and restarts them (the shared
# ones must never be: other tests run on them): `pair DIR` picks free loopback ports and writes
# DIR/etcd.args and DIR/apiserver.args (each the exact command line, one argument a line, data in
# DIR/etcd), DIR/kubeconfig (the running control plane's CA and tokens, so the same admin token
# works) and DIR/apiserver.port. It starts nothing: the test starts each command, and starts it
# again after a kill, as it is, so that a restart is the same server on the same port and data.
pair() {
  local dir=${1:-}
  [[ -n "$dir" ]] || die "usage: $0 pair DIR"
  feature_gates >/dev/null
  [[ -x "$bin/etcd" && -x "$bin/kube-apiserver" ]] \
    || die "no etcd or kube-apiserver in $bin: build them and start the control plane with \`$0 up\`"
  [[ -f "$run/pki/ca.crt" && -f "$run/tokens.csv" && -f "$run/admin.token" ]] \
    || die "no running control plane in $run (its CA and tokens are shared): start it with \`$0 up\`"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  local etcd_port peer_port api_port
  etcd_port=$(free_port); peer_port=$(free_port); api_port=$(free_port)
  etcd_args informer-pair "$dir/etcd" "$etcd_port" "$peer_port" > "$dir/etcd.args"
  apiserver_args "$etcd_port" "$api_port" "$dir/pki" > "$dir/apiserver.args"
  kubeconfig "$api_port" "$dir/kubeconfig"
  echo "$api_port" > "$dir/apiserver.port"
}

up() {
  feature_gates >/dev/null
  local want_mode; want_mode=$(mode)
  if ready && [[ "$(cat "$run/mode" 2>/dev/null)" != "$want_mode" ]]; then
    log "running with $(cat "$run/mode" 2>/dev/null || echo "an unknown set-up"), $want_mode wanted: restarting"
    down_quiet
  fi
  if ready; then
    if old_wanted; then
      old_ready || { down_old; build_older "$old_k8s_version"; start_old; }
      minors_ready || {
        down_minors
        for version in $minor_k8s_versions; do build_older "$version"; done
        start_minors
      }
    fi
    log "already running: export KUBECONFIG=$run/kubeconfig"
    return 0
  fi
  down_quiet
  build
  mkdir -p "$run"
  certs
  head -c 24 /dev/urandom | base64 | tr -dc 'a-zA-Z0-9' > "$run/admin.token"
  head -c 24 /dev/urandom | base64 | tr -dc 'a-zA-Z0-9' > "$run/nobody.token"
  printf '%s,admin,admin-uid,system:masters\n%s,nobody,nobody-uid\n' \
    "$(cat "$run/admin.token")" "$(cat "$run/nobody.token")" > "$run/tokens.csv"
  chmod 600 "$run/tokens.csv" "$run/admin.token" "$run/nobody.token"

  local etcd_port peer_port api_port
  etcd_port=$(free_port); peer_port=$(free_port); api_port=$(free_port)
  local cmd
  mapfile -t cmd < <(etcd_args informer-test "$run/etcd" "$etcd_port" "$peer_port")
  "${cmd[@]}" >"$run/etcd.log" 2>&1 &
  echo $! > "$run/etcd.pid"

  mapfile -t cmd < <(apiserver_args "$etcd_port" "$api_port" "$run/pki")
  "${cmd[@]}" >"$run/apiserver.log" 2>&1 &
  echo $! > "$run/apiserver.pid"
  echo "$api_port" > "$run/apiserver.port"
  kubeconfig "$api_port"

  local deadline=$((SECONDS + 120))
  until ready; do
    alive "$run/etcd.pid" || die "etcd exited; its log: $run/etcd.log ($(tail -n 3 "$run/etcd.log" | tr '\n' ' '))"
    alive "$run/apiserver.pid" || die "kube-apiserver exited; its log: $run/apiserver.log ($(tail -n 3 "$run/apiserver.log" | tr '\n' ' '))"
    ((SECONDS < deadline)) || die "kube-apiserver not ready after 120s; its log: $run/apiserver.log"
    sleep 0.5
  done
  log "kube-apiserver $k8s_version ready on https://127.0.0.1:$api_port (etcd on 127.0.0.1:$etcd_port)"
  if controllers_wanted; then start_controllers; fi
  echo "$want_mode" > "$run/mode"
  log "export KUBECONFIG=$run/kubeconfig   # contexts: admin (current), nobody (no RBAC grants)"
  if old_wanted; then start_old; start_minors; fi
}

# Dies naming the component whose process is gone, with its last log lines.
check_alive() {
  local name=$1
  alive "$run/$name.pid" || die "$name exited (\`$0 down\` stops the others); its log: $run/$name.log; last lines:
$(tail -n 20 "$run/$name.log")"
}

# kube-controller-manager, kube-scheduler and kwok with its nodes, against the running API server.
start_controllers() {
  local n kcm_port sched_port
  n=$(nodes)
  kcm_port=$(free_port); sched_port=$(free_port)
  echo "$kcm_port" > "$run/kube-controller-manager.port"
  echo "$sched_port" > "$run/kube-scheduler.port"
  echo "$n" > "$run/nodes"
  # Every component: loopback only, the API server's certificate, the admin kubeconfig for its
  # own and its delegated authentication, no leader election (one instance; no Lease writes).
  local common=(--kubeconfig="$run/kubeconfig" --authentication-kubeconfig="$run/kubeconfig"
    --authorization-kubeconfig="$run/kubeconfig" --authentication-skip-lookup
    --bind-address=127.0.0.1 --tls-cert-file="$run/pki/apiserver.crt"
    --tls-private-key-file="$run/pki/apiserver.key" --leader-elect=false)
  # Every controller but root-ca-cert-publisher, whose ConfigMap in each namespace would be an
  # object the tests did not write, and replicationcontroller, which tests/suite/proxy.rs runs in a
  # kube-controller-manager of its own behind the proxy's faults (it alone must react to the
  # ReplicationControllers they write); each controller with its own service account, as kubeadm
  # runs it.
  "$bin/kube-controller-manager" "${common[@]}" --secure-port="$kcm_port" \
    --use-service-account-credentials=true --service-account-private-key-file="$run/pki/sa.key" \
    --root-ca-file="$run/pki/ca.crt" --controllers='*,-root-ca-cert-publisher,-replicationcontroller' --profiling=false \
    >"$run/kube-controller-manager.log" 2>&1 &
  echo $! > "$run/kube-controller-manager.pid"
  "$bin/kube-scheduler" "${common[@]}" --secure-port="$sched_port" --profiling=false \
    >"$run/kube-scheduler.log" 2>&1 &
  echo $! > "$run/kube-scheduler.pid"
  local components=(kube-controller-manager kube-scheduler)
  if ((n > 0)); then
    install_kwok_crds
    local kwok_port; kwok_port=$(free_port)
    echo "$kwok_port" > "$run/kwok.port"
    # KWOK_WORKDIR keeps a developer's ~/.kwok/kwok.yaml out; node leases keep the nodes alive for
    # the node lifecycle controller; pod IPs from a range apart from the service range. Its
    # kubelet API on loopback with the API server's certificate (the API server, given no
    # --kubelet-certificate-authority, does not verify it); PortForward objects read from the API.
    KWOK_WORKDIR="$run/kwok" "$bin/kwok" --kubeconfig="$run/kubeconfig" --config="$bin/kwok-stages.yaml" \
      --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
      --node-lease-duration-seconds=40 --cidr=10.244.0.0/16 \
      --server-address="127.0.0.1:$kwok_port" --tls-cert-file="$run/pki/apiserver.crt" \
      --tls-private-key-file="$run/pki/apiserver.key" --enable-crds=PortForward >"$run/kwok.log" 2>&1 &
    echo $! > "$run/kwok.pid"
    components+=(kwok)
    local i
    for ((i = 0; i < n; i++)); do
      node_manifest "$i" "$kwok_port" | api /api/v1/nodes -X POST -H 'Content-Type: application/json' \
        --data-binary @- >/dev/null \
        || die "cannot create node kwok-node-$i; the API server's log: $run/apiserver.log"
    done
  fi
  local deadline=$((SECONDS + 120)) name
  until controllers_ready; do
    for name in etcd apiserver "${components[@]}"; do check_alive "$name"; done
    ((SECONDS < deadline)) || die "the controllers did not come up within 120s (kube-controller-manager healthy and the default ServiceAccount made, kube-scheduler ready, $n kwok nodes Ready); logs: $run/kube-controller-manager.log, $run/kube-scheduler.log, $run/kwok.log"
    sleep 0.5
  done
  log "kube-controller-manager and kube-scheduler $k8s_version ready (ports $kcm_port, $sched_port); kwok $kwok_version: $n nodes Ready"
}

# A fake node for kwok (its annotation), with a pod CIDR, a TEST-NET address and room for Pods.
# Its Hostname address and kubelet port lead the API server to kwok's kubelet API (`node_manifest
# I KWOK_PORT`): the API server picks the first address of --kubelet-preferred-address-types
# (Hostname first by default) and refuses no loopback address there.
node_manifest() {
  local i=$1 port=$2
  cat <<JSON
{"apiVersion":"v1","kind":"Node","metadata":{"name":"kwok-node-$i",
 "annotations":{"kwok.x-k8s.io/node":"fake","node.alpha.kubernetes.io/ttl":"0"},
 "labels":{"type":"kwok","kubernetes.io/hostname":"kwok-node-$i","kubernetes.io/os":"linux",
  "kubernetes.io/arch":"amd64","kubernetes.io/role":"agent","node-role.kubernetes.io/agent":""}},
 "spec":{"podCIDR":"10.244.$i.0/24","podCIDRs":["10.244.$i.0/24"]},
 "status":{"addresses":[{"type":"InternalIP","address":"192.0.2.$((i + 1))"},{"type":"Hostname","address":"127.0.0.1"}],
  "daemonEndpoints":{"kubeletEndpoint":{"Port":$port}},
  "allocatable":{"cpu":"32","memory":"256Gi","pods":"110"},"capacity":{"cpu":"32","memory":"256Gi","pods":"110"},
  "nodeInfo":{"architecture":"amd64","operatingSystem":"linux"}}}
JSON
}

# kwok's PortForward CRD, from the module kwok's go.sum pins (so it matches the binary), installed
# and established before kwok starts to watch it.
install_kwok_crds() {
  local dir
  dir=$(cd "$here/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok) \
    || die "cannot find the module of sigs.k8s.io/kwok (\`$0 build\` downloads it)"
  api /apis/apiextensions.k8s.io/v1/customresourcedefinitions -X POST -H 'Content-Type: application/yaml' \
    --data-binary @"$dir/kustomize/crd/bases/kwok.x-k8s.io_portforwards.yaml" >/dev/null \
    || die "cannot create kwok's PortForward CRD; the API server's log: $run/apiserver.log"
  local deadline=$((SECONDS + 30))
  until api /apis/kwok.x-k8s.io/v1alpha1 2>/dev/null | grep -q '"portforwards"'; do
    ((SECONDS < deadline)) || die "kwok's PortForward CRD not served within 30s; the API server's log: $run/apiserver.log"
    sleep 0.2
  done
}

# The older servers: kube-apiserver v1.29 twice, on their own etcd (run/old), sharing its data as
# two members of one HA control plane do. The first serves aggregated discovery as v2beta1
# (run/old/kubeconfig); the second has AggregatedDiscoveryEndpoint off and serves only legacy
# discovery (run/old/legacy.kubeconfig). Same CA, certificates and tokens as the current server.
start_old() {
  local old="$run/old"
  mkdir -p "$old"
  local etcd_port peer_port api_port legacy_port
  etcd_port=$(free_port); peer_port=$(free_port); api_port=$(free_port); legacy_port=$(free_port)
  "$bin/etcd" --name=informer-test-old --data-dir="$old/etcd" --unsafe-no-fsync \
    --listen-client-urls="http://127.0.0.1:$etcd_port" --advertise-client-urls="http://127.0.0.1:$etcd_port" \
    --listen-peer-urls="http://127.0.0.1:$peer_port" --initial-advertise-peer-urls="http://127.0.0.1:$peer_port" \
    --initial-cluster="informer-test-old=http://127.0.0.1:$peer_port" \
    --log-level=warn >"$old/etcd.log" 2>&1 &
  echo $! > "$old/etcd.pid"
  local name port gates
  for name in apiserver legacy; do
    if [[ $name == apiserver ]]; then port=$api_port gates=""; else port=$legacy_port gates=AggregatedDiscoveryEndpoint=false; fi
    "$bin/kube-apiserver-1.29" --etcd-servers="http://127.0.0.1:$etcd_port" \
      --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$port" \
      --tls-cert-file="$run/pki/apiserver.crt" --tls-private-key-file="$run/pki/apiserver.key" \
      --cert-dir="$old/pki-$name" --token-auth-file="$run/tokens.csv" \
      --service-account-issuer=https://kubernetes.default.svc.cluster.local \
      --service-account-key-file="$run/pki/sa.pub" --service-account-signing-key-file="$run/pki/sa.key" \
      --authorization-mode=RBAC --service-cluster-ip-range=10.0.0.0/24 \
      --disable-admission-plugins=ServiceAccount --allow-privileged=true \
      --endpoint-reconciler-type=none --profiling=false \
      ${gates:+--feature-gates="$gates"} \
      >"$old/$name.log" 2>&1 &
    echo $! > "$old/$name.pid"
    echo "$port" > "$old/$name.port"
  done
  kubeconfig "$api_port" "$old/kubeconfig"
  kubeconfig "$legacy_port" "$old/legacy.kubeconfig"

  local deadline=$((SECONDS + 120))
  until old_ready; do
    for name in etcd apiserver legacy; do
      alive "$old/$name.pid" || die "the v1.29 $name exited; its log: $old/$name.log ($(tail -n 3 "$old/$name.log" | tr '\n' ' '))"
    done
    ((SECONDS < deadline)) || die "kube-apiserver $old_k8s_version not ready after 120s; its logs: $old/apiserver.log, $old/legacy.log"
    sleep 0.5
  done
  log "kube-apiserver $old_k8s_version ready on https://127.0.0.1:$api_port (aggregated discovery v2beta1: $old/kubeconfig)"
  log "kube-apiserver $old_k8s_version ready on https://127.0.0.1:$legacy_port (legacy discovery only: $old/legacy.kubeconfig)"
}

old_ready() {
  local name
  for name in apiserver legacy; do
    [[ -f "$run/old/$name.port" ]] || return 1
    curl -sf --max-time 2 --cacert "$run/pki/ca.crt" -H "Authorization: Bearer $(cat "$run/admin.token")" \
      "https://127.0.0.1:$(cat "$run/old/$name.port")/readyz" >/dev/null 2>&1 || return 1
  done
}

# The other supported minors (minor_k8s_versions): one kube-apiserver each, all on one etcd of
# their own (run/minors/etcd, the current etcd's command line: progress notifications, so that
# bookmarks advance), each under an etcd prefix of its own (/registry-1.MINOR), so that they share
# only etcd's revisions (resourceVersions jump by the other's writes; either one's compaction, every
# 10 s, compacts both: what a 410 needs). Each is the current server's command line with its own
# binary and its default feature gates, so that it is tested as it ships; kubeconfig
# run/minors/1.MINOR/kubeconfig, with the current server's CA, certificates and tokens. Their
# controllers are not started here: a test starts the kube-controller-manager of the same minor
# (bin/kube-controller-manager-1.MINOR) with the controllers it needs.
start_minors() {
  local dir="$run/minors" etcd_port peer_port cmd
  mkdir -p "$dir"
  etcd_port=$(free_port); peer_port=$(free_port)
  mapfile -t cmd < <(etcd_args informer-test-minors "$dir/etcd" "$etcd_port" "$peer_port")
  "${cmd[@]}" >"$dir/etcd.log" 2>&1 &
  echo $! > "$dir/etcd.pid"
  local version minor port
  for version in $minor_k8s_versions; do
    minor=$(minor_of "$version")
    mkdir -p "$dir/$minor"
    port=$(free_port)
    mapfile -t cmd < <(apiserver_args "$etcd_port" "$port" "$dir/$minor/pki" "$bin/kube-apiserver-$minor" "" \
      --etcd-prefix="/registry-$minor")
    "${cmd[@]}" >"$dir/$minor/apiserver.log" 2>&1 &
    echo $! > "$dir/$minor/apiserver.pid"
    echo "$port" > "$dir/$minor/apiserver.port"
    kubeconfig "$port" "$dir/$minor/kubeconfig"
  done
  local deadline=$((SECONDS + 120)) log
  until minors_ready; do
    alive "$dir/etcd.pid" || die "the supported minors' etcd exited; its log: $dir/etcd.log ($(tail -n 3 "$dir/etcd.log" | tr '\n' ' '))"
    for version in $minor_k8s_versions; do
      log="$dir/$(minor_of "$version")/apiserver.log"
      alive "$dir/$(minor_of "$version")/apiserver.pid" || die "kube-apiserver $version exited; its log: $log ($(tail -n 3 "$log" | tr '\n' ' '))"
    done
    ((SECONDS < deadline)) || die "the supported minors' API servers not ready after 120s; their logs: $dir/1.*/apiserver.log"
    sleep 0.5
  done
  for version in $minor_k8s_versions; do
    minor=$(minor_of "$version")
    log "kube-apiserver $version ready on https://127.0.0.1:$(cat "$dir/$minor/apiserver.port") (etcd prefix /registry-$minor: $dir/$minor/kubeconfig)"
  done
}

minors_ready() {
  local version port
  for version in $minor_k8s_versions; do
    port="$run/minors/$(minor_of "$version")/apiserver.port"
    [[ -f "$port" ]] || return 1
    curl -sf --max-time 2 --cacert "$run/pki/ca.crt" -H "Authorization: Bearer $(cat "$run/admin.token")" \
      "https://127.0.0.1:$(cat "$port")/readyz" >/dev/null 2>&1 || return 1
  done
}

down_minors() {
  local pid
  for pid in "$run"/minors/1.*/apiserver.pid; do stop_pid "$pid"; done
  stop_pid "$run/minors/etcd.pid"
  rm -rf "$run/minors"
}

stop_pid() {
  local f=$1
  if alive "$f"; then
    local pid; pid=$(cat "$f")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
}

down_old() {
  stop_pid "$run/old/apiserver.pid"
  stop_pid "$run/old/legacy.pid"
  stop_pid "$run/old/etcd.pid"
  rm -rf "$run/old"
}

down_quiet() {
  [[ -d "$run" ]] || return 0
  down_old
  down_minors
  stop_pid "$run/kwok.pid"
  stop_pid "$run/kube-scheduler.pid"
  stop_pid "$run/kube-controller-manager.pid"
  stop_pid "$run/apiserver.pid"
  stop_pid "$run/etcd.pid"
  rm -rf "$run"
}

case "${1:-}" in
  build) build ;;
  up) up ;;
  pair) pair "${2:-}" ;;
  down) down_quiet; log "stopped; removed $run" ;;
  status) ready && { ! old_wanted || { old_ready && minors_ready; }; } ;;
  *) die "usage: $0 build|up|down|status|pair DIR" ;;
esac
