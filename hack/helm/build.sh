#!/usr/bin/env bash
# Builds helm (helm.sh/helm/v3/cmd/helm, pinned by go.mod and go.sum here) from the Go module proxy into a cache
# outside the repository and prints the binary's path (its last line of output). The cache directory is named
# after the pin, so an unchanged pin reuses what is there. Override the cache root with JOULIE_CACHE (default
# ~/.cache/joulie). Needs Go (1.26) and the Go module proxy: helm's release downloads are not reachable here.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="$(awk '$1 == "require" && $2 == "helm.sh/helm/v3" { print $3; exit }' "$here/go.mod")"
pin="$(cat "$here/go.mod" "$here/go.sum" "$0" | sha256sum | cut -c1-10)"
out="${JOULIE_CACHE:-$HOME/.cache/joulie}/helm-${version}-${pin}"
if [ -x "$out/helm" ]; then
  echo "helm $version (cached)" >&2
  echo "$out/helm"
  exit 0
fi
command -v go >/dev/null || { echo "go not found: helm is built from the Go module proxy (Go 1.26)" >&2; exit 1; }
mkdir -p "$out.tmp"
start=$SECONDS
echo "building helm $version into $out" >&2
(cd "$here" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath \
  -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$version" -o "$out.tmp/helm" helm.sh/helm/v3/cmd/helm)
rm -rf "$out" && mv "$out.tmp" "$out"
echo "built in $((SECONDS - start)) s" >&2
echo "$out/helm"
