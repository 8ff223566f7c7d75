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

// qs run --registry-cache: the sandbox's registry clients are pointed at the
// proxy's mirrors, the run says where the cache is and records it; the
// local backend and an unusable directory are refused with what to do.
func TestQSRunCacheDir(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><article><h1>Docs</h1><p>Write done.txt with echo; this is the whole quickstart, and it is enough.</p></article></body></html>")
	}))
	defer srv.Close()
	dir := t.TempDir()
	task := filepath.Join(dir, "mirrors.yaml")
	os.WriteFile(task, []byte(fmt.Sprintf(`name: mirrors
goal: g
docs:
  entrypoint: %s/docs/
replay:
  - 'case "$npm_config_registry" in http://127.0.0.1:*/_tabwright/mirror/npm/) ;; *) exit 1;; esac'
  - 'case "$GOPROXY" in http://127.0.0.1:*/_tabwright/mirror/go,direct) ;; *) exit 1;; esac'
  - 'test -n "$PIP_INDEX_URL" && echo done > done.txt'
success:
  script: test -f done.txt || qs_fail "done.txt was never created"
`, srv.URL)), 0o644)
	cache := filepath.Join(t.TempDir(), "cache")
	res := filepath.Join(t.TempDir(), "res")
	var out, errb bytes.Buffer
	if code := runQS(context.Background(), []string{"run", task, "--registry-cache", cache, "--out", res}, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "registry cache: "+filepath.Join(cache, "v1")) || !strings.Contains(out.String(), "[PASS] mirrors") {
		t.Fatalf("run: %d\n%s\n%s", code, out.String(), errb.String())
	}
	if b, err := os.ReadFile(filepath.Join(res, "mirrors", "trace.jsonl")); err != nil || !strings.Contains(string(b), `"registry_cache":"`+filepath.Join(cache, "v1")+`"`) {
		t.Errorf("trace: %v %s", err, b)
	}
	// Without --registry-cache the clients keep their own registries.
	out.Reset()
	if code := runQS(context.Background(), []string{"run", task}, &out, &errb); code != 1 {
		t.Errorf("without --registry-cache the mirror variables must be unset: %d\n%s", code, out.String())
	}
	out.Reset()
	errb.Reset()
	if code := runQS(context.Background(), []string{"run", task, "--backend", "local", "--allow-unenforced", "--registry-cache", cache}, &out, &errb); code != 3 ||
		!strings.Contains(errb.String(), "qs.cache_needs_sandbox") || !strings.Contains(errb.String(), "drop --registry-cache") {
		t.Errorf("local: %d %s", code, errb.String())
	}
	errb.Reset()
	if code := runQS(context.Background(), []string{"run", task, "--registry-cache", task}, &out, &errb); code != 3 || !strings.Contains(errb.String(), "egress.cache_dir") {
		t.Errorf("a file as --registry-cache: %d %s", code, errb.String())
	}
}
