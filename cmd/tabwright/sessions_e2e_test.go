package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tabCount is how many tabs the session's browser lists.
func tabCount(t *testing.T, sess *mcp.ClientSession) int {
	t.Helper()
	tabs, _ := mustCall(t, sess, "browser_discover", map[string]any{"kind": "tabs"})["tabs"].([]any)
	return len(tabs)
}

// 20 HTTP sessions open a tab each and end, 10 with a DELETE and 10 by
// vanishing (their session ends after --session-idle): none of their tabs
// is left behind.
func TestEndedSessionsLeaveNoTabs(t *testing.T) {
	t.Parallel()
	site := fixtures(t)
	endpoint, _ := startHTTP(t, "--session-idle", "1s")
	watcher := connectHTTP(t, endpoint)
	baseline := tabCount(t, watcher)
	for i := range 10 {
		client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
		sess, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		if err != nil {
			t.Fatal(err)
		}
		mustCall(t, sess, "browser_open_tab", map[string]any{"url": fmt.Sprintf("%s/closed-%d", site.URL, i)})
		sess.Close()

		gone := &rawHTTP{endpoint: endpoint}
		gone.init(t)
		open := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"browser_open_tab","arguments":{"url":"%s/abandoned-%d"}}}`, site.URL, i)
		if _, body := gone.post(t, open); !strings.Contains(body, "tab_handle") {
			t.Fatalf("raw client's open: %s", body)
		}
	}
	if n := tabCount(t, watcher); n <= baseline {
		t.Fatalf("%d tabs while the abandoned sessions live, baseline %d", n, baseline)
	}
	waitFor(t, "the ended sessions' tabs to close", 60*time.Second, func() bool { return tabCount(t, watcher) == baseline })
}

// A stdio server on a browser it does not own (--cdp-url) closes the tabs
// it opened when its client goes, and leaves the user's tab it claimed
// open.
func TestStdioExitClosesOpenedTabs(t *testing.T) {
	t.Parallel()
	site := fixtures(t)
	b := startAttachedBrowser(t, "0")
	users := b.openTab(t, site.URL+"/users", "Page /users")
	pages := func() int {
		var list []devtoolsTarget
		b.devtools(t, http.MethodGet, "/json/list", &list)
		n := 0
		for _, tb := range list {
			if tb.Type == "page" {
				n++
			}
		}
		return n
	}
	baseline := pages()
	env := []string{"XDG_RUNTIME_DIR=" + t.TempDir()}
	for range 3 {
		s := startServerEnv(t, env, "--cdp-url", b.HTTPURL)
		mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/mine"})
		mustCall(t, s.sess, "browser_claim_tab", map[string]any{"tab_id": users.ID})
		s.sess.Close()
		s.cmd.Wait()
		if _, ok := b.tab(t, users.ID); !ok {
			t.Fatal("the user's claimed tab was closed")
		}
	}
	waitFor(t, "the opened tabs to close", 60*time.Second, func() bool { return pages() == baseline })
}
