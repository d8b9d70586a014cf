# What the scripts that build Go tools from the Go module proxy into a cache outside the repository share:
# hack/control-plane/build.sh, hack/helm/build.sh, hack/olm-validate/run.sh and kubectl-joulie/build.sh source it.
# It defines functions only. Each build goes into a directory of the cache named after the content of what pins it
# (go.mod, go.sum, the tool's sources, the script), so a changed pin builds anew and an unchanged one reuses what is
# there. The cache root is $JOULIE_CACHE, by default ~/.cache/joulie.
#
# Go: the version the repository is built and tested with, and the one the scripts need (with the Go module proxy).
JOULIE_GO=1.26

# go_required MODULE GOMOD: the version GOMOD requires of MODULE ("require MODULE v", or "MODULE v" in a require block).
go_required() {
  awk -v m="$1" '$1 != "//" { for (i = 1; i < NF; i++) if ($i == m) { print $(i+1); exit } }' "$2"
}

# go_cache NAME FILE...: the cache directory NAME-PIN, PIN the first 10 hex digits of the sha256 of the FILEs' content.
go_cache() {
  local name="$1"
  shift
  echo "${JOULIE_CACHE:-$HOME/.cache/joulie}/$name-$(cat "$@" | sha256sum | cut -c1-10)"
}

# go_cached DIR BINARY...: whether DIR holds every BINARY, executable.
go_cached() {
  local dir="$1" binary
  shift
  for binary in "$@"; do [ -x "$dir/$binary" ] || return 1; done
}

# go_need WHAT: stops the script, saying why, unless go is on the PATH.
go_need() {
  command -v go >/dev/null || { echo "go not found: $1 is built from the Go module proxy (Go $JOULIE_GO)" >&2; exit 1; }
}

# go_build_into DIR COMMAND...: runs COMMAND, which builds into DIR.tmp, then puts DIR.tmp in DIR's place: DIR holds a
# whole build or nothing.
go_build_into() {
  local dir="$1"
  shift
  mkdir -p "$dir.tmp"
  "$@"
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
}
