package observe

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Payloads of earlier versions wrote runs of plain elements as rows; they
// still decode, one element per row.
func TestElementRowsDecode(t *testing.T) {
	raw := `[{"ref":"e1","selector":"#a","role":"link","label":"A"},` +
		`{"role":"link","columns":["ref","selector","label","href"],"rows":[["e2","#b","B",""],["e3","#c","C","/c"]]},` +
		`{"columns":["ref","role","selector","label"],"rows":[["e4","button","#d","D"]]}]`
	var out Elements
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatal(err)
	}
	want := Elements{
		{Ref: "e1", Selector: "#a", Role: "link", Label: "A"},
		{Ref: "e2", Selector: "#b", Role: "link", Label: "B"},
		{Ref: "e3", Selector: "#c", Role: "link", Label: "C", Href: "/c"},
		{Ref: "e4", Selector: "#d", Role: "button", Label: "D"},
	}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("decoded:\n got %+v\nwant %+v", out, want)
	}
	for _, bad := range []string{`[{"role":"link","columns":["ref"],"rows":[["e1","x"]]}]`, `[{"rows":3}]`, `{}`} {
		if err := json.Unmarshal([]byte(bad), &out); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
}

// Every interactive entry of a page is one element with ref, selector, role
// and label (the contract's meaning), its selector matching it alone, and
// decoding gives back what was captured. (A max_interactive given lists
// the run of links in full; by default it folds, see fold.)
func TestLinksPageOneElementPerEntry(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/links.html")
	o, raw := observeOK(t, ctx, p, Options{MaxInteractive: DefaultMaxInteractive})
	var payload struct {
		Interactive []map[string]any `json:"interactive"`
	}
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatal(err)
	}
	if len(payload.Interactive) != DefaultMaxInteractive {
		t.Fatalf("want %d entries: %.400s", DefaultMaxInteractive, raw)
	}
	for i, e := range payload.Interactive {
		for _, k := range []string{"ref", "selector", "role", "label"} {
			if s, _ := e[k].(string); s == "" {
				t.Fatalf("interactive[%d] has no %s: %v", i, k, e)
			}
		}
		if _, rows := e["rows"]; rows {
			t.Fatalf("interactive[%d] is a row entry: %v", i, e)
		}
	}
	if e := payload.Interactive[7]; e["selector"] != "a[href='/item/7']" || e["label"] != "Item 7" {
		t.Errorf("entry 7: %v", e)
	}
	decoded, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(decoded.Interactive, o.Interactive) {
		t.Errorf("decoded interactive differs from the captured one")
	}
	var n int
	if err := p.Eval(ctx, `document.querySelectorAll("a[href='/item/7']").length`, &n); err != nil || n != 1 {
		t.Errorf("selector matches %d (%v)", n, err)
	}
}

// Asked for (Options.Rows), the links page's runs come as rows: each row's
// selector matches its element alone, decoding restores every element, and
// the digest is the one of the same content written one element per entry.
func TestLinksPageRowsWhenAsked(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/links.html")
	plainObs, plainRaw := observeOK(t, ctx, p, Options{MaxInteractive: DefaultMaxInteractive})
	o, raw := observeOK(t, ctx, p, Options{Rows: true})
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
	if !reflect.DeepEqual(row, []string{o.Interactive[7].Ref, "a[href='/item/7']", "Item 7"}) {
		t.Errorf("row 7: %v", row)
	}
	decoded, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(decoded.Interactive, plainObs.Interactive) || o.Digest != plainObs.Digest {
		t.Errorf("rows decode to other elements, or change the digest")
	}
	if len(raw) >= len(plainRaw)*3/4 {
		t.Errorf("rows: %d characters, one element per entry %d", len(raw), len(plainRaw))
	}
	t.Logf("links page: %d characters with rows, %d without", len(raw), len(plainRaw))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
