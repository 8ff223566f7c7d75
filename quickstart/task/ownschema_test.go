package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
)

// qs schema describes what the loader accepts: a corpus of task files,
// valid and not, gets the same verdict from Parse and from a complete
// draft-07 validator given OwnSchema. The contract's schema disagrees on
// the cases marked: they are the documented differences.
func TestQSOwnSchemaAgreesWithTheLoader(t *testing.T) {
	raw, err := OwnSchema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := santhosh.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	c := santhosh.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("own.json", doc); err != nil {
		t.Fatal(err)
	}
	own, err := c.Compile("own.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "check.sh"), []byte("test -f done.txt\n"), 0o644)
	const head = "name: t\ngoal: g\ndocs:\n  path: [https://docs.example.com/start]\n"
	corpus := []struct {
		name, body string
		valid      bool
	}{
		{"script", head + "success:\n  script: test -f done.txt\n", true},
		{"file", head + "success:\n  file: check.sh\n", true},
		{"wait_http only", head + "success:\n  serve: python3 -m http.server $QS_PORT\n  wait_http:\n    path: /\n", true},
		{"expect_output only", head + "success:\n  expect_output:\n    contains: hello\n", true},
		{"entrypoint", "name: t\ngoal: g\ndocs:\n  entrypoint: https://docs.example.com/\nsuccess:\n  script: 'true'\n", true},
		{"budgets at 1, max_tokens 0", head + "budgets:\n  max_turns: 1\n  max_seconds: 1\n  max_tokens: 0\nsuccess:\n  script: 'true'\n", true},
		{"max_turns 0", head + "budgets:\n  max_turns: 0\nsuccess:\n  script: 'true'\n", false},
		{"max_seconds negative", head + "budgets:\n  max_seconds: -5\nsuccess:\n  script: 'true'\n", false},
		{"max_tokens negative", head + "budgets:\n  max_tokens: -1\nsuccess:\n  script: 'true'\n", false},
		{"script and file", head + "success:\n  script: 'true'\n  file: check.sh\n", false},
		{"nothing to assert", head + "success:\n  serve: python3 -m http.server\n", false},
		{"empty success", head + "success: {}\n", false},
		{"blank script", head + "success:\n  script: '  '\n", false},
		{"empty wait_http", head + "success:\n  wait_http: {}\n", false},
		{"path and entrypoint", "name: t\ngoal: g\ndocs:\n  path: [https://docs.example.com/]\n  entrypoint: https://docs.example.com/\nsuccess:\n  script: 'true'\n", false},
		{"no goal", "name: t\ndocs:\n  path: [https://docs.example.com/]\nsuccess:\n  script: 'true'\n", false},
		{"unknown field", head + "colour: blue\nsuccess:\n  script: 'true'\n", false},
		{"budget a string", head + "budgets:\n  max_turns: many\nsuccess:\n  script: 'true'\n", false},
	}
	for _, tc := range corpus {
		path := filepath.Join(dir, "t.yaml")
		_, lerr := Parse(path, []byte(tc.body), nil)
		v, err := decode(path, []byte(tc.body))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		inst, err := santhosh.UnmarshalJSON(strings.NewReader(mustJSON(t, numbers(v))))
		if err != nil {
			t.Fatal(err)
		}
		serr := own.Validate(inst)
		if (lerr == nil) != tc.valid || (serr == nil) != tc.valid {
			t.Errorf("%s: want valid=%v; the loader says %v, the schema says %v", tc.name, tc.valid, lerr, serr)
		}
	}
}
