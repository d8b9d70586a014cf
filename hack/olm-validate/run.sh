#!/usr/bin/env bash
# Checks bundle/ and kubernetes/ with the operator-framework's validators and Kubernetes' typed decoders
# (hack/olm-validate/*.go; docs/install.md says what is checked). Runs the checker's own tests, builds it into
# a cache outside the repository named after its sources and pinned modules (go.mod, go.sum; hack/lib.sh), reuses
# what is there, and runs it. Needs Go 1.26 and the Go module proxy. Extra arguments go to the checker
# (e.g. -k8s-version 1.35).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
source "$here/../lib.sh"
go_need "the OLM checker"

api_version="$(go_required github.com/operator-framework/api "$here/go.mod")"
out="$(go_cache "olm-validate-$api_version" "$here/go.mod" "$here/go.sum" "$here"/*.go "$0")"
export GOFLAGS=-mod=readonly

# The checker's tests (Go caches their results until the sources or the files they read change).
(cd "$here" && go test ./...) >&2
if ! go_cached "$out" olm-validate; then
  echo "building the OLM checker (operator-framework/api $api_version) into $out" >&2
  build() {
    (cd "$here" && CGO_ENABLED=0 go build -trimpath -o "$out.tmp/olm-validate" .)
  }
  go_build_into "$out" build
fi
echo "operator-framework/api $api_version: validating $repo/bundle and $repo/kubernetes${*:+ (then: $*)}" >&2
exec "$out/olm-validate" -bundle "$repo/bundle" -manifests "$repo/kubernetes" "$@"
