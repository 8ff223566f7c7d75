package docs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// hostileSite is a docs site on the allowlist (127.0.0.1) whose page asks
// for things from a host that is not (localhost, another server): a
// stylesheet, an image, an iframe, a fetch, a fetch redirected off the
// allowlist, a worker's fetch, an XHR and a WebSocket. The page holds its
// own load event (an image the site answers only once the page says it is
// done), so the read captures the page after every attempt has settled.
type hostileSite struct {
	docs, off *httptest.Server
	offOrigin string // the off server under the name localhost

	mu   sync.Mutex
	hits []string // what reached the off server
	done chan struct{}
	once sync.Once
}

// The text the off server answers with; none of it may reach a read.
const secretMark = "OFF-ALLOWLIST-SECRET"

func newHostileSite(t *testing.T) *hostileSite {
	h := &hostileSite{done: make(chan struct{})}
	h.off = httptest.NewServer(http.HandlerFunc(h.serveOff))
	u, _ := url.Parse(h.off.URL)
	h.offOrigin = "http://localhost:" + u.Port()
	h.docs = httptest.NewServer(http.HandlerFunc(h.serveDocs))
	t.Cleanup(func() {
		h.once.Do(func() { close(h.done) }) // a held image never outlives the test
		h.docs.Close()
		h.off.Close()
	})
	return h
}

func (h *hostileSite) serveOff(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.hits = append(h.hits, r.URL.Path)
	h.mu.Unlock()
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, "<p>%s via %s</p>", secretMark, r.URL.Path)
}

func (h *hostileSite) offHits() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.hits...)
}

func (h *hostileSite) serveDocs(w http.ResponseWriter, r *http.Request) {
	off := h.offOrigin
	switch r.URL.Path {
	case "/page":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, hostilePage, off, off, off, off, off, off[len("http"):])
	case "/worker.js":
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprintf(w, `fetch(%q).then(r => r.text()).then(t => postMessage(t), () => postMessage("worker fetch refused"))`, off+"/worker")
	case "/away":
		http.Redirect(w, r, off+"/redirected", http.StatusFound)
	case "/done":
		h.once.Do(func() { close(h.done) })
	case "/hold":
		select {
		case <-h.done:
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(w, r)
	}
}

// hostilePage's verbs are the off server's origin (five times), then it
// without its "http" (the WebSocket's URL is "ws" and that).
const hostilePage = `<html><head><title>Install</title><link rel="stylesheet" href="%s/style.css"></head>
<body><main><article><h1>Install the widget</h1>
<p>Run widget install, then widget start. This paragraph is the real documentation a reader came for.</p>
<p>Restart the shell after installing so that the new command is found on the path.</p>
<img src="%s/pixel.gif" alt="">
<img src="/hold" alt="">
<iframe src="%s/frame"></iframe>
<div id="out"></div>
</article></main>
<script>
const off = %q, out = document.getElementById("out");
const say = t => { const p = document.createElement("p"); p.textContent = t; out.append(p); };
const text = u => fetch(u).then(r => r.text()).then(say, () => say("fetch refused"));
const viaXHR = new Promise(res => {
  const x = new XMLHttpRequest(); x.open("GET", %q + "/xhr");
  x.onload = () => { say(x.responseText); res(); }; x.onerror = () => { say("xhr refused"); res(); }; x.send();
});
const viaWorker = new Promise(res => {
  const w = new Worker("/worker.js");
  w.onmessage = e => { say(e.data); res(); }; w.onerror = () => res();
});
const viaSocket = new Promise(res => {
  const s = new WebSocket("ws" + %q + "/socket");
  s.onmessage = e => say(e.data); s.onerror = () => res(); s.onclose = () => res();
});
Promise.allSettled([text(off + "/fetch"), text("/away"), viaXHR, viaWorker, viaSocket]).finally(() => fetch("/done"));
</script></body></html>`

// A docs page's script and markup reach only the allowlist: nothing it asks
// of another host (here the harness machine's loopback under another name)
// is fetched, its text never reaches the read, and every refusal is in the
// read's record of requests (issue 44, item 3).
func TestQSDocsBrowserObeysTheAllowlist(t *testing.T) {
	h := newHostileSite(t)
	r := reader().Get(context.Background(), h.docs.URL+"/page", allow)
	if r.Err != "" || r.Blocked != "" || !r.Rendered {
		t.Fatalf("%+v", r)
	}
	if !strings.Contains(r.Text, "real documentation a reader came for") {
		t.Errorf("the page's own text is missing:\n%s", r.Text)
	}
	if strings.Contains(r.Text, secretMark) {
		t.Errorf("text from off the allowlist reached the read:\n%s", r.Text)
	}
	if hits := h.offHits(); len(hits) > 0 {
		t.Errorf("the docs browser reached a host off the allowlist: %v", hits)
	}
	refused := map[string]bool{}
	for _, q := range r.Requests {
		if !q.Allowed {
			if q.Host != "localhost" || q.Reason != "outside_docs_allowlist" {
				t.Errorf("refusal %+v", q)
			}
			refused[q.Method+" "+q.Path] = true
		}
	}
	// Each way the page tried is refused and recorded: a stylesheet, an
	// image, an iframe, a fetch, a redirect's hop, an XHR, a worker's fetch
	// and a WebSocket (a tunnel, whose path the gate never sees).
	for _, want := range []string{"GET /style.css", "GET /pixel.gif", "GET /frame", "GET /fetch", "GET /redirected", "GET /xhr", "GET /worker", "CONNECT "} {
		if !refused[want] {
			t.Errorf("no refusal of %q recorded in %+v", want, r.Requests)
		}
	}
	if r.RefusedRequests != len(refused) {
		t.Errorf("%d refusals counted, %d recorded", r.RefusedRequests, len(refused))
	}
	if !slices.Equal(r.Reached, []string{"127.0.0.1"}) {
		t.Errorf("reached %v", r.Reached)
	}
}
