package docs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// counting is a docs site that counts its requests by path; /page's text
// is version, which a test may change.
type counting struct {
	mu      sync.Mutex
	hits    map[string]int
	version string
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.hits[r.URL.Path]++
	v := c.version
	c.mu.Unlock()
	switch r.URL.Path {
	case "/robots.txt":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nDisallow: /\n\nUser-agent: tabwright\nDisallow: /private/\nAllow: /private/ok$\n")
	case "/llms.txt":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "# Site\n- [Start](/page)\n")
	case "/page.md":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>not markdown</body></html>")
	case "/page", "/private/x", "/private/ok":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "page text "+v)
	default:
		http.NotFound(w, r)
	}
}

func (c *counting) count(p string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits[p]
}

func newCounting(t *testing.T) (*counting, *httptest.Server) {
	c := &counting{hits: map[string]int{}, version: "one"}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return c, srv
}

func TestDocsCacheServesTheSameBytes(t *testing.T) {
	c, srv := newCounting(t)
	dir := t.TempDir()
	cache, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first := (&Reader{Browser: browser, Cache: cache}).Get(ctx, srv.URL+"/page", allow)
	if first.Err != "" || first.FromCache || first.Text != "page text one" {
		t.Fatalf("first read %+v", first)
	}
	// A later run, a fresh reader on the same directory: the same bytes,
	// and no request.
	c.version = "two"
	again := (&Reader{Browser: browser, Cache: cache}).Get(ctx, srv.URL+"/page", allow)
	if !again.FromCache || again.Text != first.Text || again.ContentHash != first.ContentHash || c.count("/page") != 1 {
		t.Errorf("cached read %+v, %d requests", again, c.count("/page"))
	}
	// --refresh reads again, replaces the copy and says it changed.
	fresh := (&Reader{Browser: browser, Cache: cache, Refresh: true}).Get(ctx, srv.URL+"/page", allow)
	if fresh.FromCache || !fresh.Changed || fresh.Text != "page text two" || c.count("/page") != 2 {
		t.Errorf("refresh %+v", fresh)
	}
	// --offline: the cache only; a miss is refused without a request.
	off := &Reader{Browser: browser, Cache: cache, Offline: true}
	if r := off.Get(ctx, srv.URL+"/page", allow); !r.FromCache || r.Text != "page text two" {
		t.Errorf("offline hit %+v", r)
	}
	if r := off.Get(ctx, srv.URL+"/other", allow); r.Blocked != "offline_cache_miss" || c.count("/other") != 0 {
		t.Errorf("offline miss %+v", r)
	}
	// A corrupt entry is a miss, never a wrong page.
	entries, _ := filepath.Glob(filepath.Join(cache.Dir(), "*", "*.json"))
	for _, e := range entries {
		os.WriteFile(e, []byte(`{"url":"`+srv.URL+`/page","text":"forged","content_hash":"00"}`), 0o644)
	}
	if r := off.Get(ctx, srv.URL+"/page", allow); r.Blocked != "offline_cache_miss" {
		t.Errorf("corrupt entry served: %+v", r)
	}
	if _, err := OpenCache(filepath.Join(entries[0], "x")); err == nil || !strings.Contains(err.Error(), "docs.cache_dir") {
		t.Errorf("a file as the cache: %v", err)
	}
}

func TestRobotsAndAffordances(t *testing.T) {
	c, srv := newCounting(t)
	ctx := context.Background()
	d := &Reader{Browser: browser}
	if r := d.Get(ctx, srv.URL+"/private/x", allow); r.Blocked != "robots_disallowed" || r.ToolText(allow) != "BLOCKED: "+srv.URL+"/private/x (robots_disallowed)" {
		t.Errorf("disallowed page: %+v", r)
	}
	for _, p := range []string{"/private/ok", "/page"} {
		if r := d.Get(ctx, srv.URL+p, allow); r.Err != "" || r.Blocked != "" {
			t.Errorf("%s: %+v", p, r)
		}
	}
	if c.count("/robots.txt") != 1 {
		t.Errorf("robots.txt fetched %d times, want once per origin", c.count("/robots.txt"))
	}
	if r := (&Reader{Browser: browser, IgnoreRobots: true}).Get(ctx, srv.URL+"/private/x", allow); r.Text != "page text one" {
		t.Errorf("--ignore-robots: %+v", r)
	}
	none := &Reader{Browser: browser, Affordances: AffordancesNone}
	r := none.Get(ctx, srv.URL+"/llms.txt", allow)
	if r.Blocked != "affordance_withheld" || c.count("/llms.txt") != 0 || !strings.HasPrefix(r.ToolText(allow), "NOT AVAILABLE: ") {
		t.Errorf("withheld: %+v, %d requests", r, c.count("/llms.txt"))
	}
	found := d.ProbeAffordances(ctx, srv.URL+"/page/")
	if !found["llms.txt"].Present || found["llms-full.txt"].Present || found["llms-full.txt"].Status != 404 ||
		found["page.md"].Present || !strings.Contains(found["page.md"].Note, "served HTML") || found["page.md"].URL != srv.URL+"/page.md" {
		t.Errorf("probe: %+v", found)
	}
}

// The rate limit spaces reads of one host; other hosts and loopback are
// not held up.
func TestRateLimitSpacesOneHost(t *testing.T) {
	d := &Reader{RateLimit: 150 * time.Millisecond}
	ctx := context.Background()
	start := time.Now()
	for i := 0; i < 3; i++ {
		if err := d.wait(ctx, "docs.example"); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Errorf("three reads of one host in %v, want at least 2 x 150 ms", el)
	}
	start = time.Now()
	d.wait(ctx, "other.example")
	d.wait(ctx, "127.0.0.1")
	d.wait(ctx, "127.0.0.1")
	if el := time.Since(start); el >= 150*time.Millisecond {
		t.Errorf("another host or loopback waited %v", el)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := d.wait(cctx, "docs.example"); err == nil {
		t.Error("a cancelled wait returned no error")
	}
}

func TestParseRobots(t *testing.T) {
	body := "# comment\nUser-agent: googlebot\nDisallow: /\n\nUser-agent: TabWright\nUser-agent: other\nDisallow: /a/\nAllow: /a/b\nDisallow: /*.pdf$\nDisallow: /q?x=*&y\n\nUser-agent: *\nDisallow: /star/\n"
	r := ParseRobots(body, "tabwright")
	for p, want := range map[string]bool{"/": true, "/a/": false, "/a/c": false, "/a/b": true, "/a/bc": true, "/doc.pdf": false, "/doc.pdf?v=1": true,
		"/star/x": true, "/q?x=1&y=2": false, "/robots.txt": true} {
		if got := r.Allowed(p); got != want {
			t.Errorf("Allowed(%q) = %v, want %v", p, got, want)
		}
	}
	star := ParseRobots(body, "somebot")
	if star.Allowed("/star/x") || !star.Allowed("/a/") {
		t.Errorf("the * group did not apply to an unnamed agent")
	}
	if !ParseRobots("User-agent: tabwright\nAllow: /\n\nUser-agent: *\nDisallow: /\n", "tabwright").Allowed("/x") {
		t.Error("our own group did not win over *")
	}
	if !ParseRobots("User-agent: *\nDisallow:\n", "tabwright").Allowed("/x") {
		t.Error("an empty Disallow allows everything")
	}
}

func FuzzRobots(f *testing.F) {
	f.Add("User-agent: *\nDisallow: /a*b*c$\nAllow: /a\n", "/aXbYc")
	f.Add("User-agent: tabwright\nDisallow: ****\n", "/")
	f.Fuzz(func(t *testing.T, body, path string) {
		r := ParseRobots(body, "tabwright")
		r.Allowed(path)
		robotsMatch(body, path)
	})
}
