package tabs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/launch"
)

// siteIsolated is a manager whose browser runs each site in its own
// renderer, as Chrome and Edge do: the headless shell keeps every site in
// one otherwise, and no cross-site frame would be out of process.
func siteIsolated(t *testing.T) *Manager {
	m, err := New(Options{Launch: launch.Options{Args: []string{"--site-per-process"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// A cross-site frame's document is requested in the page's session and
// answered in the frame's own: network idle must see that request finish
// (it waited out its timeout with "1 requests still in flight"), and count
// what the frame loads after.
func TestNetworkIdleWithAnOutOfProcessFrame(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	cross := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/late" {
			<-release // answered only once the test has seen network idle wait for it
			return
		}
		fmt.Fprint(w, `<p>pay</p><script>addEventListener('load', () => fetch('/late'))</script>`)
	}))
	t.Cleanup(cross.Close)
	crossURL := strings.Replace(cross.URL, "127.0.0.1", "localhost", 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Shop</title><iframe id="pay" src="%s/pay"></iframe>`, crossURL)
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opened, err := siteIsolated(t).Open(ctx, OpenOptions{Owner: "t", URL: "about:blank", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	tab := opened.Tab
	if _, err := tab.Navigate(ctx, Navigation{URL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	// The frame's fetch is held: idle must not be reported while it is.
	short, cancelShort := context.WithTimeout(ctx, 1500*time.Millisecond)
	err = tab.WaitNetworkIdle(short, 500*time.Millisecond)
	cancelShort()
	if err == nil {
		t.Fatal("network idle reported while the frame's request was held")
	}
	close(release)
	if err := tab.WaitNetworkIdle(ctx, 500*time.Millisecond); err != nil {
		t.Fatalf("network idle after the frame's requests finished: %v (in flight: %d)", err, tab.InFlight())
	}
}

// Targets the browser attaches us to wait for us before they run: a worker
// (not a frame) is let run at once, so the page gets its answer.
func TestWorkersRunUnderAutoAttach(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/worker.js" {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `postMessage('up')`)
			return
		}
		fmt.Fprint(w, `<title>waiting</title><script>new Worker('/worker.js').onmessage = (e) => { document.title = e.data }</script>`)
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	opened, err := newManager(t).Open(ctx, OpenOptions{Owner: "t", URL: srv.URL, Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	var title string
	// Resolves when the page's title says the worker answered (a mutation of
	// the title, no polling).
	wait := `new Promise((done) => { const up = () => document.title === 'up' && done(document.title); ` +
		`new MutationObserver(up).observe(document.head, { subtree: true, childList: true, characterData: true }); up() })`
	if err := opened.Tab.Eval(ctx, wait, &title); err != nil || title != "up" {
		t.Fatalf("the worker's answer: %q, %v", title, err)
	}
}
