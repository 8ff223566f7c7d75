package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/batch"
	"github.com/tabwright/tabwright/engine/errs"
)

// inputTypes maps each tool to the struct its handler decodes into: a
// defineTool tool names its own.
func inputTypes() map[string]reflect.Type {
	types := map[string]reflect.Type{}
	for _, tl := range allTools() {
		if tl.input != nil {
			types[tl.name] = tl.input
		}
	}
	for name := range stepToolFields() {
		types[name] = reflect.TypeFor[actInput]()
	}
	for name, typ := range stateInputTypes() {
		types[name] = typ
	}
	return types
}

// prevalidatedTools are the tools without an input struct of their own:
// their handler checks the whole input with a validator (browser_batch:
// batch.Prevalidate), and the type maps the fields it reads at the top.
func prevalidatedTools() map[string]reflect.Type {
	return map[string]reflect.Type{"browser_batch": reflect.TypeFor[batch.Request]()}
}

// stepToolFields lists, for each tool whose input struct is wider than its
// schema (the action tools all decode into actInput, a whole act.Step, with
// decodeOnly), the fields the handler accepts: the properties of the tool's
// input schema (actionFields, from act's step table).
func stepToolFields() map[string][]string {
	out := map[string][]string{}
	for _, a := range []string{act.Click, act.Fill, act.Type, act.Hover, act.SelectOption, act.Scroll, act.Wait, act.PressKey, act.Drag, act.Upload} {
		out[toolName(a)] = append(actionFields(a), singleExtras[a]...)
	}
	return out
}

// decodeInput decodes raw into dst the way the named tool's handler does.
func decodeInput(name string, raw json.RawMessage, dst any, only map[string][]string) error {
	if fields, ok := only[name]; ok {
		return decodeOnly(raw, dst, fields)
	}
	return decode(raw, dst)
}

// newInput returns a pointer to a new zero input struct of the named tool.
func newInput(t testing.TB, types map[string]reflect.Type, tool string) any {
	t.Helper()
	typ, ok := types[tool]
	if !ok {
		t.Fatalf("no input struct known for tool %s; add it to inputTypes", tool)
	}
	return reflect.New(typ).Interface()
}

// jsonTags maps the JSON names of typ's fields, those of embedded structs
// included (as decode sees them), to their types.
func jsonTags(typ reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			for k, v := range jsonTags(f.Type) {
				out[k] = v
			}
			continue
		}
		if !f.IsExported() {
			continue // not decoded (locate.Locator's bound ref)
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue // not read from the input (batch.Request.Steps: decoded from RawSteps)
		}
		out[name] = f.Type
	}
	return out
}

// schemaJSON returns the tool's input schema as it goes over the wire, and
// decoded back into generic JSON values.
func schemaJSON(t *testing.T, tl tool) ([]byte, map[string]any) {
	t.Helper()
	b, err := json.Marshal(tl.definition().InputSchema)
	if err != nil {
		t.Fatalf("%s: input schema does not marshal: %v", tl.name, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: input schema is not a JSON object: %v", tl.name, err)
	}
	return b, m
}

func TestToolSchemasMatchInputStructs(t *testing.T) {
	types := inputTypes()
	prevalidated := prevalidatedTools()
	for name, typ := range prevalidated {
		types[name] = typ
	}
	stepFields := stepToolFields()
	tools := allTools()
	var names []string
	for _, tl := range tools {
		names = append(names, tl.name)
	}
	var want []string
	for name := range types {
		want = append(want, name)
	}
	sort.Strings(names)
	sort.Strings(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	for _, tl := range tools {
		t.Run(tl.name, func(t *testing.T) {
			_, s := schemaJSON(t, tl)
			if s["type"] != "object" {
				t.Errorf("type = %v, want object", s["type"])
			}
			if s["additionalProperties"] != false {
				t.Errorf("additionalProperties = %v, want false", s["additionalProperties"])
			}
			props, ok := s["properties"].(map[string]any)
			if !ok {
				t.Fatalf("properties = %T, want an object", s["properties"])
			}

			fields := jsonTags(types[tl.name])
			var propNames, fieldNames []string
			for p := range props {
				propNames = append(propNames, p)
			}
			only, stepTool := stepFields[tl.name]
			if stepTool {
				// The handler accepts exactly the advertised fields, and each
				// is a field of the struct it decodes into.
				fieldNames = slices.Clone(only)
				for _, f := range only {
					if _, ok := fields[f]; !ok {
						t.Errorf("advertised field %q is not a json field of %s", f, types[tl.name])
					}
				}
			} else {
				for f := range fields {
					fieldNames = append(fieldNames, f)
				}
			}
			sort.Strings(propNames)
			sort.Strings(fieldNames)
			if !slices.Equal(propNames, fieldNames) {
				t.Errorf("schema properties %v != %s json tags %v", propNames, types[tl.name], fieldNames)
			}

			if req, ok := s["required"]; ok {
				list, ok := req.([]any)
				if !ok || len(list) == 0 {
					t.Errorf("required = %v, want a non-empty list", req)
				}
				seen := map[string]bool{}
				for _, r := range list {
					name, _ := r.(string)
					if _, ok := props[name]; !ok {
						t.Errorf("required %v is not a property", r)
					}
					if seen[name] {
						t.Errorf("required %q listed twice", name)
					}
					seen[name] = true
				}
			}

			for name, raw := range props {
				p, ok := raw.(map[string]any)
				if !ok {
					t.Errorf("%s: property schema is %T", name, raw)
					continue
				}
				if !saidOnce(tl, name, p) {
					t.Errorf("%s: described neither in its schema, nor in the tool's description, nor (a shared field) in browser_observe's", name)
				}
				checkPropertyType(t, name, p, fields[name])
				if enum, ok := p["enum"]; ok {
					values, _ := enum.([]any)
					if len(values) == 0 {
						t.Errorf("%s: empty enum", name)
					}
					if def, ok := p["default"]; ok && !slices.Contains(values, def) {
						t.Errorf("%s: default %v is not one of %v", name, def, values)
					}
				}
				_, locatorField := locatorProps()[name]
				if _, contract := prevalidated[tl.name]; stepTool || contract || locatorField {
					// Built from (or beside) the batch contract, whose bounds
					// carry no default for every field: the structure test in
					// tools_act_test.go pins them to the contract instead (the
					// locator fields of every tool are the click step's).
					// timeout_ms's bounds, the same for every action, are said
					// once in browser_observe's description.
					if _, ok := p["minimum"].(float64); p["type"] == "integer" && !ok && name != "timeout_ms" {
						t.Errorf("%s: integer without a minimum: %v", name, p)
					}
					continue
				}
				if p["type"] == "integer" {
					lo, okLo := p["minimum"].(float64)
					hi, okHi := p["maximum"].(float64)
					def, okDef := p["default"].(float64)
					if !okLo || !okHi || !okDef {
						t.Errorf("%s: integer needs minimum, maximum and default: %v", name, p)
					} else if !(lo <= def && def <= hi) {
						t.Errorf("%s: want minimum %v <= default %v <= maximum %v", name, lo, def, hi)
					}
				}
				if p["type"] == "boolean" {
					if _, ok := p["default"].(bool); !ok {
						t.Errorf("%s: boolean without a default", name)
					}
				}
			}
		})
	}
}

// checkPropertyType checks that the schema type of a property is what decode
// accepts for the Go field behind it.
func checkPropertyType(t *testing.T, name string, p map[string]any, field reflect.Type) {
	t.Helper()
	if field == nil {
		return // reported as a name mismatch
	}
	if field.Kind() == reflect.Pointer {
		field = field.Elem()
	}
	if reflect.PointerTo(field).Implements(reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()) {
		// Types that read their own JSON forms: act.Range and act.Expected
		// take several, advertised as an anyOf; others name their type.
		_, anyOf := p["anyOf"].([]any)
		_, typed := p["type"].(string)
		_, types := p["type"].([]any)
		if !anyOf && !typed && !types {
			t.Errorf("%s: Go field %s reads its own JSON forms; want an anyOf or a type, got %v", name, field, p)
		}
		return
	}
	if values, ok := p["enum"].([]any); ok && field.Kind() == reflect.Int && p["type"] == nil {
		// click_count, listed lean: an enum of whole numbers.
		for _, v := range values {
			if c, _ := v.(float64); c != float64(int(c)) || c == 0 {
				t.Errorf("%s: enum value %v is not a whole number for Go field %s", name, v, field)
			}
		}
		return
	}
	if branches, ok := p["anyOf"].([]any); ok && field.Kind() == reflect.Int {
		// click_count: an anyOf of whole-number consts.
		for _, b := range branches {
			c, _ := b.(map[string]any)["const"].(float64)
			if c != float64(int(c)) || c == 0 {
				t.Errorf("%s: anyOf branch %v is not a whole-number const for Go field %s", name, b, field)
			}
		}
		return
	}
	want := map[reflect.Kind]string{
		reflect.String: "string", reflect.Bool: "boolean", reflect.Int: "integer", reflect.Int64: "integer",
		reflect.Float64: "number", reflect.Slice: "array", reflect.Struct: "object",
	}[field.Kind()]
	if want == "" {
		t.Errorf("%s: no schema type known for Go kind %s", name, field.Kind())
		return
	}
	if p["type"] != want {
		t.Errorf("%s: schema type %v, Go field %s wants %q", name, p["type"], field, want)
	}
}

// sharedFields are described once, in browser_observe's description.
var sharedFields = []string{"tab_handle", "browser_id", "ref", "selector", "selector_type", "name", "nth", "frame", "frame_id", "timeout_ms", "dialog_policy", "observe", "mode"}

// saidOnce: a property is described in its schema, or named in its tool's
// description, or a shared field browser_observe's description names.
func saidOnce(tl tool, name string, p map[string]any) bool {
	if d, _ := p["description"].(string); strings.TrimSpace(d) != "" {
		return true
	}
	desc := tl.definition().Description
	if strings.Contains(desc, name) {
		return true
	}
	if values, ok := p["enum"].([]any); ok && !slices.ContainsFunc(values, func(v any) bool { return !strings.Contains(desc, fmt.Sprint(v)) }) {
		return true // an enum whose values the description explains
	}
	observe := defaultServer().observeTool().definition().Description
	return slices.Contains(sharedFields, name) && (name == "tab_handle" || name == "browser_id" || name == "mode" || strings.Contains(observe, name))
}

func TestToolDescriptions(t *testing.T) {
	for _, tl := range allTools() {
		t.Run(tl.name, func(t *testing.T) {
			d := tl.definition().Description
			if len(d) < 100 {
				t.Errorf("description is %d characters, want at least 100: %q", len(d), d)
			}
			if !strings.Contains(d, "Errors:") {
				t.Errorf("description does not list its errors (no %q): %q", "Errors:", d)
			}
			if !strings.HasPrefix(tl.name, "browser_") {
				t.Errorf("name %q does not start with browser_", tl.name)
			}
		})
	}
}

// compileSchema compiles a tool's input schema with a standalone JSON Schema
// implementation, which also checks it against the draft 2020-12 metaschema.
func compileSchema(t *testing.T, tl tool) *jsonschema.Schema {
	t.Helper()
	b, _ := schemaJSON(t, tl)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", tl.name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem:///" + tl.name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatalf("%s: add resource: %v", tl.name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: input schema is not a valid JSON Schema: %v", tl.name, err)
	}
	return sch
}

func validateJSON(sch *jsonschema.Schema, raw string) error {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

func TestToolSchemasCompile(t *testing.T) {
	// One valid and a few invalid arguments per tool, as the schema sees them.
	examples := map[string]struct {
		valid   []string
		invalid []string
	}{
		"browser_discover": {
			valid:   []string{`{}`, `{"kind":"tabs","browser_id":"managed"}`},
			invalid: []string{`{"kind":"windows"}`, `{"extra":1}`, `[]`},
		},
		"browser_open_tab": {
			valid:   []string{`{"url":"https://example.com/","active":false,"claim":true,"timeout_ms":100}`},
			invalid: []string{`{}`, `{"url":""}`, `{"url":"https://a.test/","timeout_ms":99}`, `{"url":"https://a.test/","claim":"yes"}`},
		},
		"browser_claim_tab": {
			valid:   []string{`{"tab_id":"ABC","expected_url":"https://a.test/"}`},
			invalid: []string{`{}`, `{"tab_id":7}`, `{"tab_id":"A","url":"x"}`},
		},
		"browser_tab_control": {
			valid:   []string{`{"tab_handle":"h","action":"close"}`},
			invalid: []string{`{"tab_handle":"h"}`, `{"tab_handle":"h","action":"kill"}`},
		},
		"browser_navigate": {
			valid:   []string{`{"tab_handle":"h","history":"back","wait_until":"network_idle"}`},
			invalid: []string{`{"url":"https://a.test/"}`, `{"tab_handle":"h","wait_until":"idle"}`, `{"tab_handle":"h","timeout_ms":120001}`},
		},
		"browser_observe": {
			valid:   []string{`{"tab_handle":"h","max_chars":100000}`},
			invalid: []string{`{"tab_handle":"h","max_chars":99}`, `{"tab_handle":"h","max_chars":1.5}`},
		},
		"browser_click": {
			valid: []string{
				`{"tab_handle":"h","selector":"Save","selector_type":"role","name":""}`,
				`{"tab_handle":"h","ref":"e7"}`,
				`{"tab_handle":"h","selector":"#go","button":"right","click_count":2,"modifiers":["Control","Shift"],"offset":{"x_ratio":0,"y_ratio":1},"settle_ms":[80,200],"dialog_policy":"accept","timeout_ms":30000}`,
				`{"tab_handle":"h","selector":"#go","mode":"dom","settle_ms":0,"observe":{"selector":"#menu","max_options":100,"max_chars":1000,"timeout_ms":5000}}`,
				`{"tab_handle":"h","selector":"#go","frame":{"url":"https://a.test/f","path":["iframe#a"]},"observe":{"frame_id":"F1"}}`,
			},
			invalid: []string{
				`{"selector":"#go"}`, `{"tab_handle":"h","selector":""}`, `{"tab_handle":"h","selector":"#go","click_count":3}`,
				`{"tab_handle":"h","selector":"#go","button":"back"}`, `{"tab_handle":"h","selector":"#go","modifiers":["Ctrl"]}`,
				`{"tab_handle":"h","selector":"#go","settle_ms":1001}`, `{"tab_handle":"h","selector":"#go","settle_ms":[1,2,3]}`,
				`{"tab_handle":"h","selector":"#go","offset":{"x_ratio":1.5,"y_ratio":0}}`, `{"tab_handle":"h","selector":"#go","offset":{"x_ratio":0.5}}`,
				`{"tab_handle":"h","selector":"#go","frame":{"href":"https://a.test/"}}`, `{"tab_handle":"h","selector":"#go","frame":{"path":[]}}`,
				`{"tab_handle":"h","selector":"#go","observe":{"frame":{"path":[""]}}}`, `{"tab_handle":"h","selector":"#go","action":"click"}`,
				`{"tab_handle":"h","selector":"#go","timeout_ms":99}`, `{"tab_handle":"h","selector":"#go","text":"x"}`,
			},
		},
		"browser_fill": {
			valid:   []string{`{"tab_handle":"h","selector":"Email","selector_type":"label","text":""}`, `{"tab_handle":"h","ref":"e2","text":"a","expected_value":"a","mode":"dom"}`},
			invalid: []string{`{"tab_handle":"h","selector":"#e"}`, `{"tab_handle":"h","selector":"#e","text":"x","mode":"wheel"}`, `{"tab_handle":"h","selector":"#e","text":"x","button":"left"}`},
		},
		"browser_type": {
			valid:   []string{`{"tab_handle":"h","focused":true,"text":"hello","delay_ms":[20,80]}`, `{"tab_handle":"h","selector":"#q","text":"x","delay_ms":0}`},
			invalid: []string{`{"tab_handle":"h","focused":false,"text":"x"}`, `{"tab_handle":"h","selector":"#q"}`, `{"tab_handle":"h","selector":"#q","text":"x","delay_ms":-1}`},
		},
		"browser_hover": {
			valid:   []string{`{"tab_handle":"h","selector":"#menu","offset":{"x_ratio":0.5,"y_ratio":0.5}}`},
			invalid: []string{`{"tab_handle":"h","selector":"#menu","offset":{"x_ratio":0.5,"y_ratio":0.5,"z":1}}`, `{"tab_handle":"h","selector":"#m","mode":"dom"}`},
		},
		"browser_select_option": {
			valid:   []string{`{"tab_handle":"h","selector":"#fruit","label":"Banana"}`, `{"tab_handle":"h","ref":"e3","index":0}`, `{"tab_handle":"h","selector":"#f","value":""}`},
			invalid: []string{`{"tab_handle":"h","selector":"#fruit","index":-1}`, `{"tab_handle":"h","selector":"#fruit","index":"1"}`},
		},
		"browser_scroll": {
			valid:   []string{`{"tab_handle":"h","delta_y":400}`, `{"tab_handle":"h","mode":"wheel","x":10,"y":20,"delta_x":-5.5,"delta_y":1,"until":{"text":"Bottom","selector":"#list"},"max_steps":500}`},
			invalid: []string{`{"tab_handle":"h","mode":"smooth"}`, `{"tab_handle":"h","until":{"text":""}}`, `{"tab_handle":"h","until":{"selector":"#l"}}`, `{"tab_handle":"h","max_steps":501}`},
		},
		"browser_wait": {
			valid: []string{
				`{"tab_handle":"h","condition":"text","selector":"#log","expected":"done"}`, `{"tab_handle":"h","condition":"checked","selector":"#c","expected":"mixed"}`,
				`{"tab_handle":"h","condition":"expanded","selector":"#m","expected":false}`, `{"tab_handle":"h","condition":"network_idle","idle_ms":10000}`,
			},
			invalid: []string{`{"tab_handle":"h"}`, `{"tab_handle":"h","condition":"gone"}`, `{"tab_handle":"h","condition":"url","expected":3}`, `{"tab_handle":"h","condition":"network_idle","idle_ms":99}`},
		},
		"browser_press_key": {
			valid:   []string{`{"tab_handle":"h","key":"Control+A"}`, `{"tab_handle":"h","key":"Enter","selector":"#q"}`},
			invalid: []string{`{"tab_handle":"h"}`, `{"tab_handle":"h","key":"Enter","text":"x"}`},
		},
		"browser_drag": {
			valid:   []string{`{"tab_handle":"h","selector":"#card","to":{"selector":"#lane","nth":1}}`, `{"tab_handle":"h","ref":"e1","dx":100,"dy":-20.5,"offset":{"x_ratio":0,"y_ratio":0}}`},
			invalid: []string{`{"tab_handle":"h","selector":"#card","to":{"selector":"#lane","frames":"x"}}`, `{"tab_handle":"h","selector":"#c","dx":"10"}`, `{"selector":"#c","dx":1}`},
		},
		"browser_upload": {
			valid:   []string{`{"tab_handle":"h","selector":"#file","files":["/tmp/a.txt","/tmp/b.png"]}`},
			invalid: []string{`{"tab_handle":"h","selector":"#file"}`, `{"tab_handle":"h","selector":"#file","files":[]}`, `{"tab_handle":"h","selector":"#file","files":[""]}`, `{"tab_handle":"h","selector":"#file","files":"/tmp/a"}`},
		},
		"browser_batch": {
			valid: []string{
				`{"tab_handle":"h","steps":[{"action":"click","selector":"#go"}]}`,
				`{"tab_handle":"h","timeout_ms":120000,"dialog_policy":"dismiss","start_at":1,"observe":{"selector":"#result","max_chars":1000},"steps":[` +
					`{"action":"fill","selector":"Email","selector_type":"label","text":"a@b.c","expected_value":"a@b.c"},` +
					`{"action":"type","focused":true,"text":"hi","delay_ms":[20,80]},` +
					`{"action":"select_option","selector":"#c","frame":{"path":["#f"]},"index":2},` +
					`{"action":"click","selector":"button","selector_type":"role","name":"Save","settle_ms":[0,1000],"dialog_policy":"accept","observe":{"selector":"#menu","popup_selector":"#list","max_options":100}},` +
					`{"action":"hover","selector":"#m","offset":{"x_ratio":0,"y_ratio":1},"frame_id":"F1"},` +
					`{"action":"scroll","until":{"text":"End","selector":"#feed"},"mode":"wheel","x":1,"y":2,"max_steps":500},` +
					`{"action":"wait","condition":"checked","selector":"#t","expected":"mixed","timeout_ms":30000},` +
					`{"action":"wait","condition":"network_idle","idle_ms":10000},` +
					`{"action":"press_key","key":"Control+Enter","selector":"#q"}]}`,
				`{"tab_handle":"h","steps":[{"action":"wait","condition":"url","expected":"/done"}],"observe":{"selector":"#a","ref":"e1"}}`,
			},
			invalid: []string{
				`{"steps":[{"action":"click","selector":"#a"}]}`, `{"tab_handle":"h"}`, `{"tab_handle":"","steps":[{"action":"click","selector":"#a"}]}`,
				`{"tab_handle":"h","steps":[]}`, `{"tab_handle":"h","steps":[` + strings.TrimSuffix(strings.Repeat(`{"action":"press_key","key":"Tab"},`, 31), ",") + `]}`,
				`{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"timeout_ms":99}`, `{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"timeout_ms":120001}`,
				`{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"start_at":30}`, `{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"start_at":-1}`,
				`{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"dialog_policy":"never"}`, `{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"retry":true}`,
				`{"tab_handle":"h","steps":[{"action":"click"}]}`, `{"tab_handle":"h","steps":[{"action":"click","ref":"e1"}]}`, `{"tab_handle":"h","steps":[{"action":"click","selector":"#a","force":true}]}`,
				`{"tab_handle":"h","steps":[{"action":"drag","selector":"#a","dx":1}]}`, `{"tab_handle":"h","steps":[{"action":"upload","selector":"#a","files":["/x"]}]}`,
				`{"tab_handle":"h","steps":[{"action":"fill","selector":"#a"}]}`, `{"tab_handle":"h","steps":[{"action":"wait","selector":"#a"}]}`,
				`{"tab_handle":"h","steps":[{"action":"click","selector":"#a","tab_handle":"h"}]}`, `{"tab_handle":"h","steps":[{"action":"click","selector":"#a","observe":{"ref":"e1"}}]}`,
				`{"tab_handle":"h","steps":[{"action":"click","selector":"#a","settle_ms":[1,2,3]}]}`, `{"tab_handle":"h","steps":[{"action":"click","selector":"#a","timeout_ms":30001}]}`,
				`{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"observe":{"selector":"#a","max_chars":999}}`, `{"tab_handle":"h","steps":["click #a"]}`,
			},
		},
		"browser_dialog": {
			valid:   []string{`{"tab_handle":"h","action":"accept","prompt_text":"yes"}`, `{"tab_handle":"h","action":"dismiss"}`},
			invalid: []string{`{"tab_handle":"h"}`, `{"tab_handle":"h","action":"close"}`, `{"action":"accept"}`, `{"tab_handle":"h","action":"accept","prompt_text":""}`},
		},
		"browser_page_tool": {
			valid: []string{`{"tab_handle":"h","name":"search","input":{"q":"x","limit":3}}`, `{"tab_handle":"h","name":"t","timeout_ms":500}`},
			invalid: []string{`{"tab_handle":"h"}`, `{"name":"t"}`, `{"tab_handle":"h","name":"t","input":[1]}`, `{"tab_handle":"h","name":"t","input":"x"}`,
				`{"tab_handle":"h","name":"t","input":null}`, `{"tab_handle":"h","name":"t","timeout_ms":99}`, `{"tab_handle":"h","name":"t","args":{}}`},
		},
	}
	for _, tl := range allTools() {
		t.Run(tl.name, func(t *testing.T) {
			sch := compileSchema(t, tl)
			for name, ex := range stateExamples() {
				examples[name] = ex
			}
			ex, ok := examples[tl.name]
			if !ok {
				t.Fatalf("no examples for %s", tl.name)
			}
			for _, raw := range ex.valid {
				if err := validateJSON(sch, raw); err != nil {
					t.Errorf("schema refuses valid %s: %v", raw, err)
				}
			}
			// A lean schema leaves lengths, nested shapes and the rules
			// between fields to the handler: an invalid input is refused by
			// one or the other, and never reaches the browser.
			for _, raw := range ex.invalid {
				if err := validateJSON(sch, raw); err == nil {
					if _, touched := runNoManager(t, tl, raw); touched {
						t.Errorf("schema and handler accept invalid %s", raw)
					}
				}
			}

			// Every default is valid for its own property.
			_, s := schemaJSON(t, tl)
			for name, raw := range s["properties"].(map[string]any) {
				def, ok := raw.(map[string]any)["default"]
				if !ok {
					continue
				}
				b, _ := json.Marshal(map[string]any{name: def})
				obj := string(b)
				if req, ok := s["required"].([]any); ok {
					// Fill the required fields so that only the default is judged.
					m := map[string]any{name: def}
					for _, r := range req {
						if r != name {
							m[r.(string)] = exampleValue(s["properties"].(map[string]any)[r.(string)].(map[string]any))
						}
					}
					b, _ = json.Marshal(m)
					obj = string(b)
				}
				if err := validateJSON(sch, obj); err != nil {
					t.Errorf("default of %s is invalid: %s: %v", name, obj, err)
				}
			}
		})
	}
}

// exampleValue returns a value valid for the property schema p (used to fill
// required fields).
func exampleValue(p map[string]any) any {
	if c, ok := p["const"]; ok {
		return c
	}
	if enum, ok := p["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	if branches, ok := p["oneOf"].([]any); ok && len(branches) > 0 {
		return exampleValue(branches[0].(map[string]any))
	}
	switch p["type"] {
	case "integer":
		return p["minimum"]
	case "boolean":
		return true
	case "array":
		// browser_batch's steps: one valid step.
		items, _ := p["items"].(map[string]any)
		return []any{exampleValue(items)}
	case "object":
		out := map[string]any{}
		props, _ := p["properties"].(map[string]any)
		req, _ := p["required"].([]any)
		for _, r := range req {
			out[r.(string)] = exampleValue(props[r.(string)].(map[string]any))
		}
		return out
	default:
		return "x"
	}
}

// The handlers accept what the schema an agent reads accepts, and the other
// way round, for the values where the two can be compared directly.
func TestSchemaAndHandlerAgree(t *testing.T) {
	tools := toolsByName(t)
	for _, tc := range []struct {
		tool, args string
	}{
		{tool: "browser_discover", args: `{"kind":""}`},
		{tool: "browser_discover", args: `{"browser_id":""}`},
		{tool: "browser_claim_tab", args: `{"tab_id":"T","expected_url":"","expected_title":""}`},
		{tool: "browser_navigate", args: `{"tab_handle":"h","url":"https://a.test/","history":"","wait_until":""}`},
		{tool: "browser_observe", args: `{"tab_handle":"h","max_chars":4000.0}`},
		{tool: "browser_open_tab", args: `{"url":"https://a.test/","timeout_ms":1e3}`},
		{tool: "browser_open_tab", args: `{"url":"https://a.test/","timeout_ms":100}`},
		{tool: "browser_navigate", args: `{"tab_handle":"h","history":"forward","timeout_ms":120000}`},
		{tool: "browser_observe", args: `{"tab_handle":"h","max_chars":100}`},
		{tool: "browser_tab_control", args: `{"tab_handle":"h","action":"activate"}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"timeout_ms":1e3}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"press_key","key":"Tab"}],"start_at":0,"timeout_ms":100,"dialog_policy":"accept"}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"fill","selector":"#a","text":""}],"observe":{"selector":"#r","timeout_ms":5000}}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"timeout_ms":99}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"start_at":30}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}],"dialog_policy":""}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[]}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"click","selector":""}]}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"click","selector":"#a","nth":1.0}]}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"click","selector":"#a","click_count":2.0}]}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"type","focused":true,"text":"x","delay_ms":[1.0,2]}]}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"scroll","delta_y":-1.5}]}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"wait","condition":"expanded","selector":"#m","expected":false}]}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"wait","condition":"url","expected":7}]}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"click","selector":"#a","frame":{"path":[]}}]}`},
		{tool: "browser_batch", args: `{"tab_handle":"h","steps":[{"action":"click","selector":"#a","offset":{"x_ratio":0.5}}]}`},
	} {
		t.Run(tc.tool+"/"+tc.args, func(t *testing.T) {
			tl := tools[tc.tool]
			schemaErr := validateJSON(compileSchema(t, tl), tc.args)
			err, touched := runNoManager(t, tl, tc.args)
			if (schemaErr == nil) == touched {
				return
			}
			t.Fatalf("schema says %v, handler accepted = %v (%v)", schemaErr, touched, err)
		})
	}
}

// TestHandlerBoundsAreTheSchemas: every numeric bound a tool lists is the
// one its handler applies (tools not made by defineTool, whose checks are
// not their schema). Just outside a bound the handler refuses the
// field (at its path); at the bound no check refuses that field. The
// required fields carry example values, and a field that goes only with
// another gets it (companions).
func TestHandlerBoundsAreTheSchemas(t *testing.T) {
	steps := make([]any, batch.ContractLimits().MaxSteps) // start_at up to its maximum
	for i := range steps {
		steps[i] = map[string]any{"action": "press_key", "key": "Tab"}
	}
	companions := map[string]map[string]any{
		"browser_open_tab":   {"url": "https://a.test/"},
		"browser_navigate":   {"url": "https://a.test/"},
		"browser_screenshot": {"format": "jpeg"},
		"browser_logs":       {"bodies": true},
		"browser_batch":      {"steps": steps},
	}
	for _, tl := range allTools() {
		if tl.input != nil {
			continue // defineTool: its handler checks values by its listed schema
		}
		_, s := schemaJSON(t, tl)
		props := s["properties"].(map[string]any)
		base := map[string]any{}
		req, _ := s["required"].([]any)
		for _, r := range req {
			base[r.(string)] = exampleValue(props[r.(string)].(map[string]any))
		}
		maps.Copy(base, companions[tl.name])
		for name, raw := range props {
			p := raw.(map[string]any)
			step := 1.0
			if p["type"] == "number" {
				step = 0.001
			} else if p["type"] != "integer" {
				continue
			}
			for _, b := range []struct {
				keyword string
				outward float64
			}{{"minimum", -step}, {"maximum", step}} {
				bound, ok := p[b.keyword].(float64)
				if !ok {
					continue
				}
				for _, c := range []struct {
					value  float64
					refuse bool
				}{{bound, false}, {bound + b.outward, true}} {
					args := maps.Clone(base)
					args[name] = c.value
					raw, _ := json.Marshal(args)
					err, _ := runNoManager(t, tl, string(raw))
					refused := err != nil && errs.As(err).Path == name
					if refused != c.refuse {
						t.Errorf("%s %s: %s (its %s %v): refused at %s = %v, want %v (%v)", tl.name, raw, name, b.keyword, bound, name, refused, c.refuse, err)
					}
				}
			}
		}
	}
}
