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

	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/schemas"
)

// qs schema prints tabwright's own task schema (its own $id, the loader's
// differences), not the contract's with quickstarted's $id.
func TestQSSchemaPrintsTheTaskSchema(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := runQS(context.Background(), []string{"schema"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d %s", code, errb.String())
	}
	var got, contract map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(schemas.Task, &contract)
	if got["$id"] != task.OwnSchemaID || got["$id"] == contract["$id"] || !strings.HasPrefix(out.String(), "{\n  \"") {
		t.Errorf("qs schema's $id is %v, 2-space indented: %v", got["$id"], strings.HasPrefix(out.String(), "{\n  \""))
	}
	if fmt.Sprint(got["properties"].(map[string]any)["docs"]) != fmt.Sprint(contract["properties"].(map[string]any)["docs"]) {
		t.Errorf("docs differs from the contract's")
	}
}

// A gap in GitHub Actions: the step summary gets the suite's Markdown, the
// log an error annotation, and the run directory its report.md.
func TestQSGitHubSummaryAndRunReport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><article><h1>Docs</h1><p>Write done.txt with echo; this is the whole quickstart, and it is enough.</p></article></body></html>")
	}))
	defer srv.Close()
	dir := t.TempDir()
	gap := filepath.Join(dir, "gap.yaml")
	os.WriteFile(gap, []byte(fmt.Sprintf("name: gap\ngoal: g\ndocs:\n  entrypoint: %s/docs/\nreplay: ['true']\nsuccess:\n  script: test -f done.txt || qs_fail \"done.txt was never created\"\n", srv.URL)), 0o644)
	summary := filepath.Join(dir, "summary.md")
	os.WriteFile(summary, []byte("earlier step\n"), 0o644)
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	t.Setenv("GITHUB_ACTIONS", "true")
	res := filepath.Join(dir, "res")
	var out, errb bytes.Buffer
	code := runQS(context.Background(), []string{"run", gap, "--backend", "local", "--allow-unenforced", "--quiet", "--github-summary", "--out", res}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	b, _ := os.ReadFile(summary)
	if !strings.HasPrefix(string(b), "earlier step\n# tabwright qs results") || !strings.Contains(string(b), "| gap | replay | 0% | 0/1 |") {
		t.Errorf("step summary:\n%s", b)
	}
	want := "::error file=" + strings.ReplaceAll(gap, ":", "%3A") + ",title=tabwright qs::pass rate 0%25 for gap. check failed: done.txt was never created%0ALast documentation page read before failing: " + srv.URL + "/docs/"
	if !strings.Contains(out.String(), want) {
		t.Errorf("annotation missing; want %q in\n%s", want, out.String())
	}
	md, err := os.ReadFile(filepath.Join(res, "gap", "report.md"))
	if err != nil || !strings.Contains(string(md), "**Result: FAIL** (`docs_gap`") || !strings.Contains(string(md), "## Where to look first") {
		t.Errorf("report.md: %v\n%s", err, md)
	}
	if _, err := os.Stat(filepath.Join(res, "suite.md")); err != nil {
		t.Error(err)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	errb.Reset()
	runQS(context.Background(), []string{"run", gap, "--backend", "local", "--allow-unenforced", "--quiet", "--github-summary"}, &out, &errb)
	if !strings.Contains(errb.String(), "GITHUB_STEP_SUMMARY is not set") {
		t.Errorf("no warning: %s", errb.String())
	}
}

func TestQSTyposSuggest(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := runQS(context.Background(), []string{"run", "--cahce-dir", "x"}, &out, &errb); code != 3 || !strings.HasSuffix(errb.String(), "did you mean --cache-dir?\n") {
		t.Errorf("flag typo: %d %q", code, errb.String()[max(0, errb.Len()-80):])
	}
	errb.Reset()
	if code := runQS(context.Background(), []string{"rnu"}, &out, &errb); code != 3 || !strings.Contains(errb.String(), `unknown subcommand "rnu"; did you mean "run"?`) {
		t.Errorf("subcommand typo: %d %q", code, errb.String())
	}
}
