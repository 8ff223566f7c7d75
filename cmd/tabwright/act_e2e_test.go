package main

// End-to-end tests of the single-action tools: the built binary over MCP,
// real Chromium, the fixture page testdata/act/mcp.html.

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/observe"
)

// actSite serves testdata/act.
func actSite(t testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.FileServer(http.Dir("../../testdata/act")))
	t.Cleanup(srv.Close)
	return srv
}

// waitLog waits until the page's #log holds want (a substring).
func waitLog(t testing.TB, sess *mcp.ClientSession, handle, want string) {
	t.Helper()
	mustCall(t, sess, "browser_wait", map[string]any{"tab_handle": handle, "condition": "text", "selector": "#log", "expected": want, "timeout_ms": 3000})
}

func TestActToolsOverMCP(t *testing.T) {
	t.Parallel()
	site := actSite(t)
	uploads := t.TempDir()
	s := startServer(t, "--upload-root", uploads)
	h := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/mcp.html"})["tab_handle"].(string)

	// fill by label, read back
	out := mustCall(t, s.sess, "browser_fill", map[string]any{"tab_handle": h, "selector": "Email", "selector_type": "label", "text": "ada@example.com"})
	if out["value"] != "ada@example.com" || out["action"] != "fill" {
		t.Fatalf("fill: %v", out)
	}
	// click by role + name
	out = mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "selector": "button", "selector_type": "role", "name": "Save"})
	if v, _ := out["verified"].(string); !strings.Contains(v, "trusted click received") {
		t.Fatalf("click: %v", out)
	}
	waitLog(t, s.sess, h, "saved ada@example.com")

	// observe, then click by ref
	obs := mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h})
	ref := ""
	raw, _ := json.Marshal(obs)
	typed, err := observe.Decode(raw) // runs of plain elements come as rows
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range typed.Interactive {
		if e.Label == "Next" || e.Selector == "#next" {
			ref = e.Ref
		}
	}
	if ref == "" {
		t.Fatalf("no ref for the Next button in %v", obs["interactive"])
	}
	mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "ref": ref})
	waitLog(t, s.sess, h, "next clicked")

	// select_option by label, with the control read back
	out = mustCall(t, s.sess, "browser_select_option", map[string]any{"tab_handle": h, "selector": "#size", "label": "Large", "observe": map[string]any{}})
	sel, _ := out["selected"].(map[string]any)
	if sel["value"] != "l" {
		t.Fatalf("select: %v", out)
	}
	if c, _ := out["observe"].(map[string]any); c == nil || c["value"] != "l" {
		t.Fatalf("select observe: %v", out)
	}

	// type key by key, then press Enter guarded on the same field
	out = mustCall(t, s.sess, "browser_type", map[string]any{"tab_handle": h, "selector": "Search", "selector_type": "placeholder", "text": "kites"})
	if out["value"] != "kites" {
		t.Fatalf("type: %v", out)
	}
	mustCall(t, s.sess, "browser_press_key", map[string]any{"tab_handle": h, "key": "Enter", "selector": "#search"})
	waitLog(t, s.sess, h, "enter pressed on kites")

	// wait for text that appears after 300 ms
	mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "selector": "#later"})
	out = mustCall(t, s.sess, "browser_wait", map[string]any{"tab_handle": h, "condition": "text", "selector": "#status", "expected": "Loaded!", "timeout_ms": 3000})
	if out["action"] != "wait" {
		t.Fatalf("wait: %v", out)
	}
	// and a wait that times out says what it last saw. 1,500 ms, not less:
	// the page must get to read the text once before the time is up, and
	// at a load average of 10-19 a 300 ms budget ran out first (seen once).
	code, _, msg := callErr(t, s.sess, "browser_wait", map[string]any{"tab_handle": h, "condition": "text", "selector": "#status", "expected": "Never", "timeout_ms": 1500})
	if code != "timeout" || !strings.Contains(msg, "Loaded!") {
		t.Fatalf("wait timeout: %s %q", code, msg)
	}

	// hover
	mustCall(t, s.sess, "browser_hover", map[string]any{"tab_handle": h, "selector": "#menu"})
	waitLog(t, s.sess, h, "hovered menu")

	// upload a temp file
	file := filepath.Join(uploads, "notes.txt")
	if err := os.WriteFile(file, []byte("twelve bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCall(t, s.sess, "browser_upload", map[string]any{"tab_handle": h, "selector": "#file", "files": []any{file}})
	waitLog(t, s.sess, h, "file notes.txt 12")

	// drag the card onto the zone
	out = mustCall(t, s.sess, "browser_drag", map[string]any{"tab_handle": h, "selector": "#card", "to": map[string]any{"selector": "#zone"}})
	if v, _ := out["verified"].(string); !strings.Contains(v, "dragged from") {
		t.Fatalf("drag: %v", out)
	}
	waitLog(t, s.sess, h, "dropped on zone")

	// a dialog with policy ask: the click stops with dialog_pending, the tab
	// refuses other calls until browser_dialog answers, then no_dialog
	code, _, msg = callErr(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "selector": "#confirm"})
	if code != "dialog_pending" || !strings.Contains(msg, "Really delete?") {
		t.Fatalf("confirm: %s %q", code, msg)
	}
	code, _, msg = callErr(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "selector": "#next"})
	if code != "dialog_pending" {
		t.Fatalf("click while a dialog is open: %s %q", code, msg)
	}
	out = mustCall(t, s.sess, "browser_dialog", map[string]any{"tab_handle": h, "action": "accept"})
	if d, _ := out["dialog"].(map[string]any); d["type"] != "confirm" || d["message"] != "Really delete?" {
		t.Fatalf("dialog: %v", out)
	}
	waitLog(t, s.sess, h, "confirm true")
	code, _, _ = callErr(t, s.sess, "browser_dialog", map[string]any{"tab_handle": h, "action": "dismiss"})
	if code != "no_dialog" {
		t.Fatalf("second answer: %s, want no_dialog", code)
	}
	// policy dismiss answers it within the call, and says so
	out = mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "selector": "#confirm", "dialog_policy": "dismiss"})
	if ds, _ := out["dialogs"].([]any); len(ds) != 1 {
		t.Fatalf("dialogs: %v", out)
	}
	waitLog(t, s.sess, h, "confirm false")

	// scroll until text at the bottom shows
	out = mustCall(t, s.sess, "browser_scroll", map[string]any{"tab_handle": h, "until": map[string]any{"text": "The end of the list"}, "delta_y": 600})
	sc, _ := out["scroll"].(map[string]any)
	if sc["found"] != true || sc["scroll_y"].(float64) <= 0 {
		t.Fatalf("scroll: %v", out)
	}
}

// The documented errors, each with its code, path and an explanation.
func TestActToolErrorsOverMCP(t *testing.T) {
	t.Parallel()
	site := actSite(t)
	s := startServer(t)
	h := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/mcp.html"})["tab_handle"].(string)
	cases := []struct {
		tool       string
		args       map[string]any
		code, path string
		msgs       []string
	}{
		{"browser_click", map[string]any{"selector": ".dup"}, "ambiguous", "", []string{"2 elements", `"Dup one"`, `"Dup two"`}},
		{"browser_click", map[string]any{"selector": "button", "selector_type": "role"}, "ambiguous", "", []string{"matches", `button "Save"`}},
		{"browser_click", map[string]any{"selector": "#nothing", "timeout_ms": 300}, "not_found", "", []string{`css "#nothing"`, "in the page"}},
		{"browser_click", map[string]any{"selector": "button", "selector_type": "role", "name": "Nope", "timeout_ms": 300}, "not_found", "", []string{`role "button" name "Nope"`}},
		{"browser_fill", map[string]any{"selector": "Phone", "selector_type": "label", "text": "1", "timeout_ms": 300}, "not_found", "", []string{`label "Phone"`}},
		{"browser_click", map[string]any{"selector": ".dup", "nth": 5, "timeout_ms": 300}, "not_found", "", []string{"only 2"}},
		{"browser_click", map[string]any{"ref": "e999"}, "stale_ref", "ref", []string{"e999", "not given by an observation of this tab"}},
		{"browser_click", map[string]any{"selector": "#covered", "timeout_ms": 400}, "not_actionable", "", []string{"covered by <div#banner>"}},
		{"browser_select_option", map[string]any{"selector": "#size", "value": "s", "label": "Small"}, "invalid_input", "value", []string{"exactly one of value, label and index"}},
		{"browser_type", map[string]any{"selector": "#search", "focused": true, "text": "x"}, "invalid_input", "selector", []string{"not both"}},
		{"browser_wait", map[string]any{"condition": "text", "selector": "#log", "expected": "a", "previous": "b"}, "invalid_input", "expected", []string{"exactly one"}},
		{"browser_wait", map[string]any{"condition": "url", "selector": "#log", "expected": "a"}, "invalid_input", "selector", []string{"reads the page"}},
		{"browser_click", map[string]any{"ref": "e1", "selector": "#save"}, "invalid_input", "ref", []string{"a ref names the element alone"}},
		{"browser_click", map[string]any{"selector": "Save", "name": "Save"}, "invalid_input", "name", []string{"only for selector_type role"}},
		{"browser_click", map[string]any{"selector": "#save", "settle_ms": []any{300, 100}}, "invalid_input", "settle_ms", []string{"min 300 is greater than max 100"}},
		{"browser_press_key", map[string]any{"key": "Control+Nope"}, "invalid_input", "key", nil},
		{"browser_fill", map[string]any{"selector": "#email", "text": "x", "button": "left"}, "invalid_input", "button", []string{`unknown field "button"`}},
		{"browser_click", map[string]any{"selector": "#save", "frames": map[string]any{"url": "x"}}, "invalid_input", "frames", []string{`unknown field "frames"`}},
		{"browser_click", map[string]any{"selector": "#save", "frame": map[string]any{"src": "x"}}, "invalid_input", "frame.src", []string{"unknown field"}},
		{"browser_click", map[string]any{"selector": "#save", "action": "click"}, "invalid_input", "action", []string{"unknown field"}},
		{"browser_dialog", map[string]any{"action": "accept"}, "no_dialog", "", nil},
		{"browser_click", map[string]any{"tab_handle": "th_nope", "selector": "#save"}, "invalid_handle", "tab_handle", nil},
	}
	for _, c := range cases {
		if _, ok := c.args["tab_handle"]; !ok {
			c.args["tab_handle"] = h
		}
		code, path, msg := callErr(t, s.sess, c.tool, c.args)
		ok := code == c.code && path == c.path
		for _, m := range c.msgs {
			ok = ok && strings.Contains(msg, m)
		}
		if !ok {
			t.Errorf("%s %v:\n got  %s %q %q\n want %s %q ~%q", c.tool, c.args, code, path, msg, c.code, c.path, c.msgs)
		}
	}
	// Several problems at once are all named.
	_, path, msg := callErr(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "selector": "#save", "click_count": 3, "button": "back"})
	if path != "button" || !strings.Contains(msg, "2 problems") || !strings.Contains(msg, "click_count") {
		t.Errorf("two problems: %q %q", path, msg)
	}
}
