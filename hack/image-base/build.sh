#!/usr/bin/env bash
# Assembles the base image of the operator and agent images from this machine, without a registry or a daemon:
# a jlinked Java runtime (from $JAVA_HOME, JDK 25) at /opt/java/openjdk, the Debian shared libraries it links
# against (ldd on every ELF file of the runtime, the dynamic loader included), and an empty /tmp (mode 1777).
#
#   hack/image-base/build.sh <output directory>
#
# Writes <output>/rootfs/ (the file tree, for chroot) and <output>/base.tar, a one-layer image in the
# `docker save` layout (manifest.json, config.json, layer.tar) that Jib takes as `tar://<output>/base.tar`.
# Maven runs it in the package phase of src/ and src-agent/ before Jib (pom.xml, docs/install.md).
# Reproducible: the same JDK and libraries give the same bytes (sorted entries, fixed mtimes, owner 0:0,
# modes set here), so the images' layers and digests do not change from build to build.
# A release build uses eclipse-temurin:25-jre instead (-Djoulie.image.base=eclipse-temurin:25-jre), which keeps
# its java at the same path.
set -euo pipefail

out="$(realpath -m "${1:?usage: $0 <output directory>}")"
java_home="${JAVA_HOME:?JAVA_HOME must point to a JDK 25}"
[ -x "$java_home/bin/jlink" ] || { echo "no jlink in $java_home (a JDK 25 is needed, not a JRE)" >&2; exit 1; }

# The modules the operator and the agent need: jdeps over both applications' quarkus-app jars (module-info
# removed from the modular jars, so that all are read from the class path) gave
#   java.base java.desktop java.naming java.net.http java.rmi java.sql jdk.compiler jdk.management jdk.unsupported
#   (jdeps --ignore-missing-deps --multi-release 25 --print-module-deps --class-path 'jars/*' jars/*.jar)
# for both. Left out: jdk.compiler, which only vertx-codegen's annotation processor uses (a build-time tool on the
# class path). Added, as jdeps cannot see what is only reached through a service lookup: jdk.zipfs, the jar: file
# system provider SmallRye Config opens the application's jars with (without it Quarkus exits with status 1 and no
# output while it reads its configuration; found by running both applications on this runtime), and jdk.naming.dns,
# the JNDI DNS provider Netty's resolver asks for the name servers. (jdk.crypto.ec is empty since JDK 22: the EC
# provider is in java.base.)
# java.desktop stays for java.beans (Jackson, Quarkus, commons-compress); its X11, sound and image natives are
# excluded below, as the applications run headless.
modules=java.base,java.desktop,java.naming,java.net.http,java.rmi,java.sql,jdk.management,jdk.unsupported
modules="$modules,jdk.zipfs,jdk.naming.dns"

# The fixed modification time of every entry (1970-01-01T00:00:01Z, the same as Jib's files).
mtime=@1
loader=/lib64/ld-linux-x86-64.so.2

rm -rf "$out"
rootfs="$out/rootfs"
runtime="$rootfs/opt/java/openjdk"
mkdir -p "$rootfs/opt/java"

"$java_home/bin/jlink" --add-modules "$modules" --output "$runtime" \
  --strip-debug --no-man-pages --no-header-files \
  --exclude-files="$(printf 'glob:**/%s.so,' libawt_xawt libsplashscreen libjsound libfontmanager libjawt liblcms \
    libjavajpeg libmlib_image | sed 's/,$//')"

# The class-data sharing archive of the JDK's classes for the images' JVM options (compact object headers,
# lib/server/classes_coh.jsa), as the public JDK images ship theirs: faster start and less memory. Its bytes do
# not depend on where the runtime lies (checked: two dumps in two directories are identical).
"$runtime/bin/java" -XX:+UseCompactObjectHeaders -Xshare:dump -Xlog:cds=warning >/dev/null

is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

# Every ELF file of the runtime, and what ldd resolves it to outside the runtime.
elves=()
while IFS= read -r -d '' f; do
  if is_elf "$f"; then elves+=("$f"); fi
done < <(find "$runtime" -type f -print0 | sort -z)

libs=("$loader")
for f in "${elves[@]}"; do
  while read -r line; do
    case "$line" in
      *"=> not found"*)
        # libjvm.so, libjava.so, ...: found in the runtime itself at run time (the launcher loads them).
        name="${line%% *}"
        if [ -z "$(find "$runtime" -name "$name" -print -quit)" ]; then
          echo "$f needs $name, which is neither on this machine nor in the runtime" >&2
          exit 1
        fi
        ;;
      *"=> /"*)
        path="${line#*=> }"
        path="${path%% (*}"
        case "$path" in "$runtime"/*) ;; *) libs+=("$path") ;; esac
        ;;
    esac
  done < <(ldd "$f" 2>/dev/null || true)
done

# Real files (no symlinks) at the paths the loader looks them up by.
printf '%s\n' "${libs[@]}" | sort -u | while read -r lib; do
  mkdir -p "$rootfs$(dirname "$lib")"
  cp -L "$lib" "$rootfs$lib"
done

mkdir -p "$rootfs/tmp"

# Modes: directories 755, ELF files (executables and libraries) 755, other files 644, /tmp 1777.
find "$rootfs" -type d -exec chmod 755 {} +
find "$rootfs" -type f -exec chmod 644 {} +
while IFS= read -r -d '' f; do
  if is_elf "$f"; then chmod 755 "$f"; fi
done < <(find "$rootfs" -type f -print0)
chmod 1777 "$rootfs/tmp"

reproducible_tar() { # <archive> <directory> <entries...>
  local archive="$1" dir="$2"
  shift 2
  tar --create --file="$archive" --directory="$dir" --format=gnu --sort=name --mtime="$mtime" \
    --owner=0 --group=0 --numeric-owner "$@"
}

image="$out/image"
mkdir -p "$image"
reproducible_tar "$image/layer.tar" "$rootfs" opt lib lib64 tmp
diff_id="sha256:$(sha256sum "$image/layer.tar" | cut -d' ' -f1)"
java_version="$("$runtime/bin/java" -version 2>&1 | head -1)"
cat > "$image/config.json" <<EOF
{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","JAVA_HOME=/opt/java/openjdk"]},"rootfs":{"type":"layers","diff_ids":["$diff_id"]},"history":[{"created":"1970-01-01T00:00:00Z","created_by":"hack/image-base/build.sh: jlinked runtime (${java_version//\"/}; $modules) and its shared libraries"}]}
EOF
cat > "$image/manifest.json" <<EOF
[{"Config":"config.json","RepoTags":["joulie/image-base:local"],"Layers":["layer.tar"]}]
EOF
chmod 644 "$image"/*
reproducible_tar "$out/base.tar" "$image" manifest.json config.json layer.tar
rm -rf "$image"

echo "base image: $out/base.tar ($(du -sh "$rootfs" | cut -f1) unpacked, layer $diff_id)" >&2
