package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// inputError asserts that err is an *errs.Error with code invalid_input at
// path and returns it.
func inputError(t testing.TB, err error, path string) *errs.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want invalid_input at %q", path)
	}
	var e *errs.Error
	var f *failure
	if errors.As(err, &f) {
		e = f.err // browser_batch: every violation in the content, the first in the error
	} else if !errors.As(err, &e) {
		t.Fatalf("got %T %v, want *errs.Error", err, err)
	}
	if e.Code != errs.InvalidInput {
		t.Fatalf("code = %q, want %q (%v)", e.Code, errs.InvalidInput, e)
	}
	if e.Path != path {
		t.Fatalf("path = %q, want %q (%v)", e.Path, path, e)
	}
	if e.Message == "" {
		t.Fatalf("empty message (%v)", e)
	}
	return e
}

func TestDecode(t *testing.T) {
	type fields = openTabInput // string, *bool and *int fields
	tests := []struct {
		name     string
		raw      string
		path     string // "" means: no error
		message  string // substring of the message
		hint     string // substring of the hint
		wantURL  string
		wantTime *int
	}{
		// accepted
		{name: "empty", raw: ``},
		{name: "blank", raw: " \n\t "},
		{name: "null", raw: `null`},
		{name: "null with spaces", raw: "  null\n"},
		{name: "empty object", raw: `{}`},
		{name: "all fields", raw: `{"url":"https://example.com/","browser_id":"managed","active":false,"claim":true,"timeout_ms":5000}`, wantURL: "https://example.com/", wantTime: ptr(5000)},
		{name: "negative int decodes (range is checked later)", raw: `{"timeout_ms":-1}`, wantTime: ptr(-1)},
		{name: "spaces around values", raw: " { \"url\" : \"x\" } ", wantURL: "x"},

		// unknown fields
		{name: "unknown field", raw: `{"url":"https://a.test/","tab_handle":"h"}`, path: "tab_handle", message: "unknown field",
			hint: "allowed fields: url, browser_id, active, claim, timeout_ms"},
		{name: "field names are case sensitive", raw: `{"URL":"https://a.test/"}`, path: "URL", message: "unknown field", hint: "allowed fields: url,"},
		{name: "first unknown field in sorted order", raw: `{"zz":1,"aa":2,"url":"x"}`, path: "aa", message: "unknown field"},
		{name: "unknown field with null value", raw: `{"nope":null}`, path: "nope", message: "unknown field"},

		// wrong types
		{name: "string for bool", raw: `{"active":"true"}`, path: "active", message: "must be true or false"},
		{name: "number for bool", raw: `{"claim":1}`, path: "claim", message: "must be true or false"},
		{name: "float for int", raw: `{"timeout_ms":1.5}`, path: "timeout_ms", message: "must be an integer"},
		{name: "string for int", raw: `{"timeout_ms":"1000"}`, path: "timeout_ms", message: "must be an integer"},
		{name: "int overflow", raw: `{"timeout_ms":100000000000000000000}`, path: "timeout_ms", message: "out of range"},
		{name: "object for string", raw: `{"url":{"href":"https://a.test/"}}`, path: "url", message: "must be a string"},
		{name: "array for string", raw: `{"url":["https://a.test/"]}`, path: "url", message: "must be a string"},
		{name: "number for string", raw: `{"browser_id":3}`, path: "browser_id", message: "must be a string"},
		{name: "bool for string", raw: `{"url":true}`, path: "url", message: "must be a string"},
		{name: "null string", raw: `{"url":null}`, path: "url", message: "must be a string, not null", hint: "omit the field"},
		{name: "null bool", raw: `{"active":null}`, path: "active", message: "must be true or false, not null", hint: "omit the field"},
		{name: "null int", raw: `{"timeout_ms": null }`, path: "timeout_ms", message: "must be an integer, not null", hint: "omit the field"},

		// not an object
		{name: "array", raw: `[]`, path: "arguments", message: "must be a JSON object"},
		{name: "array of object", raw: `[{"url":"x"}]`, path: "arguments", message: "must be a JSON object"},
		{name: "string", raw: `"https://a.test/"`, path: "arguments", message: "must be a JSON object"},
		{name: "number", raw: `42`, path: "arguments", message: "must be a JSON object"},
		{name: "bool", raw: `true`, path: "arguments", message: "must be a JSON object"},
		{name: "invalid JSON", raw: `{"url":`, path: "arguments", message: "must be a JSON object"},
		{name: "trailing garbage", raw: `{"url":"x"} {}`, path: "arguments", message: "must be a JSON object"},
		{name: "single quotes", raw: `{'url':'x'}`, path: "arguments", message: "must be a JSON object"},
		{name: "NULL is not null", raw: `NULL`, path: "arguments", message: "must be a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in fields
			err := decode(json.RawMessage(tc.raw), &in)
			if tc.path == "" {
				if err != nil {
					t.Fatalf("decode(%q) = %v, want ok", tc.raw, err)
				}
				if in.URL != tc.wantURL {
					t.Errorf("URL = %q, want %q", in.URL, tc.wantURL)
				}
				if (in.TimeoutMS == nil) != (tc.wantTime == nil) || (in.TimeoutMS != nil && *in.TimeoutMS != *tc.wantTime) {
					t.Errorf("TimeoutMS = %v, want %v", deref(in.TimeoutMS), deref(tc.wantTime))
				}
				return
			}
			e := inputError(t, err, tc.path)
			if !strings.Contains(e.Message, tc.message) {
				t.Errorf("message = %q, want it to contain %q", e.Message, tc.message)
			}
			if !strings.Contains(e.Hint, tc.hint) {
				t.Errorf("hint = %q, want it to contain %q", e.Hint, tc.hint)
			}
		})
	}
}

// Unknown fields are refused with the allowed names of the struct actually
// decoded into, for every tool's input.
func TestDecodeUnknownFieldHintPerInput(t *testing.T) {
	for _, tc := range []struct {
		dst  any
		hint string
	}{
		{&discoverInput{}, "allowed fields: kind, browser_id"},
		{&openTabInput{}, "allowed fields: url, browser_id, active, claim, timeout_ms"},
		{&claimTabInput{}, "allowed fields: tab_id, browser_id, expected_url, expected_title"},
		{&tabControlInput{}, "allowed fields: tab_handle, action"},
		{&navigateInput{}, "allowed fields: tab_handle, url, history, wait_until, timeout_ms"},
		{&observeInput{}, "allowed fields: tab_handle, include, max_chars, max_interactive, mode, since, scope, selector, selector_type, name, nth, ref, frame, frame_id, timeout_ms, rows, full"},
	} {
		t.Run(fmt.Sprintf("%T", tc.dst), func(t *testing.T) {
			e := inputError(t, decode(json.RawMessage(`{"bogus":1}`), tc.dst), "bogus")
			if e.Hint != tc.hint {
				t.Errorf("hint = %q, want %q", e.Hint, tc.hint)
			}
		})
	}
}

// A field named "" is unknown to every input; the error must still name a
// path an agent can act on.
func TestDecodeEmptyFieldName(t *testing.T) {
	var in openTabInput
	err := decode(json.RawMessage(`{"":1}`), &in)
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.InvalidInput {
		t.Fatalf("got %v, want invalid_input", err)
	}
	if e.Path == "" {
		t.Fatalf("invalid_input with an empty path (message %q)", e.Message)
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// runNoManager calls a tool built on a server without a manager. touched
// reports that the handler reached the (nil) manager, which it must never do
// for an invalid input.
func runNoManager(t testing.TB, tl tool, args string) (err error, touched bool) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			stack := string(debug.Stack())
			if !strings.Contains(stack, "engine/tabs.(*Manager)") && !strings.Contains(stack, "engine/tabs.(*Tab)") {
				t.Fatalf("%s(%q) panicked outside the manager: %v\n%s", tl.name, args, r, stack)
			}
			err, touched = nil, true
		}
	}()
	_, _, err = tl.run(context.Background(), "owner", json.RawMessage(args))
	return err, false
}

// refusal is an input a tool must refuse, with the path and message of
// its error.
type refusal struct{ tool, args, path, message string }

// checkRefusals runs each input through its tool on a server without a
// manager: it must be refused as invalid_input at the path, before the
// manager is reached.
func checkRefusals(t *testing.T, tools map[string]tool, tests []refusal) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.tool+"/"+tc.args, func(t *testing.T) {
			tl, ok := tools[tc.tool]
			if !ok {
				t.Fatalf("no tool %s", tc.tool)
			}
			err, touched := runNoManager(t, tl, tc.args)
			if touched {
				t.Fatalf("%s(%s) used the manager before refusing the input", tc.tool, tc.args)
			}
			e := inputError(t, err, tc.path)
			if !strings.Contains(e.Message, tc.message) {
				t.Errorf("message = %q, want it to contain %q", e.Message, tc.message)
			}
		})
	}
}

func toolsByName(t testing.TB) map[string]tool {
	t.Helper()
	out := map[string]tool{}
	for _, tl := range allTools() {
		if _, dup := out[tl.name]; dup {
			t.Fatalf("tool %s defined twice", tl.name)
		}
		out[tl.name] = tl
	}
	return out
}

// Every invalid input is refused by the handler itself, with the field at
// fault, before the manager is used (the server here has none).
func TestToolValidation(t *testing.T) {
	tools := toolsByName(t)
	tests := []refusal{
		// any tool: not an object, unknown field
		{"browser_discover", `[]`, "arguments", "must be a JSON object"},
		{"browser_discover", `"tabs"`, "arguments", "must be a JSON object"},
		{"browser_discover", `{"kind":`, "arguments", "must be a JSON object"},
		{"browser_discover", `{"kind":"tabs","tab_id":"x"}`, "tab_id", "unknown field"},
		{"browser_discover", `{"kind":"windows"}`, "kind", `must be one of browsers, tabs; got "windows"`},
		{"browser_discover", `{"kind":"Tabs"}`, "kind", "must be one of browsers, tabs"},
		{"browser_discover", `{"kind":1}`, "kind", "must be a string"},
		{"browser_discover", `{"kind":null}`, "kind", "not null"},
		{"browser_discover", `{"browser_id":["managed"]}`, "browser_id", "must be a string"},

		{"browser_open_tab", ``, "url", "is required"},
		{"browser_open_tab", `{}`, "url", "is required"},
		{"browser_open_tab", `{"url":""}`, "url", "must not be empty"},
		{"browser_open_tab", `{"url":"example.com"}`, "url", "must be an absolute http(s), file or about URL"},
		{"browser_open_tab", `{"url":"/index.html"}`, "url", "must be an absolute"},
		{"browser_open_tab", `{"url":"javascript:alert(1)"}`, "url", `scheme "javascript" is not allowed`},
		{"browser_open_tab", `{"url":"chrome://settings"}`, "url", `scheme "chrome" is not allowed`},
		{"browser_open_tab", `{"url":"data:text/html,hi"}`, "url", `scheme "data" is not allowed`},
		{"browser_open_tab", `{"url":"http:///nohost"}`, "url", "must name a host"},
		{"browser_open_tab", `{"url":"https://exa mple.com/"}`, "url", "must be an absolute"},
		{"browser_open_tab", `{"url":"https://a.test/","timeout_ms":99}`, "timeout_ms", "must be between 100 and 120000; got 99"},
		{"browser_open_tab", `{"url":"https://a.test/","timeout_ms":120001}`, "timeout_ms", "must be between 100 and 120000"},
		{"browser_open_tab", `{"url":"https://a.test/","timeout_ms":-5}`, "timeout_ms", "must be between"},
		{"browser_open_tab", `{"url":"https://a.test/","timeout_ms":1000.5}`, "timeout_ms", "must be an integer"},
		{"browser_open_tab", `{"url":"https://a.test/","active":"yes"}`, "active", "must be true or false"},
		{"browser_open_tab", `{"url":"https://a.test/","claim":null}`, "claim", "not null"},
		{"browser_open_tab", `{"url":"https://a.test/","tab_handle":"h"}`, "tab_handle", "unknown field"},
		{"browser_open_tab", `{"url":42}`, "url", "must be a string"},

		{"browser_claim_tab", `{}`, "tab_id", "is required"},
		{"browser_claim_tab", `null`, "tab_id", "is required"},
		{"browser_claim_tab", `{"tab_id":""}`, "tab_id", "must not be empty"},
		{"browser_claim_tab", `{"tab_id":7}`, "tab_id", "must be a string"},
		{"browser_claim_tab", `{"tab_id":"T1","expected_url":null}`, "expected_url", "not null"},
		{"browser_claim_tab", `{"tab_id":"T1","expected_title":false}`, "expected_title", "must be a string"},
		{"browser_claim_tab", `{"tab_id":"T1","url":"https://a.test/"}`, "url", "unknown field"},
		{"browser_claim_tab", `[{"tab_id":"T1"}]`, "arguments", "must be a JSON object"},

		{"browser_tab_control", `{}`, "tab_handle", "is required"},
		{"browser_tab_control", `{"action":"close"}`, "tab_handle", "is required"},
		{"browser_tab_control", `{"tab_handle":"h"}`, "action", "is required"},
		{"browser_tab_control", `{"tab_handle":"h","action":""}`, "action", "must not be empty"},
		{"browser_tab_control", `{"tab_handle":"h","action":"kill"}`, "action", `must be one of release, activate, close; got "kill"`},
		{"browser_tab_control", `{"tab_handle":"h","action":"CLOSE"}`, "action", "must be one of"},
		{"browser_tab_control", `{"tab_handle":"h","action":["close"]}`, "action", "must be a string"},
		{"browser_tab_control", `{"tab_handle":"h","action":"close","force":true}`, "force", "unknown field"},

		{"browser_navigate", `{}`, "tab_handle", "is required"},
		{"browser_navigate", `{"url":"https://a.test/"}`, "tab_handle", "is required"},
		{"browser_navigate", `{"tab_handle":"h"}`, "url", "is required unless history is given"},
		{"browser_navigate", `{"tab_handle":"h","url":"","history":""}`, "history", "must not be empty"},
		{"browser_navigate", `{"tab_handle":"h","url":"https://a.test/","history":"back"}`, "url", "not both"},
		{"browser_navigate", `{"tab_handle":"h","history":"up"}`, "history", `must be one of back, forward, reload; got "up"`},
		{"browser_navigate", `{"tab_handle":"h","url":"ftp://a.test/"}`, "url", `scheme "ftp" is not allowed`},
		{"browser_navigate", `{"tab_handle":"h","url":"a.test"}`, "url", "must be an absolute"},
		{"browser_navigate", `{"tab_handle":"h","url":"https://a.test/","wait_until":"idle"}`, "wait_until", "must be one of load, domcontentloaded, network_idle"},
		{"browser_navigate", `{"tab_handle":"h","history":"reload","wait_until":"networkidle"}`, "wait_until", "must be one of"},
		{"browser_navigate", `{"tab_handle":"h","url":"https://a.test/","timeout_ms":0}`, "timeout_ms", "must be between 100 and 120000; got 0"},
		{"browser_navigate", `{"tab_handle":"h","url":"https://a.test/","timeout_ms":"100"}`, "timeout_ms", "must be an integer"},
		{"browser_navigate", `{"tab_handle":"h","url":"https://a.test/","wait":"load"}`, "wait", "unknown field"},
		{"browser_navigate", `{"tab_handle":"h","history":true}`, "history", "must be a string"},

		{"browser_observe", `{}`, "tab_handle", "is required"},
		{"browser_observe", `{"tab_handle":""}`, "tab_handle", "must not be empty"},
		{"browser_observe", `{"tab_handle":"h","max_chars":99}`, "max_chars", "must be between 100 and 1048576; got 99"},
		{"browser_observe", `{"tab_handle":"h","max_chars":0}`, "max_chars", "must be between 100 and 1048576"},
		{"browser_observe", `{"tab_handle":"h","max_chars":-1}`, "max_chars", "must be between"},
		{"browser_observe", `{"tab_handle":"h","max_chars":1048577}`, "max_chars", "must be between"},
		{"browser_observe", `{"tab_handle":"h","max_chars":5e6}`, "max_chars", "must be between"},
		{"browser_observe", `{"tab_handle":"h","max_chars":4000.5}`, "max_chars", "must be an integer"},
		{"browser_observe", `{"tab_handle":"h","timeout_ms":9223372036854775807}`, "timeout_ms", "out of range"},
		{"browser_observe", `{"tab_handle":"h","timeout_ms":99999999999999999999}`, "timeout_ms", "out of range"},
		{"browser_observe", `{"tab_handle":"h","selector":"body","scope":"main"}`, "scope", "not both"},
		{"browser_observe", `{"tab_handle":"h","selector":"x","name":"n"}`, "name", "only for selector_type role"},
		{"browser_observe", `{"tab_handle":"h","nth":1}`, "selector", "need a selector"},
		{"browser_observe", `{"tab_handle":"h","ref":"e1","frame_id":"F"}`, "ref", "alone"},
		{"browser_observe", `{"tab_handle":"h","selector":"x","selector_type":"pixels"}`, "selector_type", "must be one of"},
		{"browser_observe", `{"tab_handle":{"id":"h"}}`, "tab_handle", "must be a string"},
		// the frame rules and bounds of act (the batch contract's), the same in every tool
		{"browser_observe", `{"tab_handle":"h","frame":{}}`, "frame", "needs at least one of url, title and path"},
		{"browser_observe", `{"tab_handle":"h","frame":{"url":"u"},"frame_id":"F"}`, "frame", "not both"},
		{"browser_observe", `{"tab_handle":"h","frame":{"path":[""]}}`, "frame.path[0]", ""},
		{"browser_observe", `{"tab_handle":"h","frame":{"path":["i","i","i","i","i","i","i","i","i","i","i","i","i","i","i","i","i"]}}`, "frame.path", ""},
		// the frame rules and bounds of act (the batch contract's), the same in every tool
		{"browser_screenshot", `{"tab_handle":"h","frame":{}}`, "frame", "needs at least one of url, title and path"},
		{"browser_screenshot", `{"tab_handle":"h","frame":{"url":"u"},"frame_id":"F"}`, "frame", "not both"},
		{"browser_screenshot", `{"tab_handle":"h","frame":{"path":[""]}}`, "frame.path[0]", ""},
		{"browser_screenshot", `{"tab_handle":"h","frame":{"path":["i","i","i","i","i","i","i","i","i","i","i","i","i","i","i","i","i"]}}`, "frame.path", ""},
		// the frame rules and bounds of act (the batch contract's), the same in every tool
		{"browser_evaluate", `{"tab_handle":"h","expression":"1","frame":{}}`, "frame", "needs at least one of url, title and path"},
		{"browser_evaluate", `{"tab_handle":"h","expression":"1","frame":{"url":"u"},"frame_id":"F"}`, "frame", "not both"},
		{"browser_evaluate", `{"tab_handle":"h","expression":"1","frame":{"path":[""]}}`, "frame.path[0]", ""},
		{"browser_evaluate", `{"tab_handle":"h","expression":"1","frame":{"path":["i","i","i","i","i","i","i","i","i","i","i","i","i","i","i","i","i"]}}`, "frame.path", ""},

		// browser_batch: the first of every violation gives the error its path
		{"browser_batch", `[]`, "arguments", "1 problem(s) in the batch; nothing ran"},
		{"browser_batch", `{}`, "tab_handle", "2 problem(s) in the batch; nothing ran"},
		{"browser_batch", `{"tab_handle":"h"}`, "steps", "1 problem(s)"},
		{"browser_batch", `{"tab_handle":"h","steps":[]}`, "steps", "1 problem(s)"},
		{"browser_batch", `{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"timeout_ms":120001}`, "timeout_ms", "1 problem(s)"},
		{"browser_batch", `{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"start_at":1}`, "start_at", "1 problem(s)"},
		{"browser_batch", `{"tab_handle":"h","steps":[{"action":"click","selector":"#a"},{"action":"click","selector":"#b","button":"back"}]}`, "steps[1].button", "1 problem(s)"},
		{"browser_batch", `{"tab_handle":"h","steps":[{"action":"click","ref":"e1"}],"observe":{"ref":"e2"}}`, "steps[0].ref", "2 problem(s)"},
		{"browser_batch", `{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"tabhandle":"h"}`, "tabhandle", "1 problem(s)"},
	}
	checkRefusals(t, tools, tests)
}

// Inputs that pass validation do reach the manager: this is what makes
// "touched" in TestToolValidation meaningful.
func TestToolValidationPassesValidInputs(t *testing.T) {
	tools := toolsByName(t)
	for _, tc := range []struct{ tool, args string }{
		{"browser_discover", ``},
		{"browser_discover", `{}`},
		{"browser_discover", `{"kind":"browsers"}`},
		{"browser_discover", `{"kind":"tabs","browser_id":"managed"}`},
		{"browser_open_tab", `{"url":"https://example.com/"}`},
		{"browser_open_tab", `{"url":"about:blank","claim":false,"active":false,"timeout_ms":100}`},
		{"browser_open_tab", `{"url":"http://127.0.0.1:9/x.html","timeout_ms":120000}`},
		{"browser_claim_tab", `{"tab_id":"ABC","expected_url":"https://a.test/","expected_title":"A"}`},
		{"browser_tab_control", `{"tab_handle":"h","action":"release"}`},
		{"browser_tab_control", `{"tab_handle":"h","action":"activate"}`},
		{"browser_tab_control", `{"tab_handle":"h","action":"close"}`},
		{"browser_navigate", `{"tab_handle":"h","url":"http://127.0.0.1:8080/x?y#z"}`},
		{"browser_navigate", `{"tab_handle":"h","history":"back","wait_until":"network_idle","timeout_ms":500}`},
		{"browser_navigate", `{"tab_handle":"h","history":"reload","wait_until":"domcontentloaded"}`},
		{"browser_observe", `{"tab_handle":"h","max_chars":100000,"timeout_ms":100}`},
		{"browser_batch", `{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}]}`},
		{"browser_batch", `{"tab_handle":"h","steps":[{"action":"fill","selector":"Email","selector_type":"label","text":"a@b.c"},{"action":"wait","condition":"text","selector":"#r","expected":"ok"}],"observe":{"selector":"#r"},"start_at":1,"timeout_ms":120000,"dialog_policy":"accept"}`},
	} {
		t.Run(tc.tool+"/"+tc.args, func(t *testing.T) {
			err, touched := runNoManager(t, tools[tc.tool], tc.args)
			if !touched {
				t.Fatalf("%s(%s) = %v without reaching the manager, want it accepted", tc.tool, tc.args, err)
			}
		})
	}
}

// browser_discover promises invalid_input for an unknown browser_id. With
// kind=browsers nothing is started, so this runs on a real manager that never
// launches a browser.
func TestDiscoverUnknownBrowserID(t *testing.T) {
	m, err := tabs.New(tabs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s := &server{m: m}
	_, _, err = s.discoverTool().run(context.Background(), "owner", json.RawMessage(`{"kind":"browsers","browser_id":"no-such-browser"}`))
	inputError(t, err, "browser_id")
}

// Optional text fields (*string: fill text, expected_value, option value and
// label, role name, wait previous) decode without panicking, and "" is a
// value there, not "not given": nil already says that. fill text "" clears
// a field; name "" matches an empty accessible name.
func TestDecodeOptionalStrings(t *testing.T) {
	var in actInput
	err := func() error {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("decode panicked: %v", r)
			}
		}()
		return decode(json.RawMessage(`{"text":"","expected_value":"x","name":"","value":"v","previous":""}`), &in)
	}()
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*string{"text": in.Text, "expected_value": in.ExpectedValue, "name": in.Name, "value": in.Value, "previous": in.Previous} {
		if p == nil {
			t.Errorf("%s: not set", name)
		}
	}
	if *in.Text != "" || *in.ExpectedValue != "x" || *in.Value != "v" || in.Label != nil {
		t.Errorf("decoded %+v", in.Step)
	}
	// Plain strings still refuse "": there, empty cannot be told from absent.
	inputError(t, decode(json.RawMessage(`{"key":""}`), &in), "key")
	inputError(t, decode(json.RawMessage(`{"text":null}`), &in), "text")
	inputError(t, decode(json.RawMessage(`{"text":3}`), &in), "text")
}

// A locator is checked by one set of rules in every tool that takes one:
// the same bad locator gets the same error (path and words) from an action,
// browser_observe and browser_screenshot.
func TestLocatorRulesAreOneSet(t *testing.T) {
	tools := toolsByName(t)
	for _, loc := range []string{
		`"ref":"e1","frame_id":"F"`,
		`"ref":"e1","frame":{"url":"u"}`,
		`"ref":"e1","selector":"#a"`,
		`"selector":"#a","name":"n"`,
		`"selector":"#a","frame":{"url":"u"},"frame_id":"F"`,
		`"selector":"#a","frame":{}`,
	} {
		t.Run(loc, func(t *testing.T) {
			var first *errs.Error
			for _, name := range []string{"browser_hover", "browser_observe", "browser_screenshot"} {
				err, touched := runNoManager(t, tools[name], `{"tab_handle":"h",`+loc+`}`)
				if touched {
					t.Fatalf("%s accepted {%s}", name, loc)
				}
				e := errs.As(err)
				if first == nil {
					first = e
					continue
				}
				if e.Code != first.Code || e.Path != first.Path || e.Message != first.Message {
					t.Errorf("%s: %s at %s: %q; browser_hover: %s at %s: %q", name, e.Code, e.Path, e.Message, first.Code, first.Path, first.Message)
				}
			}
		})
	}
}
