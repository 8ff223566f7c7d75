package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// qs run --cache-dir is the docs cache: a second run reads the same bytes
// without asking the site; --offline reads only the cache; the registry
// cache has its own flag.
func TestQSRunDocsCache(t *testing.T) {
	t.Parallel()
	var pages atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/docs/" {
			pages.Add(1)
		}
		fmt.Fprint(w, "<html><body><article><h1>Docs</h1><p>Write done.txt with echo; this is the whole quickstart, and it is enough.</p></article></body></html>")
	}))
	defer srv.Close()
	good := filepath.Join(qsTaskDir(t, srv.URL), "good.yaml")
	cache := filepath.Join(t.TempDir(), "docs-cache")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := runQS(context.Background(), append([]string{"run", good, "--backend", "local", "--allow-unenforced"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	if code, out, errb := run("--cache-dir", cache); code != 0 || !strings.Contains(out, "docs cache: "+filepath.Join(cache, "docs-v2")) {
		t.Fatalf("first run: %d\n%s\n%s", code, out, errb)
	}
	fetched := pages.Load() // the server's answer, and the browser's render
	if code, out, _ := run("--cache-dir", cache); code != 0 || !strings.Contains(out, "read "+srv.URL+"/docs/ (cached)") || pages.Load() != fetched {
		t.Errorf("second run: %d, %d page requests\n%s", code, pages.Load(), out)
	}
	if code, out, _ := run("--cache-dir", cache, "--offline"); code != 0 || pages.Load() != fetched {
		t.Errorf("offline with the page cached: %d\n%s", code, out)
	}
	// Offline on an empty cache: no page, so no evidence.
	if code, out, _ := run("--cache-dir", t.TempDir(), "--offline"); code != 2 || !strings.Contains(out, "offline_cache_miss") || !strings.Contains(out, "[INCONCLUSIVE]") {
		t.Errorf("offline miss: %d\n%s", code, out)
	}
	for _, bad := range [][]string{{"--offline"}, {"--refresh"}, {"--cache-dir", cache, "--refresh", "--offline"}, {"--affordances", "some"}, {"--rate-limit", "-1"}} {
		if code, _, errb := run(bad...); code != 3 || errb == "" {
			t.Errorf("%v: %d %q", bad, code, errb)
		}
	}
}
