#!/bin/sh
# What the GitHub Action (action.yml) runs, and runs the same on any
# machine: `qs-action.sh install` makes sure bubblewrap and a browser are
# there; `qs-action.sh run` runs `tabwright qs run` with the action's inputs
# (QS_* variables), writes the HTML report beside the results, and sets the
# step's outputs. With QS_DEFER_EXIT=1 it exits 0 and leaves the suite's
# exit code in the exit-code output, so the results can be uploaded first.
set -u

here=$(cd "$(dirname "$0")" && pwd)

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

run() {
  bin=${TABWRIGHT:-tabwright}
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
  [ "${QS_ALLOW_UNENFORCED:-false}" = true ] && set -- "$@" --allow-unenforced
  [ "${QS_GITHUB_SUMMARY:-false}" = true ] && set -- "$@" --github-summary
  # shellcheck disable=SC2086
  [ -n "${QS_ARGS:-}" ] && set -- "$@" ${QS_ARGS}
  echo "+ $bin $*" >&2
  "$bin" "$@"
  code=$?
  output "results=$out"
  if [ -f "$out/results.json" ]; then
    if "$bin" qs report "$out" --out "$out/report.html"; then
      output "report=$out/report.html"
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
install) install ;;
run) run ;;
*)
  echo "usage: qs-action.sh install|run" >&2
  exit 3
  ;;
esac
