#!/usr/bin/env bash
# Builds the kubectl plugin (kubectl joulie status) from its Go sources and the Go module proxy (client-go pinned by
# go.mod and go.sum), after its unit tests, into a cache outside the repository named after the sources and the pins
# (hack/lib.sh), and prints the binary's path (its last line of output). Put it on your PATH as kubectl-joulie and
# kubectl finds it:
#   install -m 755 "$(bash kubectl-joulie/build.sh)" ~/.local/bin/kubectl-joulie
# Needs Go 1.26 and the Go module proxy.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../hack/lib.sh"
out="$(go_cache kubectl-joulie "$here/go.mod" "$here/go.sum" "$here"/*.go "$0")"
if go_cached "$out" kubectl-joulie; then
  echo "kubectl-joulie (cached)" >&2
  echo "$out/kubectl-joulie"
  exit 0
fi
go_need kubectl-joulie
export GOFLAGS=-mod=readonly
(cd "$here" && go vet ./... && go test ./...) >&2
build() {
  (cd "$here" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out.tmp/kubectl-joulie" .)
}
go_build_into "$out" build
echo "$out/kubectl-joulie"
