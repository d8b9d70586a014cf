#!/usr/bin/env bash
# Builds helm (helm.sh/helm/v3/cmd/helm, pinned by go.mod and go.sum here) from the Go module proxy into a cache
# outside the repository (hack/lib.sh) and prints the binary's path (its last line of output). Needs Go 1.26 and the
# Go module proxy: helm's release downloads are not reachable here.
#
# As helm's own Makefile does for its releases, the Kubernetes version helm assumes without a cluster (helm template,
# helm lint: the chart's kubeVersion constraint, .Capabilities.KubeVersion, the deprecation rules) is the one of the
# client-go it is built with: v0.X.Y is Kubernetes 1.X. Without these ldflags it would be 1.20, and the chart's
# kubeVersion (>= 1.32) would refuse helm template without --kube-version.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../lib.sh"
version="$(go_required helm.sh/helm/v3 "$here/go.mod")"
out="$(go_cache "helm-$version" "$here/go.mod" "$here/go.sum" "$0")"
if go_cached "$out" helm; then
  echo "helm $version (cached)" >&2
  echo "$out/helm"
  exit 0
fi
go_need helm
client_go="$(go_required k8s.io/client-go "$here/go.mod")"
kube_minor="$(echo "$client_go" | cut -d. -f2)"
kube_ldflags=""
for pkg in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
  kube_ldflags="$kube_ldflags -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$kube_minor"
done
build() {
  (cd "$here" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$version$kube_ldflags" -o "$out.tmp/helm" helm.sh/helm/v3/cmd/helm)
}
start=$SECONDS
echo "building helm $version (Kubernetes 1.$kube_minor without a cluster) into $out" >&2
go_build_into "$out" build
echo "built in $((SECONDS - start)) s" >&2
echo "$out/helm"
