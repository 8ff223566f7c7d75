package run

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tabwright/tabwright/quickstart/trace"
)

// A docs page whose script and markup ask a host off the task's docs
// allowlist (the harness machine's loopback under another name) for text:
// nothing reaches that host, the text is in neither the read nor the
// results' pages, and the attempt's trace names each refusal (issue 44,
// item 3).
func TestDocsPageCannotReachOffTheAllowlist(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var hits []string
	off := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprintf(w, "<p>STOLEN-%s</p>", strings.Trim(r.URL.Path, "/"))
	}))
	defer off.Close()
	u, _ := url.Parse(off.URL)
	offOrigin := "http://localhost:" + u.Port()
	done := make(chan struct{})
	var once sync.Once
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/docs/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, hostileDocs, offOrigin, offOrigin)
		case "/worker.js":
			fmt.Fprintf(w, `fetch(%q).then(r => r.text()).then(t => postMessage(t), () => postMessage("refused"))`, offOrigin+"/worker")
		case "/done":
			once.Do(func() { close(done) })
		case "/hold": // the page's load waits for this until the page says it is done
			select {
			case <-done:
			case <-r.Context().Done():
			}
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer site.Close()
	defer once.Do(func() { close(done) })

	tk := newTask(t, "name: hostile\ngoal: g\ndocs:\n  path: ["+site.URL+"/docs/]\nreplay: ['true']\nsuccess:\n  script: 'true'\n")
	r := Attempt(context.Background(), tk, 1, opts())
	if len(r.DocsReads) != 1 || r.DocsReads[0].Err != "" || !strings.Contains(r.DocsReads[0].Text, "the real instructions") {
		t.Fatalf("%+v\n%s", r.DocsReads, r.Trace.JSONL())
	}
	if strings.Contains(r.DocsReads[0].Text, "STOLEN") {
		t.Errorf("read_docs returned text from off the allowlist:\n%s", r.DocsReads[0].Text)
	}
	dir := t.TempDir()
	if err := writePages(dir, r); err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, PagesDir, "*"))
	for _, p := range pages {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), "STOLEN") {
			t.Errorf("results/pages keeps text from off the allowlist: %s", b)
		}
	}
	mu.Lock()
	if len(hits) > 0 {
		t.Errorf("the docs browser reached the host off the allowlist: %v", hits)
	}
	mu.Unlock()
	refused := map[string]bool{}
	for _, ev := range r.Trace.Events() {
		if trace.TypeOf(ev) == "docs_request_blocked" && ev["host"] == "localhost" && ev["reason"] == "outside_docs_allowlist" && ev["url"] == site.URL+"/docs/" {
			path, _ := ev["path"].(string)
			refused[path] = true
		}
	}
	for _, want := range []string{"/fetch", "/frame", "/worker"} {
		if !refused[want] {
			t.Errorf("no docs_request_blocked for %s in the trace:\n%s", want, r.Trace.JSONL())
		}
	}
}

// hostileDocs' verbs are the off host's origin: for a fetch, an iframe and
// a worker's fetch (the worker itself is on the allowed host).
const hostileDocs = `<html><head><title>Quickstart</title></head><body><main><article>
<h1>Quickstart</h1><p>Create the file with echo done, which is the real instructions of this page for the reader.</p>
<p>This paragraph is long enough for the reader view to treat it as the article of the page, which it is.</p>
<img src="/hold" alt=""><div id="out"></div></article></main>
<script>
const say = t => { const p = document.createElement("p"); p.textContent = t; document.getElementById("out").append(p); };
const viaFetch = fetch(%q + "/fetch").then(r => r.text()).then(say, () => say("refused"));
const viaWorker = new Promise(res => { const w = new Worker("/worker.js"); w.onmessage = e => { say(e.data); res(); }; w.onerror = () => res(); });
const frame = document.createElement("iframe"); frame.src = %q + "/frame";
const viaFrame = new Promise(res => { frame.onload = res; frame.onerror = res; });
document.body.append(frame);
Promise.allSettled([viaFetch, viaWorker, viaFrame]).finally(() => fetch("/done"));
</script></body></html>`
