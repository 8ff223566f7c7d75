package task

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/tabwright/tabwright/schemas"
)

var (
	schemaOnce sync.Once
	schemaVal  *jsonschema.Schema
	schemaErr  error
)

// compiled is the task schema with format assertions on. Two combinators are
// taken out and enforced by loader rules instead, with messages that say
// what to change: docs' oneOf (path xor entrypoint) and success's anyOf
// (script xor file). The latter is also relaxed on purpose: a success block
// whose only assertions are wait_http or expect_output is valid, as the
// quickstarted loader has always accepted (its schema was stricter than its
// loader; the reference lists that mismatch as a bug).
func compiled() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(schemas.Task)))
		if err != nil {
			schemaErr = err
			return
		}
		props := doc.(map[string]any)["properties"].(map[string]any)
		delete(props["docs"].(map[string]any), "oneOf")
		delete(props["success"].(map[string]any), "anyOf")
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource("task.schema.json", doc); err != nil {
			schemaErr = err
			return
		}
		schemaVal, schemaErr = c.Compile("task.schema.json")
	})
	return schemaVal, schemaErr
}

var printer = message.NewPrinter(language.English)

// schemaProblems validates doc and adds one problem per failing leaf.
func schemaProblems(doc map[string]any, ps *problems) {
	s, err := compiled()
	if err != nil {
		ps.add("", "schema.internal", "the task schema does not compile: %v", err)
		return
	}
	// The validator wants JSON values; a round trip gives exactly those.
	raw, err := json.Marshal(doc)
	if err != nil {
		ps.add("", "file.values", "holds a value JSON cannot carry: %v", err)
		return
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		ps.add("", "file.values", "%v", err)
		return
	}
	err = s.Validate(inst)
	if err == nil {
		return
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		ps.add("", "schema.internal", "%v", err)
		return
	}
	leaves(ve, inst, ps)
}

func leaves(ve *jsonschema.ValidationError, inst any, ps *problems) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			leaves(c, inst, ps)
		}
		return
	}
	kw := ve.ErrorKind.KeywordPath()
	rule := "schema"
	if len(kw) > 0 {
		rule += "." + kw[0]
	}
	field := fieldPath(ve.InstanceLocation)
	msg := ve.ErrorKind.LocalizedString(printer)
	if rule == "schema.additionalProperties" {
		msg = strings.Replace(msg, "additional properties", "unknown field(s)", 1) + " (the schema allows no others; check the spelling)"
	}
	if rule == "schema.type" {
		if v, ok := lookup(inst, ve.InstanceLocation); ok {
			if _, isBool := v.(bool); isBool {
				msg += "; YAML 1.1 reads unquoted yes/no/on/off/true/false as booleans, so quote it (\"true\")"
			}
		}
	}
	if rule == "schema.pattern" && strings.Contains(field, "allow") || rule == "schema.pattern" && strings.Contains(field, "only") {
		msg = "must be a bare hostname such as docs.example.com (no scheme, path or port): " + msg
	}
	ps.add(field, rule, "%s", msg)
}

func fieldPath(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		if isIndex(tok) {
			fmt.Fprintf(&b, "[%s]", tok)
			continue
		}
		if b.Len() > 0 {
			b.WriteString(".")
		}
		b.WriteString(tok)
	}
	return b.String()
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func lookup(v any, loc []string) (any, bool) {
	for _, tok := range loc {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i := 0
			fmt.Sscan(tok, &i)
			if i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
