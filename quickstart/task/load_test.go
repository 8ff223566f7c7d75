package task

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const corpus = "../../testdata/qs/tasks"

func TestCorpusLoads(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpus, "*.yaml"))
	if len(files) != 13 {
		t.Fatalf("want the 13 bundled task shapes, found %d", len(files))
	}
	for _, f := range files {
		tk, err := Load(f, nil)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if len(tk.Replay) == 0 {
			t.Errorf("%s: no replay", f)
		}
		for _, l := range tk.Lints() {
			if l.Kind == "warning" {
				t.Errorf("%s: unexpected lint %s: %s", f, l.Rule, l.Message)
			}
		}
	}
	fa, err := Load(filepath.Join(corpus, "fastapi-quickstart.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fa.SuccessScript, `qs_wait_http / --json message="Hello World"`) {
		t.Errorf("fastapi check file not inlined: %q", fa.SuccessScript)
	}
	hx, _ := Load(filepath.Join(corpus, "httpx-quickstart.yaml"), nil)
	if want := []string{"www.python-httpx.org", "python-httpx.org"}; !reflect.DeepEqual(hx.DocsAllow, want) {
		t.Errorf("httpx docs allow %v, want %v", hx.DocsAllow, want)
	}
	if !strings.HasPrefix(hx.SuccessScript, "qs_expect_output --matches '(^|[^0-9])200([^0-9]|$)'\n") {
		t.Errorf("httpx compiled: %q", hx.SuccessScript)
	}
	if hx.Budgets.MaxTurns != 15 || hx.Budgets.MaxSeconds != 600 || hx.Budgets.MaxCommandSeconds != 300 {
		t.Errorf("budgets %+v", hx.Budgets)
	}
}

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const base = `name: demo
goal: Make done.txt.
docs:
  entrypoint: https://example.com/docs/
  allow: [pypi.org]
replay: [echo hi]
success:
  script: test -f done.txt
`

func TestSample(t *testing.T) {
	dir := t.TempDir()
	tk, err := Load(write(t, dir, "demo.yaml", base+"budgets: {max_turns: 3}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Name != "demo" || tk.Entrypoint() != "https://example.com/docs/" || tk.Budgets.MaxTurns != 3 || tk.Budgets.MaxSeconds != 480 {
		t.Errorf("%+v", tk)
	}
	if !reflect.DeepEqual(tk.DocsAllow, []string{"example.com", "pypi.org"}) {
		t.Errorf("allow %v", tk.DocsAllow)
	}
	for u, want := range map[string]bool{"https://example.com/page": true, "https://docs.example.com/page": true,
		"https://pypi.org/x": true, "https://evil.com/": false, "https://notexample.com/": false,
		"https://example.com.evil.net/": false, "not a url": false} {
		if tk.HostAllowed(u) != want {
			t.Errorf("HostAllowed(%q) != %v", u, want)
		}
	}
	if tk.SuccessScript != "test -f done.txt" {
		t.Errorf("script %q", tk.SuccessScript)
	}
	if !reflect.DeepEqual(tk.NetworkConflicts(), []string{"pypi.org"}) || len(tk.AttributionGaps()) != 0 {
		t.Errorf("conflicts %v gaps %v", tk.NetworkConflicts(), tk.AttributionGaps())
	}
	tk2, err := Load(write(t, dir, "d2.yaml", base+"network: {allow: [pypi.org]}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tk2.NetworkConflicts()) != 0 || !reflect.DeepEqual(tk2.AttributionGaps(), []string{"pypi.org"}) {
		t.Errorf("conflicts %v gaps %v", tk2.NetworkConflicts(), tk2.AttributionGaps())
	}
}

// ruleCases: every rule, with the field it names and its message.
var ruleCases = []struct {
	name, body, field, rule, msg string
}{
	{"missing name", strings.Replace(base, "name: demo\n", "", 1), "", "schema.required", "name"},
	{"missing goal", strings.Replace(base, "goal: Make done.txt.\n", "", 1), "", "schema.required", "goal"},
	{"blank goal", strings.Replace(base, "goal: Make done.txt.", "goal: '  '", 1), "goal", "field.blank", "is empty"},
	{"unknown top key", base + "colour: blue\n", "colour", "schema.additionalProperties", "unknown key; allowed here: budgets, docs"},
	{"unknown docs key", strings.Replace(base, "  allow:", "  alow: [x]\n  allow:", 1), "docs.alow", "schema.additionalProperties", "did you mean 'allow'?"},
	{"ftp entrypoint", strings.Replace(base, "https://example.com/docs/", "ftp://example.com/", 1), "docs.entrypoint", "docs.http", "http(s) URL"},
	{"path and entrypoint", strings.Replace(base, "  allow:", "  path: [https://example.com/a]\n  allow:", 1), "docs", "docs.route", "both 'path' and 'entrypoint'"},
	{"no route", strings.Replace(base, "  entrypoint: https://example.com/docs/\n", "", 1), "docs", "docs.route", "needs 'path'"},
	{"empty path", strings.Replace(base, "  entrypoint: https://example.com/docs/", "  path: []", 1), "docs.path", "docs.route", "is empty"},
	{"relative page", strings.Replace(base, "  entrypoint: https://example.com/docs/", "  path: [/docs/a]", 1), "docs.path[0]", "docs.http", "http(s) URL"},
	{"host-less page", strings.Replace(base, "  entrypoint: https://example.com/docs/", "  path: ['http://']", 1), "docs.path[0]", "docs.http", "with a host"},
	{"duplicate page", strings.Replace(base, "  entrypoint: https://example.com/docs/", "  path: [https://a.com/x, https://a.com/x]", 1), "docs.path[1]", "docs.duplicate", "twice"},
	{"not bare host", strings.Replace(base, "[pypi.org]", "['https://pypi.org/simple']", 1), "docs.allow[0]", "schema.pattern", "bare hostname"},
	{"network host", base + "network: {only: ['a b']}\n", "network.only[0]", "schema.pattern", "bare hostname"},
	{"unknown network key", base + "network: {deny: [x]}\n", "network.deny", "schema.additionalProperties", "allowed here: allow, only"},
	{"yaml 1.1 boolean", strings.Replace(base, "replay: [echo hi]", "replay: [yes]", 1), "replay[0]", "schema.type", "quote it"},
	{"on is boolean", strings.Replace(base, "replay: [echo hi]", "replay:\n  - on", 1), "replay[0]", "schema.type", "booleans"},
	{"setup not list", base + "setup: pip install x\n", "setup", "schema.type", "array"},
	{"unknown budget", base + "budgets: {max_bananas: 3}\n", "budgets.max_bananas", "schema.additionalProperties", "allowed here: max_command_seconds"},
	{"budget not int", base + "budgets: {max_seconds: '30'}\n", "budgets.max_seconds", "schema.type", "integer"},
	{"budget zero", base + "budgets: {max_seconds: 0}\n", "budgets.max_seconds", "budgets.range", "at least 1"},
	{"unknown success key", strings.Replace(base, "  script:", "  scrpit: x\n  script:", 1), "success.scrpit", "schema.additionalProperties", "unknown key; did you mean 'script'?"},
	{"typo is the only key", strings.Replace(base, "  script:", "  scrpit:", 1), "success.scrpit", "schema.additionalProperties", "did you mean 'script'?"},
	{"misplaced budget", base + "max_seconds: 3\n", "max_seconds", "schema.additionalProperties", "'max_seconds' belongs under budgets"},
	{"script and file", strings.Replace(base, "  script:", "  file: c.sh\n  script:", 1), "success", "success.script-xor-file", "both 'script' and 'file'"},
	{"no assertion", strings.Replace(base, "  script: test -f done.txt", "  {}", 1), "success", "success.assertion", "nothing to assert"},
	{"success missing", strings.Replace(base, "success:\n  script: test -f done.txt\n", "", 1), "", "schema.required", "success"},
	{"serve alone", strings.Replace(base, "  script: test -f done.txt", "  serve: python -m http.server $QS_PORT", 1), "success.serve", "success.serve-unchecked", "nothing checks it"},
	{"serve not string", strings.Replace(base, "  script:", "  serve: [a]\n  script:", 1), "success.serve", "schema.type", "string"},
	{"empty wait_http", strings.Replace(base, "  script:", "  wait_http:\n  script:", 1), "success.wait_http", "success.empty-block", "is empty"},
	{"empty expect_output", strings.Replace(base, "  script:", "  expect_output: {}\n  script:", 1), "success.expect_output", "success.empty-block", "is empty"},
	{"wait_http no target", strings.Replace(base, "  script:", "  wait_http: {status: 200}\n  script:", 1), "success.wait_http", "wait_http.target", "'path' (on $QS_PORT) or 'url'"},
	{"wait_http bad url", strings.Replace(base, "  script:", "  wait_http: {url: localhost:3000}\n  script:", 1), "success.wait_http.url", "wait_http.target", "absolute http(s)"},
	{"wait_http json not map", strings.Replace(base, "  script:", "  wait_http: {path: /, json: [a]}\n  script:", 1), "success.wait_http.json", "schema.type", "object"},
	{"wait_http json nested", strings.Replace(base, "  script:", "  wait_http: {path: /, json: {a: {b: 1}}}\n  script:", 1), "success.wait_http.json.a", "wait_http.json-scalar", "nested"},
	{"wait_http empty contains", strings.Replace(base, "  script:", "  wait_http: {path: /, contains: ''}\n  script:", 1), "success.wait_http.contains", "pattern.empty", "matches anything"},
	{"expect empty string", strings.Replace(base, "  script:", "  expect_output: {contains: ['']}\n  script:", 1), "success.expect_output.contains[0]", "pattern.empty", "matches anything"},
	{"expect multiline", strings.Replace(base, "  script:", "  expect_output:\n    contains: |\n      a\n      b\n  script:", 1), "success.expect_output.contains", "pattern.multiline", "several lines"},
	{"expect no items", strings.Replace(base, "  script:", "  expect_output: {contains: []}\n  script:", 1), "success.expect_output", "expect_output.items", "'contains' or 'matches'"},
	{"expect unknown key", strings.Replace(base, "  script:", "  expect_output: {equals: x}\n  script:", 1), "success.expect_output.equals", "schema.additionalProperties", "allowed here: contains, matches"},
	{"file absolute", strings.Replace(base, "  script: test -f done.txt", "  file: /etc/passwd", 1), "success.file", "success.file", "relative"},
	{"file missing", strings.Replace(base, "  script: test -f done.txt", "  file: checks/nope.sh", 1), "success.file", "success.file", "does not exist"},
	{"file blank", strings.Replace(base, "  script: test -f done.txt", "  file: blank.sh", 1), "success.file", "success.file", "is empty"},
	{"file not string", strings.Replace(base, "  script: test -f done.txt", "  file: 3", 1), "success.file", "schema.type", "string"},
	{"top not mapping", "- a\n- b\n", "", "file.mapping", "mapping"},
	{"bad yaml", "name: [\n", "", "file.syntax", "invalid YAML"},
	{"non-string key", base + "1: x\n", "", "file.syntax", "keys must be strings"},
}

// TestRules: each of ruleCases is found, with its field and message.
func TestRules(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "blank.sh", "  \n")
	for i, c := range ruleCases {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, dir, "t"+itoa(i)+".yaml", c.body)
			_, err := Load(p, nil)
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("want *Error, got %v", err)
			}
			for _, pr := range te.Problems {
				if pr.Rule == c.rule && pr.Field == c.field && strings.Contains(pr.Message, c.msg) {
					if !strings.HasPrefix(te.Error(), p+": ") || !strings.Contains(te.Error(), "[rule "+c.rule+"]") {
						t.Errorf("error text does not name file and rule: %s", te.Error())
					}
					return
				}
			}
			t.Errorf("want %s at %q ~ %q; got:\n%s", c.rule, c.field, c.msg, te.Error())
		})
	}
	if _, err := Load(filepath.Join(dir, "absent.yaml"), nil); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}

func TestCompile(t *testing.T) {
	dir := t.TempDir()
	body := strings.Replace(base, "  script: test -f done.txt", `  serve: cd app && .venv/bin/fastapi run app.py --port $QS_PORT
  wait_http: {path: /items/42, json: {item_id: 42, ok: true, who: "it's"}, timeout: 30, status: 201, contains: [a.b]}
  expect_output: {contains: ['35.75', ok], matches: '^b.*c$'}
  script: test -f app.py`, 1)
	tk, err := Load(write(t, dir, "c.yaml", body), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `qs_serve 'cd app && .venv/bin/fastapi run app.py --port $QS_PORT'
qs_wait_http '/items/42' --status '201' --timeout '30' --contains 'a.b' --json 'item_id=42' --json 'ok=true' --json 'who=it'\''s'
qs_expect_output --contains '35.75' --contains 'ok' --matches '^b.*c$'
test -f app.py
`
	if tk.SuccessScript != want {
		t.Errorf("compiled:\n%s\nwant:\n%s", tk.SuccessScript, want)
	}
	tk, err = Load(write(t, dir, "w.yaml", strings.Replace(base, "  script: test -f done.txt", "  wait_http: {path: /health, contains: ok}", 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tk.SuccessScript != "qs_wait_http '/health' --contains 'ok'\n" {
		t.Errorf("wait only: %q", tk.SuccessScript)
	}
	// success.file is read at load time and inlined verbatim.
	write(t, dir, "checks/demo.sh", "echo marker-7f3a\ntest -f done.txt\n")
	tk, err = Load(write(t, dir, "f.yaml", strings.Replace(base, "  script: test -f done.txt", "  file: checks/demo.sh", 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tk.SuccessScript != "echo marker-7f3a\ntest -f done.txt\n" {
		t.Errorf("file: %q", tk.SuccessScript)
	}
}

func TestJSONTask(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "t.json", `{"name":"j","goal":"g","docs":{"path":["https://a.example/x","https://b.example/y"]},"success":{"script":"true"},"replay":["true"],"budgets":{"max_seconds":5}}`)
	tk, err := Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tk.DocsAllow, []string{"a.example", "b.example"}) || tk.Budgets.MaxSeconds != 5 {
		t.Errorf("%+v", tk)
	}
	if !tk.NeverFails() {
		t.Errorf("'true' should be a check that never fails")
	}
}

func TestConfigDefaults(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "quickstarted.yaml", "run: {backend: local}\ntasks:\n  setup: [python3 -m venv .venv]\n  budgets: {max_seconds: 120, max_turns: 20}\n")
	sub := filepath.Join(dir, "a", "b")
	os.MkdirAll(sub, 0o755)
	cfg, err := FindConfig(sub)
	if err != nil || cfg == nil {
		t.Fatalf("config %v %v", cfg, err)
	}
	tk, err := Load(write(t, dir, "t1.yaml", base+"budgets: {max_turns: 5}\n"), cfg.Tasks)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Budgets.MaxSeconds != 120 || tk.Budgets.MaxTurns != 5 || !reflect.DeepEqual(tk.Setup, []string{"python3 -m venv .venv"}) {
		t.Errorf("merged %+v %v", tk.Budgets, tk.Setup)
	}
	tk, err = Load(write(t, dir, "t2.yaml", base+"setup: [true x]\n"), cfg.Tasks)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tk.Setup, []string{"true x"}) {
		t.Errorf("a task's list replaces the default: %v", tk.Setup)
	}
	write(t, dir, "quickstarted.yaml", "run: {agent: claude}\n")
	if _, err := FindConfig(dir); err == nil || !strings.Contains(err.Error(), "agent") {
		t.Errorf("run.agent accepted: %v", err)
	}
	write(t, dir, "quickstarted.yaml", "runs: {}\n")
	if _, err := FindConfig(dir); err == nil || !strings.Contains(err.Error(), "unknown keys") {
		t.Errorf("runs accepted: %v", err)
	}
	write(t, dir, "tabwright.yaml", "tasks: {}\n")
	if _, err := FindConfig(dir); err == nil || !strings.Contains(err.Error(), "keep one") {
		t.Errorf("two configs accepted: %v", err)
	}
}

func TestDiscoverAndLints(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "b.yaml", base)
	write(t, dir, "quickstarted.yaml", "")
	if got := Discover(dir); len(got) != 1 || filepath.Base(got[0]) != "b.yaml" {
		t.Errorf("./*.yaml: %v", got)
	}
	write(t, dir, "tasks/a.yaml", base)
	if got := Discover(dir); len(got) != 1 || filepath.Base(got[0]) != "a.yaml" {
		t.Errorf("tasks/ first: %v", got)
	}
	lint := func(body string) map[string]bool {
		tk, err := Load(write(t, dir, "l.yaml", body), nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, l := range tk.Lints() {
			out[l.Rule] = true
		}
		return out
	}
	if l := lint(strings.Replace(base, "test -f done.txt", "'true'", 1)); !l["check.never-fails"] {
		t.Errorf("never fails: %v", l)
	}
	if l := lint(strings.Replace(base, "test -f done.txt", "|\n    set -e\n    echo checking\n    test -f a", 1)); l["check.never-fails"] {
		t.Errorf("a real test flagged as never failing: %v", l)
	}
	if l := lint(strings.Replace(base, "test -f done.txt", ".venv/bin/python -c 1", 1)); !l["check.unprepared-path"] {
		t.Errorf("unprepared: %v", l)
	}
	if l := lint(strings.Replace(base, "test -f done.txt", ".venv/bin/python -c 1", 1) + "setup: [python3 -m venv .venv]\n"); l["check.unprepared-path"] {
		t.Errorf("prepared path flagged: %v", l)
	}
	if l := lint(strings.Replace(base, "test -f done.txt", "|\n    set -e\n    test -f a\n    test -f b", 1)); !l["check.silent"] {
		t.Errorf("silent: %v", l)
	}
	if l := lint(strings.Replace(base, "test -f done.txt", "|\n    qs_serve python3 -m http.server $QS_PORT\n    test -f a", 1)); !l["check.serve-unchecked"] {
		t.Errorf("serve unchecked: %v", l)
	}
	if l := lint(strings.Replace(base, "test -f done.txt", "npm run build", 1)); !l["image.node"] {
		t.Errorf("node: %v", l)
	}
	if l := lint(strings.Replace(base, "replay: [echo hi]\n", "", 1)); !l["replay.none"] {
		t.Errorf("no replay: %v", l)
	}
}
