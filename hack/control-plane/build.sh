#!/usr/bin/env bash
# Builds the control plane the e2e suite runs on, from the Go module proxy, into a cache outside the
# repository (hack/lib.sh), and prints the directory that holds the binaries (its last line of output).
#
#   kube-apiserver, kube-controller-manager, kube-scheduler  k8s.io/kubernetes   (hack/control-plane/go.mod)
#   kubelet (the real node of the e2e suite)                 k8s.io/kubernetes   (same pins)
#   etcd                                                     go.etcd.io/etcd/server/v3 (same module graph)
#   kwok                                                     sigs.k8s.io/kwok    (hack/kwok/go.mod)
#
# Versions are pinned by the two go.mod files and their go.sum; the cache directory is named after their
# content, so a version change builds anew and an unchanged pin reuses what is there. Needs Go 1.26 and the
# Go module proxy.
#
#   build.sh          the newest Kubernetes the suite runs on (go.mod)
#   build.sh 1.32     another minor of the compatibility matrix (docs/install.md), pinned by k8s-1.32.mod and
#                     k8s-1.32.sum beside go.mod (go build -modfile); same sources (tools.go, etcd/), same kwok
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kwok_dir="$(cd "$here/../kwok" && pwd)"
source "$here/../lib.sh"

modfile="$here/go.mod"
modflag=""
if [ $# -gt 0 ]; then
  modfile="$here/k8s-$1.mod"
  [ -f "$modfile" ] || { echo "no pins for Kubernetes $1: $modfile does not exist" >&2; exit 1; }
  modflag="-modfile=$modfile"
fi
sumfile="${modfile%.mod}.sum"
k8s_version="$(go_required k8s.io/kubernetes "$modfile")"
kwok_version="$(go_required sigs.k8s.io/kwok "$kwok_dir/go.mod")"
out="$(go_cache "k8s-${k8s_version}-kwok-${kwok_version}" "$modfile" "$sumfile" "$here/etcd/main.go" \
  "$kwok_dir/go.mod" "$kwok_dir/go.sum" "$0")"
bins=(kube-apiserver kube-controller-manager kube-scheduler kubelet etcd kwok)

if go_cached "$out" "${bins[@]}"; then
  echo "control plane binaries (cached): Kubernetes $k8s_version, kwok $kwok_version" >&2
  echo "$out"
  exit 0
fi

go_need "the control plane"
export CGO_ENABLED=0 GOFLAGS="-mod=readonly $modflag"
minor="${k8s_version#v1.}"; minor="${minor%%.*}"
version_pkg=k8s.io/component-base/version
ldflags="-s -w -X $version_pkg.gitVersion=$k8s_version -X $version_pkg.gitMajor=1 -X $version_pkg.gitMinor=$minor -X $version_pkg.gitTreeState=clean -X $version_pkg.buildDate=1970-01-01T00:00:00Z"
build() {
  echo "building Kubernetes $k8s_version (kube-apiserver, kube-controller-manager, kube-scheduler, kubelet) and etcd into $out" >&2
  (cd "$here" && go build -trimpath -ldflags "$ldflags" -o "$out.tmp/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler \
    k8s.io/kubernetes/cmd/kubelet)
  (cd "$here" && go build -trimpath -ldflags "-s -w" -o "$out.tmp/etcd" ./etcd)
  echo "building kwok $kwok_version" >&2
  (cd "$kwok_dir" && GOFLAGS=-mod=readonly go build -trimpath -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=$kwok_version" -o "$out.tmp/" sigs.k8s.io/kwok/cmd/kwok)
}
start=$SECONDS
go_build_into "$out" build
echo "built in $((SECONDS - start)) s" >&2
echo "$out"
