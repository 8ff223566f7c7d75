package task

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tabwright/tabwright/schemas"
)

// The task schema is checked with github.com/google/jsonschema-go, which the
// MCP SDK links anyway and which costs nothing at start-up. That validator
// stops at the first error, and a task file's author should see every
// problem at once, so the schema is not validated whole: taskSchema descends
// it (properties, additionalProperties, items, anyOf/oneOf branches) in step
// with the document, and at every subschema each keyword is validated on its
// own, as a one-keyword schema, so that one failure cannot hide another.
// Messages, rule names (schema.<keyword>) and the order of checks within a
// subschema follow the draft-07 validator this package used before
// (santhosh-tekuri/jsonschema); schema_ref_test.go holds the two to the
// same verdicts and the same problems. That validator checks a task faster
// (BenchmarkQSTaskSchema), but linking it compiles every draft's metaschema
// at init in every tabwright process, tasks or not: measured at 3 to 9 ms
// and 1.7 MB per start, against an init of about 5 ms without it.

const draft7 = "http://json-schema.org/draft-07/schema#"

// node is one subschema, ready to check a value.
type node struct {
	checks []check          // this subschema's own keywords, in order
	props  map[string]*node // properties
	extra  *node            // additionalProperties, when a schema
	items  *node            // items
	alts   []*node          // the branches of anyOf or oneOf
	altsKw string           // "anyOf" or "oneOf"
	s      *jsonschema.Schema
}

// check is one keyword of a subschema. A failed final check (type, const,
// enum, format) ends the subschema's checks, as it does in a draft-07
// validator: nothing more can be said usefully about a value of the wrong
// type.
type check struct {
	kw    string
	rs    *jsonschema.Resolved // nil for format, which jsonschema-go does not assert
	final bool
}

var (
	schemaOnce sync.Once
	schemaRoot *node
	schemaErr  error
)

// taskSchema is the task schema, with format assertions on. Two combinators
// are taken out and enforced by loader rules instead, with messages that say
// what to change: docs' oneOf (path xor entrypoint) and success's anyOf
// (script xor file). The latter is also relaxed on purpose: a success block
// whose only assertions are wait_http or expect_output is valid, as the
// quickstarted loader has always accepted (its schema was stricter than its
// loader; the reference lists that mismatch as a bug).
func taskSchema() (*node, error) {
	schemaOnce.Do(func() { schemaRoot, schemaErr = loadTaskSchema() })
	return schemaRoot, schemaErr
}

// loadTaskSchema prepares the task schema; taskSchema does it once.
func loadTaskSchema() (*node, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(schemas.Task, &s); err != nil {
		return nil, err
	}
	if s.Schema != draft7 {
		return nil, fmt.Errorf("the task schema is %q; this validator knows draft-07", s.Schema)
	}
	if d := s.Properties["docs"]; d != nil {
		d.OneOf = nil
	}
	if sc := s.Properties["success"]; sc != nil {
		sc.AnyOf = nil
	}
	return prepare(&s, "root")
}

// schemaProblems validates doc and adds one problem per failing keyword.
func schemaProblems(doc map[string]any, ps *problems) {
	root, err := taskSchema()
	if err != nil {
		ps.add("", "schema.internal", "the task schema does not compile: %v", err)
		return
	}
	inst := numbers(doc)
	for _, f := range root.walk(inst, nil) {
		ps.add(fieldPath(f.loc), f.rule, "%s", explain(f.rule, fieldPath(f.loc), f.msg, inst, f.loc))
	}
}

// failure is one failing keyword at an instance location.
type failure struct {
	loc       []string
	rule, msg string
}

// walk checks v against n and returns every failure, this subschema's
// first, then its properties', items' and branches'.
func (n *node) walk(v any, loc []string) []failure {
	var out []failure
	fail := func(kw, msg string) { out = append(out, failure{loc: loc, rule: "schema." + kw, msg: msg}) }
	for _, c := range n.checks {
		if c.rs == nil { // format
			if s, ok := v.(string); ok {
				if err := checkURI(s); err != nil {
					fail(c.kw, fmt.Sprintf("%s is not valid %s: %v", display(s), n.s.Format, err))
					return out
				}
			}
			continue
		}
		if c.rs.Validate(v) == nil {
			continue
		}
		if c.kw == "anyOf" || c.kw == "oneOf" {
			out = append(out, n.branches(v, loc)...)
			continue
		}
		fail(c.kw, n.message(c.kw, v))
		if c.final {
			return out
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if p := n.props[k]; p != nil {
				out = append(out, p.walk(x[k], append(slices.Clip(loc), k))...)
			} else if n.extra != nil {
				out = append(out, n.extra.walk(x[k], append(slices.Clip(loc), k))...)
			}
		}
	case []any:
		if n.items != nil {
			for i, e := range x {
				out = append(out, n.items.walk(e, append(slices.Clip(loc), itoa(i)))...)
			}
		}
	}
	return out
}

// branches explains a failed anyOf or oneOf: when no branch holds, every
// branch's failures; when two do (oneOf), which two.
func (n *node) branches(v any, loc []string) []failure {
	var all []failure
	var held []int
	for i, b := range n.alts {
		f := b.walk(v, loc)
		if len(f) == 0 {
			held = append(held, i)
		}
		all = append(all, f...)
	}
	switch {
	case len(held) == 0:
		return all
	case n.altsKw == "oneOf" && len(held) > 1:
		return []failure{{loc: loc, rule: "schema.oneOf", msg: fmt.Sprintf("'oneOf' failed, subschemas %d, %d matched", held[0], held[1])}}
	}
	// The keyword failed, yet a branch holds on its own: say so rather
	// than guess.
	return []failure{{loc: loc, rule: "schema." + n.altsKw, msg: fmt.Sprintf("'%s' failed", n.altsKw)}}
}

// message says why v fails keyword kw of n's subschema.
func (n *node) message(kw string, v any) string {
	s := n.s
	switch kw {
	case "type":
		want := s.Types
		if s.Type != "" {
			want = []string{s.Type}
		}
		return fmt.Sprintf("got %s, want %s", jsonTypeOf(v), strings.Join(want, " or "))
	case "const":
		if isComposite(*s.Const) {
			return "'const' failed"
		}
		return "value must be " + display(*s.Const)
	case "enum":
		return n.enumMessage()
	case "required":
		return n.requiredMessage(v.(map[string]any))
	case "additionalProperties":
		var unknown []string
		for _, k := range sortedKeys(v.(map[string]any)) {
			if _, ok := s.Properties[k]; !ok {
				unknown = append(unknown, quote(k))
			}
		}
		return fmt.Sprintf("additional properties %s not allowed", strings.Join(unknown, ", "))
	case "pattern":
		return fmt.Sprintf("%s does not match pattern %s", quote(v.(string)), quote(s.Pattern))
	}
	if got, want, ok := n.bound(kw, v); ok {
		return fmt.Sprintf("%s: got %d, want %d", kw, got, want)
	}
	return fmt.Sprintf("'%s' failed", kw)
}

func (n *node) enumMessage() string {
	var want []string
	for _, e := range n.s.Enum {
		if isComposite(e) {
			return "'enum' failed"
		}
		want = append(want, display(e))
	}
	if len(want) == 1 {
		return "value must be " + want[0]
	}
	return "value must be one of " + strings.Join(want, ", ")
}

func (n *node) requiredMessage(obj map[string]any) string {
	var missing []string
	for _, r := range n.s.Required {
		if _, ok := obj[r]; !ok {
			missing = append(missing, quote(r))
		}
	}
	if len(missing) == 1 {
		return "missing property " + missing[0]
	}
	return "missing properties " + strings.Join(missing, ", ")
}

// bound is, for a size keyword (minItems, maxLength...), v's size and the
// bound it fails; ok is false for other keywords.
func (n *node) bound(kw string, v any) (got, want int, ok bool) {
	s := n.s
	switch kw {
	case "minProperties":
		return len(v.(map[string]any)), *s.MinProperties, true
	case "maxProperties":
		return len(v.(map[string]any)), *s.MaxProperties, true
	case "minItems":
		return len(v.([]any)), *s.MinItems, true
	case "maxItems":
		return len(v.([]any)), *s.MaxItems, true
	case "minLength":
		return len([]rune(v.(string))), *s.MinLength, true
	case "maxLength":
		return len([]rune(v.(string))), *s.MaxLength, true
	}
	return 0, 0, false
}

// explain adds what a task author needs to a schema message: which names
// are unknown, that YAML made a boolean of a bare yes, that a host is a
// bare name.
func explain(rule, field, msg string, inst any, loc []string) string {
	if rule == "schema.additionalProperties" {
		msg = strings.Replace(msg, "additional properties", "unknown field(s)", 1) + " (the schema allows no others; check the spelling)"
	}
	if rule == "schema.type" {
		if v, ok := lookup(inst, loc); ok {
			if _, isBool := v.(bool); isBool {
				msg += "; YAML 1.1 reads unquoted yes/no/on/off/true/false as booleans, so quote it (\"true\")"
			}
		}
	}
	if rule == "schema.pattern" && (strings.Contains(field, "allow") || strings.Contains(field, "only")) {
		msg = "must be a bare hostname such as docs.example.com (no scheme, path or port): " + msg
	}
	return msg
}

// checkURI is draft-07's "uri" format: an absolute URI, with an IPv6 host
// in brackets.
func checkURI(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if h := u.Hostname(); strings.Contains(h, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") {
			return errors.New("ipv6 address not enclosed in brackets")
		}
		addr, err := netip.ParseAddr(h)
		if err != nil {
			return fmt.Errorf("invalid ipv6 address: %v", err)
		}
		if addr.Zone() != "" {
			return errors.New("invalid ipv6 address: zone id is not a part of ipv6 address")
		}
	}
	if !u.IsAbs() {
		return errors.New("relative url")
	}
	return nil
}

// numbers is a copy of v as the validator wants it. A json.Number (which
// jsonschema-go would take for a string) becomes a Go number of the same
// JSON type: int64 for an integer that fits, else a float64 that is whole
// exactly when the number is an integer. The schema has no numeric bounds
// (prepare refuses them), so only that distinction matters. Invalid UTF-8
// becomes U+FFFD, as JSON would carry it.
func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[validText(k)] = numbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = numbers(e)
		}
		return out
	case string:
		return validText(x)
	case json.Number:
		return number(x)
	}
	return v
}

func number(x json.Number) any {
	if i, err := x.Int64(); err == nil {
		return i
	}
	r, ok := new(big.Rat).SetString(string(x))
	if !ok {
		return 0.5 // not a number big.Rat reads; not an integer either
	}
	f, _ := r.Float64()
	if math.IsInf(f, 0) {
		f = math.Copysign(math.MaxFloat64, f)
	}
	if _, frac := math.Modf(f); r.IsInt() != (frac == 0) {
		f = math.Copysign(0.5, f) // a fraction float64 rounds away
	}
	return f
}

// validText is s with each invalid UTF-8 byte as U+FFFD.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string([]rune(s))
}

// jsonTypeOf names v's JSON type as a draft-07 validator's messages do:
// every number is a number.
func jsonTypeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any, map[any]any: // the latter from YAML, before keys are checked
		return "object"
	case json.Number, int, int64, uint64, float64:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func isComposite(v any) bool {
	switch v.(type) {
	case []any, map[string]any:
		return true
	}
	return false
}

// quote single-quotes s for a message.
func quote(s string) string {
	s = fmt.Sprintf("%q", s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}

// display shows a scalar for a message.
func display(v any) string {
	if s, ok := v.(string); ok {
		return quote(s)
	}
	return fmt.Sprint(v)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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
