package observetab_test

// A tab opened on a URL over --cdp-url and claimed at once still shows its
// initial blank document until the navigation commits (issue 21, item 4).
// The fixture holds the page's response until the test lets it go, so the
// "still loading" state lasts exactly as long as the test wants.

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/observetab"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/internal/testbrowser"
)

// heldSite serves /held only once release is closed, and closes asked when
// the browser has asked for it; /ready loads at once and reports its load
// event by fetching /loaded, which closes loaded.
type heldSite struct {
	*httptest.Server
	asked, release, loaded chan struct{}
}

func newHeldSite(t *testing.T) *heldSite {
	s := &heldSite{asked: make(chan struct{}), release: make(chan struct{}), loaded: make(chan struct{})}
	var askedOnce, loadedOnce sync.Once
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/held":
			askedOnce.Do(func() { close(s.asked) })
			select {
			case <-s.release:
			case <-r.Context().Done():
				return
			}
			fmt.Fprint(w, `<title>Held</title><button id="go" onclick="this.textContent='done'">Go</button>`)
		case "/ready":
			fmt.Fprint(w, `<title>Ready</title><p>here</p><script>onload = () => fetch('/loaded')</script>`)
		case "/loaded":
			loadedOnce.Do(func() { close(s.loaded) })
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(func() {
		select {
		case <-s.release:
		default:
			close(s.release)
		}
		s.Close()
	})
	return s
}

// attached starts a browser with a DevTools port and a manager attached to
// it, as `tabwright mcp --cdp-url` is.
func attached(t *testing.T) *tabs.Manager {
	path, err := launch.FindHeadless()
	if err != nil {
		t.Fatalf("no browser to test with: %v", err)
	}
	b, err := testbrowser.Start(path, "0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Kill)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil { // claim locks want a private folder
		t.Fatal(err)
	}
	m, err := tabs.New(tabs.Options{CDPURL: b.WSURL, ClaimDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

func observeIn(t *testing.T, tab *tabs.Tab, budget time.Duration) *observe.Observation {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	var obs *observe.Observation
	err := tab.Do(ctx, func(ctx context.Context) (err error) {
		obs, err = observetab.Capture(ctx, tab, observetab.Part{}, observe.Options{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

func loadingOf(obs *observe.Observation) *tabs.Loading {
	l, _ := obs.Reserved[observe.ReservedLoading].(*tabs.Loading)
	return l
}

func TestClaimedWhileLoading(t *testing.T) {
	t.Parallel()
	site := newHeldSite(t)
	m := attached(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opened, err := m.Open(ctx, tabs.OpenOptions{Owner: "a", URL: site.URL + "/held", Claim: true, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	tab := opened.Tab
	<-site.asked // the navigation is under way and cannot commit

	// While held, every read says so (a screenshot fails: the blank
	// document does not paint), with the URL it waits for.
	obs := observeIn(t, tab, 3*time.Second)
	if l := loadingOf(obs); l == nil || l.Committed || l.URL != site.URL+"/held" {
		t.Fatalf("observed while held: reserved %v, want loading %s not committed", obs.Reserved, site.URL+"/held")
	}
	if !strings.Contains(observe.Render(obs), "has not committed yet") {
		t.Fatalf("the text does not say the page is loading:\n%s", observe.Render(obs))
	}
	shotCtx, shotCancel := context.WithTimeout(ctx, 3*time.Second)
	img, err := tab.Capture(shotCtx, tabs.Shot{})
	shotCancel()
	if err == nil || !strings.Contains(err.Error(), "has not committed yet") {
		t.Fatalf("screenshot while held: %+v, %v; want an error saying the page has not committed", img, err)
	}
	click := &act.Step{Action: act.Click, Locator: locate.Locator{Selector: "#go"}, TimeoutMS: ptr(3000)}
	if _, err := act.Run(ctx, tab, click); err == nil || !strings.Contains(err.Error(), "has not committed yet") {
		t.Fatalf("click while held: %v; want an error saying the page has not committed", err)
	}

	// A read that starts while held waits for the commit and reads the page.
	done := make(chan *observe.Observation, 1)
	go func() { done <- observeIn(t, tab, 30*time.Second) }()
	close(site.release)
	obs = <-done
	if obs.Title != "Held" || obs.URL != site.URL+"/held" {
		t.Fatalf("observed %q at %s, want the held page", obs.Title, obs.URL)
	}
	if l := loadingOf(obs); l != nil && !l.Committed {
		t.Fatalf("observed after the commit, still loading %+v", l)
	}
	if img, err := tab.Capture(ctx, tabs.Shot{}); err != nil || (img.Loading != nil && !img.Loading.Committed) {
		t.Fatalf("screenshot after the commit: %+v, %v", img, err)
	}
	click.TimeoutMS = ptr(10000)
	if r, err := act.Run(ctx, tab, click); err != nil || (r.Loading != nil && !r.Loading.Committed) {
		t.Fatalf("click after the commit: %+v, %v", r, err)
	}
}

// A tab that finished loading before the claim, and a new blank one, are
// read at once and never said to be loading.
func TestClaimedWhenLoadedIsNotLoading(t *testing.T) {
	t.Parallel()
	site := newHeldSite(t)
	m := attached(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ready, err := m.Open(ctx, tabs.OpenOptions{URL: site.URL + "/ready"})
	if err != nil {
		t.Fatal(err)
	}
	<-site.loaded // its load event fired
	tab, err := m.Claim(ctx, tabs.ClaimOptions{Owner: "a", TabID: ready.TabID})
	if err != nil {
		t.Fatal(err)
	}
	// With a long budget a false "pending" would make the read wait for
	// most of it and then say loading: the reply must say neither.
	obs := observeIn(t, tab, 30*time.Second)
	if obs.Title != "Ready" || loadingOf(obs) != nil {
		t.Fatalf("observed %q, reserved %v; want the ready page, not loading", obs.Title, obs.Reserved)
	}
	blank, err := m.Open(ctx, tabs.OpenOptions{Owner: "a", URL: "about:blank", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	if l := blank.Tab.AwaitCommit(ctx); l != nil {
		t.Fatalf("a blank tab is said to be loading: %+v", l)
	}
}

func ptr[T any](v T) *T { return &v }
