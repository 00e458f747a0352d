#!/usr/bin/env bash
# Builds the binaries of the real Kubernetes control plane the k8s tests start:
# kube-apiserver, kube-controller-manager, kube-scheduler and kube-proxy (from the
# k8s.io/kubernetes Go module) and etcd (from go.etcd.io/etcd/server/v3), plus kubectl
# (same module and release) for the tests that read what a user sees, and CoreDNS (from
# github.com/coredns/coredns, with only the plugins gomod/coredns/main.go imports) for the
# e2e cluster's DNS, at the versions pinned by the go.mod files under
# tests/support/k8s_control_plane/gomod/. No Docker, no kind: only Go and its module proxy.
#
# Usage: build.sh [--print-dir | --print-versions | --check]
#   (no option)        build what is missing, then print the binary folder on stdout
#   --print-dir        print the binary folder on stdout and exit (builds nothing)
#   --print-versions   print 'kubernetes=<version> etcd=<version> coredns=<version>' and exit
#   --check       exit 0 if every binary is in the cache, 1 otherwise (builds nothing)
#
# The binaries are cached outside the repository, keyed by version:
#   ${TFCLUSTER_K8S_CACHE:-$HOME/.cache/tfcluster/k8s-<kubernetes>-etcd-<etcd>}
# (CoreDNS in its own folder, .../coredns-<version>/, whose path the last line of the
# build's stdout does not carry: the binary is found as ../coredns-<version>/coredns
# from the main folder) so a second run only checks that the files are there. Progress goes to stderr;
# stdout carries only the folder. Parallelism: TFCLUSTER_K8S_BUILD_JOBS (default: nproc, <= 4).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
k8s_mod="$here/gomod/kubernetes"
etcd_mod="$here/gomod/etcd"
coredns_mod="$here/gomod/coredns"

log() { printf '[k8s-testenv] %s\n' "$*" >&2; }
die() {
    printf '[k8s-testenv] error: %s\n' "$*" >&2
    exit 2
}

# The pinned versions, read from the go.mod files (the single source of truth).
k8s_version="$(sed -nE 's#^require k8s\.io/kubernetes (v[^ ]+)$#\1#p' "$k8s_mod/go.mod")"
etcd_version="$(sed -nE 's#^require go\.etcd\.io/etcd/server/v3 (v[^ ]+)$#\1#p' "$etcd_mod/go.mod")"
coredns_version="$(sed -nE 's#^require github\.com/coredns/coredns (v[^ ]+)$#\1#p' "$coredns_mod/go.mod")"
[[ -n "$k8s_version" && -n "$etcd_version" && -n "$coredns_version" ]] || die "cannot read the pinned versions from $here/gomod/*/go.mod"
# kube-router's network-policy controller enforces NetworkPolicies in the e2e cluster (its
# firewall only: no routing, no service proxy). Built with `go install module@version`, which
# checks the module's own go.sum against the checksum database.
kube_router_module="github.com/cloudnativelabs/kube-router/v2"
kube_router_version="v2.1.0"

cache="${TFCLUSTER_K8S_CACHE:-${HOME:-/tmp}/.cache/tfcluster/k8s-${k8s_version}-etcd-${etcd_version}}"
coredns_dir="$(dirname "$cache")/coredns-${coredns_version}"
kube_router_dir="$(dirname "$cache")/kube-router-${kube_router_version}"
binaries=(kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubectl etcd)

all_present() {
    local b
    for b in "${binaries[@]}"; do
        [[ -x "$cache/$b" ]] || return 1
    done
    [[ -x "$coredns_dir/coredns" ]] && { [[ -x "$kube_router_dir/kube-router" ]] || [[ -e "$kube_router_dir/.unbuildable" ]]; }
}

case "${1:-}" in
    --print-dir)
        echo "$cache"
        exit 0
        ;;
    --print-versions)
        echo "kubernetes=$k8s_version etcd=$etcd_version coredns=$coredns_version kube-router=$kube_router_version"
        exit 0
        ;;
    --check)
        all_present
        exit $?
        ;;
    "") ;;
    *) die "unknown option '$1' (use --print-dir, --print-versions or --check)" ;;
esac

if all_present; then
    log "cached: kubernetes $k8s_version, etcd $etcd_version in $cache, coredns $coredns_version"
    echo "$cache"
    exit 0
fi

command -v go >/dev/null 2>&1 ||
    die "the Go toolchain ('go') is not on PATH; install Go >= 1.25 (https://go.dev/dl/) to build Kubernetes $k8s_version, etcd $etcd_version and CoreDNS $coredns_version"

jobs="${TFCLUSTER_K8S_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"
((jobs > 4)) && jobs=4
export CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false"
log "kubernetes $k8s_version, etcd $etcd_version -> $cache ($(go version | cut -d' ' -f3), -p $jobs)"

download() { # $1: module dir
    log "downloading Go modules for $(basename "$1") (GOPROXY=$(go env GOPROXY))"
    local out
    if ! out="$(cd "$1" && go mod download 2>&1)"; then
        printf '%s\n' "$out" | tail -n 5 >&2
        die "cannot download the Go modules of $1 from the module proxy ($(go env GOPROXY)); is it reachable (network, GOPROXY)?"
    fi
}

mkdir -p "$cache"
tmp="$(mktemp -d "$cache/.build.XXXXXX")" # binaries appear in $cache only when complete
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS

ver_pkg=k8s.io/component-base/version
minor="${k8s_version#v1.}"
minor="${minor%%.*}"
ldflags="-s -w -X $ver_pkg.gitVersion=$k8s_version -X $ver_pkg.gitMajor=1 -X $ver_pkg.gitMinor=$minor"
ldflags+=" -X $ver_pkg.gitTreeState=clean -X $ver_pkg.buildDate=1970-01-01T00:00:00Z"

if [[ ! -x "$cache/kube-apiserver" || ! -x "$cache/kube-controller-manager" ]]; then
    download "$k8s_mod"
    log "building kube-apiserver and kube-controller-manager (cold: about 4 min on 2 cores)"
    (cd "$k8s_mod" && go build -p "$jobs" -trimpath -ldflags="$ldflags" -o "$tmp/" \
        k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager)
    mv -f "$tmp/kube-apiserver" "$tmp/kube-controller-manager" "$cache/"
    log "built kube-apiserver and kube-controller-manager ($((SECONDS - start)) s)"
fi

if [[ ! -x "$cache/kube-scheduler" || ! -x "$cache/kube-proxy" ]]; then
    download "$k8s_mod"
    log "building kube-scheduler and kube-proxy (cold: about 3 min on 2 cores)"
    (cd "$k8s_mod" && go build -p "$jobs" -trimpath -ldflags="$ldflags" -o "$tmp/" \
        k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-proxy)
    mv -f "$tmp/kube-scheduler" "$tmp/kube-proxy" "$cache/"
    log "built kube-scheduler and kube-proxy ($((SECONDS - start)) s)"
fi

if [[ ! -x "$cache/kubectl" ]]; then
    download "$k8s_mod"
    log "building kubectl (cold: about 2 min on 2 cores)"
    (cd "$k8s_mod" && go build -p "$jobs" -trimpath -ldflags="$ldflags" -o "$tmp/kubectl" \
        k8s.io/kubernetes/cmd/kubectl)
    mv -f "$tmp/kubectl" "$cache/kubectl"
    log "built kubectl ($((SECONDS - start)) s)"
fi

if [[ ! -x "$cache/etcd" ]]; then
    download "$etcd_mod"
    log "building etcd"
    (cd "$etcd_mod" && go build -p "$jobs" -trimpath -ldflags="-s -w" -o "$tmp/etcd" go.etcd.io/etcd/server/v3)
    mv -f "$tmp/etcd" "$cache/etcd"
    log "built etcd ($((SECONDS - start)) s)"
fi

if [[ ! -x "$coredns_dir/coredns" ]]; then
    download "$coredns_mod"
    log "building coredns $coredns_version (cold: about 2 min on 2 cores)"
    mkdir -p "$coredns_dir"
    (cd "$coredns_mod" && go build -p "$jobs" -trimpath -ldflags="-s -w" -o "$tmp/coredns" .)
    mv -f "$tmp/coredns" "$coredns_dir/coredns"
    log "built coredns ($((SECONDS - start)) s)"
fi

if [[ ! -x "$kube_router_dir/kube-router" && ! -e "$kube_router_dir/.unbuildable" ]]; then
    log "building kube-router $kube_router_version (cold: about 5 min on 2 cores)"
    mkdir -p "$kube_router_dir" "$tmp/kube-router"
    if out="$(GOFLAGS=-buildvcs=false GOBIN="$tmp/kube-router" go install -p "$jobs" -trimpath \
        -ldflags="-s -w" "$kube_router_module/cmd/kube-router@$kube_router_version" 2>&1)"; then
        mv -f "$tmp/kube-router/kube-router" "$kube_router_dir/kube-router"
        rm -f "$kube_router_dir/.unbuildable"
        log "built kube-router ($((SECONDS - start)) s)"
    else
        # Only the e2e network-policy scenario needs it: it skips, saying why; the rest runs.
        printf '%s\n' "$out" | tail -n 5 >&2
        printf '%s\n' "$out" | tail -n 5 >"$kube_router_dir/.unbuildable"
        log "warning: cannot build $kube_router_module@$kube_router_version from the module proxy ($(go env GOPROXY)); NetworkPolicies will not be enforced in the e2e cluster (rm $kube_router_dir/.unbuildable to retry)"
    fi
fi

all_present || die "the build finished but binaries are missing in $cache"
log "done in $((SECONDS - start)) s: $cache"
echo "$cache"
