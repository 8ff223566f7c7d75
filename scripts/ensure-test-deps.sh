#!/bin/sh
# Make sure what `make test` runs against is installed, before minutes of
# tests fail on a missing tool: the browsers, bubblewrap for the qs sandbox,
# podman (with runc) for the container backend, busybox-static for the test
# image, python3 and curl for fixtures, Wine and mingw-w64 for the Windows
# build's smoke test (npm, for the release's npm packages, comes with
# Node). As root with apt-get it installs what is missing; otherwise it
# prints the one command that does, and fails.
#
#   scripts/ensure-test-deps.sh          check, install when root
#   scripts/ensure-test-deps.sh --list   print the Debian packages (.ci/run installs them)
set -e
packages="chromium chromium-headless-shell bubblewrap podman runc busybox-static python3 curl"
# The Windows build's smoke test runs it under Wine, which runs x86 only.
case $(uname -m) in
x86_64 | amd64) packages="$packages wine64 gcc-mingw-w64-x86-64-win32" ;;
esac
if [ "${1:-}" = --list ]; then
  echo "$packages"
  exit 0
fi

# TABWRIGHT_CHROME stands in for both browser packages.
if [ -n "${TABWRIGHT_CHROME:-}" ]; then
  if [ ! -x "$TABWRIGHT_CHROME" ]; then
    echo "TABWRIGHT_CHROME=$TABWRIGHT_CHROME is not an executable file" >&2
    exit 1
  fi
  packages=$(echo "$packages" | sed 's/chromium-headless-shell//; s/chromium//')
fi

missing=
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $packages; do
    dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
  done
else
  # Not Debian: look for the commands the packages give.
  for p in $packages; do
    c=$p
    case $p in
    bubblewrap) c=bwrap ;;
    busybox-static) c=busybox ;;
    gcc-mingw-w64-x86-64-win32) c=x86_64-w64-mingw32-gcc ;;
    esac
    command -v "$c" >/dev/null 2>&1 || missing="$missing $p"
  done
fi
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing what the tests need:$missing" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
  exit 0
fi
echo "the tests need packages that are not installed:$missing" >&2
echo "install them with:" >&2
echo "  sudo apt-get install -y$missing" >&2
exit 1
