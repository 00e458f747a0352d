#!/usr/bin/env bash
# Builds the helm binary the chart tests run, from the helm.sh/helm/v3 Go module at the
# version pinned in go.mod beside this script (no prebuilt download: PyPI has no package
# that ships a Linux helm binary, the Go module proxy has helm's source).
#
# Usage: build.sh [--print-path | --check]
#   (no option)    build if missing, then print the binary's path on stdout
#   --print-path   print where the binary is (or will be) and exit
#   --check        exit 0 if it is built, 1 otherwise
# Cache: ${TFCLUSTER_HELM_CACHE:-$HOME/.cache/tfcluster/helm-<version>}/helm
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="$(sed -nE 's#^require helm\.sh/helm/v3 (v[^ ]+)$#\1#p' "$here/go.mod")"
[[ -n "$version" ]] || { echo "[helm] cannot read the helm version from $here/go.mod" >&2; exit 2; }
cache="${TFCLUSTER_HELM_CACHE:-${HOME:-/tmp}/.cache/tfcluster/helm-$version}"
binary="$cache/helm"

case "${1:-}" in
    --print-path) echo "$binary"; exit 0 ;;
    --check) [[ -x "$binary" ]]; exit $? ;;
    "") ;;
    *) echo "[helm] unknown option '$1'" >&2; exit 2 ;;
esac

if [[ -x "$binary" ]]; then
    echo "$binary"
    exit 0
fi
command -v go >/dev/null 2>&1 || { echo "[helm] the Go toolchain ('go') is not on PATH: cannot build helm $version" >&2; exit 2; }
echo "[helm] building helm $version -> $binary ($(go version | cut -d' ' -f3))" >&2
mkdir -p "$cache"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(
    cd "$here"
    CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false" go build -trimpath \
        -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$version" \
        -o "$tmp/helm" helm.sh/helm/v3/cmd/helm
) >&2
mv "$tmp/helm" "$binary"
echo "$binary"
