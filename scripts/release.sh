#!/bin/sh
# Builds the release artifacts the GitHub Action installs:
#   DIST/tabwright-linux-ARCH          the model SDKs left out (-tags nomodels):
#                                      the MCP server, and qs with replay
#   DIST/tabwright-models-linux-ARCH   the full build, which tabwright hands
#                                      a model agent's qs run to (installed
#                                      beside it as tabwright-models)
#   DIST/SHA256SUMS
# for ARCH amd64 and arm64,
# reproducibly, so anyone can rebuild a tag and get the same bytes: a
# static binary (CGO off), no file paths (-trimpath), no VCS stamp, an
# empty build ID, the version given, and every file dated
# SOURCE_DATE_EPOCH (the tagged commit's time by default).
#
#   scripts/release.sh DIST VERSION          build
#   scripts/release.sh --check VERSION       build twice in fresh caches and compare
# ARCHES (default "amd64 arm64") narrows the architectures.
set -eu

arches=${ARCHES:-amd64 arm64}
root=$(cd "$(dirname "$0")/.." && pwd)

build() {
  dist=$1
  version=$2
  epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)}
  mkdir -p "$dist"
  for arch in $arches; do
    for name in tabwright-models tabwright; do
      tags=
      [ "$name" = tabwright ] && tags=nomodels
      out="$dist/$name-linux-$arch"
      (cd "$root" && CGO_ENABLED=0 GOOS=linux GOARCH="$arch" GOFLAGS= go build -tags "$tags" -trimpath -buildvcs=false \
        -ldflags "-s -w -buildid= -X main.version=$version" -o "$out" ./cmd/tabwright)
      touch -d "@$epoch" "$out"
    done
  done
  (cd "$dist" && for arch in $arches; do sha256sum "tabwright-models-linux-$arch" "tabwright-linux-$arch"; done >SHA256SUMS)
  touch -d "@$epoch" "$dist/SHA256SUMS"
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
