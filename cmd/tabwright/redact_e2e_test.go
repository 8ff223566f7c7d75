package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The secrets of TestSecretsLeaveEveryResult: plain ASCII, non-ASCII, and
// one JSON has to escape.
const (
	plainSecret  = "sk-live-4f3a9b27"
	wideSecret   = "pässwörd-ünïcode"
	quotedSecret = `say"cheese-42`
)

// redactSite serves pages that put the secrets where a page can: its
// title, its visible text, its URL, its console and its scripts' values
// and exceptions. The page builds each secret from parts, so the page's
// source is never the form a result shows.
func redactSite(t testing.TB) *httptest.Server {
	secrets, _ := json.Marshal(map[string]string{"plain": plainSecret, "wide": wideSecret, "quoted": quotedSecret})
	head := fmt.Sprintf(`<!doctype html><meta charset="utf-8"><script>const S = %s;</script>`, secrets)
	mux := http.NewServeMux()
	mux.HandleFunc("/title", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, head+`<title>x</title><p id="t"></p><script>
document.title = "Welcome " + S.plain;
document.getElementById("t").textContent = "Your key is " + S.wide + " and " + S.plain;
</script>`)
	})
	mux.HandleFunc("/console", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, head+`<title>Console</title><script>
console.log("token " + btoa(S.plain) + " and " + btoa(S.wide));
</script>`)
	})
	mux.HandleFunc("/script", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, head+`<title>Script</title><script>
window.fail = () => { throw new Error("login failed for " + S.quoted + " / " + S.wide); };
</script>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// Every result a tool returns is free of the configured secrets, in every
// form a page can give them (issue 25 item 11).
func TestSecretsLeaveEveryResult(t *testing.T) {
	t.Parallel()
	site := redactSite(t)
	file := filepath.Join(t.TempDir(), "secrets")
	body := "# a line of each kind\nAPI_KEY=" + plainSecret + "\n" + wideSecret + "\n" + quotedSecret + "\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, "--secrets-file", file, "--allow-evaluate")
	h := openOn(t, s.sess, site.URL+"/title")

	t.Run("title and observation", func(t *testing.T) {
		res := callAny(t, s.sess, "browser_observe", map[string]any{"tab_handle": h})
		shown := resultText(res)
		if !strings.Contains(shown, "Welcome [redacted]") || !strings.Contains(shown, "Your key is [redacted]") {
			t.Fatalf("the page's title and text are not shown redacted: %s", shown)
		}
		noSecret(t, shown)
	})
	t.Run("discover's tab list", func(t *testing.T) {
		shown := resultText(callAny(t, s.sess, "browser_discover", map[string]any{"kind": "tabs"}))
		if !strings.Contains(shown, "Welcome [redacted]") {
			t.Fatalf("the tab is not listed with its title redacted: %s", shown)
		}
		noSecret(t, shown)
	})
	t.Run("percent-encoded in a url", func(t *testing.T) {
		target := site.URL + "/title?user=" + url.QueryEscape(wideSecret) + "&key=" + url.PathEscape(plainSecret)
		shown := resultText(callAny(t, s.sess, "browser_navigate", map[string]any{"tab_handle": h, "url": target}))
		shown += resultText(callAny(t, s.sess, "browser_observe", map[string]any{"tab_handle": h, "include": []any{"text"}}))
		shown += resultText(callAny(t, s.sess, "browser_discover", map[string]any{"kind": "tabs"}))
		if !strings.Contains(shown, "user=[redacted]") {
			t.Fatalf("the url is not shown redacted: %s", shown)
		}
		noSecret(t, shown)
	})
	t.Run("base64 in a console line", func(t *testing.T) {
		c := openOn(t, s.sess, site.URL+"/console")
		var shown string
		waitFor(t, "the console line", 10*time.Second, func() bool {
			shown = resultText(callAny(t, s.sess, "browser_logs", map[string]any{"tab_handle": c, "kind": []any{"console"}}))
			return strings.Contains(shown, "token ")
		})
		if !strings.Contains(shown, "token [redacted] and [redacted]") {
			t.Fatalf("the base64 secrets are not redacted: %s", shown)
		}
		noSecret(t, shown)
	})
	e := openOn(t, s.sess, site.URL+"/script")
	t.Run("evaluate exception", func(t *testing.T) {
		res := callAny(t, s.sess, "browser_evaluate", map[string]any{"tab_handle": e, "expression": "fail()"})
		shown := resultText(res)
		if !res.IsError || !strings.Contains(shown, "login failed for [redacted] / [redacted]") {
			t.Fatalf("the exception is not shown redacted: %s", shown)
		}
		noSecret(t, shown)
	})
	t.Run("evaluate result, JSON-escaped and non-ASCII", func(t *testing.T) {
		for _, expr := range []string{"({who: S.quoted, nested: JSON.stringify({w: S.wide})})", "JSON.stringify(S.wide).replace(/[^\\x20-\\x7e]/g, c => '\\\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))"} {
			res := callAny(t, s.sess, "browser_evaluate", map[string]any{"tab_handle": e, "expression": expr})
			shown := resultText(res)
			if res.IsError || !strings.Contains(shown, "[redacted]") {
				t.Fatalf("%s: %s", expr, shown)
			}
			noSecret(t, shown)
		}
	})
}

// callAny calls a tool and returns its result, failed or not.
func callAny(t testing.TB, sess *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := sess.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// resultText is everything a client reads in a result: each text content
// and the structured content as JSON, plus that JSON's strings decoded (a
// client reads them decoded).
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text + "\n")
		}
	}
	raw, _ := json.Marshal(res.StructuredContent)
	b.Write(raw)
	var tree any
	json.Unmarshal(raw, &tree)
	var strs func(any)
	strs = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString("\n" + v)
		case []any:
			for _, e := range v {
				strs(e)
			}
		case map[string]any:
			for _, e := range v {
				strs(e)
			}
		}
	}
	strs(tree)
	return b.String()
}

// noSecret fails when any spelling of a secret a test can check for shows.
func noSecret(t testing.TB, shown string) {
	t.Helper()
	for _, secret := range []string{plainSecret, wideSecret, quotedSecret} {
		quoted, _ := json.Marshal(secret)
		for _, form := range []string{secret, strings.Trim(string(quoted), `"`), url.QueryEscape(secret), url.PathEscape(secret), "4f3a9b27", "cheese-42", "\\u00e4ssw", "ssw%C3%B6rd"} {
			if strings.Contains(shown, form) {
				t.Fatalf("%q (a form of %q) shows in: %s", form, secret, shown)
			}
		}
	}
}
