#!/usr/bin/env bash
# Assembles Joulie's file-based catalog and validates it with opm (docs/releasing.md, decision 197): catalog/ holds
# the package and its channel (the upgrade graph, by hand); the bundle entry (schema olm.bundle) is rendered by
# opm from bundle/, with the bundle image a release publishes. Then it checks that the channel has an entry for
# this bundle's CSV carrying the CSV's own upgrade edge (olm.skipRange, spec.replaces), runs opm validate, and
# shows that opm validate refuses a catalog whose channel names a bundle it does not hold.
#
#   bash hack/opm/catalog.sh                        # check (.ci/run); the catalog is assembled in a temporary dir
#   bash hack/opm/catalog.sh -o DIR [-i IMAGE] [-b BUNDLE]
#       release: write the catalog to DIR, the bundle pulled as IMAGE (default quay.io/joulie/joulie-bundle:<version>;
#       a release passes the pushed bundle's digest, repository@sha256:...), rendered from BUNDLE (default bundle/;
#       a release passes the copy with images by digest, hack/release/pin-bundle.sh)
# Needs Go 1.26 and the Go module proxy (opm: hack/opm/build.sh), and jq.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="" image="" bundle="$repo/bundle"
while getopts "o:i:b:" opt; do
  case "$opt" in
    o) out="$OPTARG" ;;
    i) image="$OPTARG" ;;
    b) bundle="$OPTARG" ;;
    *) echo "usage: $0 [-o DIR] [-i BUNDLE_IMAGE] [-b BUNDLE_DIR]" >&2; exit 2 ;;
  esac
done
command -v jq >/dev/null || { echo "jq not found: $0 reads the rendered catalog with it" >&2; exit 1; }
opm="$(bash "$here/build.sh" | tail -1)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# the bundle as opm loads it (registry+v1 directory: manifests/, metadata/annotations.yaml)
"$opm" render "$bundle" -o json > "$work/bundle.json"
csv_name="$(jq -r .name "$work/bundle.json")"
version="$(jq -r '.properties[] | select(.type == "olm.package") | .value.version' "$work/bundle.json")"
csv="$(jq -r '.properties[] | select(.type == "olm.bundle.object") | .value.data | @base64d | fromjson
  | select(.kind == "ClusterServiceVersion")' "$work/bundle.json")"
skip_range="$(jq -r '.metadata.annotations["olm.skipRange"] // ""' <<<"$csv")"
replaces="$(jq -r '.spec.replaces // ""' <<<"$csv")"
image="${image:-quay.io/joulie/joulie-bundle:$version}"
echo "catalog: bundle $csv_name (version $version, skipRange '$skip_range', replaces '$replaces') as $image" >&2

mkdir -p "$work/catalog"
cp -r "$repo/catalog/." "$work/catalog/"
jq --arg image "$image" '.image = $image' "$work/bundle.json" > "$work/catalog/joulie/bundle-$version.json"

# The channel's entry for this bundle carries the CSV's upgrade edge.
"$opm" render "$work/catalog" -o json > "$work/rendered.json"
entry="$(jq -c --arg n "$csv_name" 'select(.schema == "olm.channel") | .entries[] | select(.name == $n)' "$work/rendered.json")"
[ -n "$entry" ] || { echo "catalog/: no channel entry for $csv_name (a release appends it: docs/releasing.md)" >&2; exit 1; }
[ "$(jq -r '.skipRange // ""' <<<"$entry")" = "$skip_range" ] \
  || { echo "catalog/: the entry of $csv_name has skipRange $(jq -c .skipRange <<<"$entry"), the CSV '$skip_range'" >&2; exit 1; }
[ "$(jq -r '.replaces // ""' <<<"$entry")" = "$replaces" ] \
  || { echo "catalog/: the entry of $csv_name replaces $(jq -c .replaces <<<"$entry"), the CSV '$replaces'" >&2; exit 1; }

"$opm" validate "$work/catalog"
echo "opm validate: catalog/ with $csv_name passes" >&2

# opm validate is a real check: a channel entry naming a bundle the catalog lacks must be refused.
cp -r "$work/catalog" "$work/broken"
printf -- '---\nschema: olm.channel\npackage: joulie\nname: broken\nentries:\n- name: joulie.v0.0.0-missing\n' \
  >> "$work/broken/joulie/index.yaml"
if "$opm" validate "$work/broken" 2>/dev/null; then
  echo "opm validate accepted a channel naming a bundle the catalog does not hold" >&2
  exit 1
fi

if [ -n "$out" ]; then
  mkdir -p "$out"
  cp -r "$work/catalog/." "$out/"
  echo "catalog written to $out (opm generate dockerfile $out builds its image)" >&2
fi
