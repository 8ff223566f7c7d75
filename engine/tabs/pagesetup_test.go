package tabs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/launch"
)

// setupSite serves a page that reports, from its own first script, what
// it was started as, and an iframe of itself.
func setupSite(t *testing.T, hits *atomic.Int32) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `<!doctype html><meta name="viewport" content="width=device-width"><title>setup</title>
<script>document.documentElement.dataset.init = String(window.initRan === true);</script>
<p>setup page</p>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func openSetupTab(t *testing.T, opt Options, url string) *Tab {
	t.Helper()
	m, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opened, err := m.Open(ctx, OpenOptions{Owner: "s", URL: "about:blank", Active: true, Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := opened.Tab.Navigate(ctx, Navigation{URL: url}); err != nil {
		t.Fatal(err)
	}
	return opened.Tab
}

// pageFacts is what a page can tell of how it was started.
type pageFacts struct {
	SawInit    bool    `json:"sawInit"`
	Width      int     `json:"width"`
	Ratio      float64 `json:"ratio"`
	Touch      int     `json:"touch"`
	UserAgent  string  `json:"ua"`
	Geo        string  `json:"geo"`
	Cookie     string  `json:"cookie"`
	LocalValue string  `json:"local"`
}

const pageFactsJS = `(async () => ({
	sawInit: document.documentElement.dataset.init === 'true', width: innerWidth, ratio: devicePixelRatio, touch: navigator.maxTouchPoints,
	ua: navigator.userAgent, geo: (await navigator.permissions.query({name: 'geolocation'})).state,
	cookie: document.cookie, local: localStorage.getItem('theme') || ''}))()`

func readFacts(t *testing.T, tab *Tab) pageFacts {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var f pageFacts
	if err := tab.Eval(ctx, pageFactsJS, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// A device, an init script, a permission and a user agent reach the page
// from its first script on; without them the page sees the browser's own.
func TestPageSetupReachesThePage(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := setupSite(t, &hits)
	pixel, _ := LookupDevice("pixel 5")
	configured := Options{
		Launch: launch.Options{},
		Page: PageSetup{
			Screen:      &pixel.Screen,
			InitScripts: []string{"window.initRan = true;"},
			Permissions: []string{"geolocation"},
		},
	}
	configured.Launch.Args = append(configured.Launch.Args, "--user-agent="+pixel.UserAgent)
	got := readFacts(t, openSetupTab(t, configured, srv.URL+"/"))
	want := pageFacts{SawInit: true, Width: 393, Ratio: 2.75, Touch: 5, UserAgent: pixel.UserAgent, Geo: "granted"}
	if got != want {
		t.Errorf("configured page saw %+v, want %+v", got, want)
	}

	plain := readFacts(t, openSetupTab(t, Options{Launch: launch.Options{}}, srv.URL+"/"))
	if plain.SawInit || plain.Width == 393 || plain.Touch != 0 || plain.Geo == "granted" || strings.Contains(plain.UserAgent, "Pixel") {
		t.Errorf("a page of an unconfigured browser saw %+v", plain)
	}
}

// browser_emulate's reset goes back to the configured screen, not to none.
func TestEmulateResetKeepsTheConfiguredScreen(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := setupSite(t, &hits)
	tab := openSetupTab(t, Options{Launch: launch.Options{}, Page: PageSetup{Screen: &Screen{Width: 500, Height: 700}}}, srv.URL+"/")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	now, err := tab.Emulate(ctx, Emulation{Width: 640})
	if err != nil || now.Width != 640 || now.Height != 700 {
		t.Fatalf("emulate: %+v, %v", now, err)
	}
	now, err = tab.Emulate(ctx, Emulation{Reset: true})
	if err != nil || now.Width != 500 || readFacts(t, tab).Width != 500 {
		t.Fatalf("after reset: %+v (page width %d), %v", now, readFacts(t, tab).Width, err)
	}
}

// A storage state's cookies and localStorage are there when a page of
// its origin first loads, and loading them asked nothing of that origin.
func TestStorageStateLoadedAtStart(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := setupSite(t, &hits)
	st := &StorageState{
		Cookies: []*network.Cookie{{Name: "session", Value: "s3cr3t-id", Domain: "127.0.0.1", Path: "/", Expires: float64(time.Now().Add(time.Hour).Unix())}},
		Origins: []OriginStorage{{Origin: srv.URL, LocalStorage: []KeyValue{{Name: "theme", Value: "dark"}}}},
	}
	m, err := New(Options{Launch: launch.Options{}, Page: PageSetup{Storage: st}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opened, err := m.Open(ctx, OpenOptions{Owner: "s", URL: "about:blank", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("loading the state asked the origin %d times", n)
	}
	if _, err := opened.Tab.Navigate(ctx, Navigation{URL: srv.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	f := readFacts(t, opened.Tab)
	if f.Cookie != "session=s3cr3t-id" || f.LocalValue != "dark" {
		t.Fatalf("page saw cookie %q, localStorage theme %q", f.Cookie, f.LocalValue)
	}
}

// A profile folder keeps cookies and localStorage across browsers, and a
// second browser on a folder in use is refused at once, naming the flag.
func TestUserDataDirKeepsTheProfile(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := setupSite(t, &hits)
	dir := t.TempDir()
	opt := Options{Launch: launch.Options{}}
	opt.Launch.UserDataDir = dir

	first, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opened, err := first.Open(ctx, OpenOptions{Owner: "s", URL: "about:blank", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := opened.Tab.Navigate(ctx, Navigation{URL: srv.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	var ok bool
	if err := opened.Tab.Eval(ctx, `(document.cookie = "kept=yes; max-age=3600", localStorage.setItem("theme", "kept"), true)`, &ok); err != nil {
		t.Fatal(err)
	}

	second, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	_, err = second.Open(ctx, OpenOptions{Owner: "s", URL: "about:blank"})
	if err == nil {
		t.Fatal("a second browser started on a profile in use")
	}
	if e := errs.As(err); e.Code != errs.InvalidInput || e.Path != "--user-data-dir" || !strings.Contains(e.Message, "in use") {
		t.Fatalf("a second browser on the profile: %v", err)
	}
	second.Close()
	first.Close()

	again := openSetupTab(t, opt, srv.URL+"/")
	f := readFacts(t, again)
	if f.Cookie != "kept=yes" || f.LocalValue != "kept" {
		t.Fatalf("after a restart the page saw cookie %q, localStorage %q", f.Cookie, f.LocalValue)
	}
}
