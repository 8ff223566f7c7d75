package docs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Warm readies the reader while the harness makes the sandbox: the tab is
// open before the first read, and a read at the same moment as Warm's
// robots.txt prefetch waits for that one request instead of asking again.
// --offline warms nothing (it reads nothing).
func TestWarmOpensTheTabAndReadsRobotsOnce(t *testing.T) {
	c, srv := newCounting(t)
	d := &Reader{Browser: browser}
	var wg sync.WaitGroup
	wg.Add(2)
	var r *Read
	go func() { defer wg.Done(); d.Warm(context.Background(), []string{srv.URL + "/private/ok"}, allow) }()
	go func() { defer wg.Done(); r = d.Get(context.Background(), srv.URL+"/private/ok", allow) }()
	wg.Wait()
	if r.Err != "" || r.Blocked != "" || c.count("/robots.txt") != 1 {
		t.Fatalf("read %+v, robots.txt asked %d times", r, c.count("/robots.txt"))
	}
	d.mu.Lock()
	open := d.tab != nil
	d.mu.Unlock()
	if !open {
		t.Error("Warm left no tab")
	}

	off := &Reader{Browser: browser, Offline: true}
	_, other := newCounting(t)
	off.Warm(context.Background(), []string{other.URL + "/page"}, allow)
	if off.tab != nil || len(off.polite.robots) != 0 {
		t.Errorf("offline warmed: tab %v, robots %v", off.tab, off.polite.robots)
	}
}

// Warm reads the attempt's entry page before the agent asks for it, through
// the same browser rendering: the agent's read is that one request, with
// the text a read without Warm returns; it is handed out once, and a later
// read of the page asks the site again.
func TestWarmReadsTheEntryPageAheadAsTheAgentWould(t *testing.T) {
	var mu sync.Mutex
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/entry" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		hits++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Entry</title></head><body><nav><a href="/">Home</a></nav><main><article>
<h1>Quick start</h1><p>Install the tool, then read the <a href="/next">next steps</a> before anything else.</p>
<pre><code>thing init</code></pre><p>A second paragraph, so that the reader view finds an article here.</p>
</article></main></body></html>`)
	}))
	t.Cleanup(srv.Close)
	// One read is two requests: the server's answer, then the browser's load.
	count := func() int { mu.Lock(); defer mu.Unlock(); return hits / 2 }
	ctx := context.Background()
	entry := srv.URL + "/entry"

	cold := (&Reader{Browser: browser}).Get(ctx, entry, allow)
	if cold.Err != "" || !cold.Rendered || !strings.Contains(cold.Text, "thing init") {
		t.Fatalf("cold read %+v", cold)
	}
	d := &Reader{Browser: browser}
	d.Warm(ctx, []string{entry}, allow)
	if count() != 2 {
		t.Fatalf("after Warm the entry was asked %d times, want 2 (the cold read and Warm's)", count())
	}
	r := d.Get(ctx, entry, allow)
	if count() != 2 {
		t.Errorf("the agent's read asked the site again (%d requests)", count())
	}
	if r.Text != cold.Text || r.ContentHash != cold.ContentHash || !r.Rendered || r.Chars != cold.Chars || r.Status != cold.Status {
		t.Errorf("the read ahead differs from a cold read:\n%+v\n%+v", r, cold)
	}
	if again := d.Get(ctx, entry, allow); again.Err != "" || count() != 3 {
		t.Errorf("a second read: %+v, %d requests, want 3", again, count())
	}
}
