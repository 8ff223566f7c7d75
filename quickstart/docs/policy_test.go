package docs

import (
	"bufio"
	"context"
	"fmt"
	"net"
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

// cacheSite's page fetches a cacheable answer from the off server; each
// read of the page (by its id) holds its load until its fetch settled.
type cacheSite struct {
	docs, off *httptest.Server
	offOrigin string

	mu   sync.Mutex
	held map[string]chan struct{}
}

func newCacheSite(t *testing.T) *cacheSite {
	c := &cacheSite{held: map[string]chan struct{}{}}
	c.off = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, secretMark+" kept in the browser's cache")
	}))
	u, _ := url.Parse(c.off.URL)
	c.offOrigin = "http://localhost:" + u.Port()
	c.docs = httptest.NewServer(http.HandlerFunc(c.serveDocs))
	t.Cleanup(func() {
		c.mu.Lock()
		for _, ch := range c.held {
			if !isClosed(ch) {
				close(ch)
			}
		}
		c.mu.Unlock()
		c.docs.Close()
		c.off.Close()
	})
	return c
}

func (c *cacheSite) gate(id string) chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[id] == nil {
		c.held[id] = make(chan struct{})
	}
	return c.held[id]
}

func (c *cacheSite) serveDocs(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	switch r.URL.Path {
	case "/page":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>Cache</title></head><body><main><article><h1>Configure the widget</h1>
<p>Set the widget's home in its configuration file, then restart it so the new home is read at start.</p>
<img src="/hold?id=%s" alt=""><div id="out"></div></article></main>
<script>fetch(%q).then(r => r.text()).then(t => t, () => "fetch refused")
  .then(t => { const p = document.createElement("p"); p.textContent = t; document.getElementById("out").append(p); })
  .finally(() => fetch("/done?id=%s"));</script></body></html>`, id, c.offOrigin+"/answer", id)
	case "/done":
		if ch := c.gate(id); !isClosed(ch) {
			close(ch)
		}
	case "/hold":
		select {
		case <-c.gate(id):
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// What the browser cached under one allowlist is not served under another
// that refuses its host: a cached answer never reaches the gate.
func TestQSDocsBrowserCacheDoesNotOutliveItsAllowlist(t *testing.T) {
	c := newCacheSite(t)
	ctx := context.Background()
	wide := reader().Get(ctx, c.docs.URL+"/page?id=1", []string{"127.0.0.1", "localhost"})
	if !strings.Contains(wide.Text, secretMark) {
		t.Fatalf("under an allowlist with the host, its answer is read:\n%s", wide.Text)
	}
	narrow := reader().Get(ctx, c.docs.URL+"/page?id=2", allow)
	if narrow.Err != "" || !strings.Contains(narrow.Text, "fetch refused") || strings.Contains(narrow.Text, secretMark) {
		t.Errorf("under an allowlist without the host, its cached answer was read: %+v\n%s", narrow, narrow.Text)
	}
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// The docs cache serves a page only under an allowlist that has every host
// its read reached: a page read under a wider one may hold text the
// narrower one refuses. An entry that names no host serves none.
func TestQSDocsCacheKeepsTheHostsAReadReached(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	page := "http://127.0.0.1:1/page"
	wide := &Read{URL: page, Text: "text", ContentHash: hashOf("text"), Reached: []string{"127.0.0.1", "localhost"}}
	if err := cache.put(wide); err != nil {
		t.Fatal(err)
	}
	if cache.get(page, allow) != nil {
		t.Error("a page that reached localhost was served under an allowlist without it")
	}
	if r := cache.get(page, []string{"localhost", "127.0.0.1"}); r == nil || !r.FromCache {
		t.Error("the same allowlist missed")
	}
	if err := cache.put(&Read{URL: page, Text: "text", ContentHash: hashOf("text")}); err != nil {
		t.Fatal(err)
	}
	if cache.get(page, allow) != nil {
		t.Error("an entry that names no host was served")
	}
}

// A tunnel the gate opened under one allowlist (HTTPS keeps one open for
// later requests to its host, which the gate never sees) is ended when the
// allowlist changes.
func TestQSGateEndsTunnelsWhenTheAllowlistChanges(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer upstream.Close()
	g, err := openGate()
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	_, done, err := g.open(context.Background(), []string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", g.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	u, _ := url.Parse(upstream.URL)
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", u.Host, u.Host)
	br := bufio.NewReader(conn)
	if line, _ := br.ReadString('\n'); !strings.Contains(line, " 200 ") {
		t.Fatalf("tunnel refused: %q", line)
	}
	br.ReadString('\n') // the blank line ending the answer
	done()
	_, done, err = g.open(context.Background(), []string{"docs.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	// A request through the old tunnel finds it closed: no answer.
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", u.Host)
	if line, err := br.ReadString('\n'); err == nil {
		t.Errorf("the tunnel outlived its allowlist: %q", line)
	}
}
