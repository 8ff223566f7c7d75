// Package successcheck builds the shell program a success check runs: $QS_PORT,
// the qs_* helpers, then the task's compiled check.
package successcheck

import (
	"fmt"
	"hash/crc32"
	"net"
	"strconv"
	"time"

	"github.com/tabwright/tabwright/quickstart/egress"
)

// SessionLogName is the file, written into the workspace after the agent
// stops, that holds what the agent's successful commands printed.
const SessionLogName = ".quickstarted-session.log"

// PortBase is 21000 + CRC-32 (IEEE) of the task name, mod 20000: the same
// port a quickstarted check would get.
func PortBase(name string) int { return 21000 + int(crc32.ChecksumIEEE([]byte(name))%20000) }

// Port is the first port from PortBase(name) on, of twenty, that nothing on
// 127.0.0.1 answers; the base when all twenty answer.
func Port(name string) int {
	base := PortBase(name)
	for p := base; p < base+20; p++ {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(p), 200*time.Millisecond)
		if err != nil {
			return p
		}
		c.Close()
	}
	return base
}

// Script is what runs: the port (chosen again in the shell when the
// environment does not set it), the helpers, then the compiled check.
func Script(name, compiled string) string {
	return fmt.Sprintf("QS_PORT_BASE=%d\n", PortBase(name)) + Prelude + "\n" + compiled
}

// Prelude defines the helpers every check may call. qs_serve's commands
// share the check's process group, which the harness kills when the check
// ends, so nothing a check served outlives it.
const Prelude = `if [ -z "${QS_PORT:-}" ]; then
  QS_PORT=$QS_PORT_BASE
  for __qs_p in $(seq "$QS_PORT_BASE" $((QS_PORT_BASE + 19))); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$__qs_p") 2>/dev/null; then QS_PORT=$__qs_p; break; fi
  done
fi
export QS_PORT
QS_LOG=${TMPDIR:-/tmp}/qs-serve.log
QS_BODY=${TMPDIR:-/tmp}/qs-body.out
QS_SESSION_LOG=${QS_SESSION_LOG:-$PWD/` + SessionLogName + `}
__qs_pids=""
__qs_cleanup() { for __qs_p in $__qs_pids; do kill -TERM "$__qs_p" 2>/dev/null; done; }
trap __qs_cleanup EXIT
qs_fail() { echo "check failed: $*"; exit 1; }
__qs_ere() { printf '%s' "$1" | sed -e 's/[][\\.*^$(){}?+|/]/\\&/g'; }
qs_serve() {
  [ $# -gt 0 ] || qs_fail "qs_serve: give the command that starts the server"
  bash -c "$*" >"$QS_LOG" 2>&1 &
  __qs_pids="$__qs_pids $!"
}
__qs_get() {
  # __qs_get URL: sets __qs_status and writes the body to $QS_BODY; returns 1 when nothing answered.
  __qs_status=""; : >"$QS_BODY"
  if command -v curl >/dev/null 2>&1; then
    __qs_status=$(curl -sS -o "$QS_BODY" -w '%{http_code}' --max-time 10 "$1" 2>"$QS_BODY.err") || true
    [ -n "$__qs_status" ] && [ "$__qs_status" != "000" ] && return 0
    __qs_err="connection failed: $(tail -n 1 "$QS_BODY.err" 2>/dev/null)"; return 1
  elif command -v python3 >/dev/null 2>&1; then
    __qs_status=$(python3 - "$1" "$QS_BODY" <<'PY' 2>/dev/null
import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen(sys.argv[1], timeout=10); body, code = r.read(), r.status
except urllib.error.HTTPError as e:
    body, code = e.read(), e.code
except Exception:
    sys.exit(1)
open(sys.argv[2], "wb").write(body); print(code)
PY
) && return 0
    __qs_err="connection failed"; return 1
  elif command -v wget >/dev/null 2>&1; then
    wget -q -T 10 -O "$QS_BODY" "$1" 2>/dev/null && { __qs_status=200; return 0; }
    __qs_err="connection failed"; return 1
  fi
  qs_fail "no way to make an HTTP request here (no curl, python3 or wget)"
}
qs_wait_http() {
  [ $# -gt 0 ] || qs_fail "qs_wait_http: give a path or URL"
  local target=$1; shift
  local want=200 timeout=40 pats=() shown=()
  while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || qs_fail "qs_wait_http: $1 needs a value"
    case $1 in
      --status) want=$2 ;;
      --timeout) timeout=$2 ;;
      --contains) [ -n "$2" ] || qs_fail "qs_wait_http: empty --contains matches anything"; pats+=("$(__qs_ere "$2")"); shown+=("$2") ;;
      --matches) [ -n "$2" ] || qs_fail "qs_wait_http: empty --matches matches anything"; pats+=("$2"); shown+=("$2") ;;
      --json)
        local k=${2%%=*} v=${2#*=}
        local ek ev; ek=$(__qs_ere "$k"); ev=$(__qs_ere "$v")
        pats+=("\"$ek\"[[:space:]]*:[[:space:]]*(\"$ev\"|$ev)([[:space:]]*[,}]|[[:space:]]*$)"); shown+=("\"$k\": $v") ;;
      *) qs_fail "qs_wait_http: unknown option $1" ;;
    esac
    shift 2
  done
  local url
  case $target in
    http://*|https://*) url=$target ;;
    /*) url="http://127.0.0.1:$QS_PORT$target" ;;
    *) url="http://127.0.0.1:$QS_PORT/$target" ;;
  esac
  local deadline=$(( $(date +%s) + timeout ))
  __qs_err="never attempted"
  while :; do
    if __qs_get "$url"; then
      if [ "$__qs_status" != "$want" ]; then
        __qs_err="HTTP $__qs_status, wanted $want. Body: $(head -c 300 "$QS_BODY")"
      else
        local ok=1 i
        for i in "${!pats[@]}"; do
          if ! grep -Eq -- "${pats[$i]}" "$QS_BODY"; then
            ok=0; __qs_err="HTTP $__qs_status but the body does not show ${shown[$i]}. Body: $(head -c 300 "$QS_BODY")"; break
          fi
        done
        [ $ok = 1 ] && return 0
      fi
    fi
    [ "$(date +%s)" -ge "$deadline" ] && break
    sleep 0.25
  done
  if [ -s "$QS_LOG" ]; then
    echo "--- server log (last 20 lines) ---"; tail -n 20 "$QS_LOG"; echo "----------------------------------"
  else
    echo "(no server output; it may never have started)"
  fi
  qs_fail "$url never answered as expected after ${timeout}s. Last attempt: $__qs_err"
}
qs_expect_output() {
  [ -f "$QS_SESSION_LOG" ] || qs_fail "no recorded session output at $QS_SESSION_LOG"
  while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || qs_fail "qs_expect_output: $1 needs a value"
    [ -n "$2" ] || qs_fail "qs_expect_output: empty pattern matches anything"
    local pat
    case $1 in
      --contains) pat=$(__qs_ere "$2") ;;
      --matches) pat=$2 ;;
      *) qs_fail "qs_expect_output: unknown option $1" ;;
    esac
    if ! grep -Eq -- "$pat" "$QS_SESSION_LOG"; then
      echo "--- last 20 lines the run printed ---"; tail -n 20 "$QS_SESSION_LOG"; echo "-------------------------------------"
      qs_fail "nothing the run printed matched: $2"
    fi
    shift 2
  done
}
qs_browser_expect() {
  [ $# -ge 3 ] && [ "$2" = "--text" ] || qs_fail "usage: qs_browser_expect URL --text TEXT"
  [ -n "${QS_BROWSER_ENDPOINT:-}" ] || qs_fail "qs_browser_expect: this check runs without the harness's browser"
  local url=$1
  case $url in
    http://*|https://*) ;;
    [A-Za-z]*:*) qs_fail "qs_browser_expect renders http(s) pages only (or a path on \$QS_PORT), not $url" ;;
    /*) url="http://127.0.0.1:$QS_PORT$url" ;;
    *) url="http://127.0.0.1:$QS_PORT/$url" ;;
  esac
  local out
  out=$(curl -sS --max-time 60 -H "` + egress.HarnessKeyHeader + `: ${QS_BROWSER_KEY:-}" --get --data-urlencode "url=$url" --data-urlencode "text=$3" "$QS_BROWSER_ENDPOINT" 2>&1)
  case $out in ok*) echo "$out"; return 0 ;; esac
  qs_fail "the page at $url, rendered, does not show \"$3\": ${out:-no answer from the harness}"
}
`
