#!/usr/bin/env bash
# Checks bundle/ and kubernetes/ with the operator-framework's validators and Kubernetes' typed decoders
# (hack/olm-validate/*.go; docs/install.md says what is checked). Runs the checker's own tests, builds it into
# a cache outside the repository named after its sources and pinned modules (go.mod, go.sum), reuses what is
# there, and runs it. Override the cache root with JOULIE_CACHE. Needs Go (1.26) and the Go module proxy.
# Extra arguments go to the checker (e.g. -k8s-version 1.35).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
command -v go >/dev/null || { echo "go not found: the OLM checker is built from the Go module proxy (Go 1.26)" >&2; exit 1; }

api_version="$(awk '{ for (i = 1; i < NF; i++) if ($i == "github.com/operator-framework/api") { print $(i+1); exit } }' "$here/go.mod")"
pin="$(cat "$here/go.mod" "$here/go.sum" "$here"/*.go "$0" | sha256sum | cut -c1-10)"
out="${JOULIE_CACHE:-$HOME/.cache/joulie}/olm-validate-${api_version}-${pin}"
export GOFLAGS=-mod=readonly

# The checker's tests (Go caches their results until the sources or the files they read change).
(cd "$here" && go test ./...) >&2
if [ ! -x "$out/olm-validate" ]; then
  echo "building the OLM checker (operator-framework/api $api_version) into $out" >&2
  mkdir -p "$out.tmp"
  (cd "$here" && CGO_ENABLED=0 go build -trimpath -o "$out.tmp/olm-validate" .)
  rm -rf "$out" && mv "$out.tmp" "$out"
fi
echo "operator-framework/api $api_version: validating $repo/bundle and $repo/kubernetes" >&2
exec "$out/olm-validate" -bundle "$repo/bundle" -manifests "$repo/kubernetes" "$@"
