package docs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/tabs"
)

var (
	browser *Browser      // read_docs' browser, behind its gate
	mgr     *tabs.Manager // a plain browser, for the check's expect handler; it starts only if used
	site    *httptest.Server
	off     *httptest.Server // the same machine under another host name: localhost
)

var allow = []string{"127.0.0.1"}

func TestMain(m *testing.M) {
	var err error
	browser, err = NewBrowser()
	if err == nil {
		mgr, err = tabs.New(tabs.Options{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "read_docs tests need Chromium:", err)
		os.Exit(1)
	}
	off = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><p>off the allowlist</p></body></html>")
	}))
	offURL := strings.Replace(off.URL, "127.0.0.1", "localhost", 1)
	site = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/guide/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>Guide</title><style>p{color:red}</style></head><body>
<nav><a href="/">Home</a></nav><main><article><h1>Getting started</h1>
<p>Install the tool, then read the <a href="/guide/next">next steps</a> before you run anything at all.</p>
<h2>Install</h2><pre><code>pip install thing
thing --version</code></pre>
<p>This paragraph is here so the reader view sees a real article on the page, as a person would.</p>
</article></main><script>document.title = "Guide"</script></body></html>`)
		case "/plain.md":
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprint(w, "# Plain\n\n<b>kept as written</b>\n")
		case "/long.txt":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, strings.Repeat("h", 500)+"MIDDLE"+strings.Repeat("t", 500))
		case "/moved":
			http.Redirect(w, r, "/plain.md", http.StatusMovedPermanently)
		case "/away":
			http.Redirect(w, r, offURL+"/x", http.StatusFound)
		case "/hop-away":
			http.Redirect(w, r, "/away", http.StatusFound)
		case "/js-away":
			// A client-side redirect, which the server's answer does not show.
			fmt.Fprintf(w, `<html><body><p>moving</p><script>location.replace(%q)</script></body></html>`, offURL+"/x")
		case "/meta-same":
			fmt.Fprint(w, `<html><head><meta http-equiv="refresh" content="0; url=/guide/"></head><body>moving</body></html>`)
		case "/meta-away":
			fmt.Fprintf(w, `<html><head><META HTTP-EQUIV=Refresh CONTENT="0;URL='%s/x'"></head><body>moving</body></html>`, offURL)
		case "/unseen/":
			http.ServeFile(w, r, "../../testdata/shared/unseen.html")
		case "/gone":
			http.NotFound(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	code := m.Run()
	site.Close()
	off.Close()
	mgr.Close()
	browser.Close()
	os.Exit(code)
}

func reader() *Reader { return &Reader{Browser: browser} }

func TestQSRenderedAsMarkdownWithLinks(t *testing.T) {
	r := reader().Get(context.Background(), site.URL+"/guide/", allow)
	if r.Err != "" || r.Blocked != "" || !r.Rendered || r.Status != 200 {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{"Getting started", "[next steps](" + site.URL + "/guide/next)", "pip install thing\nthing --version"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("missing %q in\n%s", want, r.Text)
		}
	}
	for _, bad := range []string{"<p>", "color:red", "document.title"} {
		if strings.Contains(r.Text, bad) {
			t.Errorf("%q leaked into\n%s", bad, r.Text)
		}
	}
	sum := sha256.Sum256([]byte(r.Text))
	if r.ContentHash != hex.EncodeToString(sum[:]) || r.Chars != len([]rune(r.Text)) || r.Truncated || r.ResolvedTo != "" {
		t.Errorf("record: %+v", r)
	}
	if r.ToolText(allow) != r.Text {
		t.Errorf("the agent gets the text")
	}
}

// read_docs returns what a person sees of a page: text hidden from sight
// (off-screen, transparent, the colour of its background, clipped, font-size
// 0) never reaches the agent; what is drawn does (issue 44, item 4).
func TestQSUnseenTextNeverReachesTheAgent(t *testing.T) {
	r := reader().Get(context.Background(), site.URL+"/unseen/", allow)
	if r.Err != "" || !r.Rendered {
		t.Fatalf("%+v", r)
	}
	if i := strings.Index(r.Text, "HIDDEN-"); i >= 0 {
		t.Errorf("read_docs returned text no person sees (%q):\n%s", r.Text[i:min(len(r.Text), i+30)], r.Text)
	}
	for _, want := range []string{"widget install --now", "restart after installing", "check the version"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("read_docs lacks %q:\n%s", want, r.Text)
		}
	}
}

func TestQSPassThroughAndTruncation(t *testing.T) {
	r := reader().Get(context.Background(), site.URL+"/plain.md", allow)
	if r.Rendered || r.Text != "# Plain\n\n<b>kept as written</b>\n" {
		t.Errorf("markdown is passed through untouched: %+v", r)
	}
	rd := reader()
	rd.MaxChars = 100
	r = rd.Get(context.Background(), site.URL+"/long.txt", allow)
	if !r.Truncated || r.OriginalChars != 1006 || !strings.HasPrefix(r.Text, strings.Repeat("h", 50)+"\n[... output truncated") ||
		!strings.HasSuffix(r.Text, strings.Repeat("t", 50)) || strings.Contains(r.Text, "MIDDLE") {
		t.Errorf("head and tail: %+v", r)
	}
}

func TestQSAllowlist(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		path     string
		blocked  BlockReason
		resolved string
	}{
		{"/away", "redirect_outside_allowlist", "localhost"},     // a 302 off the allowlist is never followed
		{"/hop-away", "redirect_outside_allowlist", "localhost"}, // nor a later hop
		{"/js-away", "redirect_outside_allowlist", "localhost"},  // nor a client-side redirect
	}
	for _, c := range cases {
		r := reader().Get(ctx, site.URL+c.path, allow)
		if r.Blocked != c.blocked || !strings.Contains(r.ResolvedTo, c.resolved) || r.Text != "" {
			t.Errorf("%s: %+v", c.path, r)
		}
		if !strings.HasPrefix(r.ToolText(allow), "BLOCKED: "+site.URL+c.path+" (redirect_outside_allowlist)") {
			t.Errorf("%s: %s", c.path, r.ToolText(allow))
		}
	}
	// Off the allowlist to begin with: no request at all.
	var hits int
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer counting.Close()
	u, _ := url.Parse(counting.URL)
	r := reader().Get(ctx, "http://localhost:"+u.Port()+"/", allow)
	if r.Blocked != "outside_allowlist" || hits != 0 {
		t.Errorf("%+v, %d requests", r, hits)
	}
	want := "BLOCKED: http://localhost:" + u.Port() + "/ is outside this task's documentation allowlist (127.0.0.1, docs.example.com). Only the target project's docs may be read."
	if got := r.ToolText([]string{"127.0.0.1", "docs.example.com"}); got != want {
		t.Errorf("%s", got)
	}
	// Redirects on the allowlist are followed and recorded.
	r = reader().Get(ctx, site.URL+"/moved", allow)
	if r.Err != "" || r.ResolvedTo != site.URL+"/plain.md" || len(r.Redirects) != 1 || !strings.HasPrefix(r.Text, "# Plain") {
		t.Errorf("same-host redirect: %+v", r)
	}
	r = reader().Get(ctx, site.URL+"/meta-same", allow)
	if r.Err != "" || r.ResolvedTo != site.URL+"/guide/" || !strings.Contains(r.Text, "Getting started") {
		t.Errorf("same-host meta refresh: %+v %q", r, r.Text)
	}
}

func TestQSErrors(t *testing.T) {
	r := reader().Get(context.Background(), site.URL+"/gone", allow)
	if r.Err != "HTTP 404 Not Found" || r.ToolText(allow) != "READ ERROR for "+site.URL+"/gone: HTTP 404 Not Found" {
		t.Errorf("%+v", r)
	}
	l := httptest.NewServer(nil)
	dead := l.URL
	l.Close()
	if r := reader().Get(context.Background(), dead+"/", allow); r.Err == "" || !strings.Contains(r.Err, "connection refused") {
		t.Errorf("dead server: %+v", r)
	}
}

func TestQSExpectHandler(t *testing.T) {
	srv := httptest.NewServer(ExpectHandler(func(context.Context) (*tabs.Manager, error) { return mgr, nil }))
	defer srv.Close()
	get := func(q url.Values) (int, string) {
		resp, err := http.Get(srv.URL + "/?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(url.Values{"url": {site.URL + "/guide/"}, "text": {"Getting   started"}}); code != 200 || !strings.HasPrefix(body, "ok: ") {
		t.Errorf("%d %s", code, body)
	}
	if code, body := get(url.Values{"url": {site.URL + "/guide/"}, "text": {"Nowhere"}}); code != 200 || !strings.Contains(body, `the page (title "Guide") shows:`) {
		t.Errorf("%d %s", code, body)
	}
	for _, q := range []url.Values{{"url": {"example.com"}, "text": {"x"}}, {"url": {site.URL}}} {
		if code, _ := get(q); code != 400 {
			t.Errorf("%v: %d", q, code)
		}
	}
	// Only web pages: a file: URL (or any other scheme) is refused, with
	// the reason, before the browser sees it.
	for _, u := range []string{"file:///etc/passwd", "FILE:///etc/hostname", "view-source:" + site.URL, "data:text/html,root", "chrome://version"} {
		if code, body := get(url.Values{"url": {u}, "text": {"root"}}); code != 400 || !strings.Contains(body, "renders http(s) pages only") {
			t.Errorf("%s: %d %s", u, code, body)
		}
	}
}

func TestQSMetaRefresh(t *testing.T) {
	base, _ := url.Parse("https://docs.example.com/a/b/page")
	for body, want := range map[string]string{
		`<meta http-equiv="refresh" content="0; url=https://docs.example.com/real">`: "https://docs.example.com/real",
		`<meta content="0;URL=/docs/real" http-equiv=refresh>`:                       "https://docs.example.com/docs/real",
		`<META HTTP-EQUIV='Refresh' CONTENT='5; url=other.html'>`:                    "https://docs.example.com/a/b/other.html",
		`<meta name="viewport" content="width=device-width">`:                        "",
		`<meta http-equiv="refresh" content="30">`:                                   "",
		`<p>no meta</p>`: "",
	} {
		if got := metaRefresh([]byte(body), base); got != want {
			t.Errorf("%s: %q, want %q", body, got, want)
		}
	}
}

// Close closes the reader's tab: a browser that outlives the reader (the
// shared one of many qs runs in one process) keeps nothing of it.
func TestReaderCloseClosesItsTab(t *testing.T) {
	d := reader()
	if r := d.Get(context.Background(), site.URL+"/guide/", allow); r.Err != "" || !r.Rendered {
		t.Fatalf("%+v", r)
	}
	tab := d.tab
	if tab == nil {
		t.Fatal("the reader read without a tab of its own")
	}
	d.Close()
	if _, err := browser.Manager.Get("qs-docs", tab.Handle()); err == nil {
		t.Error("the reader's handle still holds its tab after Close")
	}
	list, err := browser.Manager.Tabs(context.Background(), "test", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range list {
		if ti.TabID == string(tab.TargetID) {
			t.Fatalf("the reader's tab %s is still open after Close", ti.TabID)
		}
	}
}

// The docs browser's profile goes to memory only on a tmpfs with room:
// anywhere else (a missing directory, a disk) it stays in the system's
// temporary directory.
func TestMemoryProfileDir(t *testing.T) {
	defer func(d string) { memoryDir = d }(memoryDir)
	memoryDir = filepath.Join(t.TempDir(), "missing")
	if got := memoryProfileDir(); got != "" {
		t.Errorf("a missing directory gave %q", got)
	}
	memoryDir = "/proc" // procfs: a directory, not a tmpfs
	if got := memoryProfileDir(); got != "" {
		t.Errorf("/proc gave %q", got)
	}
	if opt := browserOptions(); !opt.SingleSpare || opt.Launch.ProfileIn != "" {
		t.Errorf("without a memory directory: %+v", opt)
	}
}
