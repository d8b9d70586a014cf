#!/usr/bin/env bash
# The e2e suite's real node: containerd and a kubelet, run by RealNode as PID 1 of a private mount and PID namespace
# (unshare --mount --propagation private --pid --fork --mount-proc). Inside that namespace, and only there, the fake
# host tree stands where a server has its hardware (/sys/class/powercap and /sys/devices/virtual/powercap, the cpufreq
# policies, /dev/cpu when the fake has devices there, /proc/cpuinfo) and the
# directories a kubelet writes at fixed paths (/var/log, /var/lib/joulie of the agent's hostPath, /run) are the work
# directory's. The machine's own /sys, /var and /run are never written. Stops both daemons on SIGTERM; when this
# process ends, the kernel ends every process left in the namespace and its mounts go with it.
set -euo pipefail
: "${WORK:?}" "${FAKE_HOST:?}" "${KUBELET:?}" "${CONTAINERD_CONFIG:?}" "${CONTAINERD_SOCKET:?}"
shopt -s dotglob nullglob

# Replaces a directory by a tmpfs holding the same entries (directories and files bind-mounted back, symbolic links
# copied), so that entries can be added to it without touching the machine's.
shadow() {
  local dir="$1" stage="$WORK/shadow${1//\//_}" entry name
  mkdir -p "$stage"
  mount --bind "$dir" "$stage"
  mount -t tmpfs -o mode=755 "shadow${1//\//_}" "$dir"
  for entry in "$stage"/*; do
    name="${entry##*/}"
    if [ -L "$entry" ]; then
      cp -P "$entry" "$dir/$name"
    elif [ -d "$entry" ]; then
      # mount(8) itself may have made one already (/run/mount for its utab)
      mkdir -p "$dir/$name" && mount --rbind "$entry" "$dir/$name"
    else
      touch "$dir/$name" && mount --bind "$entry" "$dir/$name"
    fi
  done
}

# The hardware: powercap (absent on these machines), cpufreq policies, /dev/cpu and the CPU's description. As on a
# kernel, the zones are directories under /sys/devices/virtual/powercap and /sys/class/powercap holds relative links to
# them (FakeHost lays them out so): both places are the fake's, each in a shadow of its parent directory.
shadow /sys/class
mkdir -p /sys/class/powercap
mount --bind "$FAKE_HOST/sys/class/powercap" /sys/class/powercap
if [ -d "$FAKE_HOST/sys/devices/virtual/powercap" ]; then
  shadow /sys/devices/virtual
  mkdir -p /sys/devices/virtual/powercap
  mount --bind "$FAKE_HOST/sys/devices/virtual/powercap" /sys/devices/virtual/powercap
fi
if [ -d "$FAKE_HOST/sys/devices/system/cpu/cpufreq" ] && [ -d /sys/devices/system/cpu/cpufreq ]; then
  mount --bind "$FAKE_HOST/sys/devices/system/cpu/cpufreq" /sys/devices/system/cpu/cpufreq
fi
if [ -d "$FAKE_HOST/dev/cpu" ] && [ -n "$(ls -A "$FAKE_HOST/dev/cpu")" ]; then
  mount --bind "$FAKE_HOST/dev/cpu" /dev/cpu
fi
mount --bind "$FAKE_HOST/proc/cpuinfo" /proc/cpuinfo

# The kubelet's fixed paths and the agent's state directory on the host
mkdir -p "$WORK/var-log" "$WORK/var-lib-joulie"
mount --bind "$WORK/var-log" /var/log
shadow /var/lib
mkdir -p /var/lib/joulie
mount --bind "$WORK/var-lib-joulie" /var/lib/joulie
shadow /run

containerd --config "$CONTAINERD_CONFIG" >"$WORK/containerd.log" 2>&1 &
containerd_pid=$!
for _ in $(seq 1 200); do
  [ -S "$CONTAINERD_SOCKET" ] && break
  kill -0 "$containerd_pid" 2>/dev/null || { echo "containerd exited; see $WORK/containerd.log" >&2; exit 1; }
  sleep 0.1
done
echo "containerd ready"

# The kubelet waits for RealNode to have imported the images (the sandbox image first): the file says they are in.
for _ in $(seq 1 1200); do
  [ -e "$WORK/images-imported" ] && break
  sleep 0.1
done
"$KUBELET" "$@" >"$WORK/kubelet.log" 2>&1 &
kubelet_pid=$!
echo "kubelet started"

stop() {
  kill -TERM "$kubelet_pid" 2>/dev/null || true
  wait "$kubelet_pid" 2>/dev/null || true
  kill -TERM "$containerd_pid" 2>/dev/null || true
  wait "$containerd_pid" 2>/dev/null || true
  exit 0
}
trap stop TERM INT
# Whichever daemon ends first ends the node (the other is stopped by the trap's path).
wait -n "$kubelet_pid" "$containerd_pid" || true
echo "a daemon of the real node exited" >&2
stop
