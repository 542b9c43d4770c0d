#!/usr/bin/env bash
# The validators the test suite runs on the project's release files, and the test operator,
# each built from its Go module into target/tools/bin (cached there with a stamp, rebuilt when
# its version changes):
#
#   actionlint              github.com/rhysd/actionlint: the release workflow and the README's
#                           CI example (tests/suite/release.rs)
#   validate-krew-manifest  sigs.k8s.io/krew: the plugin manifest, as krew-index's CI runs it,
#   krew                    installing each platform's archive with `kubectl krew install`
#   kubectl                 k8s.io/kubectl at the control plane's minor (tests/tools/kubectl),
#                           which krew's validator runs
#   promtool                `promtool check metrics` on bench's Prometheus exports
#                           (tests/suite/bench_cli.rs, bench_live.rs, bench_react.rs): from the
#                           distribution's prometheus package where there is apt (see
#                           install_promtool), else from github.com/prometheus/prometheus
#   test-operator           tests/operator: a kubebuilder-style operator on controller-runtime
#                           (secure metrics, leader election, a `configmap` controller) whose
#                           replicas tests/operator/run.sh starts for the Pods of a Deployment
#
#   tests/tools/tools.sh build   build what is missing or stale (cold, after the control plane's
#                                builds as tests/run.sh runs it: 2.8 minutes on 2 vCPU, 2026-12-02)
#   tests/tools/tools.sh bin     print the directory the tools are in
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="$root/target/tools/bin"

actionlint_version=v1.7.12
# The newest krew the Go module proxy serves here; validate-krew-manifest's rules are the same in
# v0.4.5, the version krew-index's CI pins.
krew_version=v0.4.3
# Where promtool is built (no apt; see install_promtool).
prometheus_version=v0.316.0

log() { printf 'tools: %s\n' "$*" >&2; }
die() { printf 'tools: error: %s\n' "$*" >&2; exit 2; }

# `fresh NAME STAMP`: whether NAME was built from exactly STAMP.
fresh() { [[ -x "$bin/$1" && -f "$bin/$1.stamp" && "$(cat "$bin/$1.stamp")" == "$2" ]]; }

# `as_root CMD...`: CMD as root (through sudo unless this is root already).
as_root() { if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi; }

# promtool. Built from its Go module it is the slowest of the tools by far (the module pulls in
# every service discovery's SDK: several minutes of downloads and compiling on a cold machine);
# Debian and Ubuntu ship it prebuilt in their prometheus package, which is unpacked here
# (`apt-get download` and `dpkg-deb -x`, promtool only: nothing is installed and no Prometheus
# server starts). Its `check metrics` is the same check either way: the exposition format's
# parser and client_golang's promlint. Without apt, it is built from the module.
install_promtool() {
  if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
    install promtool "$prometheus_version $(go version)" \
      "github.com/prometheus/prometheus/cmd/promtool@$prometheus_version"
    return 0
  fi
  # The version apt would install; empty when the package lists name none.
  candidate() { apt-cache policy prometheus 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" {print $2}'; }
  local version; version=$(candidate)
  if [[ -z "$version" ]]; then
    log "the package lists name no prometheus package: apt-get update"
    as_root apt-get update -qq || die "apt-get update failed (promtool comes from the prometheus package)"
    version=$(candidate)
    [[ -n "$version" ]] \
      || die "no prometheus package in this machine's apt sources (promtool comes from it): enable Debian's main or Ubuntu's universe"
  fi
  fresh promtool "prometheus package $version" && return 0
  log "unpacking promtool from the prometheus package $version"
  local tmp; tmp=$(mktemp -d)
  # apt's download user cannot write into a private directory: apt says so and downloads as
  # this user, which is what is wanted here.
  if ! (cd "$tmp" && apt-get download -qq "prometheus=$version" 2>"$tmp/apt.log"); then
    cat "$tmp/apt.log" >&2; rm -rf "$tmp"
    die "apt-get download prometheus=$version failed (see above)"
  fi
  dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/unpacked"
  mv "$tmp/unpacked/usr/bin/promtool" "$bin/promtool"
  rm -rf "$tmp"
  "$bin/promtool" --version >/dev/null || die "the unpacked promtool does not run"
  printf '%s\n' "prometheus package $version" > "$bin/promtool.stamp"
}

# `install NAME STAMP PACKAGE@VERSION`: go install into $bin, stamped.
install() {
  local name=$1 want=$2 pkg=$3
  fresh "$name" "$want" && return 0
  log "building $name from $pkg"
  GOBIN="$bin" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" "$pkg"
  printf '%s\n' "$want" > "$bin/$name.stamp"
}

build() {
  command -v go >/dev/null || die "go is not on PATH; install Go 1.26 or newer"
  mkdir -p "$bin"
  local gov; gov=$(go version)
  install actionlint "$actionlint_version $gov" "github.com/rhysd/actionlint/cmd/actionlint@$actionlint_version"
  install krew "$krew_version $gov" "sigs.k8s.io/krew/cmd/krew@$krew_version"
  # kubectl runs krew as its plugin kubectl-krew.
  ln -sf krew "$bin/kubectl-krew"
  install validate-krew-manifest "$krew_version $gov" "sigs.k8s.io/krew/cmd/validate-krew-manifest@$krew_version"
  install_promtool
  # kubectl's main lives in k8s.io/kubernetes, which `go install` refuses (replace directives):
  # a wrapper module builds it from k8s.io/kubectl.
  local want; want="$(cat "$here/kubectl/go.mod" "$here/kubectl/go.sum" "$here/kubectl/main.go" | sha256sum | cut -d' ' -f1) $gov"
  if ! fresh kubectl "$want"; then
    log "building kubectl from tests/tools/kubectl (k8s.io/kubectl)"
    local version ldflags="-s -w"
    version=$(cd "$here/kubectl" && go list -m -f '{{.Version}}' k8s.io/kubectl)
    version="v1.${version#v0.}"
    for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
      ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$(cut -d. -f2 <<<"$version")"
    done
    (cd "$here/kubectl" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$bin/kubectl.new" .)
    mv "$bin/kubectl.new" "$bin/kubectl"
    printf '%s\n' "$want" > "$bin/kubectl.stamp"
  fi
  want="$(cat "$root/tests/operator/go.mod" "$root/tests/operator/go.sum" "$root/tests/operator/main.go" | sha256sum | cut -d' ' -f1) $gov"
  if ! fresh test-operator "$want"; then
    log "building test-operator from tests/operator (sigs.k8s.io/controller-runtime)"
    (cd "$root/tests/operator" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "-s -w" -o "$bin/test-operator.new" .)
    mv "$bin/test-operator.new" "$bin/test-operator"
    printf '%s\n' "$want" > "$bin/test-operator.stamp"
  fi
}

case "${1:-}" in
  build) build ;;
  bin) printf '%s\n' "$bin" ;;
  *) die "usage: tests/tools/tools.sh build|bin" ;;
esac
