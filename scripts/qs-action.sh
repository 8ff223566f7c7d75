#!/bin/sh
# What the GitHub Action (action.yml) runs, and runs the same on any
# machine:
#   qs-action.sh fetch    installs the release's prebuilt tabwright for this
#                         machine (checksum checked), or says build=true
#   qs-action.sh build    builds tabwright from the action's source instead
#   qs-action.sh install  makes sure bubblewrap and a browser are there
#   qs-action.sh run      runs `tabwright qs run` with the action's inputs
#                         (QS_* variables), writes the HTML report beside the
#                         results, and sets the step's outputs
# With QS_DEFER_EXIT=1 run exits 0 and leaves the suite's exit code in the
# exit-code output, so the results can be uploaded first.
set -u

here=$(cd "$(dirname "$0")" && pwd)
bin_dir=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/tabwright-bin

# release_tag is the tag to install: QS_VERSION, else the action's own ref
# when it is a version tag (uses: tabwright/tabwright@v1.2.0); "" when the
# action runs from a branch or a commit, which has no release.
release_tag() {
  if [ -n "${QS_VERSION:-}" ]; then
    echo "$QS_VERSION"
    return
  fi
  case "${GITHUB_ACTION_REF:-}" in
  v[0-9]*) echo "$GITHUB_ACTION_REF" ;;
  esac
}

machine_arch() {
  case "$(uname -m)" in
  x86_64 | amd64) echo amd64 ;;
  aarch64 | arm64) echo arm64 ;;
  esac
}

download() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 3 -o "$2" "$1"
  else
    wget -q -O "$2" "$1"
  fi
}

# fetch installs the release's two binaries at $bin_dir: tabwright and,
# beside it, tabwright-models (the build with the model SDKs, which a
# model agent's run is handed to). A release that cannot be had (no tag,
# another architecture, a download that failed) leaves build=true in the
# step's outputs; a checksum that does not match stops the job.
fetch() {
  tag=$(release_tag)
  arch=$(machine_arch)
  base=${QS_RELEASE_URL:-${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_ACTION_REPOSITORY:-tabwright/tabwright}/releases/download}
  if [ -z "$tag" ] || [ -z "$arch" ]; then
    echo "no prebuilt tabwright for ref '${GITHUB_ACTION_REF:-}' on $(uname -m); building it from source" >&2
    output "build=true"
    return 0
  fi
  tmp=$(mktemp -d)
  if ! download "$base/$tag/SHA256SUMS" "$tmp/SHA256SUMS"; then
    echo "warning  could not download $base/$tag/SHA256SUMS; building tabwright from source" >&2
    rm -rf "$tmp"
    output "build=true"
    return 0
  fi
  for name in tabwright tabwright-models; do
    file="$name-linux-$arch"
    if ! download "$base/$tag/$file" "$tmp/$file"; then
      echo "warning  could not download $base/$tag/$file; building tabwright from source" >&2
      rm -rf "$tmp"
      output "build=true"
      return 0
    fi
    want=$(awk -v f="$file" '$2 == f { print $1 }' "$tmp/SHA256SUMS")
    got=$(sha256sum "$tmp/$file" | cut -d' ' -f1)
    if [ -z "$want" ] || [ "$want" != "$got" ]; then
      echo "qs.release_checksum: $base/$tag/$file has sha256 $got, but SHA256SUMS says '${want:-nothing}'; refusing to run it" >&2
      rm -rf "$tmp"
      exit 3
    fi
  done
  mkdir -p "$bin_dir"
  for name in tabwright tabwright-models; do
    cp "$tmp/$name-linux-$arch" "$bin_dir/$name" && chmod 755 "$bin_dir/$name" # (install is this script's own function)
  done
  rm -rf "$tmp"
  echo "installed $("$bin_dir/tabwright" version) (tabwright-linux-$arch and tabwright-models-linux-$arch, checksums checked)" >&2
  output "build=false"
}

# build is the fallback: tabwright built from the action's own source, the
# full build (model SDKs in), which needs no tabwright-models beside it.
build() {
  mkdir -p "$bin_dir"
  (cd "$here/.." && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin_dir/tabwright" ./cmd/tabwright)
}

install() {
  if ! command -v bwrap >/dev/null 2>&1; then
    echo "installing bubblewrap (the enforced sandbox backend)" >&2
    if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq bubblewrap ||
      echo "warning  could not install bubblewrap; qs run falls back to local only with --allow-unenforced" >&2
  fi
  for b in "${TABWRIGHT_CHROME:-}" chromium chromium-browser google-chrome google-chrome-stable; do
    [ -n "$b" ] && command -v "$b" >/dev/null 2>&1 && return 0
  done
  sh "$here/ensure-chromium.sh"
}

output() {
  [ -n "${GITHUB_OUTPUT:-}" ] && echo "$1" >>"$GITHUB_OUTPUT"
  return 0
}

# clear_previous removes what an earlier run wrote in the results folder
# $1 (a folder with a results.json): results.json, suite.md, the report,
# the pages read and each run's folder (one holding report.md or
# trace.jsonl), so that neither
# the report nor the uploaded folder can show that run as this one. Other
# files there are not ours and stay.
clear_previous() {
  [ -f "$1/results.json" ] || return 0
  echo "clearing the previous run's results from $1" >&2
  rm -f "$1/results.json" "$1/suite.md" "$1/report.html"
  rm -rf "$1/pages"
  for d in "$1"/*/; do
    [ -d "$d" ] || continue
    if [ -f "$d/report.md" ] || [ -f "$d/trace.jsonl" ] || [ -n "$(find "$d" -mindepth 2 -maxdepth 2 -name trace.jsonl -print -quit 2>/dev/null)" ]; then
      rm -rf "$d"
    fi
  done
}

run() {
  bin=${TABWRIGHT:-tabwright}
  cd "${QS_WORKING_DIRECTORY:-.}" || exit 3
  out=${QS_OUT:-qs-results}
  # The positional parameters become qs run's arguments, in order.
  # QS_TASKS and QS_ARGS are split on whitespace, as a reader types them.
  # shellcheck disable=SC2086
  set -- qs run ${QS_TASKS:-} --out "$out"
  [ -n "${QS_AGENT:-}" ] && set -- "$@" --agent "$QS_AGENT"
  [ -n "${QS_MODEL:-}" ] && set -- "$@" --model "$QS_MODEL"
  [ -n "${QS_PRICES:-}" ] && set -- "$@" --prices "$QS_PRICES"
  [ -n "${QS_REPEAT:-}" ] && set -- "$@" --repeat "$QS_REPEAT"
  [ -n "${QS_WORKERS:-}" ] && set -- "$@" --workers "$QS_WORKERS"
  [ -n "${QS_BACKEND:-}" ] && set -- "$@" --backend "$QS_BACKEND"
  [ -n "${QS_CACHE_DIR:-}" ] && set -- "$@" --cache-dir "$QS_CACHE_DIR"
  [ -n "${QS_SHARD:-}" ] && set -- "$@" --shard "$QS_SHARD"
  [ -n "${QS_IMAGE:-}" ] && set -- "$@" --image "$QS_IMAGE"
  [ -n "${QS_AFFORDANCES:-}" ] && set -- "$@" --affordances "$QS_AFFORDANCES"
  [ -n "${QS_MAX_SPEND:-}" ] && set -- "$@" --max-spend "$QS_MAX_SPEND"
  [ -n "${QS_JUNIT:-}" ] && set -- "$@" --junit "$QS_JUNIT"
  [ "${QS_PROBE_AFFORDANCES:-false}" = true ] && set -- "$@" --probe-affordances
  [ "${QS_STRICT_INCONCLUSIVE:-false}" = true ] && set -- "$@" --strict-inconclusive
  [ "${QS_ALLOW_UNENFORCED:-false}" = true ] && set -- "$@" --allow-unenforced
  [ "${QS_GITHUB_SUMMARY:-false}" = true ] && set -- "$@" --github-summary
  # shellcheck disable=SC2086
  [ -n "${QS_ARGS:-}" ] && set -- "$@" ${QS_ARGS}
  clear_previous "$out"
  work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/qs-run.XXXXXX")
  echo "+ $bin $*" >&2
  # qs run's stderr is shown as it comes and kept: when the run writes no
  # results, the error is all this step publishes.
  mkfifo "$work/stderr.pipe"
  tee "$work/error.txt" <"$work/stderr.pipe" >&2 &
  "$bin" "$@" 2>"$work/stderr.pipe"
  code=$?
  wait
  rm -f "$work/stderr.pipe"
  if [ ! -f "$out/results.json" ]; then
    # Nothing ran (a bad input, a task file that does not load): publish
    # the error alone, never an older run's results.
    echo "qs run wrote no results (exit $code); publishing its error only" >&2
    output "results=$work"
  else
    rm -rf "$work"
    results=$(cd "$out" && pwd)
    output "results=$results"
    if "$bin" qs report "$out" --out "$out/report.html"; then
      output "report=$results/report.html"
    else
      echo "could not write the HTML report of $out" >&2
      [ "$code" = 0 ] && code=3
    fi
  fi
  output "exit-code=$code"
  echo "tabwright qs exit code: $code" >&2
  if [ "${QS_DEFER_EXIT:-}" = 1 ]; then
    exit 0
  fi
  exit "$code"
}

case "${1:-}" in
fetch) fetch ;;
build) build ;;
install) install ;;
run) run ;;
*)
  echo "usage: qs-action.sh fetch|build|install|run" >&2
  exit 3
  ;;
esac
