#!/usr/bin/env bash
# Adds one file to an OCI image archive as a new top layer, in place: the layer (tar, gzip), the image config with its
# diff_id and a history entry, the manifest and the index are rewritten and named by their digests, as the OCI image
# layout requires. Used for the ahead-of-time cache the training run writes (hack/images/aot-train.sh), which exists
# only once Jib has built the image it was trained in. Needs jq, tar, gzip and sha256sum.
#
#   hack/images/add-layer.sh <image.tar> <file> <absolute path in the image> <comment for the history>
#
# The entry is owned by 0:0 with mode 0644 and the fixed time of Jib's files (1970-01-01T00:00:01Z), so the layer's
# bytes depend on the file's bytes only.
set -euo pipefail

tarball="$(realpath "${1:?usage: $0 <image.tar> <file> <path in image> <comment>}")"
file="$(realpath "${2:?file}")"
target="${3:?absolute path in the image}"
comment="${4:?comment}"
[[ "$target" == /* ]] || { echo "the path in the image must be absolute: $target" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/joulie-add-layer.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/oci" "$work/layer$(dirname "$target")"
tar -xf "$tarball" -C "$work/oci"
blob() { echo "$work/oci/blobs/${1/://}"; }
digest() { echo "sha256:$(sha256sum "$1" | cut -d' ' -f1)"; }
size() { stat -c %s "$1"; }
store() { # a file as a blob named by its digest; prints the digest
  local d; d="$(digest "$1")"
  cp "$1" "$(blob "$d")"
  echo "$d"
}

cp "$file" "$work/layer$target"
# GNU tar, sorted, fixed owner, mode and time; gzip without a name or time: the same file gives the same layer
tar --sort=name --format=posix --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
  --owner=0 --group=0 --numeric-owner --mode=0644 --mtime=@1 -C "$work/layer" -cf "$work/layer.tar" "${target#/}"
gzip -n -9 -c "$work/layer.tar" > "$work/layer.tar.gz"
diff_id="$(digest "$work/layer.tar")"
layer="$(store "$work/layer.tar.gz")"

index="$work/oci/index.json"
old_manifest="$(jq -r '.manifests[0].digest' "$index")"
manifest="$(blob "$old_manifest")"
old_config="$(jq -r '.config.digest' "$manifest")"
config="$(blob "$old_config")"

jq -c --arg id "$diff_id" --arg c "$comment" \
  '.rootfs.diff_ids += [$id] | .history += [{"created": "1970-01-01T00:00:00Z", "created_by": "hack/images/add-layer.sh", "comment": $c}]' \
  "$config" > "$work/config.json"
new_config="$(store "$work/config.json")"
jq -c --arg c "$new_config" --argjson cs "$(size "$work/config.json")" --arg l "$layer" \
  --argjson ls "$(size "$work/layer.tar.gz")" \
  '.config.digest = $c | .config.size = $cs
   | .layers += [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": $l, "size": $ls}]' \
  "$manifest" > "$work/manifest.json"
new_manifest="$(store "$work/manifest.json")"
jq -c --arg m "$new_manifest" --argjson ms "$(size "$work/manifest.json")" \
  '.manifests[0].digest = $m | .manifests[0].size = $ms' "$index" > "$work/index.json"
mv "$work/index.json" "$index"
# the blobs nothing refers to any more
[ "$old_manifest" = "$new_manifest" ] || rm -f "$(blob "$old_manifest")"
[ "$old_config" = "$new_config" ] || rm -f "$(blob "$old_config")"

# entries named as Jib names them (blobs/sha256/<hex>, oci-layout, index.json), with no directory entries
(cd "$work/oci" && find blobs -type f | sort | tar --owner=0 --group=0 --numeric-owner --mtime=@0 --mode=0644 \
  --no-recursion -cf "$work/image.tar" -T - oci-layout index.json)
mv "$work/image.tar" "$tarball"
echo "added $target ($(size "$file") bytes) to $tarball as layer $layer"
