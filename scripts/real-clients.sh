#!/bin/sh
# Real MCP clients (the TypeScript SDK with Ajv, the Inspector's CLI and its
# schema lint; then Claude Code, Gemini CLI and Codex adding it as README's
# install lines say) against a tabwright binary: make real-clients. Needs npm (with
# any Node) and the npm registry; the pinned packages are installed once into
# a cache folder outside the checkout (TABWRIGHT_CLIENTS_DIR, default
# ~/.cache/tabwright/real-clients). The checks run on the pinned Node 22
# installed there (the npm package node), which the Inspector 2 requires.
set -eu
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")/real-clients" && pwd)
dir=${TABWRIGHT_CLIENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tabwright/real-clients}
mkdir -p "$dir"
if ! cmp -s "$here/package.json" "$dir/package.json"; then
	cp "$here/package.json" "$dir/package.json"
	(cd "$dir" && npm install --no-audit --no-fund --loglevel=error)
fi
cp "$here/check.mjs" "$dir/check.mjs"
"$dir/node_modules/.bin/node" "$dir/check.mjs" "$bin"
sh "$here/clients.sh" "$dir" "$bin"
