package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/quickstart/runcmd"
	"github.com/tabwright/tabwright/quickstart/sandbox"
)

func qsTaskDir(t *testing.T, docsURL string) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "good.yaml"), []byte(fmt.Sprintf("name: good\ngoal: g\ndocs:\n  entrypoint: %s/docs/\nreplay: ['echo done > done.txt']\nsuccess:\n  script: test -f done.txt || qs_fail \"done.txt was never created\"\n", docsURL)), 0o644)
	return dir
}

func TestQSValidateAndRun(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><article><h1>Docs</h1><p>Write done.txt with echo; this is the whole quickstart, and it is enough.</p></article></body></html>")
	}))
	defer srv.Close()
	dir := qsTaskDir(t, srv.URL)
	os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("name: bad\n"), 0o644)
	var out, errb bytes.Buffer
	if code := runQS(context.Background(), []string{"validate", filepath.Join(dir, "good.yaml")}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "ok ") {
		t.Errorf("validate good: %d %s %s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := runQS(context.Background(), []string{"validate", dir}, &out, &errb); code != 1 || !strings.Contains(out.String(), "INVALID  "+filepath.Join(dir, "bad.yaml")) {
		t.Errorf("validate dir: %d %s", code, out.String())
	}
	out.Reset()
	errb.Reset()
	good := filepath.Join(dir, "good.yaml")
	if code := runQS(context.Background(), []string{"run", good, "--backend", "local"}, &out, &errb); code != 3 || !strings.Contains(errb.String(), "REFUSING") {
		t.Errorf("local without --allow-unenforced: %d %s", code, errb.String())
	}
	// The default here (bubblewrap works; CI installs it) is the enforced
	// sandbox, which needs no flag, says so, and records it.
	out.Reset()
	enf := filepath.Join(t.TempDir(), "enf")
	if code := runQS(context.Background(), []string{"run", good, "--out", enf}, &out, &errb); code != 0 || !strings.Contains(out.String(), "backend: sandbox (enforced") ||
		!strings.Contains(out.String(), "started on sandbox (enforced)") {
		t.Errorf("default backend: %d %s %s", code, out.String(), errb.String())
	}
	if b, err := os.ReadFile(filepath.Join(enf, "results.json")); err != nil || !strings.Contains(string(b), `"backend": "sandbox",
    "enforced": true`) || !strings.Contains(string(b), `"egress_blocked": 0`) {
		t.Errorf("results.json: %v %s", err, b)
	}
	res := filepath.Join(t.TempDir(), "res")
	out.Reset()
	code := runQS(context.Background(), []string{"run", good, "--backend", "local", "--allow-unenforced", "--out", res}, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "[PASS] good (replay)") || !strings.Contains(out.String(), "read "+srv.URL+"/docs/") || !strings.Contains(out.String(), "check exited 0") {
		t.Fatalf("run: %d\n%s\n%s", code, out.String(), errb.String())
	}
	for _, f := range []string{"results.json", "good/trace.jsonl", "good/transcript.txt"} {
		if _, err := os.Stat(filepath.Join(res, f)); err != nil {
			t.Error(err)
		}
	}
	out.Reset()
	if code := runQS(context.Background(), []string{"check", good, "--show"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "qs_wait_http()") {
		t.Errorf("check --show: %d", code)
	}
	ws := t.TempDir()
	out.Reset()
	// The sandbox's user (uid 65534 when the harness is root) must pass
	// through the folders above an adopted workspace; t.TempDir's are 0700.
	if code := runQS(context.Background(), []string{"check", good, "--sandbox", ws}, &out, &errb); os.Geteuid() == 0 && (code != 3 || !strings.Contains(errb.String(), "chmod o+x")) {
		t.Errorf("check through a closed folder: %d %s", code, errb.String())
	}
	if err := os.Chmod(filepath.Dir(ws), 0o755); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := runQS(context.Background(), []string{"check", good, "--sandbox", ws}, &out, &errb); code != 1 || !strings.Contains(out.String(), "done.txt was never created") {
		t.Errorf("check fail: %d %s %s", code, out.String(), errb.String())
	}
	os.WriteFile(filepath.Join(ws, "done.txt"), nil, 0o644)
	out.Reset()
	if code := runQS(context.Background(), []string{"check", good, "--sandbox", ws}, &out, &errb); code != 0 || !strings.Contains(out.String(), "[PASS]") {
		t.Errorf("check pass: %d %s", code, out.String())
	}
	if code := runQS(context.Background(), []string{"check", good, "--sandbox", filepath.Join(ws, "nope")}, &out, &errb); code != 3 {
		t.Errorf("check missing sandbox: %d", code)
	}
}

func TestQSExamples(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var out, errb bytes.Buffer
	// The command it suggests is the one that runs here: no
	// --allow-unenforced where the sandbox works.
	works, why := sandbox.Probe(ctx)
	if code := runQS(ctx, []string{"examples"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "hello ") ||
		!strings.Contains(out.String(), "http://docs.example.test/greeter/usage.html") || !strings.HasSuffix(out.String(), "  "+runcmd.ExampleCommand(works, why)+"\n") {
		t.Errorf("examples (sandbox works: %v): %d\n%s", works, code, out.String())
	}
	if runcmd.ExampleCommand(true, "") != "tabwright qs run --example hello" || !strings.Contains(runcmd.ExampleCommand(false, "no bwrap"), "--allow-unenforced   # the sandbox backend cannot run here: no bwrap") {
		t.Errorf("the suggested commands: %q, %q", runcmd.ExampleCommand(true, ""), runcmd.ExampleCommand(false, "no bwrap"))
	}
	out.Reset()
	if code := runQS(ctx, []string{"validate", "--example", "web-page"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "ok       example:web-page (web-page-example, replay+agent)") {
		t.Errorf("validate --example: %d %s", code, out.String())
	}
	errb.Reset()
	if code := runQS(ctx, []string{"run", "--example", "nope", "--allow-unenforced"}, &out, &errb); code != 3 || !strings.Contains(errb.String(), "available: hello, missing-step, web-page") {
		t.Errorf("unknown example: %d %s", code, errb.String())
	}
	if code := runQS(ctx, []string{"run", "--example", "hello", "x.yaml", "--allow-unenforced"}, &out, &errb); code != 3 {
		t.Errorf("example and a path: %d", code)
	}
	out.Reset()
	start := time.Now()
	code := runQS(ctx, []string{"run", "--example", "hello,missing-step,web-page", "--allow-unenforced", "--workers", "3"}, &out, &errb)
	t.Logf("three examples, three workers: %s", time.Since(start))
	for _, want := range []string{"[PASS] hello-example (replay)", "[FAIL] missing-step-example (replay)", "[PASS] web-page-example (replay)",
		"stop reason: command_failed (replay step 2 failed: ./greet.sh World)", "greeter-old/ (1x)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q", want)
		}
	}
	if code != 1 {
		t.Errorf("a docs gap exits 1, got %d\n%s", code, out.String())
	}
}

func TestQSReportDiffInit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	res, junit := filepath.Join(dir, "res"), filepath.Join(dir, "ci", "junit.xml")
	var out, errb bytes.Buffer
	if code := runQS(ctx, []string{"run", "--example", "hello,missing-step", "--allow-unenforced", "--quiet", "--out", res, "--junit", junit}, &out, &errb); code != 1 {
		t.Fatalf("run: %d\n%s%s", code, out.String(), errb.String())
	}
	if b, err := os.ReadFile(junit); err != nil || !strings.Contains(string(b), `tests="2" failures="1" errors="0"`) {
		t.Errorf("junit: %v\n%s", err, b)
	}
	out.Reset()
	if code := runQS(ctx, []string{"report", res}, &out, &errb); code != 0 || out.String() != "wrote "+res+".html\n" {
		t.Fatalf("report: %d %s %s", code, out.String(), errb.String())
	}
	page, _ := os.ReadFile(res + ".html")
	for _, want := range []string{"<svg", "hello-example", "<summary>missing-step-example</summary>", "Where it failed", "greeter-old/", "check failed: nothing the run printed matched: Hello, World!"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report page lacks %q", want)
		}
	}
	out.Reset()
	md := filepath.Join(dir, "r.md")
	if code := runQS(ctx, []string{"report", filepath.Join(res, "results.json"), "--markdown", "--out", md}, &out, &errb); code != 0 {
		t.Errorf("report --markdown: %d %s", code, errb.String())
	}
	if b, _ := os.ReadFile(md); !strings.Contains(string(b), "| missing-step-example | replay | 0% | 0/1 | none |") {
		t.Errorf("markdown:\n%s", b)
	}
	errb.Reset()
	if code := runQS(ctx, []string{"report", filepath.Join(dir, "nope")}, &out, &errb); code != 3 || !strings.Contains(errb.String(), "no such file") {
		t.Errorf("report missing: %d %s", code, errb.String())
	}

	// diff: the same results are unchanged; a regression made by hand fails
	// with --fail-on-regression.
	out.Reset()
	if code := runQS(ctx, []string{"diff", res, res, "--fail-on-regression"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "1/1 (100%)  ->  1/1 (100%)") {
		t.Errorf("diff same: %d\n%s", code, out.String())
	}
	mk := func(name string, passes, n int) string {
		runs := []map[string]any{}
		p := filepath.Join(dir, name+".json")
		b, _ := json.Marshal(map[string]any{"schema_version": "2.0", "tasks": []map[string]any{{"task": "t", "agent": "replay", "passes": passes, "evidential_runs": n, "attempts": n, "runs": runs}}})
		os.WriteFile(p, b, 0o644)
		return p
	}
	before, after := mk("before", 10, 10), mk("after", 0, 10)
	out.Reset()
	errb.Reset()
	if code := runQS(ctx, []string{"diff", before, after}, &out, &errb); code != 0 || !strings.Contains(out.String(), "regressed, p=0.000") {
		t.Errorf("diff without the flag: %d\n%s", code, out.String())
	}
	if code := runQS(ctx, []string{"diff", before, after, "--fail-on-regression"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "regression: t") {
		t.Errorf("diff --fail-on-regression: %d %s", code, errb.String())
	}

	// init writes a task that validates, and refuses to overwrite it.
	wd, _ := os.Getwd()
	os.Chdir(dir)
	defer os.Chdir(wd)
	out.Reset()
	if code := runQS(ctx, []string{"init", "https://docs.streamlit.io/get-started"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "wrote tasks/streamlit-quickstart.yaml") {
		t.Fatalf("init: %d %s %s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := runQS(ctx, []string{"validate", "tasks/streamlit-quickstart.yaml"}, &out, &errb); code != 0 || strings.Contains(out.String(), "warning") {
		t.Errorf("the scaffold validates cleanly: %d %s", code, out.String())
	}
	errb.Reset()
	if code := runQS(ctx, []string{"init", "https://docs.streamlit.io/get-started"}, &out, &errb); code != 3 || !strings.Contains(errb.String(), "--force") {
		t.Errorf("second init: %d %s", code, errb.String())
	}
	if code := runQS(ctx, []string{"init", "https://docs.streamlit.io/get-started", "--force"}, &out, &errb); code != 0 {
		t.Errorf("init --force: %d", code)
	}
	errb.Reset()
	if code := runQS(ctx, []string{"init", "docs.streamlit.io"}, &out, &errb); code != 3 || !strings.Contains(errb.String(), "absolute http(s) URL") {
		t.Errorf("init bad url: %d %s", code, errb.String())
	}
}
