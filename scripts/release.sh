#!/bin/sh
# Builds the release artifacts, reproducibly, into DIST:
#   tabwright-VERSION-OS-ARCH.tar.gz   (.zip for windows) both binaries of one target:
#                                      tabwright, the model SDKs left out (-tags nomodels):
#                                      the MCP server and qs with replay; tabwright-models,
#                                      the full build a model agent's qs run is handed to
#   tabwright-linux-ARCH,              the Linux binaries alone, as the GitHub Action
#   tabwright-models-linux-ARCH        installs them
#   npm/tabwright-NPMVERSION.tgz       the npm package: `npx tabwright mcp` runs the binary
#   npm/tabwright-PLATFORM-CPU-*.tgz   of this machine, shipped as one package per target
#                                      (os and cpu set, so npm installs only the matching
#                                      one), listed in the main one's optionalDependencies
#   SHA256SUMS                         every file above
# for the targets linux, darwin, windows x amd64, arm64. The same commit
# gives the same bytes: a static binary (CGO off), no file paths
# (-trimpath), no VCS stamp, an empty build ID, the version given; archive
# entries sorted, owned by 0, dated SOURCE_DATE_EPOCH (the commit's time by
# default), gzip without a name or time; npm pack dates its entries itself.
#
#   scripts/release.sh DIST VERSION          build
#   scripts/release.sh --check VERSION       build twice in fresh caches and compare
# TARGETS (default: the six, "linux/amd64 ... windows/arm64") narrows the
# targets; ARCHES (the Action's tests) narrows them to linux/ARCH. NPM=0
# leaves the npm tarballs out; PACKAGES=0 builds the Linux binaries alone.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${ARCHES:-}" ]; then
  targets=$(for a in $ARCHES; do printf 'linux/%s ' "$a"; done)
else
  targets=${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
fi
packages=${PACKAGES:-1}
npm=${NPM:-1}
[ "$packages" = 1 ] || npm=0

# npm_version turns VERSION into the semantic version npm requires:
# v1.2.3 -> 1.2.3; anything else (a commit) -> 0.0.0-that.
npm_version() {
  v=${1#v}
  if printf '%s' "$v" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$'; then
    printf '%s' "$v"
  else
    printf '0.0.0-%s' "$(printf '%s' "$v" | tr -c '0-9A-Za-z.\n-' '-')"
  fi
}

# node_os and node_cpu are Node's names (process.platform, process.arch).
node_os() { [ "$1" = windows ] && echo win32 || echo "$1"; }
node_cpu() { [ "$1" = amd64 ] && echo x64 || echo "$1"; }

# build_target builds both binaries of OS/ARCH into DIR.
build_target() {
  os=$1 arch=$2 dir=$3 version=$4
  ext=
  [ "$os" = windows ] && ext=.exe
  mkdir -p "$dir"
  for name in tabwright-models tabwright; do
    tags=
    [ "$name" = tabwright ] && tags=nomodels
    (cd "$root" && CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" GOFLAGS= go build -tags "$tags" -trimpath -buildvcs=false \
      -ldflags "-s -w -buildid= -X main.version=$version" -o "$dir/$name$ext" ./cmd/tabwright)
    touch -d "@$epoch" "$dir/$name$ext"
  done
}

# archive packs DIR's files as OUT (.tar.gz or .zip), reproducibly.
archive() {
  dir=$1 out=$2
  find "$dir" -exec touch -h -d "@$epoch" {} +
  case $out in
  *.zip) (cd "$dir" && ls | LC_ALL=C sort | TZ=UTC zip -q -X -D "$out" -@) ;;
  *) tar -C "$dir" --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner --format=gnu -cf - . | gzip -n -9 >"$out" ;;
  esac
}

# npm_platform writes the package of OS/ARCH from the binaries in BIN.
npm_platform() {
  os=$1 arch=$2 bin=$3 out=$4 nv=$5
  pkg=$(mktemp -d)
  name="tabwright-$(node_os "$os")-$(node_cpu "$arch")"
  mkdir -p "$pkg/bin"
  cp "$bin"/* "$pkg/bin/"
  cat >"$pkg/package.json" <<EOF
{
  "name": "$name",
  "version": "$nv",
  "description": "The tabwright binaries for $(node_os "$os") $(node_cpu "$arch"); install tabwright, which picks this package",
  "repository": {"type": "git", "url": "https://github.com/tabwright/tabwright"},
  "os": ["$(node_os "$os")"],
  "cpu": ["$(node_cpu "$arch")"],
  "files": ["bin"],
  "preferUnplugged": true
}
EOF
  cp "$root/README.md" "$pkg/README.md"
  (cd "$pkg" && npm pack --silent --pack-destination "$out" >/dev/null)
  rm -rf "$pkg"
}

# npm_main writes the tabwright package, whose optional dependencies are
# the platform packages of every target.
npm_main() {
  out=$1 nv=$2
  pkg=$(mktemp -d)
  mkdir -p "$pkg/bin"
  cp "$root/scripts/npm/tabwright.js" "$pkg/bin/tabwright.js"
  deps=
  for t in $targets; do
    deps="$deps${deps:+,}
    \"tabwright-$(node_os "${t%/*}")-$(node_cpu "${t#*/}")\": \"$nv\""
  done
  cat >"$pkg/package.json" <<EOF
{
  "name": "tabwright",
  "version": "$nv",
  "description": "Real browser tabs for AI agents: an MCP server over Chromium, Chrome or Edge (npx tabwright mcp)",
  "repository": {"type": "git", "url": "https://github.com/tabwright/tabwright"},
  "bin": {"tabwright": "bin/tabwright.js"},
  "files": ["bin"],
  "engines": {"node": ">=18"},
  "optionalDependencies": {$deps
  }
}
EOF
  cp "$root/README.md" "$pkg/README.md"
  (cd "$pkg" && npm pack --silent --pack-destination "$out" >/dev/null)
  rm -rf "$pkg"
}

build() {
  dist=$1 version=$2
  epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)}
  nv=$(npm_version "$version")
  mkdir -p "$dist"
  dist=$(cd "$dist" && pwd)
  work=$(mktemp -d)
  for t in $targets; do
    os=${t%/*} arch=${t#*/}
    build_target "$os" "$arch" "$work/$os-$arch" "$version"
    if [ "$os" = linux ]; then
      for name in tabwright-models tabwright; do
        cp -p "$work/$os-$arch/$name" "$dist/$name-linux-$arch"
      done
    fi
    [ "$packages" = 1 ] || continue
    ext=tar.gz
    [ "$os" = windows ] && ext=zip
    rm -f "$dist/tabwright-$version-$os-$arch.$ext"
    archive "$work/$os-$arch" "$dist/tabwright-$version-$os-$arch.$ext"
    if [ "$npm" = 1 ]; then
      mkdir -p "$dist/npm"
      npm_platform "$os" "$arch" "$work/$os-$arch" "$dist/npm" "$nv"
    fi
  done
  [ "$npm" = 1 ] && npm_main "$dist/npm" "$nv"
  rm -rf "$work"
  (cd "$dist" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
  find "$dist" -exec touch -h -d "@$epoch" {} +
}

if [ "${1:-}" = --check ]; then
  version=${2:-dev}
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  for n in 1 2; do
    GOCACHE="$tmp/cache$n" build "$tmp/dist$n" "$version"
  done
  if cmp "$tmp/dist1/SHA256SUMS" "$tmp/dist2/SHA256SUMS"; then
    echo "reproducible: two builds in fresh caches are byte-identical"
    cat "$tmp/dist1/SHA256SUMS"
  else
    echo "NOT reproducible:" >&2
    diff "$tmp/dist1/SHA256SUMS" "$tmp/dist2/SHA256SUMS" >&2
    exit 1
  fi
  exit 0
fi

[ $# -eq 2 ] || {
  echo "usage: scripts/release.sh DIST VERSION | --check VERSION" >&2
  exit 3
}
build "$1" "$2"
