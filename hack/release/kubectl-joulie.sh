#!/usr/bin/env bash
# Builds the kubectl plugin's release archives (docs/releasing.md, step 6): kubectl-joulie for linux and darwin, amd64
# and arm64 (CGO_ENABLED=0, from the sources and pins kubectl-joulie/build.sh builds), each packed with the
# must-gather script and the licence as kubectl-joulie_v<version>_<os>_<arch>.tar.gz with reproducible metadata, and the
# krew manifest written from kubectl-joulie/krew/joulie.yaml.tmpl with each archive's sha256.
#
#   bash hack/release/kubectl-joulie.sh -o DIR [-u URI_BASE] [-p os/arch]...
#     -u  where the archives will be published (default https://github.com/joulie-io/joulie/releases/download/v<version>)
#     -p  only these platforms (default: all four); the manifest is written only with all four
# The version is the release's (joulie.version in pom.xml). Needs Go 1.26 and the Go module proxy, tar and gzip.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
source "$repo/hack/lib.sh"
go_need kubectl-joulie
out="" uri="" platforms=()
while getopts "o:u:p:" opt; do
  case "$opt" in
    o) out="$OPTARG" ;;
    u) uri="$OPTARG" ;;
    p) platforms+=("$OPTARG") ;;
    *) exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "usage: $0 -o DIR [-u URI_BASE] [-p os/arch]..." >&2; exit 2; }
all=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)
[ ${#platforms[@]} -gt 0 ] || platforms=("${all[@]}")
version="$(sed -n 's#^ *<joulie.version>\(.*\)</joulie.version>#\1#p' "$repo/pom.xml")"
[ -n "$version" ] || { echo "no joulie.version in pom.xml" >&2; exit 1; }
uri="${uri:-https://github.com/joulie-io/joulie/releases/download/v$version}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
manifest="$(grep -v '^#' "$repo/kubectl-joulie/krew/joulie.yaml.tmpl")"
rm -f "$out/SHA256SUMS"
for platform in "${platforms[@]}"; do
  os="${platform%/*}" arch="${platform#*/}"
  case " ${all[*]} " in *" $platform "*) ;; *) echo "unknown platform $platform (one of ${all[*]})" >&2; exit 2 ;; esac
  start=$SECONDS
  dir="$work/$os-$arch"
  mkdir -p "$dir"
  (cd "$repo/kubectl-joulie" && CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" GOFLAGS=-mod=readonly \
    go build -trimpath -ldflags "-s -w" -o "$dir/kubectl-joulie" .)
  install -m 755 "$repo/kubectl-joulie/kubectl-joulie-must_gather" "$dir/kubectl-joulie-must_gather"
  install -m 644 "$repo/LICENSE" "$dir/LICENSE"
  archive="kubectl-joulie_v${version}_${os}_${arch}.tar.gz"
  # the same bytes for the same sources: fixed order, times and owners, no gzip timestamp
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$dir" -cf - kubectl-joulie kubectl-joulie-must_gather LICENSE \
    | gzip -n -9 > "$out/$archive"
  sum="$(sha256sum "$out/$archive" | cut -d' ' -f1)"
  echo "$sum  $archive" >> "$out/SHA256SUMS"
  manifest="${manifest//@SHA256_${os}_${arch}@/$sum}"
  echo "$archive ($platform) built in $((SECONDS - start)) s" >&2
done
if [ ${#platforms[@]} -eq ${#all[@]} ]; then
  manifest="${manifest//@VERSION@/$version}"
  manifest="${manifest//@URI_BASE@/$uri}"
  if grep -n "@[A-Z0-9_a-z]*@" <<<"$manifest" >&2; then
    echo "the krew manifest has unfilled placeholders (above)" >&2
    exit 1
  fi
  printf '%s\n' "$manifest" > "$out/joulie.yaml"
  echo "krew manifest: $out/joulie.yaml" >&2
fi
