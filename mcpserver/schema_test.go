package mcpserver

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// inputTypes maps each tool to the struct its handler decodes into.
func inputTypes() map[string]reflect.Type {
	return map[string]reflect.Type{
		"browser_discover":    reflect.TypeFor[discoverInput](),
		"browser_open_tab":    reflect.TypeFor[openTabInput](),
		"browser_claim_tab":   reflect.TypeFor[claimTabInput](),
		"browser_tab_control": reflect.TypeFor[tabControlInput](),
		"browser_navigate":    reflect.TypeFor[navigateInput](),
		"browser_observe":     reflect.TypeFor[observeInput](),
	}
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

func jsonTags(typ reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out[name] = f.Type
	}
	return out
}

// schemaJSON returns the tool's input schema as it goes over the wire, and
// decoded back into generic JSON values.
func schemaJSON(t *testing.T, tl tool) ([]byte, map[string]any) {
	t.Helper()
	b, err := json.Marshal(tl.def.InputSchema)
	if err != nil {
		t.Fatalf("%s: input schema does not marshal: %v", tl.def.Name, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: input schema is not a JSON object: %v", tl.def.Name, err)
	}
	return b, m
}

func TestToolSchemasMatchInputStructs(t *testing.T) {
	types := inputTypes()
	tools := (&server{}).tools()
	var names []string
	for _, tl := range tools {
		names = append(names, tl.def.Name)
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
		t.Run(tl.def.Name, func(t *testing.T) {
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

			fields := jsonTags(types[tl.def.Name])
			var propNames, fieldNames []string
			for p := range props {
				propNames = append(propNames, p)
			}
			for f := range fields {
				fieldNames = append(fieldNames, f)
			}
			sort.Strings(propNames)
			sort.Strings(fieldNames)
			if !slices.Equal(propNames, fieldNames) {
				t.Errorf("schema properties %v != %s json tags %v", propNames, types[tl.def.Name], fieldNames)
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
				if d, _ := p["description"].(string); strings.TrimSpace(d) == "" {
					t.Errorf("%s: no description", name)
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
	want := map[reflect.Kind]string{reflect.String: "string", reflect.Bool: "boolean", reflect.Int: "integer", reflect.Int64: "integer"}[field.Kind()]
	if want == "" {
		t.Errorf("%s: no schema type known for Go kind %s", name, field.Kind())
		return
	}
	if p["type"] != want {
		t.Errorf("%s: schema type %v, Go field %s wants %q", name, p["type"], field, want)
	}
}

func TestToolDescriptions(t *testing.T) {
	for _, tl := range (&server{}).tools() {
		t.Run(tl.def.Name, func(t *testing.T) {
			d := tl.def.Description
			if len(d) < 150 {
				t.Errorf("description is %d characters, want at least 150: %q", len(d), d)
			}
			if !strings.Contains(d, "Errors:") {
				t.Errorf("description does not list its errors (no %q): %q", "Errors:", d)
			}
			if !strings.HasPrefix(tl.def.Name, "browser_") {
				t.Errorf("name %q does not start with browser_", tl.def.Name)
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
		t.Fatalf("%s: %v", tl.def.Name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem:///" + tl.def.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatalf("%s: add resource: %v", tl.def.Name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: input schema is not a valid JSON Schema: %v", tl.def.Name, err)
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
	}
	for _, tl := range (&server{}).tools() {
		t.Run(tl.def.Name, func(t *testing.T) {
			sch := compileSchema(t, tl)
			ex, ok := examples[tl.def.Name]
			if !ok {
				t.Fatalf("no examples for %s", tl.def.Name)
			}
			for _, raw := range ex.valid {
				if err := validateJSON(sch, raw); err != nil {
					t.Errorf("schema refuses valid %s: %v", raw, err)
				}
			}
			for _, raw := range ex.invalid {
				if err := validateJSON(sch, raw); err == nil {
					t.Errorf("schema accepts invalid %s", raw)
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
	if enum, ok := p["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	switch p["type"] {
	case "integer":
		return p["minimum"]
	case "boolean":
		return true
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
