package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startServerEnv is startServer with extra environment.
func startServerEnv(t testing.TB, env []string, args ...string) *server {
	t.Helper()
	return startServerWith(t, env, nil, args...)
}

// Two `tabwright mcp --cdp-url` processes on one browser see each other's
// claims, and a process that dies frees its claims at once.
func TestClaimsAcrossProcesses(t *testing.T) {
	t.Parallel()
	site := fixtures(t)
	b := startAttachedBrowser(t, "0")
	env := []string{"XDG_RUNTIME_DIR=" + t.TempDir()}
	a := startServerEnv(t, env, "--cdp-url", b.HTTPURL)
	other := startServerEnv(t, env, "--cdp-url", b.HTTPURL)

	opened := mustCall(t, a.sess, "browser_open_tab", map[string]any{"url": site.URL + "/mine"})
	tabID := opened["tab_id"].(string)
	claimedBy := func(sess *mcp.ClientSession) string {
		for _, tab := range mustCall(t, sess, "browser_discover", map[string]any{"kind": "tabs"})["tabs"].([]any) {
			if tm := tab.(map[string]any); tm["tab_id"] == tabID {
				s, _ := tm["claimed_by"].(string)
				return s
			}
		}
		t.Fatalf("tab %s not listed", tabID)
		return ""
	}
	if got := claimedBy(other.sess); got != "another process" {
		t.Fatalf("the other process sees claimed_by %q", got)
	}
	if got := claimedBy(a.sess); got != "you" {
		t.Fatalf("the holder sees claimed_by %q", got)
	}
	code, _, msg := callErr(t, other.sess, "browser_claim_tab", map[string]any{"tab_id": tabID})
	if code != "tab_in_use" || !strings.Contains(msg, "another tabwright process") {
		t.Fatalf("claim of another process's tab: %s %q", code, msg)
	}

	// Released by its holder: free for the other at once.
	mustCall(t, a.sess, "browser_tab_control", map[string]any{"tab_handle": opened["tab_handle"], "action": "release"})
	h := mustCall(t, other.sess, "browser_claim_tab", map[string]any{"tab_id": tabID})["tab_handle"]
	mustCall(t, other.sess, "browser_tab_control", map[string]any{"tab_handle": h, "action": "release"})

	// Its holder killed: free as soon as it has exited, since the kernel
	// drops a process's locks before its exit can be seen.
	mustCall(t, a.sess, "browser_claim_tab", map[string]any{"tab_id": tabID})
	a.cmd.Process.Signal(syscall.SIGKILL)
	killed := time.Now()
	waitExited(t, a.cmd.Process.Pid, 30*time.Second)
	if out, isErr := call(t, other.sess, "browser_claim_tab", map[string]any{"tab_id": tabID}); isErr {
		t.Fatalf("claim of a killed process still held after it exited: %v", out)
	}
	figure(t, "claim of a SIGKILLed --cdp-url process free for another after", "%d ms", time.Since(killed).Milliseconds())
}
