package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/batch"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/schemas"
)

// The advertised browser_batch schema, its $refs inlined, is the contract
// in the repo's schemas/ copy, description strings aside. Inline replaces
// only a $ref that stands alone, and the contract has none: equal after
// inlining, the two validate the same instances.
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
	if d := diffJSON("", schemas.Structure(want), schemas.Structure(schemas.Inline(got))); len(d) > 0 {
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
	tl := defaultServer().batchTool()
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

// The rules between fields that JSON Schema cannot say: the advertised
// schema accepts these batches, the handler refuses each with the path of
// the rule it breaks (and runs nothing: the nil manager is never reached).
func TestBatchHandlerStricterThanSchema(t *testing.T) {
	tl := defaultServer().batchTool()
	sch := compileSchema(t, tl)
	batchOf := func(steps string) string { return `{"tab_handle":"h","steps":[` + steps + `]}` }
	for _, tc := range []struct{ args, path string }{
		{`{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"start_at":1}`, "start_at"},
		{`{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"observe":{"ref":"e1"}}`, "observe.ref"},
		{`{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"observe":{"max_chars":2000}}`, "observe.selector"},
		{batchOf(`{"action":"type","selector":"#q","focused":true,"text":"x"}`), "steps[0].selector"},
		{batchOf(`{"action":"type","text":"x"}`), "steps[0].selector"},
		{batchOf(`{"action":"scroll","nth":1,"delta_y":5}`), "steps[0].selector"},
		{batchOf(`{"action":"click","selector":"Save","name":"Save"}`), "steps[0].name"},
		{batchOf(`{"action":"click","selector":"#a","frame":{"url":"https://a.test/"},"frame_id":"F"}`), "steps[0].frame"},
		{batchOf(`{"action":"click","selector":"#a","frame":{}}`), "steps[0].frame"},
		{batchOf(`{"action":"select_option","selector":"#s","value":"a","label":"A"}`), "steps[0].value"},
		{batchOf(`{"action":"select_option","selector":"#s"}`), "steps[0].value"},
		{batchOf(`{"action":"scroll"}`), "steps[0].delta_y"},
		{batchOf(`{"action":"click","selector":"#a"},{"action":"click","selector":"#a","settle_ms":[600,200]}`), "steps[1].settle_ms"},
		{batchOf(`{"action":"wait","condition":"url","selector":"#a","expected":"x"}`), "steps[0].selector"},
		{batchOf(`{"action":"wait","condition":"visible"}`), "steps[0].selector"},
		{batchOf(`{"action":"wait","condition":"value","selector":"#a"}`), "steps[0].expected"},
		{batchOf(`{"action":"wait","condition":"text","selector":"#a","expected":"x","previous":"y"}`), "steps[0].expected"},
		{batchOf(`{"action":"press_key","key":"Control+Nope"}`), "steps[0].key"},
	} {
		t.Run(tc.args, func(t *testing.T) {
			if err := validateJSON(sch, tc.args); err != nil {
				t.Fatalf("the schema refuses it already: %v", err)
			}
			err, touched := runNoManager(t, tl, tc.args)
			if touched {
				t.Fatal("the handler reached the manager")
			}
			e := inputError(t, err, tc.path)
			if strings.Contains(e.Message, "oneOf") {
				t.Fatalf("generic message: %v", e)
			}
		})
	}
}

// A refused batch over MCP: isError, the text lists every violation, the
// structured content holds the error and the violations.
func TestBatchRefusalResult(t *testing.T) {
	srv := &server{owners: map[*mcp.ServerSession]string{}}
	args := `{"tab_handle":"h","steps":[{"action":"click"},{"action":"fill","selector":"#a","text":"x","observe":{"max_options":0}}],"dialog_policy":"maybe"}`
	res, err := srv.handle(srv.batchTool())(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "browser_batch", Arguments: json.RawMessage(args)}})
	if err != nil || !res.IsError {
		t.Fatalf("result %+v, %v", res, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	for _, want := range []string{"error invalid_input: nothing ran:", "dialog_policy: must be one of ask, accept, dismiss", "steps[0].selector: is required for click", "steps[1].observe.max_options: must be between 1 and 100; got 0"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out struct {
		Error      errs.Error   `json:"error"`
		Violations []errs.Error `json:"violations"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Error.Code != errs.InvalidInput || out.Error.Path != "dialog_policy" || out.Error.Message != "3 problem(s) in the batch; nothing ran" || out.Error.Hint == "" {
		t.Fatalf("error: %+v", out.Error)
	}
	var paths []string
	for _, v := range out.Violations {
		paths = append(paths, v.Path)
	}
	if strings.Join(paths, " ") != "dialog_policy steps[0].selector steps[1].observe.max_options" {
		t.Fatalf("violations: %v", paths)
	}
}

// The text of a batch's result: one line per step that ran, the failed
// step's error and hint, the skipped prefix, the batch observe.
func TestRenderBatch(t *testing.T) {
	v := "Ada"
	failed := 2
	stepErr := errs.New(errs.NotFound, `no element matches css "#go"`).WithPath("steps[2]").WithHint("observe the page")
	r := &batch.Result{
		Steps: []*batch.StepResult{
			{Index: 1, Action: "fill", OK: true, ElapsedMS: 12, Result: &act.Result{Action: "fill", Value: &v, Verified: "value read back"}},
			{Index: 2, Action: "click", ElapsedMS: 300, Result: &act.Result{Action: "click"}, Error: stepErr},
		},
		FailedStep: &failed, Error: stepErr, Skipped: 1, ElapsedMS: 320,
	}
	text := renderBatch(r)
	for _, want := range []string{"batch stopped at step 2 after 320 ms (1 skipped by start_at)", "[1] ", "[2] ", `error not_found at steps[2]: no element matches css "#go"`, "next: observe the page"} {
		if !strings.Contains(text, want) {
			t.Errorf("failure text lacks %q:\n%s", want, text)
		}
	}
	r = &batch.Result{OK: true, Steps: r.Steps[:1], ElapsedMS: 40, Observe: &act.Control{Role: "status", Text: "Thanks"},
		ObserveError: nil}
	text = renderBatch(r)
	if !strings.HasPrefix(text, "batch done: 1 step(s) in 40 ms") || !strings.Contains(text, `observe: {"role":"status","name":"","text":"Thanks"}`) || strings.Contains(text, "error") {
		t.Errorf("success text:\n%s", text)
	}
	r.Observe, r.ObserveError = nil, errs.New(errs.NotFound, "gone")
	if text = renderBatch(r); !strings.Contains(text, "observe failed: not_found: gone") {
		t.Errorf("observe error text:\n%s", text)
	}
}
