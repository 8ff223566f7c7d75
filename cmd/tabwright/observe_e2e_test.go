package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/observe"
)

// pages serves testdata/pages.
func pages(t testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.FileServer(http.Dir("../../testdata/pages")))
	t.Cleanup(srv.Close)
	return srv
}

// Over MCP: include, scope, diffing and watching, each payload valid.
func TestObserveSectionsAndModesOverMCP(t *testing.T) {
	t.Parallel()
	site := pages(t)
	s := startServer(t)
	opened := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/article.html"})
	h := opened["tab_handle"].(string)
	sch := observationSchema(t)
	obs := func(args map[string]any) map[string]any {
		t.Helper()
		args["tab_handle"] = h
		o := mustCall(t, s.sess, "browser_observe", args)
		if err := sch.Validate(o); err != nil {
			t.Fatalf("observation does not validate: %v", err)
		}
		return o
	}

	r := obs(map[string]any{"include": []any{"reader"}})
	reader, _ := r["reader"].(map[string]any)
	if md, _ := reader["markdown"].(string); !strings.Contains(md, "Part 3: on growing tomatoes") || strings.Contains(md, "Popular story") {
		t.Errorf("reader over MCP: %v", reader)
	}
	if len(r["interactive"].([]any)) != 0 || r["textpreview"] != "" {
		t.Errorf("only the reader was asked for: %v", r)
	}

	mustCall(t, s.sess, "browser_navigate", map[string]any{"tab_handle": h, "url": site.URL + "/mutate.html"})
	base := obs(map[string]any{})
	digest := base["digest"].(string)
	w1 := obs(map[string]any{"mode": "watching"})
	if w1["delta"] == true {
		t.Errorf("first watching observation is a delta: %v", w1)
	}
	w2 := obs(map[string]any{"mode": "watching"})
	if w2["delta"] != true || len(w2["interactive"].([]any)) != 0 {
		t.Errorf("quiet page: %v", w2)
	}
	scoped := obs(map[string]any{"scope": "#tasks", "include": []any{"interactive"}})
	if n := len(scoped["interactive"].([]any)); n != 2 {
		t.Errorf("scope #tasks: %d elements", n)
	}
	same := obs(map[string]any{"mode": "diffing", "since": digest})
	d := same["diff"].(map[string]any)
	if d["base"] != digest || len(d["added"].(map[string]any)) != 0 || len(d["changed"].(map[string]any)) != 0 {
		t.Errorf("diff of an unchanged page: %v", d)
	}

	for _, tc := range []struct {
		args       map[string]any
		path, text string
	}{
		{map[string]any{"include": []any{"text", "pixels"}}, "include[1]", "unknown section"},
		{map[string]any{"include": []any{"text", 7}}, "include[1]", "must be a string"},
		{map[string]any{"include": []any{}}, "include", "must not be empty"},
		{map[string]any{"include": "reader"}, "include", "array"},
		{map[string]any{"include": []any{"a11y", "a11y"}}, "include[1]", "twice"},
		{map[string]any{"mode": "sometimes"}, "mode", "must be one of"},
		{map[string]any{"mode": "diffing"}, "since", "required"},
		{map[string]any{"since": digest}, "since", "only used with mode diffing"},
		{map[string]any{"mode": "diffing", "since": "ffffffffffffffff"}, "since", "no recent observation"},
		{map[string]any{"scope": "#nope"}, "scope", "matches no element"},
		{map[string]any{"scope": "a[["}, "scope", "not a valid CSS selector"},
		{map[string]any{"max_interactive": 0}, "max_interactive", "between"},
	} {
		tc.args["tab_handle"] = h
		code, path, msg := callErr(t, s.sess, "browser_observe", tc.args)
		if code != "invalid_input" || path != tc.path || !strings.Contains(msg, tc.text) {
			t.Errorf("%v: %s at %s: %s; want invalid_input at %s (%s)", tc.args, code, path, msg, tc.path, tc.text)
		}
	}
}

// A scope can be any strict locator the action tools take: found the same
// way, read through its handle.
func TestObserveScopedByLocatorOverMCP(t *testing.T) {
	t.Parallel()
	site := pages(t)
	s := startServer(t)
	opened := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/article.html"})
	h := opened["tab_handle"].(string)
	read := func(args map[string]any) *observe.Observation {
		t.Helper()
		args["tab_handle"] = h
		raw, _ := json.Marshal(mustCall(t, s.sess, "browser_observe", args))
		o, err := observe.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	// The text leaves out lines the listed links' labels say: all of them.
	nav := read(map[string]any{"selector": "navigation", "selector_type": "role", "name": "Sections"})
	if len(nav.Interactive) != 12 || nav.Interactive[3].Label != "Section 3" || nav.TextPreview != "" || nav.TextLength == 0 {
		t.Errorf("role scope: %d elements, text %.80q", len(nav.Interactive), nav.TextPreview)
	}
	item := read(map[string]any{"selector": "nav li", "nth": 4})
	if item.TextPreview != "" || len(item.Interactive) != 1 || item.Interactive[0].Label != "Section 4" {
		t.Errorf("css+nth scope: %q %+v", item.TextPreview, item.Interactive)
	}
	form := read(map[string]any{"selector": "//form", "selector_type": "xpath", "include": []any{"forms", "text"}})
	if len(form.Forms) != 1 || len(form.Forms[0].Fields) != 2 || form.TextPreview != "" {
		t.Errorf("xpath scope: %+v %q", form.Forms, form.TextPreview)
	}
	// The ref of an element from the first observation scopes too.
	byRef := read(map[string]any{"ref": nav.Interactive[0].Ref})
	if len(byRef.Interactive) != 1 || byRef.Interactive[0].Label != "Section 0" {
		t.Errorf("ref scope: %+v", byRef.Interactive)
	}
	for _, tc := range []struct {
		args       map[string]any
		code, text string
	}{
		{map[string]any{"selector": "nav li"}, "ambiguous", "12"},
		{map[string]any{"selector": "Nowhere", "selector_type": "label", "timeout_ms": 300}, "not_found", "Nowhere"},
	} {
		tc.args["tab_handle"] = h
		code, _, msg := callErr(t, s.sess, "browser_observe", tc.args)
		if code != tc.code || !strings.Contains(msg, tc.text) {
			t.Errorf("%v: %s %s; want %s (%s)", tc.args, code, msg, tc.code, tc.text)
		}
	}
}

func TestObserveCommandIncludeAndDiff(t *testing.T) {
	t.Parallel()
	site := pages(t)
	out, stderr, code := runCLI(t, nil, "observe", site.URL+"/table.html", "--include", "tableshape,text", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var a map[string]any
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	if err := observationSchema(t).Validate(a); err != nil {
		t.Fatal(err)
	}
	if shapes, _ := a["tableshape"].([]any); len(shapes) != 1 {
		t.Fatalf("tableshape: %v", a["tableshape"])
	}
	dir := t.TempDir()
	fa := filepath.Join(dir, "a.json")
	os.WriteFile(fa, []byte(out), 0o600)
	// The same observation with a changed title and a field from a later version.
	a["title"] = "Inventory (updated)"
	a["schemaversion"] = 2
	a["sparkline"] = []any{1, 2, 3}
	raw, _ := json.Marshal(a)
	fb := filepath.Join(dir, "b.json")
	os.WriteFile(fb, raw, 0o600)
	out, stderr, code = runCLI(t, nil, "observe", "--diff", fa, fb)
	if code != 0 {
		t.Fatalf("diff exit %d: %s", code, stderr)
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("diff output: %v\n%s", err, out)
	}
	if ch := d["changed"].(map[string]any); len(ch) != 1 || ch["title"].([]any)[0] != "Inventory (updated)" {
		t.Errorf("diff: %s", out)
	}
	// A payload that drops a frozen field is refused, naming it.
	delete(a, "forms")
	raw, _ = json.Marshal(a)
	os.WriteFile(fb, raw, 0o600)
	_, stderr, code = runCLI(t, nil, "observe", "--diff", fa, fb)
	if code == 0 || !strings.Contains(stderr, "forms") {
		t.Errorf("diff against a broken payload: exit %d: %s", code, stderr)
	}
}
