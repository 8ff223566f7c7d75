#!/bin/sh
# Builds the release artifacts the GitHub Action installs:
#   DIST/tabwright-linux-amd64, DIST/tabwright-linux-arm64, DIST/SHA256SUMS
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
    out="$dist/tabwright-linux-$arch"
    (cd "$root" && CGO_ENABLED=0 GOOS=linux GOARCH="$arch" GOFLAGS= go build -trimpath -buildvcs=false \
      -ldflags "-s -w -buildid= -X main.version=$version" -o "$out" ./cmd/tabwright)
    touch -d "@$epoch" "$out"
  done
  (cd "$dist" && for arch in $arches; do sha256sum "tabwright-linux-$arch"; done >SHA256SUMS)
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
