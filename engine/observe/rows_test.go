package observe

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestElementRowsRoundTrip(t *testing.T) {
	yes := true
	in := Elements{
		{Ref: "e1", Selector: "#a", Role: "link", Label: "A"},
		{Ref: "e2", Selector: "#b", Role: "link", Label: "B"},
		{Ref: "e3", Selector: "#c", Role: "button", Label: "C", Disabled: true}, // breaks the run: two links stay objects
		{Ref: "e4", Selector: "a[href='/1']", Role: "link", Label: "One"},
		{Ref: "e5", Selector: "a[href='/2']", Role: "link", Label: "Two"},
		{Ref: "e6", Selector: "nav > a:nth-of-type(3)", Role: "link", Label: "Three", Href: "/3"},
		{Ref: "e7", Selector: "#t", Role: "tab", Label: "T", Selected: true}, // state: never a row
		{Ref: "e8", Selector: "#x", Role: "button", Label: "X", Expanded: &yes},
		{Ref: "e9", Selector: "#y", Role: "button"},
		{Ref: "e10", Selector: "#z", Role: "button", Label: "Z"},
		{Ref: "e11", Selector: "#w", Role: "button", Label: "W"},
		{Ref: "e12", Selector: "#v", Role: "tab", Label: "V", Checked: true},
		{Ref: "e13", Selector: "#c1", Role: "link", Label: "Card 1"},
		{Ref: "e14", Selector: "#b1", Role: "button", Label: "Add"},
		{Ref: "e15", Selector: "#c2", Role: "link", Label: "Card 2"},
	}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var entries []map[string]any
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatal(err)
	}
	// a, b, c as objects; one link run with an href column; the tab and the
	// expanded button as objects; one button run of three; the checked tab;
	// a mixed run with a role column.
	if len(entries) != 9 {
		t.Fatalf("want 9 entries, got %d: %s", len(entries), raw)
	}
	if cols := entries[8]["columns"]; entries[8]["role"] != nil || !reflect.DeepEqual(cols, []any{"ref", "role", "selector", "label"}) {
		t.Errorf("mixed run: %s", raw)
	}
	if cols := entries[3]["columns"]; !reflect.DeepEqual(cols, []any{"ref", "selector", "label", "href"}) {
		t.Errorf("link run columns %v: %s", cols, raw)
	}
	if rows := entries[6]["rows"].([]any); len(rows) != 3 || !reflect.DeepEqual(rows[0], []any{"e9", "#y", ""}) {
		t.Errorf("button run: %s", raw)
	}
	var out Elements
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("round trip:\n got %+v\nwant %+v", out, in)
	}
	for _, bad := range []string{`[{"role":"link","columns":["ref"],"rows":[["e1","x"]]}]`, `[{"rows":3}]`, `{}`} {
		if err := json.Unmarshal([]byte(bad), &out); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
}

// The rows of a page's runs are valid interactive entries: each row's
// selector matches its element alone, and decoding restores every element.
func TestLinksPageRows(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/links.html")
	o, raw := observeOK(t, ctx, p, Options{})
	var payload struct {
		Interactive []struct {
			Role    string     `json:"role"`
			Columns []string   `json:"columns"`
			Rows    [][]string `json:"rows"`
		} `json:"interactive"`
	}
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatal(err)
	}
	if len(payload.Interactive) != 1 || len(payload.Interactive[0].Rows) != DefaultMaxInteractive || payload.Interactive[0].Role != "link" {
		t.Fatalf("want one run of %d links: %.400s", DefaultMaxInteractive, raw)
	}
	row := payload.Interactive[0].Rows[7]
	if !reflect.DeepEqual(row, []string{o.Interactive[7].Ref, o.Interactive[7].Selector, "Item 7"}) || row[1] != "a[href='/item/7']" {
		t.Errorf("row 7: %v", row)
	}
	decoded, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(decoded.Interactive, o.Interactive) {
		t.Errorf("decoded interactive differs from the captured one")
	}
	var n int
	if err := p.Eval(ctx, `document.querySelectorAll(`+jsString(row[1])+`).length`, &n); err != nil || n != 1 {
		t.Errorf("row selector %s matches %d (%v)", row[1], n, err)
	}
}

func TestFieldName(t *testing.T) {
	for sel, want := range map[string]string{
		"[name=email]":         "email",
		"[name='a b']":         "a b",
		`[name='it\'s']`:       "it's",
		`[name='back\\slash']`: `back\slash`,
		`[name='two\a lines']`: "two\nlines",
		"#email":               "",
		"input[name=email]":    "",
		"[name=":               "",
	} {
		if got := (Field{Selector: sel}).FieldName(); got != want {
			t.Errorf("%s: %q, want %q", sel, got, want)
		}
	}
	if got := (Field{Name: "n", Selector: "#x"}).FieldName(); got != "n" {
		t.Errorf("named field: %q", got)
	}
	if !strings.Contains(string(must(json.Marshal(Field{Selector: "[name=q]"}))), `"selector":"[name=q]"`) {
		t.Error("field JSON")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
