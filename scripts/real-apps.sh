#!/bin/sh
# make real-apps: real web apps from unmodified npm packages, served on
# loopback, driven through tabwright, Playwright MCP and Chrome DevTools MCP
# side by side (docs/real-apps.md). The pinned packages are installed with
# npm ci into a cache folder (TABWRIGHT_REALAPPS_DIR, default .real-apps in
# the checkout, gitignored) whenever the committed lock file changes.
# RUNS=N repeats each task; SERVERS=a,b and APPS=x,y pick a subset.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$root/scripts/real-apps
dir=${TABWRIGHT_REALAPPS_DIR:-$root/.real-apps}
mkdir -p "$dir"
# installed.lock is the lock file of the last npm ci that finished, so an
# interrupted install is done again.
if ! cmp -s "$here/package-lock.json" "$dir/installed.lock"; then
	rm -f "$dir/installed.lock"
	cp "$here/package.json" "$here/package-lock.json" "$dir/"
	# The peers' own browser downloads are not wanted: every server runs
	# the same system Chromium.
	(cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 \
		npm ci --no-audit --no-fund --loglevel=error)
	cp "$here/package-lock.json" "$dir/installed.lock"
fi
cd "$root"
# The driver's own tests first (snapshot parsers, matching, import map):
# a parser that broke would turn into failures blamed on a server.
go test -count=1 -tags realapps ./internal/realapps
exec go run -tags realapps ./internal/realapps -bin "$bin" -modules "$dir/node_modules" \
	-out "$dir/results" -runs "${RUNS:-1}" \
	-servers "${SERVERS:-tabwright,playwright-mcp,chrome-devtools-mcp}" -apps "${APPS:-}" \
	${TRACE:+-trace "$TRACE"}
