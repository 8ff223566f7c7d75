package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/batch"
	"github.com/tabwright/tabwright/engine/errs"
)

// fuzzSeeds are realistic arguments, valid and not, for every tool.
var fuzzSeeds = []string{
	``, `null`, `{}`, `[]`, `"x"`, `0`, `true`, `{`, `{"":1}`,
	`{"kind":"browsers"}`, `{"kind":"tabs","browser_id":"managed"}`, `{"kind":"windows"}`,
	`{"url":"https://example.com/"}`, `{"url":"example.com"}`, `{"url":"about:blank","claim":false,"active":true,"timeout_ms":1000}`,
	`{"url":"http://127.0.0.1:9/a.html","browser_id":"cdp:127.0.0.1:9222","timeout_ms":99}`,
	`{"url":"http://[::1]:8080/a?b=c#d"}`, `{"url":"http:///x"}`, `{"url":"javascript:alert(1)"}`, `{"url":"%zz"}`,
	`{"tab_id":"8F0C5B8A2B4E","expected_url":"https://a.test/","expected_title":"A"}`, `{"tab_id":7}`,
	`{"tab_handle":"th-0123abcd","action":"release"}`, `{"tab_handle":"th-1","action":"kill"}`,
	`{"tab_handle":"th-1","url":"https://a.test/","wait_until":"network_idle","timeout_ms":5000}`,
	`{"tab_handle":"th-1","history":"back"}`, `{"tab_handle":"th-1","url":"https://a.test/","history":"reload"}`,
	`{"tab_handle":"th-1","max_chars":4000,"timeout_ms":30000}`, `{"tab_handle":"th-1","max_chars":1.5}`,
	`{"tab_handle":null}`, `{"tab_handle":"h","timeout_ms":1e3}`, `{"tab_handle":"h","timeout_ms":99999999999999999999}`,
	`{"url":"\ud800"}`, "{\"url\":\"https://a.test/\xff\"}", `{"a":{"b":[1,2,{"c":null}]}}`,
	// action tools
	`{"tab_handle":"h","selector":"#go"}`, `{"tab_handle":"h","ref":"e7"}`, `{"tab_handle":"h","ref":"e7","selector":"#go"}`,
	`{"tab_handle":"h","selector":"Save","selector_type":"role","name":"","nth":1}`, `{"tab_handle":"h","selector":"x","name":"n"}`,
	`{"tab_handle":"h","selector":"#go","button":"right","click_count":2,"modifiers":["Control","Control"],"settle_ms":[200,100]}`,
	`{"tab_handle":"h","selector":"#go","mode":"dom","offset":{"x_ratio":2,"y_ratio":-1}}`, `{"tab_handle":"h","selector":"#go","offset":{}}`,
	`{"tab_handle":"h","selector":"Email","selector_type":"label","text":"","expected_value":"x"}`, `{"tab_handle":"h","text":null}`,
	`{"tab_handle":"h","focused":true,"text":"hi","delay_ms":[1,2]}`, `{"tab_handle":"h","focused":true,"selector":"#q","text":"x"}`, `{"tab_handle":"h","focused":false}`,
	`{"tab_handle":"h","selector":"#f","value":"a","label":"A","index":-1}`, `{"tab_handle":"h","delta_y":1e308,"x":1}`,
	`{"tab_handle":"h","until":{"text":"Bottom","selector":"#l"},"max_steps":0}`, `{"tab_handle":"h","until":{"text":""}}`, `{"tab_handle":"h","until":[]}`,
	`{"tab_handle":"h","condition":"text","selector":"#l","expected":"a","previous":"b"}`, `{"tab_handle":"h","condition":"url","selector":"#l","expected":true}`,
	`{"tab_handle":"h","condition":"checked","selector":"#c","expected":"mixed","idle_ms":5}`, `{"tab_handle":"h","condition":"network_idle","idle_ms":100}`,
	`{"tab_handle":"h","key":"Control+"}`, `{"tab_handle":"h","key":"Control+Shift+Nope"}`, `{"tab_handle":"h","key":"Enter"}`,
	`{"tab_handle":"h","selector":"#a","to":{"selector":"#b","name":""}}`, `{"tab_handle":"h","selector":"#a","to":{"frame":{}}}`, `{"tab_handle":"h","selector":"#a","dx":1,"to":{"ref":"e1"}}`,
	`{"tab_handle":"h","selector":"#f","files":["/tmp/a",""]}`, `{"tab_handle":"h","selector":"#a","frame":{"url":"x"}}`, `{"tab_handle":"h","selector":"#a","frame_id":"F"}`,
	`{"tab_handle":"h","selector":"#a","observe":{"ref":"e1","max_options":0,"popup_selector":"#p"}}`, `{"tab_handle":"h","selector":"#a","observe":{"frame_id":"F"}}`,
	`{"tab_handle":"h","action":"accept","prompt_text":"x"}`, `{"tab_handle":"h","action":"dismiss","prompt_text":"x"}`,
	// browser_batch
	`{"tab_handle":"h","steps":[{"action":"click","selector":"#go"}]}`, `{"tab_handle":"h","steps":[]}`, `{"steps":[]}`, `{"tab_handle":"h","steps":null}`,
	`{"tab_handle":"h","steps":[1,"x",null,[],{}]}`, `{"tab_handle":"h","steps":[{"action":5},{"action":"drag"}]}`,
	`{"tab_handle":"h","timeout_ms":99,"dialog_policy":"x","start_at":31,"steps":[{"action":"teleport"}],"observe":{"ref":"e1"}}`,
	`{"tab_handle":"h","start_at":1,"steps":[{"action":"click","ref":"e1"},{"action":"fill","selector":"#a","text":"x","observe":{"ref":"e2","max_chars":1}}]}`,
	`{"tab_handle":"h","steps":[{"action":"click","selector":"#a","settle_ms":[600,200]},{"action":"wait","condition":"url","selector":"#x"},{"action":"select_option","selector":"#s","value":"a","index":1}]}`,
	`{"tab_handle":"h","steps":[{"action":"type","focused":true,"text":"x"},{"action":"scroll","until":{"text":"End"}},{"action":"press_key","key":"Control+Shift+Nope"}],"observe":{"selector":"#r","frame":{}}}`,
}

// FuzzDecode feeds arbitrary bytes as the arguments of every tool: to decode
// into the tool's input struct (limited to the advertised fields for the
// action tools, as their handlers do), and to the tool's handler on a server without
// a manager. Properties: nothing panics except by reaching the missing
// manager (that is, after validation accepted the input); every error is an
// *errs.Error with code invalid_input and a non-empty path; an error result
// renders and marshals. browser_batch has no input struct: its handler's
// validator (batch.Prevalidate) is fuzzed through the handler, whose refusal
// lists every violation (checkBatchRefusal).
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	srv := &server{owners: map[*mcp.ServerSession]string{}, opt: Options{AllowEvaluate: true}}
	tools := srv.tools()
	inputs := inputTypes()
	prevalidated := prevalidatedTools()
	only := stepToolFields()
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, tl := range tools {
			name := tl.name
			if _, ok := prevalidated[name]; ok {
				err, touched := runNoManager(t, tl, string(data))
				switch {
				case touched:
					if _, v := batch.Prevalidate(json.RawMessage(data)); len(v) > 0 {
						t.Fatalf("%s(%q): the handler reached the manager despite violations %v", name, data, v)
					}
				case err == nil:
					t.Fatalf("%s(%q): succeeded without a manager", name, data)
				default:
					checkBatchRefusal(t, srv, tl, data, err)
				}
				continue
			}
			dst := newInput(t, inputs, name)
			decErr := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s(%q): decode panicked: %v", name, data, r)
					}
				}()
				return decodeInput(name, json.RawMessage(data), dst, only)
			}()
			if decErr != nil {
				checkFuzzError(t, name+" decode", data, decErr)
			}

			err, touched := runNoManager(t, tl, string(data))
			switch {
			case touched:
				if decErr != nil {
					t.Fatalf("%s(%q): decode refused (%v) but the handler reached the manager", name, data, decErr)
				}
			case err == nil:
				t.Fatalf("%s(%q): succeeded without a manager", name, data)
			default:
				checkFuzzError(t, name, data, err)
				if decErr != nil && err.Error() != decErr.Error() {
					t.Fatalf("%s(%q): handler error %v, decode error %v", name, data, err, decErr)
				}
			}
		}
	})
}

func checkFuzzError(t *testing.T, what string, data []byte, err error) {
	t.Helper()
	var e *errs.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s(%q): error %T %v is not an *errs.Error", what, data, err, err)
	}
	if e.Code != errs.InvalidInput {
		t.Fatalf("%s(%q): code %q, want %q: %v", what, data, e.Code, errs.InvalidInput, e)
	}
	if e.Message == "" {
		t.Fatalf("%s(%q): empty message: %v", what, data, e)
	}
	if e.Path == "" {
		t.Fatalf("%s(%q): empty path: %v", what, data, e)
	}
	res := errorResult(err)
	if !res.IsError {
		t.Fatalf("%s(%q): errorResult is not an error", what, data)
	}
	if _, merr := json.Marshal(res); merr != nil {
		t.Fatalf("%s(%q): errorResult does not marshal: %v", what, data, merr)
	}
}

// checkBatchRefusal checks a refused browser_batch: a *failure whose error
// is invalid_input at the first violation's path, whose structured content
// lists every violation Prevalidate finds (each invalid_input with a message
// and a path), and which the MCP handler turns into an isError result with
// that content, rendering and marshalling.
func checkBatchRefusal(t *testing.T, srv *server, tl tool, data []byte, err error) {
	t.Helper()
	name := tl.name
	var f *failure
	if !errors.As(err, &f) {
		// Some refusals come before the violations are gathered (the
		// arguments are not an object): a plain coded error then.
		checkFuzzError(t, name, data, err)
		return
	}
	if f.err == nil || f.err.Code != errs.InvalidInput || f.err.Path == "" || f.err.Message == "" {
		t.Fatalf("%s(%q): failure error %#v", name, data, f.err)
	}
	content, _ := f.content.(map[string]any)
	v, _ := content["violations"].([]*errs.Error)
	_, want := batch.Prevalidate(json.RawMessage(data))
	if len(v) == 0 || len(v) != len(want) {
		t.Fatalf("%s(%q): %d violations in the result, Prevalidate finds %d", name, data, len(v), len(want))
	}
	for _, e := range v {
		if e == nil || e.Code != errs.InvalidInput || e.Message == "" || e.Path == "" {
			t.Fatalf("%s(%q): violation %#v", name, data, e)
		}
	}
	if f.err.Path != v[0].Path || content["error"] != f.err || f.text == "" {
		t.Fatalf("%s(%q): failure %#v", name, data, f)
	}
	res, herr := srv.handle(tl)(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name, Arguments: json.RawMessage(data)}})
	if herr != nil || !res.IsError || res.StructuredContent == nil || len(res.Content) != 1 {
		t.Fatalf("%s(%q): handler result %+v, %v", name, data, res, herr)
	}
	if _, merr := json.Marshal(res); merr != nil {
		t.Fatalf("%s(%q): result does not marshal: %v", name, data, merr)
	}
}
