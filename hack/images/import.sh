#!/usr/bin/env bash
# Imports the operator and agent images that `./mvnw package` wrote (OCI archives) into a containerd, for a node
# without a registry: the kubelet then finds quay.io/joulie/joulie-operator:<tag> and quay.io/joulie/joulie-agent:<tag>
# (imagePullPolicy IfNotPresent, the install's default). Each archive's index names its image
# (org.opencontainers.image.ref.name, the full reference), and ctr keeps that name.
#
#   hack/images/import.sh [containerd socket] [namespace]
#     defaults: /run/containerd/containerd.sock, k8s.io (the namespace the kubelet's CRI uses)
#   IMAGES="a.tar b.tar" hack/images/import.sh ...   other archives
#
# Needs ctr (containerd's client; tried with containerd 1.6) and access to the socket (root).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
socket="${1:-/run/containerd/containerd.sock}"
namespace="${2:-k8s.io}"
read -r -a images <<< "${IMAGES:-$repo/src/target/joulie-operator-image.tar $repo/src-agent/target/joulie-agent-image.tar}"

command -v ctr >/dev/null || { echo "ctr not found (Debian: apt-get install containerd)" >&2; exit 1; }
for tar in "${images[@]}"; do
  [ -f "$tar" ] || { echo "$tar is missing: build the images with ./mvnw -pl src,src-agent -am package -DskipTests" >&2; exit 1; }
  ctr --address "$socket" -n "$namespace" images import --all-platforms "$tar"
done
ctr --address "$socket" -n "$namespace" images ls | grep -E '^(REF|quay.io/joulie/)' || true
