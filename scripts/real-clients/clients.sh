#!/bin/sh
# The one-line installs README gives, run with the real client CLIs (pinned
# in package.json): each adds tabwright as its README line says, with the
# binary's path where README has `npx -y tabwright`, in a fresh home and
# folder, and its own listing must show the server connected (Claude Code,
# Gemini CLI: they start it and ask) or enabled (Codex: it lists only).
#
#   sh clients.sh CLIENTS_DIR path/to/tabwright
set -eu
dir=$1
bin=$2
PATH="$dir/node_modules/.bin:$PATH"
export PATH

# run NAME EXPECT ADD... -- LIST...: ADD then LIST in a fresh home, LIST's
# output must contain EXPECT on tabwright's line.
run() {
	name=$1
	expect=$2
	shift 2
	home=$(mktemp -d)
	work=$(mktemp -d)
	mkdir -p "$home/.gemini"
	# Gemini CLI lists no server of a folder it has not been told to trust.
	echo '{"security":{"folderTrust":{"enabled":false}}}' >"$home/.gemini/settings.json"
	add=""
	while [ "$1" != "--list" ]; do
		add="$add '$1'"
		shift
	done
	shift
	(cd "$work" && HOME=$home eval "$add") >"$home/add.log" 2>&1 || {
		echo "FAIL $name: adding tabwright failed:"
		cat "$home/add.log"
		exit 1
	}
	out=$(cd "$work" && HOME=$home "$@" 2>&1) || true
	if ! printf '%s\n' "$out" | grep tabwright | grep -q "$expect"; then
		echo "FAIL $name: its listing does not show tabwright $expect:"
		printf '%s\n' "$out"
		exit 1
	fi
	echo "ok   $name: $(printf '%s\n' "$out" | grep tabwright | head -1)"
	rm -rf "$home" "$work"
}

run "Claude Code" "Connected" claude mcp add tabwright -- "$bin" mcp --list claude mcp list
run "Gemini CLI" "Connected" gemini mcp add tabwright "$bin" mcp --list gemini mcp list
run "Codex" "enabled" codex mcp add tabwright -- "$bin" mcp --list codex mcp list
