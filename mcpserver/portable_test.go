package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/schemas"
)

// What the model vendors and strict validators accept of a tool, checked on
// every tool as tools/list serves it, in both forms:
//   - Anthropic's Messages API refuses an input_schema with oneOf, allOf or
//     anyOf at its top level (its error: "input_schema does not support
//     oneOf, allOf, or anyOf at the top level"), and wants type object there;
//   - OpenAI's function names are a-z, A-Z, 0-9, _ and -, at most 64; its
//     parameters are an object schema;
//   - Ajv's strict mode refuses a union type list ("type": [..]);
//   - a $ref is local (#/$defs/name), names a def of the root's $defs, and
//     stands alone (draft-07 ignores a $ref's siblings); every def is used.
func TestToolsPortable(t *testing.T) {
	name := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	for _, inline := range []bool{false, true} {
		res := listTools(t, Options{Tools: "full", AllowEvaluate: true, InlineSchemas: inline})
		for _, tl := range res.Tools {
			where := fmt.Sprintf("%s (inline %v)", tl.Name, inline)
			if !name.MatchString(tl.Name) {
				t.Errorf("%s: name not portable", where)
			}
			s := jsonValue(t, tl.InputSchema).(map[string]any)
			if s["type"] != "object" {
				t.Errorf("%s: top-level type %v, want object", where, s["type"])
			}
			for _, k := range []string{"oneOf", "anyOf", "allOf", "not", "if", "enum"} {
				if _, ok := s[k]; ok {
					t.Errorf("%s: top-level %s", where, k)
				}
			}
			defs, _ := s["$defs"].(map[string]any)
			if inline && defs != nil {
				t.Errorf("%s: $defs listed with InlineSchemas", where)
			}
			for _, p := range portabilityProblems(s, defs, "", true) {
				t.Errorf("%s: %s", where, p)
			}
		}
	}
}

// portabilityProblems lists the union types and the $refs that are not
// local, alone and resolvable under v, and the defs no $ref uses.
func portabilityProblems(v any, defs map[string]any, path string, root bool) []string {
	var out []string
	used := map[string]bool{}
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			if _, isList := x["type"].([]any); isList {
				out = append(out, path+": union type list")
			}
			if ref, ok := x["$ref"].(string); ok {
				def := strings.TrimPrefix(ref, "#/$defs/")
				switch {
				case def == ref:
					out = append(out, path+": $ref "+ref+" is not #/$defs/...")
				case defs[def] == nil:
					out = append(out, path+": $ref "+ref+" names no def")
				case len(x) != 1:
					out = append(out, path+": $ref has siblings")
				}
				used[def] = true
			}
			for k, e := range x {
				if k == "$defs" && path != "" {
					out = append(out, path+": $defs below the root")
				}
				walk(e, path+"/"+k)
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s/%d", path, i))
			}
		}
	}
	walk(v, path)
	for name := range defs {
		if !used[name] {
			out = append(out, "$defs/"+name+" is not used")
		}
	}
	return out
}

// With InlineSchemas every schema is listed written out in full: the
// contract's structure itself, no $ref left.
func TestInlineSchemas(t *testing.T) {
	factored, _ := listSizes(t, listTools(t, Options{}))
	res := listTools(t, Options{InlineSchemas: true})
	full, per := listSizes(t, res)
	t.Logf("default profile: %d characters, %d inlined (browser_batch %d)", factored, full, per["browser_batch"])
	var contract any
	if err := json.Unmarshal(schemas.BrowserBatchInput, &contract); err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		b := jsonBytes(t, tl.InputSchema)
		if strings.Contains(string(b), `"$ref"`) {
			t.Errorf("%s: a $ref is listed with InlineSchemas", tl.Name)
		}
		if tl.Name == "browser_batch" && !reflect.DeepEqual(schemas.Structure(jsonValue(t, tl.InputSchema)), schemas.Structure(contract)) {
			t.Errorf("browser_batch inlined differs from the contract")
		}
	}
}
