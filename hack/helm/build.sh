#!/usr/bin/env bash
# Builds helm (helm.sh/helm/v3/cmd/helm, pinned by go.mod and go.sum here) from the Go module proxy into a cache
# outside the repository (hack/lib.sh) and prints the binary's path (its last line of output). Needs Go 1.26 and the
# Go module proxy: helm's release downloads are not reachable here.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../lib.sh"
version="$(go_required helm.sh/helm/v3 "$here/go.mod")"
out="$(go_cache "helm-$version" "$here/go.mod" "$here/go.sum" "$0")"
if go_cached "$out" helm; then
  echo "helm $version (cached)" >&2
  echo "$out/helm"
  exit 0
fi
go_need helm
build() {
  (cd "$here" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$version" -o "$out.tmp/helm" helm.sh/helm/v3/cmd/helm)
}
start=$SECONDS
echo "building helm $version into $out" >&2
go_build_into "$out" build
echo "built in $((SECONDS - start)) s" >&2
echo "$out/helm"
