package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tabwright/tabwright/schemas"
)

// The served browser_batch schema ($defs and local $refs) validates exactly
// the instances the contract's schema validates. A corpus generated from
// the contract, seeded: valid batches of every step kind with random
// fields, and mutations that break one rule of the schema at a time (a
// type, an enum, a const, a bound, a length, a count, a required field, an
// extra field, a tuple's length), each inside an otherwise valid batch;
// and the cross-field rules the contract states in words (selector XOR
// focused, frame XOR frame_id, ...), which neither schema checks. Both
// schemas, compiled by a standard validator, give every instance the same
// verdict.
func TestBatchSchemaEquivalence(t *testing.T) {
	t.Parallel()
	contract := compileBatch(t, schemas.BrowserBatchInput)
	served := compileBatch(t, listed()["browser_batch"].InputSchema)
	corpus := batchCorpus(t)

	var valid, invalid int
	for _, c := range corpus {
		want := validates(contract, c.instance)
		if want != c.valid {
			t.Fatalf("the generator is wrong: %s should be valid=%v, the contract says %v", c.why, c.valid, want)
		}
		if got := validates(served, c.instance); got != want {
			t.Errorf("%s: the contract says valid=%v, the served schema %v\n%.2000s", c.why, want, got, jsonOf(t, c.instance))
		}
		if want {
			valid++
		} else {
			invalid++
		}
	}
	t.Logf("%d batches: %d valid, %d invalid", len(corpus), valid, invalid)
	if valid < 500 || invalid < 1500 {
		t.Fatalf("corpus too small: %d valid, %d invalid; want at least 500 and 1500", valid, invalid)
	}
}

// The corpus finds a served schema that differs from the contract in any
// one bound, length, count or enum value inside its $defs: the test above
// can fail.
func TestBatchEquivalenceCorpusCatchesDrift(t *testing.T) {
	t.Parallel()
	var served map[string]any
	if err := json.Unmarshal(listed()["browser_batch"].InputSchema, &served); err != nil {
		t.Fatal(err)
	}
	contract := compileBatch(t, schemas.BrowserBatchInput)
	corpus := batchCorpus(t)
	verdicts := make([]bool, len(corpus))
	for i, c := range corpus {
		verdicts[i] = validates(contract, c.instance)
	}
	drifts := defDrifts(served)
	if len(drifts) < 20 {
		t.Fatalf("only %d drifts generated", len(drifts))
	}
	t.Logf("%d drifts", len(drifts))
	for _, d := range drifts {
		sch := compileBatch(t, []byte(jsonOf(t, d.schema)))
		// A looser bound shows on a broken rule, a shorter enum on a valid
		// batch: look there first.
		order := make([]int, len(corpus))
		for i := range order {
			order[i] = i
		}
		if strings.HasSuffix(d.what, "/enum") {
			slices.Reverse(order)
		}
		caught := false
		for _, i := range order {
			if validates(sch, corpus[i].instance) != verdicts[i] {
				caught = true
				break
			}
		}
		if !caught {
			t.Errorf("drift %s is not caught by the corpus", d.what)
		}
	}
}

func compileBatch(t testing.TB, raw []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///batch.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem:///batch.json")
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return sch
}

func validates(sch *jsonschema.Schema, inst any) bool { return sch.Validate(inst) == nil }

// asSent is v as a validator reads it from JSON text, as a client sends it.
func asSent(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		panic(err)
	}
	return inst
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type corpusCase struct {
	why      string
	instance any // as a validator reads JSON text (numbers as json.Number)
	valid    bool
}

// batchCorpus generates the corpus from the contract (descriptions aside),
// the same on every run.
func batchCorpus(t testing.TB) []corpusCase {
	t.Helper()
	var contract map[string]any
	if err := json.Unmarshal(schemas.BrowserBatchInput, &contract); err != nil {
		t.Fatal(err)
	}
	top := schemas.Structure(contract).(map[string]any)
	g := &gen{rng: rand.New(rand.NewPCG(22, 1))}
	stepsSchema := top["properties"].(map[string]any)["steps"].(map[string]any)
	variants := stepsSchema["items"].(map[string]any)["oneOf"].([]any)

	var out []corpusCase
	// Valid batches: each step kind alone, sparse and full, then random mixes.
	for _, v := range variants {
		vm := v.(map[string]any)
		for _, full := range []bool{false, true} {
			g.full = full
			out = append(out, corpusCase{fmt.Sprintf("one %s step (full=%v)", actionOf(vm), full), g.batch(top, []any{g.valid(vm)}), true})
		}
	}
	g.full = false
	for i := 0; i < 600; i++ {
		n := 1 + g.rng.IntN(4)
		if i%50 == 0 {
			n = 30 // the most steps a batch may have
		}
		steps := make([]any, n)
		for j := range steps {
			steps[j] = g.valid(variants[g.rng.IntN(len(variants))].(map[string]any))
		}
		out = append(out, corpusCase{fmt.Sprintf("random valid batch %d", i), g.batch(top, steps), true})
	}
	// One broken rule in one step of an otherwise valid batch, three
	// contexts each.
	for _, v := range variants {
		vm := v.(map[string]any)
		for _, m := range g.invalid(vm, "steps[i]") {
			for k := 0; k < 3; k++ {
				steps := g.validSteps(variants, g.rng.IntN(5))
				at := g.rng.IntN(len(steps) + 1)
				steps = append(steps[:at], append([]any{m.value}, steps[at:]...)...)
				out = append(out, corpusCase{actionOf(vm) + ": " + m.what, g.batch(top, steps), false})
			}
		}
	}
	// One broken rule at the top: the batch's own fields, steps' count (in
	// random valid contexts: the generator draws each anew).
	for k := 0; k < 3; k++ {
		for _, m := range g.invalid(top, "") {
			out = append(out, corpusCase{"batch:" + m.what, m.value, false})
		}
	}
	// The rules the contract states in words: both schemas accept them.
	for _, r := range crossFieldCases() {
		var steps []any
		if err := json.Unmarshal([]byte(r), &steps); err != nil {
			t.Fatal(err)
		}
		out = append(out, corpusCase{"cross-field rule " + r, map[string]any{"tab_handle": "h", "steps": steps}, true})
	}
	// Broken rules first: most drifts are caught by one of them.
	sort.SliceStable(out, func(i, j int) bool { return !out[i].valid && out[j].valid })
	for i := range out {
		out[i].instance = asSent(out[i].instance)
	}
	return out
}

// crossFieldCases break the rules the contract writes in its descriptions
// (prevalidation's, not the schema's).
func crossFieldCases() []string {
	return []string{
		`[{"action":"type","selector":"#q","focused":true,"text":"x"}]`,
		`[{"action":"type","text":"x"}]`,
		`[{"action":"click","selector":"#a","frame":{"url":"https://a.test/"},"frame_id":"F"}]`,
		`[{"action":"click","selector":"#a","frame":{}}]`,
		`[{"action":"select_option","selector":"#s","value":"a","label":"A"}]`,
		`[{"action":"select_option","selector":"#s"}]`,
		`[{"action":"scroll"}]`,
		`[{"action":"click","selector":"#a","settle_ms":[900,100]}]`,
		`[{"action":"type","focused":true,"text":"x","delay_ms":[80,20]}]`,
		`[{"action":"wait","condition":"url","selector":"#a","expected":"/x"}]`,
		`[{"action":"wait","condition":"network_idle","selector":"#a"}]`,
		`[{"action":"wait","condition":"text","selector":"#a","previous":"x","expected":"y"}]`,
		`[{"action":"wait","condition":"visible","selector":"#a","expected":true}]`,
		`[{"action":"press_key","key":"Enter","name":"Go"}]`,
		`[{"action":"hover","selector":"#a","nth":1,"name":"x"}]`,
		`[{"action":"click","selector":"#a","observe":{"name":"x"}}]`,
	}
}

func actionOf(variant map[string]any) string {
	return fmt.Sprint(variant["properties"].(map[string]any)["action"].(map[string]any)["const"])
}

// gen makes instances of a draft-07 schema of the kinds the contract uses.
type gen struct {
	rng  *rand.Rand
	full bool // set every optional property, not a random few
}

func (g *gen) batch(top map[string]any, steps []any) any {
	b := g.valid(top).(map[string]any)
	b["steps"] = steps
	if sa, ok := b["start_at"].(int); ok && sa >= len(steps) {
		b["start_at"] = len(steps) - 1
	}
	return b
}

func (g *gen) validSteps(variants []any, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = g.valid(variants[g.rng.IntN(len(variants))].(map[string]any))
	}
	return out
}

// valid returns a random instance of s.
func (g *gen) valid(s map[string]any) any {
	if c, ok := s["const"]; ok {
		return c
	}
	if e, ok := s["enum"].([]any); ok {
		return e[g.rng.IntN(len(e))]
	}
	if branches, ok := s["anyOf"].([]any); ok {
		return g.valid(branches[g.rng.IntN(len(branches))].(map[string]any))
	}
	if branches, ok := s["oneOf"].([]any); ok {
		return g.valid(branches[g.rng.IntN(len(branches))].(map[string]any))
	}
	switch s["type"] {
	case "string":
		lo, hi := bound(s, "minLength", 0), bound(s, "maxLength", 12)
		return g.text(lo + g.rng.IntN(min(hi, lo+12)-lo+1))
	case "integer":
		return g.integer(s)
	case "number":
		lo, hi := num(s, "minimum", -1000), num(s, "maximum", 1000)
		return lo + g.rng.Float64()*(hi-lo)
	case "boolean":
		return g.rng.IntN(2) == 0
	case "array":
		return g.array(s)
	case "object":
		return g.object(s)
	}
	panic(fmt.Sprintf("no generator for %v", s))
}

func (g *gen) text(n int) string {
	const letters = "abc#.-_ éx"
	r := []rune(letters)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune(r[g.rng.IntN(len(r))])
	}
	return b.String()
}

func (g *gen) integer(s map[string]any) int {
	lo, hi := bound(s, "minimum", -1000), bound(s, "maximum", 1000)
	switch g.rng.IntN(4) {
	case 0:
		return lo
	case 1:
		return hi
	}
	span := hi - lo
	if span > 1<<20 {
		span = 1 << 20
	}
	return lo + g.rng.IntN(span+1)
}

func (g *gen) array(s map[string]any) []any {
	if tuple, ok := s["items"].([]any); ok {
		out := make([]any, len(tuple))
		for i, it := range tuple {
			out[i] = g.valid(it.(map[string]any))
		}
		return out
	}
	lo, hi := bound(s, "minItems", 0), bound(s, "maxItems", 4)
	n := lo + g.rng.IntN(min(hi, lo+4)-lo+1)
	out := make([]any, n)
	for i := range out {
		out[i] = g.valid(s["items"].(map[string]any))
	}
	return out
}

func (g *gen) object(s map[string]any) map[string]any {
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	for _, r := range list(s["required"]) {
		required[r] = true
	}
	for _, name := range sortedKeys(props) {
		if required[name] || g.full || g.rng.IntN(3) == 0 {
			out[name] = g.valid(props[name].(map[string]any))
		}
	}
	return out
}

// mutation is an instance that breaks one rule, and which.
type mutation struct {
	what  string
	value any
}

// invalid returns instances of s that each break one rule of s or of a
// schema nested in it (inside an otherwise valid instance).
func (g *gen) invalid(s map[string]any, path string) []mutation {
	var out []mutation
	add := func(what string, v any) { out = append(out, mutation{path + " " + what, v}) }
	if c, ok := s["const"]; ok {
		add("const", fmt.Sprint(c)+"-other")
		if b, isBool := c.(bool); isBool {
			add("const", !b)
		}
		return out
	}
	if e, ok := s["enum"].([]any); ok {
		add("enum", "not-"+fmt.Sprint(e[0]))
		return out
	}
	if branches, ok := s["anyOf"].([]any); ok {
		add("anyOf: no branch", map[string]any{"x": 1})
		for i, b := range branches {
			// A value of another branch's type could match that branch:
			// only the mutations that keep the branch's own type break
			// every branch (the branches' types differ).
			for _, m := range g.invalid(b.(map[string]any), fmt.Sprintf("%s/anyOf[%d]", path, i)) {
				if !strings.HasSuffix(m.what, " type") {
					out = append(out, m)
				}
			}
		}
		return out
	}
	switch s["type"] {
	case "string":
		add("type", 7)
		if lo := bound(s, "minLength", 0); lo > 0 {
			add("minLength", g.text(lo-1))
		}
		if hi, ok := s["maxLength"].(float64); ok {
			add("maxLength", strings.Repeat("a", int(hi)+1))
		}
	case "integer", "number":
		add("type", "7")
		if s["type"] == "integer" {
			add("integer", 1.5)
		}
		if lo, ok := s["minimum"].(float64); ok {
			add("minimum", lo-1)
		}
		if hi, ok := s["maximum"].(float64); ok {
			add("maximum", hi+1)
		}
	case "boolean":
		add("type", "true")
	case "array":
		out = append(out, g.invalidArray(s, path, add)...)
	case "object":
		out = append(out, g.invalidObject(s, path, add)...)
	}
	return out
}

func (g *gen) invalidArray(s map[string]any, path string, add func(string, any)) []mutation {
	var out []mutation
	add("type", "x")
	valid := g.array(s)
	if tuple, ok := s["items"].([]any); ok {
		add("tuple too short", valid[:len(valid)-1])
		add("tuple too long", append(append([]any{}, valid...), valid[0]))
		for i, it := range tuple {
			for _, m := range g.invalid(it.(map[string]any), fmt.Sprintf("%s[%d]", path, i)) {
				v := append([]any{}, g.array(s)...)
				v[i] = m.value
				out = append(out, mutation{m.what, v})
			}
		}
		return out
	}
	item := s["items"].(map[string]any)
	if lo := bound(s, "minItems", 0); lo > 0 {
		add("minItems", valid[:lo-1])
	}
	if hi, ok := s["maxItems"].(float64); ok {
		v := make([]any, int(hi)+1)
		for i := range v {
			v[i] = g.valid(item)
		}
		add("maxItems", v)
	}
	for _, m := range g.invalid(item, path+"[]") {
		v := append([]any{m.value}, g.array(s)...)
		if hi, ok := s["maxItems"].(float64); ok && len(v) > int(hi) {
			v = v[:int(hi)]
		}
		out = append(out, mutation{m.what, v})
	}
	return out
}

func (g *gen) invalidObject(s map[string]any, path string, add func(string, any)) []mutation {
	var out []mutation
	add("type", "x")
	if s["additionalProperties"] == false {
		v := g.object(s)
		v["unknown_field"] = 1
		add("additionalProperties", v)
	}
	for _, r := range list(s["required"]) {
		v := g.object(s)
		delete(v, r)
		add("required "+r, v)
	}
	props, _ := s["properties"].(map[string]any)
	for _, name := range sortedKeys(props) {
		for _, m := range g.invalid(props[name].(map[string]any), path+"."+name) {
			v := g.object(s)
			v[name] = m.value
			out = append(out, mutation{m.what, v})
		}
	}
	return out
}

// drift is a served schema changed in one place.
type drift struct {
	what   string
	schema any
}

// defDrifts changes the served schema's $defs one keyword at a time:
// every bound, length and count one step looser, every enum one value
// short.
func defDrifts(served map[string]any) []drift {
	var out []drift
	var walk func(v any, path string)
	walk = func(v any, path string) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for _, k := range sortedKeys(m) {
			k := k
			switch x := m[k].(type) {
			case float64:
				step := map[string]float64{"maximum": 1, "maxLength": 1, "maxItems": 1, "minimum": -1, "minLength": -1, "minItems": -1}[k]
				if step != 0 {
					old := x
					m[k] = old + step
					out = append(out, drift{path + "/" + k, cloneJSON(served)})
					m[k] = old
				}
			case []any:
				if k == "enum" && len(x) > 1 {
					m[k] = x[:len(x)-1]
					out = append(out, drift{path + "/enum", cloneJSON(served)})
					m[k] = x
				}
			case map[string]any:
				walk(x, path+"/"+k)
			}
		}
	}
	walk(served["$defs"], "$defs")
	return out
}

func cloneJSON(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

func bound(s map[string]any, k string, def int) int {
	if f, ok := s[k].(float64); ok {
		return int(f)
	}
	return def
}

func num(s map[string]any, k string, def float64) float64 {
	if f, ok := s[k].(float64); ok {
		return f
	}
	return def
}

func list(v any) []string {
	var out []string
	items, _ := v.([]any)
	for _, e := range items {
		out = append(out, e.(string))
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
