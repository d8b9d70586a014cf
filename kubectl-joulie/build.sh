#!/usr/bin/env bash
# Builds the kubectl plugin (kubectl joulie status) from its Go sources and the Go module proxy (client-go pinned by
# go.mod and go.sum), after its unit tests, into a cache outside the repository named after the sources and the pins,
# and prints the binary's path (its last line of output). Put it on your PATH as kubectl-joulie and kubectl finds it:
#   install -m 755 "$(bash kubectl-joulie/build.sh)" ~/.local/bin/kubectl-joulie
# Override the cache root with JOULIE_CACHE (default ~/.cache/joulie). Needs Go (1.26).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
pin="$(cat "$here/go.mod" "$here/go.sum" "$here"/*.go "$0" | sha256sum | cut -c1-10)"
out="${JOULIE_CACHE:-$HOME/.cache/joulie}/kubectl-joulie-${pin}"
if [ -x "$out/kubectl-joulie" ]; then
  echo "kubectl-joulie (cached)" >&2
  echo "$out/kubectl-joulie"
  exit 0
fi
command -v go >/dev/null || { echo "go not found: kubectl-joulie is built from its sources and the Go module proxy (Go 1.26)" >&2; exit 1; }
export GOFLAGS=-mod=readonly
(cd "$here" && go vet ./... && go test ./...) >&2
mkdir -p "$out.tmp"
(cd "$here" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out.tmp/kubectl-joulie" .)
rm -rf "$out" && mv "$out.tmp" "$out"
echo "$out/kubectl-joulie"
