package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
)

// A tool defined by defineTool is one typed input struct and a handler.
// Each field of the struct says, in its tags, all that is true of it:
//
//	json:"width"  tool:"min=0,max=10000,default=0"  doc:"What it means."
//
// tool takes required, nonempty (minLength 1), enum=a|b, min=, max=,
// default= and timeout (a call's timeout_ms, bounds and default from the
// batch contract). A field whose bounds or default are the engine's
// constants has its schema in the struct's listedAs method instead. An
// embedded locate.Locator lists the locator fields every tool shares. The
// listed input schema, the checks of each value (by jsonschema-go, against
// that schema), and string defaults all come from there; rules between
// fields are the struct's rules method.

// ruled is an input with rules between its fields.
type ruled interface{ rules() error }

// withListed is an input that gives some fields' schemas in Go, by name.
type withListed interface{ listedAs() map[string]schema }

var (
	locatorType     = reflect.TypeFor[locate.Locator]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// defineTool is the tool name, described by doc, whose input is In.
func defineTool[In any](name, doc string, run func(ctx context.Context, owner string, in *In) (any, string, error)) tool {
	spec := sync.OnceValue(func() *inputSpec { return newInputSpec(reflect.TypeFor[In]()) })
	return tool{
		name:  name,
		input: reflect.TypeFor[In](),
		def:   func() *mcp.Tool { return &mcp.Tool{Description: doc, InputSchema: spec().schema()} },
		run: func(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
			var in In
			if err := decodeValid(args, &in, spec()); err != nil {
				return nil, "", err
			}
			return run(ctx, owner, &in)
		},
	}
}

// annotate gives the tool's definition annotations.
func (t tool) annotate(a *mcp.ToolAnnotations) tool {
	def := t.def
	t.def = func() *mcp.Tool {
		d := def()
		d.Annotations = a
		return d
	}
	return t
}

// decodeValid decodes args strictly into in, validates it against spec and
// its own rules, and fills in the defaults of the fields not given.
func decodeValid(args json.RawMessage, in any, spec *inputSpec) error {
	if err := decode(args, in); err != nil {
		return err
	}
	v := reflect.ValueOf(in).Elem()
	if err := spec.validate(v); err != nil {
		return err
	}
	if r, ok := in.(ruled); ok {
		if err := r.rules(); err != nil {
			return err
		}
	}
	spec.fillDefaults(v)
	return nil
}

// inputSpec is an input struct's fields as their tags define them.
type inputSpec struct{ fields []*fieldSpec }

// fieldSpec is one field: its listed schema and the same schema resolved
// for checking a value (nil: the field checks itself, or the tool's rules
// method does).
type fieldSpec struct {
	name     string
	index    int
	required bool
	listed   schema
	resolved *jsonschema.Resolved
	items    *jsonschema.Resolved // a list's entries, each checked at its own path
}

func newInputSpec(t reflect.Type) *inputSpec {
	spec := &inputSpec{}
	given := map[string]schema{}
	if w, ok := reflect.New(t).Interface().(withListed); ok {
		given = w.listedAs()
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type == locatorType {
			spec.fields = append(spec.fields, locatorSpecs()...)
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		f := &fieldSpec{name: name, index: i}
		if s, ok := given[name]; ok {
			f.listed, f.required = s, strings.Contains(sf.Tag.Get("tool"), "required")
		} else {
			f.listed, f.required = fieldSchema(sf)
		}
		if schemaChecked(sf.Type) {
			f.resolved = resolve(name, f.listed)
		}
		if items, ok := f.listed["items"].(schema); ok {
			f.items = resolve(name, items)
		}
		spec.fields = append(spec.fields, f)
	}
	return spec
}

// schemaChecked reports a field type whose values jsonschema-go checks: not
// one that reads its own JSON, nor a nested object (its rules are the
// tool's rules method's, with their paths).
func schemaChecked(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() != reflect.Struct && !reflect.PointerTo(t).Implements(unmarshalerType)
}

// locatorSpecs are the locator fields as every tool lists them; the rules
// of a locator (act.ValidateLocator, ValidateScope) are the tool's rules.
func locatorSpecs() []*fieldSpec {
	var out []*fieldSpec
	for name, s := range locatorProps() {
		out = append(out, &fieldSpec{name: name, index: -1, listed: s.(schema)})
	}
	return out
}

// fieldSchema is a struct field's listed schema, from its Go type and
// tags; required says whether the tool requires it.
func fieldSchema(sf reflect.StructField) (s schema, required bool) {
	s = schema{"type": jsonType(sf.Type)}
	for _, opt := range strings.Split(sf.Tag.Get("tool"), ",") {
		key, val, _ := strings.Cut(opt, "=")
		switch key {
		case "":
		case "required":
			required = true
		case "nonempty":
			s["minLength"] = 1
		case "enum":
			s["enum"] = strings.Split(val, "|")
		case "min", "max":
			s[map[string]string{"min": "minimum", "max": "maximum"}[key]] = number(sf.Name, val)
		case "default":
			s["default"] = defaultValue(sf, val)
		case "timeout":
			s = timeoutField()
		default:
			panic("mcpserver: field " + sf.Name + ": unknown tool tag " + key) // part of the build
		}
	}
	return described(s, sf.Tag.Get("doc")), required
}

// jsonType is the JSON Schema type of a field's Go type.
func jsonType(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int:
		return "integer"
	case reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	}
	panic("mcpserver: no JSON type for " + t.String()) // part of the build
}

func number(field, text string) float64 {
	x, err := strconv.ParseFloat(text, 64)
	if err != nil {
		panic("mcpserver: field " + field + ": bound " + text) // part of the build
	}
	return x
}

func defaultValue(sf reflect.StructField, text string) any {
	switch jsonType(sf.Type) {
	case "string":
		return text
	case "boolean":
		return text == "true"
	}
	return number(sf.Name, text)
}

// resolve readies a field's schema for jsonschema-go to check values by.
func resolve(name string, s schema) *jsonschema.Resolved {
	raw, err := json.Marshal(s)
	if err != nil {
		panic("mcpserver: field " + name + ": " + err.Error())
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(raw, &js); err != nil {
		panic("mcpserver: field " + name + ": " + err.Error())
	}
	r, err := js.Resolve(nil)
	if err != nil {
		panic("mcpserver: field " + name + ": " + err.Error())
	}
	return r
}

// schema is the input schema the tool lists.
func (spec *inputSpec) schema() schema {
	props := map[string]schema{}
	var required []string
	for _, f := range spec.fields {
		props[f.name] = f.listed
		if f.required {
			required = append(required, f.name)
		}
	}
	return object(required, props)
}

// validate refuses a missing required field, then a value its schema does
// not accept, each at its path, in the struct's order.
func (spec *inputSpec) validate(v reflect.Value) error {
	for _, f := range spec.fields {
		if f.required && v.Field(f.index).IsZero() {
			return errs.Input(f.name, "is required")
		}
	}
	for _, f := range spec.fields {
		if f.resolved == nil {
			continue
		}
		fv := v.Field(f.index)
		if fv.IsZero() && fv.Kind() != reflect.Pointer {
			continue // not given: a non-pointer field's zero means that
		}
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		if err := f.resolved.Validate(asJSON(fv)); err != nil {
			return f.refuse(fv)
		}
	}
	return nil
}

// refuse is the error for a value the field's schema does not accept: at
// the entry at fault for a list.
func (f *fieldSpec) refuse(v reflect.Value) error {
	if v.Kind() != reflect.Slice {
		return errs.Input(f.name, "%s; got %s", accepts(f.listed), shown(v))
	}
	seen := map[any]bool{}
	for i := range v.Len() {
		at, e := fmt.Sprintf("%s[%d]", f.name, i), v.Index(i)
		if f.items != nil && f.items.Validate(asJSON(e)) != nil {
			return errs.Input(at, "%s; got %s", accepts(f.listed["items"].(schema)), shown(e))
		}
		if seen[e.Interface()] && f.listed["uniqueItems"] == true {
			return errs.Input(at, "%s is given twice", shown(e))
		}
		seen[e.Interface()] = true
	}
	return errs.Input(f.name, "must hold %v to %v entries; got %d", f.listed["minItems"], f.listed["maxItems"], v.Len())
}

// asJSON is a decoded value as jsonschema-go checks it: JSON's types.
func asJSON(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Int:
		return float64(v.Int())
	case reflect.Slice:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = asJSON(v.Index(i))
		}
		return out
	}
	return v.Interface()
}

// accepts says what a field's schema accepts, for the error that refuses
// a value: the words come from the schema, not from the validator's text.
func accepts(s schema) string {
	lo, hasLo := s["minimum"]
	hi, hasHi := s["maximum"]
	switch {
	case s["enum"] != nil:
		return "must be one of " + strings.Join(s["enum"].([]string), ", ")
	case hasLo && hasHi:
		return fmt.Sprintf("must be between %v and %v", lo, hi)
	case hasLo:
		return fmt.Sprintf("must be %v or more", lo)
	case hasHi:
		return fmt.Sprintf("must be %v or less", hi)
	case s["maxLength"] != nil:
		return fmt.Sprintf("must be 1 to %v characters", s["maxLength"])
	}
	return "must not be empty"
}

// shown is a refused value as its error quotes it: a long text by its
// length alone.
func shown(v reflect.Value) string {
	if v.Kind() == reflect.String {
		if n := utf8.RuneCountInString(v.String()); n > 60 {
			return fmt.Sprintf("%d characters", n)
		}
		return strconv.Quote(v.String())
	}
	return fmt.Sprint(v.Interface())
}

// fillDefaults sets each field not given whose schema has a default and
// whose Go zero value cannot mean anything else (a string).
func (spec *inputSpec) fillDefaults(v reflect.Value) {
	for _, f := range spec.fields {
		if f.index < 0 {
			continue
		}
		fv := v.Field(f.index)
		if d, ok := f.listed["default"].(string); ok && fv.Kind() == reflect.String && fv.String() == "" {
			fv.SetString(d)
		}
	}
}
