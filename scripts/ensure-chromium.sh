#!/bin/sh
# Make sure a Chromium exists for the managed browser. As root on Debian it
# installs the chromium package (and chromium-headless-shell, which starts
# faster headless); otherwise it says exactly what to run.
set -e
if [ -n "$TABWRIGHT_CHROME" ]; then
  [ -x "$TABWRIGHT_CHROME" ] && exit 0
  echo "TABWRIGHT_CHROME=$TABWRIGHT_CHROME is not an executable file" >&2
  exit 1
fi
have_browser=no
for b in chromium chromium-browser google-chrome google-chrome-stable; do
  command -v "$b" >/dev/null 2>&1 && have_browser=yes
done
have_shell=no
command -v chromium-headless-shell >/dev/null 2>&1 && have_shell=yes
[ "$have_browser" = yes ] && [ "$have_shell" = yes ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's chromium and chromium-headless-shell packages" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-headless-shell bubblewrap
  exit 0
fi
[ "$have_browser" = yes ] && exit 0 # the full browser runs headless too, only slower to start
echo "no Chromium found. Install it with:" >&2
echo "  sudo apt-get install -y chromium chromium-headless-shell" >&2
echo "or point TABWRIGHT_CHROME at a Chromium or Chrome binary." >&2
exit 1
