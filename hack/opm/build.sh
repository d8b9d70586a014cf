#!/usr/bin/env bash
# Builds opm (github.com/operator-framework/operator-registry/cmd/opm, pinned by go.mod and go.sum here) from the Go
# module proxy into a cache outside the repository (hack/lib.sh) and prints the binary's path (its last line of
# output). Needs Go 1.26 and the Go module proxy: opm's release downloads are not reachable here.
#
# CGO_ENABLED=0 with the build tag containers_image_openpgp: the image library's signature code then uses a pure-Go
# OpenPGP in place of gpgme (a C library), and go-sqlite3 compiles to stubs, so the sqlite-based commands (deprecated
# upstream) fail at run time; the file-based catalog commands (render of a bundle directory, init, validate) need
# neither. About 6.5 minutes cold on two loaded cores, then reused.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../lib.sh"
module=github.com/operator-framework/operator-registry
version="$(go_required "$module" "$here/go.mod")"
out="$(go_cache "opm-$version" "$here/go.mod" "$here/go.sum" "$0")"
if go_cached "$out" opm; then
  echo "opm $version (cached)" >&2
  echo "$out/opm"
  exit 0
fi
go_need opm
build() {
  (cd "$here" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath -tags containers_image_openpgp \
    -ldflags "-s -w -X $module/cmd/opm/version.opmVersion=$version" -o "$out.tmp/opm" "$module/cmd/opm")
}
start=$SECONDS
echo "building opm $version into $out" >&2
go_build_into "$out" build
echo "built in $((SECONDS - start)) s" >&2
echo "$out/opm"
