package main

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// textOf is a result's text content.
func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// browser_observe tells a claim what changed, not the page again: an
// unchanged page is one line (text) and reserved.unchanged (JSON), unless
// full asks for it all; a new claim of the same tab has seen nothing.
func TestObserveUnchangedIsOneLine(t *testing.T) {
	t.Parallel()
	site := fixtures(t)
	s := startServer(t)
	opened := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/a"})
	h := opened["tab_handle"].(string)
	observeTab := func(h string, args map[string]any) (map[string]any, string) {
		t.Helper()
		args["tab_handle"] = h
		res := callAny(t, s.sess, "browser_observe", args)
		if res.IsError {
			t.Fatalf("browser_observe: %s", textOf(res))
		}
		out, _ := res.StructuredContent.(map[string]any)
		return out, textOf(res)
	}
	unchanged := func(out map[string]any) bool {
		r, _ := out["reserved"].(map[string]any)
		_, ok := r["unchanged"]
		return ok
	}

	first, text := observeTab(h, map[string]any{})
	if unchanged(first) || !strings.Contains(text, "Hello from /a") {
		t.Fatalf("first observation:\n%s", text)
	}
	again, text := observeTab(h, map[string]any{})
	if !unchanged(again) || strings.Count(text, "\n") > 1 || !strings.Contains(text, first["digest"].(string)) || again["url"] != first["url"] {
		t.Fatalf("unchanged page: %v\n%s", again, text)
	}
	full, text := observeTab(h, map[string]any{"full": true})
	if unchanged(full) || !strings.Contains(text, "Hello from /a") {
		t.Fatalf("full: true:\n%s", text)
	}

	mustCall(t, s.sess, "browser_tab_control", map[string]any{"tab_handle": h, "action": "release"})
	h2 := mustCall(t, s.sess, "browser_claim_tab", map[string]any{"tab_id": opened["tab_id"]})["tab_handle"].(string)
	fresh, text := observeTab(h2, map[string]any{})
	if unchanged(fresh) || !strings.Contains(text, "Hello from /a") || !strings.Contains(text, site.URL+"/a") {
		t.Fatalf("a new claim's first observation:\n%s", text)
	}
}
