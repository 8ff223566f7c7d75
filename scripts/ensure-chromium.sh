#!/bin/sh
# Make sure a Chromium or Chrome exists for the managed browser. Installs
# Debian's chromium when we are root on a Debian-like system; otherwise says
# exactly what to run.
set -e
if [ -n "$TABWRIGHT_CHROME" ]; then
  [ -x "$TABWRIGHT_CHROME" ] && exit 0
  echo "TABWRIGHT_CHROME=$TABWRIGHT_CHROME is not an executable file" >&2
  exit 1
fi
for b in chromium chromium-browser google-chrome google-chrome-stable; do
  command -v "$b" >/dev/null 2>&1 && exit 0
done
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "no Chromium found: installing Debian's chromium package" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
  exit 0
fi
echo "no Chromium found. Install it with:" >&2
echo "  sudo apt-get install -y chromium" >&2
echo "or point TABWRIGHT_CHROME at a Chromium or Chrome binary." >&2
exit 1
