#!/usr/bin/env bash
# Runs an image built by `./mvnw package` (an OCI archive, e.g. src-agent/target/joulie-agent-image.tar) without a
# container runtime: unpacks its layers into a temporary directory and starts its entrypoint there with unshare --root,
# as the image's user, in its working directory, with its environment only, in new mount, PID and network namespaces
# (loopback only: nothing leaves the machine), /proc mounted. Needs root, jq and unshare (util-linux).
#
#   hack/images/chroot-run.sh <image.tar> [argument...]          the entrypoint, with the arguments appended
#   RUN_AS_COMMAND=1 hack/images/chroot-run.sh <image.tar> cmd...  a command instead of the entrypoint
#   TIMEOUT=20s ...                                               stop it after that long (exit status 124)
#   RUN_ENV="NODE_NAME=n1 QUARKUS_LOG_LEVEL=DEBUG" ...              more variables (NAME=VALUE, space-separated, or one
#                                                                 per line when a value holds a space)
#   HOST_NET=1 ...                                                the host's network instead of loopback only
#   CGROUPS=1 ...                                                 /sys/fs/cgroup visible inside, as a runtime mounts it: a
#                                                                 JVM started in a memory cgroup then sizes itself from
#                                                                 the limit (ScaleBenchmark)
#   COPY_IN=<directory> ...                                       copied to /tmp/in in the image, owned by its user
#   BIND=<directory> ...                                          bound read-write at the same path inside (a fake host
#                                                                 tree the caller keeps reading and writing)
#   RUN_USER=<uid:gid> ...                                        that user instead of the image's (as a Pod's
#                                                                 securityContext.runAsUser overrides it)
#   AOT_OUTPUT=<file> ...                                         a training run: the entrypoint's -XX:AOTCache=<path>
#                                                                 becomes -XX:AOTCacheOutput, the cache the JVM writes
#                                                                 when it exits is copied to <file> (io.joulie.testkit.AotTraining)
#
# A check that the image's runtime and libraries are complete, not a stand-in for a kubelet: no cgroup of its own, no
# seccomp, no capabilities dropped. The directory is removed afterwards.
set -euo pipefail

tarball="$(realpath "${1:?usage: $0 <image.tar> [argument...]}")"
shift
[ "$(id -u)" -eq 0 ] || { echo "unshare --root needs root" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/joulie-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/oci" "$work/rootfs"
tar -xf "$tarball" -C "$work/oci"
blob() { echo "$work/oci/blobs/${1/://}"; }
manifest="$(blob "$(jq -r '.manifests[0].digest' "$work/oci/index.json")")"
config="$(blob "$(jq -r '.config.digest' "$manifest")")"
# The layers in order (these images have no whiteouts to apply).
for layer in $(jq -r '.layers[].digest' "$manifest"); do
  tar --warning=no-unknown-keyword -xzf "$(blob "$layer")" -C "$work/rootfs"
done
mkdir -p "$work/rootfs/proc" "$work/rootfs/dev"

user="${RUN_USER:-$(jq -r '.config.User // "0"' "$config")}"
[[ "$user" == *:* ]] || user="$user:0"
workdir="$(jq -r '.config.WorkingDir // "/"' "$config")"
mapfile -t env < <(jq -r '.config.Env // [] | .[]' "$config")
if [[ "${RUN_ENV:-}" == *$'\n'* ]]; then
  mapfile -t extra_env <<< "$RUN_ENV"
else
  read -r -a extra_env <<< "${RUN_ENV:-}"
fi
env+=("${extra_env[@]}")
if [ "${RUN_AS_COMMAND:-}" = 1 ]; then
  argv=("$@")
else
  mapfile -t argv < <(jq -r '.config.Entrypoint // [] | .[]' "$config")
  argv+=("$@")
fi
[ "${#argv[@]}" -gt 0 ] || { echo "nothing to run" >&2; exit 1; }
if [ -n "${COPY_IN:-}" ]; then
  cp -r "$COPY_IN" "$work/rootfs/tmp/in"
  chown -R "$user" "$work/rootfs/tmp/in"
fi
cache=""
if [ -n "${AOT_OUTPUT:-}" ]; then
  for i in "${!argv[@]}"; do
    case "${argv[$i]}" in
      -XX:AOTCache=*) cache="${argv[$i]#-XX:AOTCache=}"; argv[$i]="-XX:AOTCacheOutput=$cache" ;;
    esac
  done
  [ -n "$cache" ] || { echo "the entrypoint names no -XX:AOTCache=<file>: nothing to train" >&2; exit 1; }
  # the image's user writes the cache where the entrypoint reads it
  chown "$user" "$work/rootfs$(dirname "$cache")"
fi
net=--net
[ "${HOST_NET:-}" = 1 ] && net=""
# A runtime's minimal /dev (the JVM seeds SecureRandom from /dev/urandom; without it a thread of its own burns CPU
# gathering entropy) and, with CGROUPS=1, /sys/fs/cgroup: bound into the root inside a mount namespace of their own, so
# the binds end with the process and the directory removed below never holds them.
devices=(null zero random urandom)
for d in "${devices[@]}"; do touch "$work/rootfs/dev/$d"; done
mounts='for d in '"${devices[*]}"'; do mount --bind "/dev/$d" "$0/dev/$d" || exit 1; done'
if [ -n "${BIND:-}" ]; then
  bind="$(realpath "$BIND")"
  mkdir -p "$work/rootfs$bind"
  mounts="$mounts"' && mount --bind '"'$bind'"' "$0'"$bind"'"'
fi
if [ "${CGROUPS:-}" = 1 ]; then
  mkdir -p "$work/rootfs/sys/fs/cgroup"
  mounts="$mounts"' && mount --rbind /sys/fs/cgroup "$0/sys/fs/cgroup"'
fi
binds=("$(command -v unshare)" --mount --propagation private /bin/sh -c "$mounts"' && exec "$@"' "$work/rootfs")

# unshare changes the root and the working directory, mounts /proc inside it, drops to the image's user and runs
# the command with the image's environment only (a command without a slash is looked up in the image's PATH).
set +e
env -i "${env[@]}" ${TIMEOUT:+timeout --signal=TERM --kill-after=5s "$TIMEOUT"} "${binds[@]}" \
  "$(command -v unshare)" --mount --pid $net --fork --root="$work/rootfs" --wd="$workdir" --mount-proc=/proc \
  --setuid="${user%%:*}" --setgid="${user#*:}" -- "${argv[@]}"
status=$?
set -e
echo "exit status $status" >&2
if [ -n "$cache" ]; then
  [ -s "$work/rootfs$cache" ] || { echo "the training run wrote no AOT cache at $cache" >&2; exit 1; }
  cp "$work/rootfs$cache" "$AOT_OUTPUT"
fi
exit "$status"
