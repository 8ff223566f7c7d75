package mcpserver

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/schemas"
)

// batchVariants reads the batch contract from the repository (not the
// embedded copy the tools are built from) and returns its step variants by
// action.
func batchVariants(t *testing.T) (string, map[string]map[string]any) {
	t.Helper()
	raw, err := os.ReadFile("../schemas/browser_batch.input.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var contract struct {
		Schema     string `json:"$schema"`
		Properties struct {
			Steps struct {
				Items struct {
					OneOf []map[string]any `json:"oneOf"`
				} `json:"items"`
			} `json:"steps"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &contract); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, v := range contract.Properties.Steps.Items.OneOf {
		a := v["properties"].(map[string]any)["action"].(map[string]any)["const"].(string)
		out[a] = v
	}
	return contract.Schema, out
}

// diffJSON lists where two generic JSON values differ, by path.
func diffJSON(at string, want, got any) []string {
	wm, wok := want.(map[string]any)
	gm, gok := got.(map[string]any)
	if wok && gok {
		var out []string
		names := map[string]bool{}
		for k := range wm {
			names[k] = true
		}
		for k := range gm {
			names[k] = true
		}
		sorted := make([]string, 0, len(names))
		for k := range names {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			wv, win := wm[k]
			gv, gin := gm[k]
			switch {
			case !win:
				out = append(out, fmt.Sprintf("%s/%s: unexpected %s", at, k, js(gv)))
			case !gin:
				out = append(out, fmt.Sprintf("%s/%s: missing, want %s", at, k, js(wv)))
			default:
				out = append(out, diffJSON(at+"/"+k, wv, gv)...)
			}
		}
		return out
	}
	wl, wok := want.([]any)
	gl, gok := got.([]any)
	if wok && gok && len(wl) == len(gl) {
		var out []string
		for i := range wl {
			out = append(out, diffJSON(fmt.Sprintf("%s/%d", at, i), wl[i], gl[i])...)
		}
		return out
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: got %s, want %s", at, js(got), js(want))}
	}
	return nil
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The single-action tools take the batch step's fields, so an agent learns
// one vocabulary: each advertised input schema has the properties of the
// matching step variant of schemas/browser_batch.input.schema.json with
// action removed and tab_handle and ref added, the same required fields
// (selector aside, since a ref may stand in), and for each property the
// contract's type, enum, const and default; lengths and nested shapes are
// left to the handler (lean listing).
func TestActionSchemasMatchBatchContract(t *testing.T) {
	_, variants := batchVariants(t)
	tools := toolsByName(t)
	for _, action := range []string{act.Click, act.Fill, act.Type, act.Hover, act.SelectOption, act.Scroll, act.Wait, act.PressKey} {
		t.Run(action, func(t *testing.T) {
			v, ok := variants[action]
			if !ok {
				t.Fatalf("no %s step in the batch contract", action)
			}
			want := schemas.Structure(v).(map[string]any)
			wantProps := want["properties"].(map[string]any)
			_, got := schemaJSON(t, tools[toolName(action)])
			gotProps := got["properties"].(map[string]any)
			names := func(m map[string]any) []string {
				var out []string
				for k := range m {
					out = append(out, k)
				}
				sort.Strings(out)
				return out
			}
			wantNames := append(slices.DeleteFunc(names(wantProps), func(n string) bool { return n == "action" }), "ref", "tab_handle")
			wantNames = append(wantNames, singleExtras[action]...) // beyond the contract: single-action only
			sort.Strings(wantNames)
			if g := names(gotProps); !slices.Equal(g, wantNames) {
				t.Fatalf("properties %v, want %v", g, wantNames)
			}
			var wantReq []string
			for _, r := range want["required"].([]any) {
				if r != "action" && r != "selector" {
					wantReq = append(wantReq, r.(string))
				}
			}
			wantReq = append(wantReq, "tab_handle")
			var gotReq []string
			for _, r := range got["required"].([]any) {
				gotReq = append(gotReq, r.(string))
			}
			sort.Strings(wantReq)
			sort.Strings(gotReq)
			if !slices.Equal(gotReq, wantReq) {
				t.Errorf("required %v, want %v", gotReq, wantReq)
			}
			for name, w := range wantProps {
				wp, gp := w.(map[string]any), gotProps[name]
				if gp == nil {
					continue
				}
				checkLean(t, name, wp, gp.(map[string]any))
			}
		})
	}
}

// checkLean compares a listed property with the contract's: the same
// default, enum (or the consts of an anyOf), const, and type (or an anyOf
// of one branch per type of the contract's branches, never a union type
// list, which Ajv's strict mode refuses); a nested object listed as
// {"type":"object"} alone is a shape its description gives.
func checkLean(t *testing.T, name string, want, got map[string]any) {
	t.Helper()
	wantEnum, wantType := want["enum"], want["type"]
	if branches, ok := want["anyOf"].([]any); ok {
		var consts, types []any
		for _, b := range branches {
			bm := b.(map[string]any)
			if c, ok := bm["const"]; ok {
				consts = append(consts, c)
			}
			types = append(types, map[string]any{"type": bm["type"]})
		}
		if len(consts) == len(branches) {
			wantEnum, wantType = consts, nil
		} else if !reflect.DeepEqual(types, got["anyOf"]) {
			t.Errorf("%s.anyOf = %v, want %v", name, got["anyOf"], types)
		}
	}
	for _, k := range []string{"default", "const"} {
		if !reflect.DeepEqual(want[k], got[k]) {
			t.Errorf("%s.%s = %v, want %v", name, k, got[k], want[k])
		}
	}
	if !reflect.DeepEqual(wantEnum, got["enum"]) {
		t.Errorf("%s.enum = %v, want %v", name, got["enum"], wantEnum)
	}
	if !reflect.DeepEqual(wantType, got["type"]) {
		t.Errorf("%s.type = %v, want %v", name, got["type"], wantType)
	}
	if _, nested := got["properties"]; !nested && wantType == "object" {
		if d, _ := got["description"].(string); d == "" && !slices.Contains(sharedFields, name) {
			t.Errorf("%s: an object listed without its fields and without a description of its shape", name)
		}
	}
}

// The contract's variants of the tools built from it exist, and the two
// tools that are not batch steps (drag, upload) and browser_dialog really are
// absent from it, so nothing silently falls back to a hand-written schema.
func TestActionToolsCoverContract(t *testing.T) {
	_, variants := batchVariants(t)
	var steps []string
	for a := range variants {
		steps = append(steps, a)
	}
	sort.Strings(steps)
	for _, a := range []string{act.Click, act.Fill, act.Type, act.Hover, act.SelectOption, act.Scroll, act.Wait, act.PressKey} {
		if !slices.Contains(steps, a) {
			t.Errorf("contract has no %s step (it has %v)", a, steps)
		}
	}
}

// Invalid action inputs are refused by the handler with the field at fault,
// before the manager is used.
func TestActionToolValidation(t *testing.T) {
	tools := toolsByName(t)
	tests := []refusal{
		// decoding: unknown, not-yet-offered and other actions' fields
		{"browser_click", `{}`, "tab_handle", "is required"},
		{"browser_click", `{"selector":"#go"}`, "tab_handle", "is required"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","frames":{"url":"https://a.test/"}}`, "frames", `unknown field "frames"`},
		{"browser_click", `{"tab_handle":"h","selector":"#go","frame":{"href":"https://a.test/"}}`, "frame.href", "unknown field"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","observe":{"frame":{"src":"x"}}}`, "observe.frame.src", "unknown field"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","observe":{"tab_handle":"h"}}`, "observe.tab_handle", "unknown field"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","action":"fill"}`, "action", "unknown field"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","text":"x"}`, "text", "unknown field"},
		{"browser_fill", `{"tab_handle":"h","selector":"#e","text":"x","button":"left"}`, "button", "unknown field"},
		{"browser_hover", `{"tab_handle":"h","selector":"#e","mode":"dom"}`, "mode", "unknown field"},
		{"browser_press_key", `{"tab_handle":"h","key":"a","text":"a"}`, "text", "unknown field"},
		{"browser_upload", `{"tab_handle":"h","selector":"#f","files":["/a"],"dialog_policy":"accept"}`, "dialog_policy", "unknown field"},
		{"browser_drag", `{"tab_handle":"h","selector":"#a","to":{"selector":"#b","frames":{}}}`, "to.frames", "unknown field"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","offset":[0.5,0.5]}`, "offset", "must be an object"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","offset":{"x":1}}`, "offset.x", "unknown field"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","click_count":"2"}`, "click_count", "must be an integer"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","settle_ms":"fast"}`, "settle_ms", "an integer or [min, max]"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","modifiers":"Shift"}`, "modifiers", "must be a list of strings"},
		{"browser_wait", `{"tab_handle":"h","condition":"checked","selector":"#c","expected":3}`, "expected", "a string or true/false"},
		{"browser_scroll", `{"tab_handle":"h","until":{"text":"x","limit":3}}`, "until.limit", "unknown field"},
		{"browser_scroll", `{"tab_handle":"h","until":{"text":""}}`, "until.text", "must not be empty"},
		{"browser_click", `{"tab_handle":"h","selector":null}`, "selector", "not null"},
		{"browser_click", `{"tab_handle":"h","selector":""}`, "selector", "must not be empty"},

		// the step's own rules (act.Step.Validate), with their paths
		{"browser_click", `{"tab_handle":"h"}`, "selector", "is required for click"},
		{"browser_click", `{"tab_handle":"h","ref":"e1","selector":"#go"}`, "ref", "a ref names the element alone"},
		{"browser_click", `{"tab_handle":"h","selector":"Save","name":"Save"}`, "name", "only for selector_type role"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","frame":{"url":"https://a.test/"},"frame_id":"F1"}`, "frame", "not both"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","frame":{}}`, "frame", "at least one of url, title and path"},
		{"browser_click", `{"tab_handle":"h","ref":"e1","frame_id":"F1"}`, "ref", "a ref names the element alone"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","click_count":3}`, "click_count", "must be 1 or 2"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","mode":"dom","button":"right"}`, "mode", "dom clicks are left, single"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","settle_ms":[300,100]}`, "settle_ms", "min 300 is greater than max 100"},
		{"browser_click", `{"tab_handle":"h","selector":"#go","timeout_ms":99}`, "timeout_ms", "between 100 and 30000"},
		{"browser_fill", `{"tab_handle":"h","selector":"#e"}`, "text", "is required"},
		{"browser_type", `{"tab_handle":"h","text":"x"}`, "selector", "not both and not neither"},
		{"browser_type", `{"tab_handle":"h","selector":"#q","focused":true,"text":"x"}`, "selector", "not both and not neither"},
		{"browser_select_option", `{"tab_handle":"h","selector":"#f","value":"a","index":1}`, "value", "exactly one of value, label and index"},
		{"browser_scroll", `{"tab_handle":"h"}`, "delta_y", "required unless until"},
		{"browser_scroll", `{"tab_handle":"h","delta_y":10,"x":5}`, "x", "x and y together"},
		{"browser_wait", `{"tab_handle":"h"}`, "condition", "is required"},
		{"browser_wait", `{"tab_handle":"h","condition":"url","selector":"#x","expected":"a"}`, "selector", "reads the page"},
		{"browser_wait", `{"tab_handle":"h","condition":"text","selector":"#x","expected":"a","previous":"b"}`, "expected", "exactly one"},
		{"browser_press_key", `{"tab_handle":"h","key":"Control+Nope"}`, "key", ""},
		{"browser_drag", `{"tab_handle":"h","selector":"#a"}`, "to", "a target locator (to) or a distance"},
		{"browser_drag", `{"tab_handle":"h","selector":"#a","to":{"selector":"#b"},"dx":3}`, "to", "not both"},
		{"browser_upload", `{"tab_handle":"h","selector":"#f","files":["/a",""]}`, "files[1]", "must not be empty"},

		// browser_dialog
		{"browser_dialog", `{}`, "tab_handle", "is required"},
		{"browser_dialog", `{"tab_handle":"h"}`, "action", "is required"},
		{"browser_dialog", `{"tab_handle":"h","action":"close"}`, "action", "must be one of accept, dismiss"},
		{"browser_dialog", `{"tab_handle":"h","action":"dismiss","prompt_text":"x"}`, "prompt_text", "only goes with action accept"},
		{"browser_dialog", `{"tab_handle":"h","action":"accept","text":"x"}`, "text", "unknown field"},
	}
	checkRefusals(t, tools, tests)
}

// Several problems in one input are all reported in one error, whose path is
// the first one's.
func TestActionToolReportsEveryViolation(t *testing.T) {
	tl := toolsByName(t)["browser_click"]
	err, touched := runNoManager(t, tl, `{"tab_handle":"h","selector":"#go","click_count":3,"button":"back","timeout_ms":5,"settle_ms":[9,1]}`)
	if touched {
		t.Fatal("reached the manager")
	}
	var e *errs.Error
	e = inputError(t, err, "timeout_ms")
	for _, want := range []string{"4 problems", "timeout_ms: must be between 100 and 30000", "button: must be one of left, middle, right", "click_count: must be 1 or 2", "settle_ms: min 9 is greater than max 1"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message %q lacks %q", e.Message, want)
		}
	}
	if res := errorResult(err); !strings.Contains(js(res.StructuredContent), `"path":"timeout_ms"`) {
		t.Errorf("structured error %s", js(res.StructuredContent))
	}
}

// Valid action inputs reach the manager (so the refusals above are the
// handler's, not a side effect of the missing manager).
func TestActionToolsPassValidInputs(t *testing.T) {
	tools := toolsByName(t)
	for _, tc := range []struct{ tool, args string }{
		{"browser_click", `{"tab_handle":"h","selector":"#go"}`},
		{"browser_click", `{"tab_handle":"h","ref":"e7","button":"middle","click_count":2,"modifiers":["Alt"],"offset":{"x_ratio":0.1,"y_ratio":0.9},"settle_ms":[10,20],"dialog_policy":"dismiss","timeout_ms":30000}`},
		{"browser_click", `{"tab_handle":"h","selector":"button","selector_type":"role","name":"Save","nth":0,"observe":{"selector":"#menu","popup_selector":"#list","max_options":5,"max_chars":1000,"timeout_ms":100}}`},
		{"browser_click", `{"tab_handle":"h","selector":"button","selector_type":"role","name":""}`},
		{"browser_click", `{"tab_handle":"h","selector":"#go","frame":{"url":"https://a.test/f","title":"F","path":["iframe"]}}`},
		{"browser_click", `{"tab_handle":"h","selector":"#go","frame_id":"F1","observe":{"selector":"#x","frame_id":"F1"}}`},
		{"browser_fill", `{"tab_handle":"h","selector":"Email","selector_type":"label","text":"a@b.c","expected_value":"a@b.c","mode":"dom"}`},
		{"browser_fill", `{"tab_handle":"h","selector":"#e","text":""}`},
		{"browser_type", `{"tab_handle":"h","focused":true,"text":"hi","delay_ms":[1,5]}`},
		{"browser_hover", `{"tab_handle":"h","selector":"//a","selector_type":"xpath","offset":{"x_ratio":0,"y_ratio":0}}`},
		{"browser_select_option", `{"tab_handle":"h","selector":"#f","label":"Banana"}`},
		{"browser_select_option", `{"tab_handle":"h","selector":"#f","value":""}`},
		{"browser_select_option", `{"tab_handle":"h","ref":"e3","index":2}`},
		{"browser_scroll", `{"tab_handle":"h","delta_y":-300,"delta_x":10.5}`},
		{"browser_scroll", `{"tab_handle":"h","selector":"#list","mode":"wheel","x":1,"y":2,"until":{"text":"Item 90","selector":"#list"},"max_steps":50}`},
		{"browser_wait", `{"tab_handle":"h","condition":"text","selector":"#log","previous":""}`},
		{"browser_wait", `{"tab_handle":"h","condition":"checked","selector":"#c","expected":"mixed"}`},
		{"browser_wait", `{"tab_handle":"h","condition":"selected","selector":"#o","expected":true}`},
		{"browser_wait", `{"tab_handle":"h","condition":"network_idle","idle_ms":250}`},
		{"browser_press_key", `{"tab_handle":"h","key":"Control+Shift+Tab","selector":"#q"}`},
		{"browser_drag", `{"tab_handle":"h","selector":"#card","to":{"selector":"Lane","selector_type":"role","name":""}}`},
		{"browser_drag", `{"tab_handle":"h","ref":"e1","dx":120,"dy":0}`},
		{"browser_upload", `{"tab_handle":"h","selector":"#file","files":["/tmp/a.txt"]}`},
		{"browser_dialog", `{"tab_handle":"h","action":"accept","prompt_text":"yes"}`},
	} {
		t.Run(tc.tool+"/"+tc.args, func(t *testing.T) {
			err, touched := runNoManager(t, tools[tc.tool], tc.args)
			if !touched {
				t.Fatalf("%s(%s) = %v without reaching the manager, want it accepted", tc.tool, tc.args, err)
			}
		})
	}
}

// Whatever the handler accepts, the schema an agent reads accepts too, so a
// client that checks arguments against it never blocks a valid call; the
// handler is stricter (lengths, nested shapes, rules between fields) and
// names the field at fault.
func TestActionSchemaAndHandlerAgree(t *testing.T) {
	tools := toolsByName(t)
	for _, tc := range []struct{ tool, args string }{
		{"browser_fill", `{"tab_handle":"h","selector":"#e","text":""}`},
		{"browser_fill", `{"tab_handle":"h","selector":"#e","text":"x","expected_value":""}`},
		{"browser_click", `{"tab_handle":"h","selector":"button","selector_type":"role","name":""}`},
		{"browser_click", `{"tab_handle":"h","selector":"#go","click_count":2.0}`},
		{"browser_click", `{"tab_handle":"h","selector":"#go","timeout_ms":1e3}`},
		{"browser_click", `{"tab_handle":"h","selector":"#go","frame_id":"F"}`},
		{"browser_click", `{"tab_handle":"h","selector":"#go","frame":{"path":["iframe#a","iframe"]}}`},
		{"browser_click", `{"tab_handle":"h","selector":"#go","frame":{"path":[]}}`},
		{"browser_click", `{"tab_handle":"h","selector":"#go","frames":{}}`},
		{"browser_click", `{"tab_handle":"h","selector":""}`},
		{"browser_select_option", `{"tab_handle":"h","selector":"#f","label":""}`},
		{"browser_wait", `{"tab_handle":"h","condition":"text","selector":"#l","previous":""}`},
		{"browser_scroll", `{"tab_handle":"h","until":{"text":""}}`},
		{"browser_type", `{"tab_handle":"h","focused":false,"text":"x","selector":"#q"}`},
		{"browser_upload", `{"tab_handle":"h","selector":"#f","files":[]}`},
		{"browser_dialog", `{"tab_handle":"h","action":"accept","prompt_text":""}`},
	} {
		t.Run(tc.tool+"/"+tc.args, func(t *testing.T) {
			tl := tools[tc.tool]
			schemaErr := validateJSON(compileSchema(t, tl), tc.args)
			err, touched := runNoManager(t, tl, tc.args)
			if touched && schemaErr != nil {
				t.Fatalf("handler accepts what the schema refuses: %v", schemaErr)
			}
			_ = err
		})
	}
}

func TestRenderResult(t *testing.T) {
	v := "a@b.c"
	text := renderResult(&act.Result{Action: "fill", Target: map[string]any{"tag": "input", "id": "email"}, Verified: "value read back", Value: &v})
	for _, want := range []string{"fill <input#email>", ": value read back", `value: "a@b.c"`} {
		if !strings.Contains(text, want) {
			t.Errorf("%q lacks %q", text, want)
		}
	}
}
