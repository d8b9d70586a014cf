#!/usr/bin/env bash
# Writes a copy of bundle/ whose CSV references both images by digest (docs/releasing.md, step 4): the operator
# Deployment's image, its RELATED_IMAGE_AGENT (the agent image the operator deploys), spec.relatedImages and the
# containerImage annotation. bundle/ itself stays by tag (it is drift-checked against the build); a release builds its
# bundle image from this copy, so a cluster that mirrors the relatedImages (oc adm catalog mirror, an ImageDigestMirrorSet)
# runs exactly the images that were tested and pushed.
#
#   bash hack/release/pin-bundle.sh -o DIR -p sha256:<operator digest> -a sha256:<agent digest>
#
# The digests are those the registry reports for the pushed images (skopeo inspect --format '{{.Digest}}' ...).
# It fails when a digest is malformed or when a tag reference to either image is left in the copy.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="" operator="" agent=""
while getopts "o:p:a:" opt; do
  case "$opt" in
    o) out="$OPTARG" ;;
    p) operator="$OPTARG" ;;
    a) agent="$OPTARG" ;;
    *) exit 2 ;;
  esac
done
if [ -z "$out" ] || [ -z "$operator" ] || [ -z "$agent" ]; then
  echo "usage: $0 -o DIR -p sha256:<operator digest> -a sha256:<agent digest>" >&2
  exit 2
fi
for d in "$operator" "$agent"; do
  [[ "$d" =~ ^sha256:[0-9a-f]{64}$ ]] || { echo "not a sha256 digest: $d" >&2; exit 2; }
done
csv="manifests/joulie.clusterserviceversion.yaml"
# the images as the build names them: <repository>/joulie-<name>:<version>, the version the CSV's spec.version
version="$(sed -n 's/^  version: \([^ ]*\)$/\1/p' "$repo/bundle/$csv")"
[ -n "$version" ] || { echo "no spec.version in bundle/$csv" >&2; exit 1; }
v="${version//./\\.}"
rm -rf "$out"
mkdir -p "$out"
cp -r "$repo/bundle/." "$out/"
sed -i -e "s#\(/joulie-operator\):$v\b#\1@$operator#g" -e "s#\(/joulie-agent\):$v\b#\1@$agent#g" "$out/$csv"
if grep -nE "/joulie-(operator|agent):" "$out/$csv" >&2; then
  echo "a tag reference to a Joulie image is left in $out/$csv (above)" >&2
  exit 1
fi
for name in operator agent; do
  n="$(grep -c "/joulie-$name@sha256:" "$out/$csv")"
  # operator: the Deployment's image, containerImage, relatedImages; agent: RELATED_IMAGE_AGENT, relatedImages
  [ "$n" -ge 2 ] || { echo "joulie-$name is referenced by digest $n time(s) in $out/$csv" >&2; exit 1; }
done
echo "bundle with images by digest in $out (version $version)" >&2
