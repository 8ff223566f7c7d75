package task

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/tabwright/tabwright/schemas"
)

// The reference: the task schema as a complete draft-07 validator
// (github.com/santhosh-tekuri/jsonschema, which the binary used to link and
// which compiles its metaschemas at init) sees it, with the same two
// combinators taken out as taskSchema takes out.

var (
	refOnce sync.Once
	refVal  *santhosh.Schema
	refErr  error
)

func refCompiled() (*santhosh.Schema, error) {
	refOnce.Do(func() { refVal, refErr = compileRef() })
	return refVal, refErr
}

func compileRef() (*santhosh.Schema, error) {
	doc, err := santhosh.UnmarshalJSON(strings.NewReader(string(schemas.Task)))
	if err != nil {
		return nil, err
	}
	props := doc.(map[string]any)["properties"].(map[string]any)
	delete(props["docs"].(map[string]any), "oneOf")
	delete(props["success"].(map[string]any), "anyOf")
	c := santhosh.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("task.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("task.schema.json")
}

var refPrinter = message.NewPrinter(language.English)

// refProblems is what schemaProblems reported when it used the reference.
func refProblems(t testing.TB, doc map[string]any) []Problem {
	s, err := refCompiled()
	if err != nil {
		t.Fatal(err)
	}
	var ps problems
	inst, err := santhosh.UnmarshalJSON(strings.NewReader(mustJSON(t, doc)))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate(inst)
	if err == nil {
		return nil
	}
	var leaves func(ve *santhosh.ValidationError)
	leaves = func(ve *santhosh.ValidationError) {
		if len(ve.Causes) > 0 {
			for _, c := range ve.Causes {
				leaves(c)
			}
			return
		}
		rule := "schema"
		if kw := ve.ErrorKind.KeywordPath(); len(kw) > 0 {
			rule += "." + kw[0]
		}
		if ap, ok := ve.ErrorKind.(*kind.AdditionalProperties); ok {
			sort.Strings(ap.Properties) // the reference lists them in map order
		}
		field := fieldPath(ve.InstanceLocation)
		ps.add(field, rule, "%s", explain(rule, field, ve.ErrorKind.LocalizedString(refPrinter), inst, ve.InstanceLocation))
	}
	leaves(err.(*santhosh.ValidationError))
	return ps
}

func ourProblems(doc map[string]any) []Problem {
	var ps problems
	schemaProblems(doc, &ps)
	return ps
}

func mustJSON(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sortedProblems(ps []Problem) []Problem {
	out := append([]Problem(nil), ps...)
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
	return out
}

// agree fails t unless the reference and schemaProblems find the document
// valid or invalid alike, with the same problems.
func agree(t testing.TB, data []byte) {
	doc, err := decode("t.yaml", data)
	if err != nil {
		return
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return
	}
	if _, err := json.Marshal(top); err != nil {
		return // file.values, before either validator
	}
	want, got := refProblems(t, top), ourProblems(top)
	if (len(want) == 0) != (len(got) == 0) {
		t.Fatalf("verdicts differ on\n%s\nreference: %v\nours: %v", data, want, got)
	}
	if w, g := sortedProblems(want), sortedProblems(got); !reflect.DeepEqual(w, g) {
		t.Fatalf("problems differ on\n%s\nreference:\n%s\nours:\n%s", data, list(w), list(g))
	}
}

func list(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "  %s | %s | %s\n", p.Field, p.Rule, p.Message)
	}
	return b.String()
}

// schemaCases break the schema in every way it can be broken, several at
// a time.
var schemaCases = []string{
	"{}\n",
	"name: 3\ngoal: [x]\ndocs: {path: ['https://exa mple.com/', 'http://x/%zz', 'ftp://x', 3, ' https://a.b/', \"https://a.b/\\n\"], allow: [a/b, 3, yes]}\nsuccess: 5\nbudgets: {max_turns: yes, max_seconds: 2.5, max_tokens: null}\nextra: 1\ncolour: 2\nimage: {}\n",
	"docs: 3\nsuccess: {}\nnetwork: {allow: 3, only: [a, 'b c', 1], deny: x}\nsetup: [a, 1]\nreplay: ok\n",
	"name: a\ngoal: b\ndocs: {entrypoint: 'https://a b/', path: []}\nsuccess: {script: x, file: 3, serve: [a], extra: 1}\n",
	"name: a\ngoal: b\ndocs: {entrypoint: 'http://[::1/', allow: []}\nsuccess: {script: x}\n",
	"name: a\ngoal: b\ndocs: {entrypoint: 'http://fe80::1/'}\nsuccess: {script: x}\n",
	"name: a\ngoal: b\ndocs: {entrypoint: 'http://[fe80::1%25en0]/'}\nsuccess: {script: x}\n",
	"name: a\ngoal: b\ndocs: {entrypoint: 'http:x'}\nsuccess: {script: x}\n",
	"name: a\ngoal: b\ndocs: {entrypoint: 5}\nsuccess: {expect_output: {}, wait_http: {}}\n",
	"name: a\ngoal: b\ndocs: {path: [https://a.b/]}\nsuccess:\n  expect_output: {contains: 3, matches: [x, 1, {a: b}], x: 1}\n  wait_http: {path: /, url: 3, status: '200', timeout: 1.5, json: [a], contains: {}, matches: [[x]], colour: 2}\n",
	"name: a\ngoal: b\ndocs: {path: [https://a.b/]}\nsuccess: {expect_output: {contains: null, matches: true}, wait_http: {status: 2e3, timeout: 1e400, json: {a: 1}}}\n",
	"name: a\ngoal: b\ndocs: {path: [https://a.b/]}\nsuccess: {script: x}\nbudgets: {max_turns: -1, max_seconds: 1e2, max_command_seconds: 0x10, max_output_chars: .5, max_tokens: 12345678901234567890123}\n",
	`{"name":"a","goal":"b","docs":{"path":["https://a.b/"]},"success":{"script":"x"},"budgets":{"max_turns":1.0,"max_seconds":1e400,"max_command_seconds":1.00000000000000000001,"max_output_chars":1e-400,"max_tokens":-0.0}}`,
	`{"name":"a","goal":"b","docs":{"path":["https://a.b/"]},"success":{"wait_http":{"path":"/","status":99999999999999999999999,"timeout":-1e999}}}`,
	`{"name":null,"goal":false,"docs":{"path":null,"allow":null},"success":{"script":null},"network":null,"setup":null,"budgets":null}`,
}

// TestSchemaAgrees: the reference and schemaProblems agree on every seed.
func TestSchemaAgrees(t *testing.T) {
	for _, s := range append(seeds(), schemaDocs()...) {
		agree(t, s)
	}
	// The cases must reach the validators and, all but one, fail there.
	valid := 0
	for _, s := range schemaCases {
		doc, err := decode("t.yaml", []byte(s))
		top, ok := doc.(map[string]any)
		if err != nil || !ok {
			t.Fatalf("not a mapping (%v): %s", err, s)
		}
		if len(ourProblems(top)) == 0 {
			valid++
		}
	}
	if valid != 1 {
		t.Errorf("%d schema cases valid, want 1", valid)
	}
}

func schemaDocs() [][]byte {
	var out [][]byte
	for _, s := range schemaCases {
		out = append(out, []byte(s))
	}
	return out
}

// FuzzSchemaAgrees: on any document, the reference and schemaProblems agree.
func FuzzSchemaAgrees(f *testing.F) {
	for _, s := range append(seeds(), schemaDocs()...) {
		f.Add(s)
	}
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "c.sh"), []byte("true\n"), 0o644)
	f.Fuzz(func(t *testing.T, data []byte) { agree(t, data) })
}

// TestPrepareRefuses: a keyword the walker does not check stops the schema
// from preparing, so a schema edit cannot be ignored silently.
func TestPrepareRefuses(t *testing.T) {
	if _, err := taskSchema(); err != nil {
		t.Fatalf("the task schema: %v", err)
	}
	for _, raw := range []string{
		`{"type":"object","properties":{"a":{"type":"array","uniqueItems":true}}}`,
		`{"properties":{"a":{"type":"integer","minimum":1}}}`,
		`{"items":{"format":"email"}}`,
		`{"items":[{"type":"string"}]}`,
		`{"additionalProperties":{"x-custom":1}}`,
		`{"oneOf":[{"not":{"required":["a"]}}]}`,
		`{"properties":{"a":{"pattern":"("}}}`,
	} {
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatal(err)
		}
		if _, err := prepare(&s, "root"); err == nil {
			t.Errorf("prepared %s", raw)
		}
	}
}
