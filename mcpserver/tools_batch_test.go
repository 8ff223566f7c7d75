package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
)

// The advertised browser_batch schema is the contract in the repo's
// schemas/ copy, description strings aside.
func TestBatchSchemaEqualsContract(t *testing.T) {
	raw, err := os.ReadFile("../schemas/browser_batch.input.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	var got any
	b, _ := json.Marshal(batchSchema())
	json.Unmarshal(b, &got)
	if d := diffJSON("", stripDescriptions(want), stripDescriptions(got)); len(d) > 0 {
		t.Fatalf("browser_batch schema differs from the contract:\n%s", strings.Join(d, "\n"))
	}
	// Every description is ours: none of the contract's strings survive.
	var contractStrings []string
	var collect func(v any)
	collect = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if d, ok := x["description"].(string); ok && len(d) > 30 {
				contractStrings = append(contractStrings, d)
			}
			for _, c := range x {
				collect(c)
			}
		case []any:
			for _, c := range x {
				collect(c)
			}
		}
	}
	collect(want)
	for _, d := range contractStrings {
		if strings.Contains(string(b), d) {
			t.Errorf("the contract's own description is advertised: %q", d)
		}
	}
}

// A bad batch reports every violation, each with its path, and runs nothing
// (the nil manager would panic if it tried).
func TestBatchReportsEveryViolation(t *testing.T) {
	tl := (&server{}).batchTool()
	args := `{"tab_handle":"h","start_at":9,"steps":[
		{"action":"click","selector":"#a","settle_ms":[600,200]},
		{"action":"fill","selector":"#b"},
		{"action":"type","selector":"#c","focused":true,"text":"x"},
		{"action":"click","ref":"e3"},
		{"action":"select_option","selector":"#d","value":"a","label":"b"},
		{"action":"wait","condition":"url","selector":"#e","expected":"x"},
		{"action":"teleport"}
	],"observe":{"ref":"e1"}}`
	_, _, err := tl.run(context.Background(), "o", json.RawMessage(args))
	f, ok := err.(*failure)
	if !ok {
		t.Fatalf("want a failure with violations, got %v", err)
	}
	v := f.content.(map[string]any)["violations"].([]*errs.Error)
	var paths []string
	for _, e := range v {
		paths = append(paths, e.Path)
	}
	want := []string{"steps[0].settle_ms", "steps[1].text", "steps[2].selector", "steps[3].ref",
		"steps[4].value", "steps[5].selector", "steps[6].action", "start_at", "observe.ref"}
	for _, w := range want {
		found := false
		for _, p := range paths {
			found = found || p == w
		}
		if !found {
			t.Errorf("no violation at %s; got %v", w, paths)
		}
	}
	if !strings.Contains(f.text, "steps[0].settle_ms: min 600 is greater than max 200") || !strings.Contains(f.text, "steps[3].ref: refs are refused") || strings.Contains(f.text, "oneOf") {
		t.Errorf("text: %s", f.text)
	}
}
