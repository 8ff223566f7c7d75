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
)

// A write that failed is never reported as done.
func TestQSInitWriteFailureExitsNonZero(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := runQS(context.Background(), []string{"init", "https://docs.example.com/start", "--out", "/proc/nope/x.yaml"}, &out, &errb)
	if code == 0 || strings.Contains(out.String(), "wrote") || !strings.Contains(errb.String(), "could not write /proc/nope/x.yaml") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
	}
}

func TestQSRunReportsResultsWriteFailure(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><article><h1>Docs</h1><p>Write done.txt with echo; this is the whole quickstart, and it is enough.</p></article></body></html>")
	}))
	defer srv.Close()
	good := filepath.Join(qsTaskDir(t, srv.URL), "good.yaml")
	res := t.TempDir()
	// results.json cannot replace a directory: the last rename fails.
	os.MkdirAll(filepath.Join(res, "results.json", "x"), 0o755)
	for _, dest := range []string{res, "/proc/nope/out"} {
		var out, errb bytes.Buffer
		code := runQS(context.Background(), []string{"run", good, "--backend", "local", "--allow-unenforced", "--quiet", "--out", dest}, &out, &errb)
		if code != 3 || strings.Contains(out.String(), "results written") || !strings.Contains(errb.String(), "could not write results") {
			t.Errorf("%s: exit %d\nstdout %s\nstderr %s", dest, code, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	code := runQS(context.Background(), []string{"run", good, "--backend", "local", "--allow-unenforced", "--quiet", "--junit", "/proc/nope/j.xml"}, &out, &errb)
	if code != 3 || !strings.Contains(errb.String(), "could not write /proc/nope/j.xml") {
		t.Errorf("junit: exit %d %s", code, errb.String())
	}
}
