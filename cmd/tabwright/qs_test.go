package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func qsTaskDir(t *testing.T, docsURL string) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "good.yaml"), []byte(fmt.Sprintf("name: good\ngoal: g\ndocs:\n  entrypoint: %s/docs/\nreplay: ['echo done > done.txt']\nsuccess:\n  script: test -f done.txt || qs_fail \"done.txt was never created\"\n", docsURL)), 0o644)
	return dir
}

func TestQSValidateAndRun(t *testing.T) {
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
	if code := runQS(context.Background(), []string{"run", good}, &out, &errb); code != 3 || !strings.Contains(errb.String(), "REFUSING") {
		t.Errorf("run without --allow-unenforced: %d %s", code, errb.String())
	}
	res := filepath.Join(t.TempDir(), "res")
	out.Reset()
	code := runQS(context.Background(), []string{"run", good, "--allow-unenforced", "--out", res}, &out, &errb)
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
	if code := runQS(context.Background(), []string{"check", good, "--sandbox", ws}, &out, &errb); code != 1 || !strings.Contains(out.String(), "done.txt was never created") {
		t.Errorf("check fail: %d %s", code, out.String())
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
	ctx := context.Background()
	var out, errb bytes.Buffer
	if code := runQS(ctx, []string{"examples"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "hello ") ||
		!strings.Contains(out.String(), "http://docs.example.test/greeter/usage.html") || !strings.Contains(out.String(), "qs run --example hello --allow-unenforced") {
		t.Errorf("examples: %d\n%s", code, out.String())
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
