//go:build realapps

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseAriaSnapshot(t *testing.T) {
	snap := strings.Join([]string{
		`- generic [active] [ref=e1]:`,
		`  - toolbar [ref=e3]:`,
		`    - button "bold" [ref=e5] [cursor=pointer]`,
		`    - 'button "list: bullet" [ref=e13] [cursor=pointer]'`,
		`  - generic [ref=e16]:`,
		`    - text: Write a note…`,
		`    - paragraph [ref=e17]`,
		`  - textbox [ref=e20]: "{ \"name\": \"string\" }"`,
		`  - checkbox "Subscribe" [checked]`,
	}, "\n")
	got := parseAriaSnapshot(snap)
	want := []elem{
		{Ref: "e1", Role: "generic"}, {Ref: "e3", Role: "toolbar"},
		{Ref: "e5", Role: "button", Name: "bold"}, {Ref: "e13", Role: "button", Name: "list: bullet"},
		{Ref: "e16", Role: "generic", Name: "Write a note…"}, {Ref: "e17", Role: "paragraph"},
		{Ref: "e20", Role: "textbox", Name: `{ "name": "string" }`},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d elements %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("element %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseUIDSnapshot(t *testing.T) {
	snap := strings.Join([]string{
		`uid=1_0 RootWebArea "Pets" url="http://127.0.0.1/"`,
		`  uid=2_2 "buy milk"`,
		`  uid=5_0 textbox focusable focused value="buy milk"`,
		`  uid=54_0 textbox multiline value="{`,
		`  "name": "string"`,
		`}"`,
		`  uid=54_1 button "Execute"`,
	}, "\n")
	got := parseUIDSnapshot(snap)
	want := []elem{
		{Ref: "1_0", Role: "RootWebArea", Name: "Pets"},
		{Ref: "2_2", Name: "buy milk"},
		{Ref: "5_0", Role: "textbox", Value: "buy milk"},
		{Ref: "54_0", Role: "textbox", Value: "{\n  \"name\": \"string\"\n}"},
		{Ref: "54_1", Role: "button", Name: "Execute"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d elements %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("element %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestFind(t *testing.T) {
	els := []elem{
		{Ref: "a", Role: "button", Name: "Delete account"},
		{Ref: "b", Role: "checkbox"},
		{Ref: "c", Role: "generic", Name: "buy milk"},
		{Ref: "d", Role: "textbox", Value: `{"name": "string"}`},
	}
	cases := []struct {
		t       target
		partial bool
		want    string
	}{
		{target{Role: "button", Name: "Delete"}, false, ""}, // an older observation: exact only
		{target{Role: "button", Name: "Delete"}, true, "a"},
		{target{Name: "BUY  milk"}, false, "c"},
		{target{Role: "checkbox", Near: "buy milk"}, true, "b"},
		{target{Role: "textbox", Name: `"name"`}, true, "d"},
		{*either(target{Name: "Write a note…"}, target{Role: "textbox"}), true, "d"},
	}
	for _, c := range cases {
		e := findAny(els, c.t, c.partial)
		got := ""
		if e != nil {
			got = e.Ref
		}
		if got != c.want {
			t.Errorf("find %s (partial %v): got %q, want %q", c.t, c.partial, got, c.want)
		}
	}
}

func TestImportMap(t *testing.T) {
	dir := t.TempDir()
	write := func(pkg, body string) {
		if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, pkg, "package.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("lit", `{"type":"module","main":"index.js","exports":{".":{"types":"./index.d.ts","default":"./index.js"},"./decorators.js":"./decorators.js"}}`)
	write("@codemirror/view", `{"module":"dist/index.js"}`)
	write("@marijn/find-cluster-break", `{"type":"module","exports":{"import":"./src/index.js","require":"./dist/index.cjs"}}`)
	write("jquery", `{"main":"dist/jquery.js"}`)
	im, err := importMap(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"lit": "/m/lit/index.js"`, `"lit/": "/m/lit/"`,
		`"@codemirror/view": "/m/@codemirror/view/dist/index.js"`,
		`"@marijn/find-cluster-break": "/m/@marijn/find-cluster-break/src/index.js"`,
	} {
		if !strings.Contains(im, want) {
			t.Errorf("import map lacks %s:\n%s", want, im)
		}
	}
	if strings.Contains(im, "jquery") {
		t.Errorf("a CommonJS package is in the import map:\n%s", im)
	}
}
