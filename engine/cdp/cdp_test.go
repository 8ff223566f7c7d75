package cdp_test

// Tests of the DevTools connection against real Chromium, over both
// transports: the pipe of a browser launch.Start owns, and a WebSocket to a
// browser started here with --remote-debugging-port. The package is external
// because launch imports cdp.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/internal/testbrowser"
)

func ptr[T any](v T) *T { return &v }

// testCtx bounds a whole test; every wait below is on a condition, this is
// only the backstop.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// site serves pages titled after their path: /a is "Page /a".
func site(t testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<title>Page %s</title><p>Hello from %s</p>", r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// startDebugBrowser starts a browser with a DevTools port for one test and
// kills it after.
func startDebugBrowser(t testing.TB) *testbrowser.Browser {
	t.Helper()
	b, err := launchDebugBrowser()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Kill)
	return b
}

// launchDebugBrowser starts a headless Chromium with a DevTools port, as a
// user would start the browser tabwright attaches to.
func launchDebugBrowser() (*testbrowser.Browser, error) {
	path, err := launch.FindHeadless()
	if err != nil {
		return nil, fmt.Errorf("no browser to test with: %w", err)
	}
	return testbrowser.Start(path, "0")
}

// shared holds one browser per transport for the tests that leave their
// browser working; they start on first use and stop in TestMain.
var shared struct {
	once sync.Once
	pipe *launch.Browser
	ws   *testbrowser.Browser
	err  error
}

func sharedBrowsers(t *testing.T) (*launch.Browser, *testbrowser.Browser) {
	t.Helper()
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if shared.pipe, shared.err = launch.Start(ctx, launch.Options{}); shared.err != nil {
			return
		}
		shared.ws, shared.err = launchDebugBrowser()
	})
	if shared.err != nil {
		t.Fatalf("starting the shared browsers: %v", shared.err)
	}
	return shared.pipe, shared.ws
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.pipe != nil {
		shared.pipe.Close()
	}
	if shared.ws != nil {
		shared.ws.Kill()
	}
	os.Exit(code)
}

// eachTransport runs fn over the pipe of the shared managed browser and over
// a new WebSocket connection (made through its http:// endpoint) to the
// shared debug-port browser. fn must leave the browser working.
func eachTransport(t *testing.T, fn func(t *testing.T, ctx context.Context, conn *cdp.Conn)) {
	t.Run("pipe", func(t *testing.T) {
		pipe, _ := sharedBrowsers(t)
		if pipe.Conn.Err() != nil {
			t.Fatalf("the shared pipe connection died in an earlier test: %v", pipe.Conn.Err())
		}
		fn(t, testCtx(t), pipe.Conn)
	})
	t.Run("websocket", func(t *testing.T) {
		_, db := sharedBrowsers(t)
		ctx := testCtx(t)
		conn, err := launch.Attach(ctx, db.HTTPURL)
		if err != nil {
			t.Fatalf("attach %s: %v", db.HTTPURL, err)
		}
		t.Cleanup(func() { conn.Close() })
		fn(t, ctx, conn)
	})
}

// eachFreshTransport runs fn over both transports, each to a browser of its
// own; kill makes that browser die (not a clean close).
func eachFreshTransport(t *testing.T, fn func(t *testing.T, ctx context.Context, conn *cdp.Conn, kill func())) {
	t.Run("pipe", func(t *testing.T) {
		ctx := testCtx(t)
		b, err := launch.Start(ctx, launch.Options{})
		if err != nil {
			t.Fatalf("launch: %v", err)
		}
		t.Cleanup(func() { b.Close() })
		fn(t, ctx, b.Conn, func() { killPid(b.Pid()) })
	})
	t.Run("websocket", func(t *testing.T) {
		ctx := testCtx(t)
		db := startDebugBrowser(t)
		conn, err := launch.Attach(ctx, db.HTTPURL)
		if err != nil {
			t.Fatalf("attach %s: %v", db.HTTPURL, err)
		}
		t.Cleanup(func() { conn.Close() })
		fn(t, ctx, conn, db.Kill)
	})
}

// newTab creates a page target on url and attaches a flattened session to it.
func newTab(t *testing.T, ctx context.Context, conn *cdp.Conn, url string) (target.ID, *cdp.Session) {
	t.Helper()
	created, err := cdproto.Call(ctx, conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: url})
	if err != nil {
		t.Fatalf("createTarget: %v", err)
	}
	s, err := conn.Attach(ctx, created.TargetID)
	if err != nil {
		t.Fatalf("attach: %v", err)
	}
	if s.ID() == "" || s.Conn() != conn {
		t.Fatalf("session %q on conn %p, want a flattened session on %p", s.ID(), s.Conn(), conn)
	}
	t.Cleanup(func() {
		if conn.Err() == nil { // a shared browser: leave it as it was
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			cdproto.Call(ctx, conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: created.TargetID})
		}
	})
	return created.TargetID, s
}

func eval(t *testing.T, ctx context.Context, s *cdp.Session, expr string) string {
	t.Helper()
	res, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: ptr(true)})
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	if res.ExceptionDetails != nil {
		t.Fatalf("evaluate %s threw: %s", expr, res.ExceptionDetails.Text)
	}
	return string(res.Result.Value)
}

// navigate navigates and waits for the load event through cdproto.Events.
func navigate(t *testing.T, ctx context.Context, s *cdp.Session, url string) page.NavigateResult {
	t.Helper()
	res, err := navigateErr(ctx, s, url)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func navigateErr(ctx context.Context, s *cdp.Session, url string) (page.NavigateResult, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	loads := cdproto.Events(ctx, s, page.LoadEventFired) // subscribed from here on
	res, err := cdproto.Call(ctx, s, page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		return res, fmt.Errorf("navigate %s: %w", url, err)
	}
	if res.ErrorText != "" {
		return res, fmt.Errorf("navigate %s: %s", url, res.ErrorText)
	}
	for _, err := range loads {
		if err != nil {
			return res, fmt.Errorf("waiting for the load of %s: %w", url, err)
		}
		break
	}
	return res, nil
}

var pendingSeq atomic.Int64

// pendingCall starts a call that the browser does not answer on its own (a
// promise that never settles) and returns once the page runs it: the
// expression logs its mark first, and the console event is the signal.
func pendingCall(t *testing.T, ctx context.Context, s *cdp.Session) <-chan error {
	t.Helper()
	mark := fmt.Sprintf("pending-%d", pendingSeq.Add(1))
	logged, stop := s.Subscribe("Runtime.consoleAPICalled")
	defer stop()
	if _, err := cdproto.Call(ctx, s, runtime.Enable, cdproto.Empty{}); err != nil {
		t.Fatalf("Runtime.enable: %v", err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: fmt.Sprintf("console.debug(%q); new Promise(() => {})", mark), AwaitPromise: ptr(true)})
		errc <- err
	}()
	for started := false; !started; {
		select {
		case ev, ok := <-logged:
			if !ok {
				t.Fatal("the session ended before the never-settling call started")
			}
			started = strings.Contains(string(ev), `"value":"`+mark+`"`)
		case err := <-errc:
			t.Fatalf("the never-settling call returned: %v", err)
		case <-ctx.Done():
			t.Fatal("the never-settling call did not start before the test's deadline")
		}
	}
	select {
	case err := <-errc:
		t.Fatalf("the never-settling call returned: %v", err)
	default:
	}
	return errc
}

// waitClosed waits until a subscription channel closes, draining it.
func waitClosed(t *testing.T, ch <-chan jsonv2.Value, within time.Duration) {
	t.Helper()
	timeout := time.After(within)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatalf("subscription still open after %v", within)
		}
	}
}

func TestTypedCallsOverBothTransports(t *testing.T) {
	srv := site(t)
	check := func(t *testing.T, ctx context.Context, conn *cdp.Conn) {
		ver, err := cdproto.Call(ctx, conn.Browser(), browser.GetVersion, cdproto.Empty{})
		if err != nil || !strings.Contains(ver.Product, "/") || ver.ProtocolVersion == "" {
			t.Fatalf("Browser.getVersion: %+v %v", ver, err)
		}
		if conn.Browser().ID() != "" {
			t.Fatalf("browser session id %q, want empty", conn.Browser().ID())
		}
		id, s := newTab(t, ctx, conn, "about:blank")
		if _, err := cdproto.Call(ctx, s, page.Enable, page.EnableParams{}); err != nil {
			t.Fatal(err)
		}
		nav := navigate(t, ctx, s, srv.URL+"/typed")
		if nav.FrameID != cdproto.FrameID(id) || nav.LoaderID == "" {
			t.Fatalf("navigate result %+v, want the main frame %s and a loader", nav, id)
		}
		if got := eval(t, ctx, s, "document.title"); got != `"Page /typed"` {
			t.Fatalf("title %s", got)
		}
		info, err := cdproto.Call(ctx, conn.Browser(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: id})
		if err != nil || info.TargetInfo.URL != srv.URL+"/typed" || !info.TargetInfo.Attached {
			t.Fatalf("target info %+v %v", info.TargetInfo, err)
		}
		// A session's Done stays open while its target lives.
		select {
		case <-s.Done():
			t.Fatal("session done while its tab lives")
		case <-conn.Done():
			t.Fatal("connection done while the browser lives")
		default:
		}
		if conn.Err() != nil {
			t.Fatalf("Err on a live connection: %v", conn.Err())
		}
	}
	eachTransport(t, func(t *testing.T, ctx context.Context, conn *cdp.Conn) { check(t, ctx, conn) })

	// launch.Attach with the browser's ws:// URL directly, next to a
	// connection made through http://: two clients of one browser.
	t.Run("websocket-url", func(t *testing.T) {
		ctx := testCtx(t)
		_, db := sharedBrowsers(t)
		viaHTTP, err := launch.Attach(ctx, db.HTTPURL)
		if err != nil {
			t.Fatal(err)
		}
		defer viaHTTP.Close()
		conn, err := launch.Attach(ctx, db.WSURL)
		if err != nil {
			t.Fatalf("attach %s: %v", db.WSURL, err)
		}
		defer conn.Close()
		check(t, ctx, conn)
		check(t, ctx, viaHTTP)
	})
}

// frameNav is the part of Page.frameNavigated the routing test reads.
type frameNav struct {
	Frame struct {
		ID       string `json:"id"`
		ParentID string `json:"parentId"`
		URL      string `json:"url"`
	} `json:"frame"`
}

func TestEventsRoutedToTheirSession(t *testing.T) {
	srv := site(t)
	eachTransport(t, func(t *testing.T, ctx context.Context, conn *cdp.Conn) {
		type tab struct {
			name string
			id   target.ID
			s    *cdp.Session
			navs <-chan jsonv2.Value
		}
		var tabs []*tab
		for _, name := range []string{"a", "b"} {
			id, s := newTab(t, ctx, conn, "about:blank")
			if _, err := cdproto.Call(ctx, s, page.Enable, page.EnableParams{}); err != nil {
				t.Fatal(err)
			}
			navs, cancel := s.Subscribe("Page.frameNavigated")
			t.Cleanup(cancel)
			tabs = append(tabs, &tab{name, id, s, navs})
		}
		if tabs[0].s.ID() == tabs[1].s.ID() {
			t.Fatalf("two tabs share session %s", tabs[0].s.ID())
		}

		// next returns the tab's next frameNavigated away from about:blank;
		// every event it sees must be about its own main frame.
		next := func(tb *tab) string {
			for {
				select {
				case raw, ok := <-tb.navs:
					if !ok {
						t.Fatalf("tab %s: subscription closed", tb.name)
					}
					var ev frameNav
					if err := jsonv2.Unmarshal(raw, &ev); err != nil {
						t.Fatal(err)
					}
					if ev.Frame.ID != string(tb.id) {
						t.Fatalf("tab %s got an event of frame %s (%s): routed to the wrong session", tb.name, ev.Frame.ID, ev.Frame.URL)
					}
					if ev.Frame.URL != "about:blank" {
						return strings.TrimPrefix(ev.Frame.URL, srv.URL)
					}
				case <-ctx.Done():
					t.Fatalf("tab %s: no frameNavigated", tb.name)
				}
			}
		}

		// Both tabs navigate at once, twice. Each subscription sees exactly
		// its own navigations in order: an event of the other tab, misrouted
		// or duplicated in round 1, would come before its own round-2 event.
		for round := 1; round <= 2; round++ {
			var wg sync.WaitGroup
			for _, tb := range tabs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := navigateErr(ctx, tb.s, fmt.Sprintf("%s/%s%d", srv.URL, tb.name, round)); err != nil {
						t.Errorf("tab %s: %v", tb.name, err)
					}
				}()
			}
			wg.Wait()
			for _, tb := range tabs {
				if got, want := next(tb), fmt.Sprintf("/%s%d", tb.name, round); got != want {
					t.Fatalf("round %d: tab %s saw a navigation to %s, want %s", round, tb.name, got, want)
				}
			}
		}

		// Page.loadEventFired: a's load is not delivered to b. b's listener
		// runs on the reader in arrival order, before a's subscription gets
		// the event, so once a saw its load, b would already have it.
		var bMu sync.Mutex
		var bLoads int
		stop := tabs[1].s.Listen(func(method string, _ jsonv2.Value) {
			if method == "Page.loadEventFired" {
				bMu.Lock()
				bLoads++
				bMu.Unlock()
			}
		})
		defer stop()
		bSub, cancelB := tabs[1].s.Subscribe("Page.loadEventFired")
		defer cancelB()
		navigate(t, ctx, tabs[0].s, srv.URL+"/a3")
		bMu.Lock()
		n := bLoads
		bMu.Unlock()
		if n != 0 {
			t.Fatalf("tab a's load event reached tab b (%d events)", n)
		}
		// b's own load reaches b's subscription.
		navigate(t, ctx, tabs[1].s, srv.URL+"/b3")
		select {
		case <-bSub:
		case <-ctx.Done():
			t.Fatal("tab b's subscription missed its own load")
		}
		bMu.Lock()
		n = bLoads
		bMu.Unlock()
		if n != 1 {
			t.Fatalf("tab b saw %d load events for one load", n)
		}
		if got, want := next(tabs[0]), "/a3"; got != want {
			t.Fatalf("tab a saw %s, want %s", got, want)
		}
		if got, want := next(tabs[1]), "/b3"; got != want {
			t.Fatalf("tab b saw %s, want %s", got, want)
		}
	})
}

func TestListenSeesEventsBeforeLaterReply(t *testing.T) {
	eachTransport(t, func(t *testing.T, ctx context.Context, conn *cdp.Conn) {
		_, s := newTab(t, ctx, conn, "about:blank")
		var mu sync.Mutex
		var seen []string
		var contexts int
		cancel := s.Listen(func(method string, params jsonv2.Value) {
			mu.Lock()
			defer mu.Unlock()
			switch method {
			case "Runtime.executionContextCreated":
				contexts++
			case "Runtime.consoleAPICalled":
				var ev runtime.EventConsoleAPICalled
				if jsonv2.Unmarshal(params, &ev) == nil && len(ev.Args) > 0 {
					seen = append(seen, string(ev.Args[0].Value))
				}
			}
		})
		// Runtime.enable reports the existing contexts before it answers.
		if _, err := cdproto.Call(ctx, s, runtime.Enable, cdproto.Empty{}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		n := contexts
		mu.Unlock()
		if n == 0 {
			t.Fatal("Runtime.enable returned before the listener saw executionContextCreated")
		}
		// Each console.log event is seen, in order, by the time its call returns.
		for i := range 20 {
			eval(t, ctx, s, fmt.Sprintf("console.log('m%d')", i))
			mu.Lock()
			got := append([]string(nil), seen...)
			mu.Unlock()
			if len(got) != i+1 || got[i] != fmt.Sprintf(`"m%d"`, i) {
				t.Fatalf("after call %d the listener saw %v", i, got)
			}
		}
		// After cancel the listener sees nothing more.
		cancel()
		eval(t, ctx, s, "console.log('after')")
		mu.Lock()
		defer mu.Unlock()
		if len(seen) != 20 {
			t.Fatalf("listener called after cancel: %v", seen[20:])
		}
	})
}

func TestPerCallDeadline(t *testing.T) {
	srv := site(t)
	eachTransport(t, func(t *testing.T, ctx context.Context, conn *cdp.Conn) {
		_, spin := newTab(t, ctx, conn, "about:blank")
		if _, err := cdproto.Call(ctx, spin, page.Enable, page.EnableParams{}); err != nil {
			t.Fatal(err)
		}
		navigate(t, ctx, spin, srv.URL+"/spin")
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := cdproto.Call(short, spin, runtime.Evaluate, runtime.EvaluateParams{Expression: "for(;;){}"})
		took := time.Since(start)
		if errs.Code(err) != errs.Timeout {
			t.Fatalf("endless evaluate: %v, want code timeout", err)
		}
		if e := errs.As(err); !strings.Contains(e.Message, "Runtime.evaluate") || e.Hint == "" {
			t.Fatalf("timeout error %+v: want the method named and a hint", e)
		}
		// The lower bound is the point; the upper one is generous (a loaded
		// machine is slow) and only tells giving up from hanging.
		if took < 250*time.Millisecond || took > 10*time.Second {
			t.Fatalf("the call gave up after %v, want about 300ms", took)
		}
		// The connection stays usable: another tab works while the first
		// one still spins.
		_, other := newTab(t, ctx, conn, "about:blank")
		if got := eval(t, ctx, other, "6*7"); got != "42" {
			t.Fatalf("other tab: %s", got)
		}
		if _, err := cdproto.Call(ctx, conn.Browser(), browser.GetVersion, cdproto.Empty{}); err != nil {
			t.Fatalf("browser session after a timeout: %v", err)
		}
		// Stop the loop; the late reply of the abandoned call is dropped and
		// the spinning tab answers again.
		if _, err := cdproto.Call(ctx, spin, runtime.TerminateExecution, cdproto.Empty{}); err != nil {
			t.Fatalf("terminateExecution: %v", err)
		}
		if got := eval(t, ctx, spin, "document.title"); got != `"Page /spin"` {
			t.Fatalf("spinning tab after terminate: %s", got)
		}
		if conn.Err() != nil {
			t.Fatalf("connection died: %v", conn.Err())
		}
	})
}

func TestProtocolErrors(t *testing.T) {
	eachTransport(t, func(t *testing.T, ctx context.Context, conn *cdp.Conn) {
		_, s := newTab(t, ctx, conn, "about:blank")
		for _, sess := range []*cdp.Session{conn.Browser(), s} {
			err := sess.Call(ctx, "Nope.noSuchMethod", nil, nil)
			var pe *cdp.ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("session %q: unknown method gave %T %v, want *cdp.ProtocolError", sess.ID(), err, err)
			}
			if pe.Code != -32601 || !strings.Contains(pe.Message, "Nope.noSuchMethod") || !strings.Contains(err.Error(), "(-32601)") {
				t.Fatalf("session %q: %+v", sess.ID(), pe)
			}
		}
		// Bad params are a protocol error too, with the browser's detail.
		err := s.Call(ctx, "Runtime.evaluate", map[string]any{"expression": 5}, nil)
		var pe *cdp.ProtocolError
		if !errors.As(err, &pe) || pe.Code != -32602 {
			t.Fatalf("bad params: %T %v, want a -32602 *cdp.ProtocolError", err, err)
		}
		// A typed call decodes nothing on error and the connection lives on.
		res, err := cdproto.Call(ctx, conn.Browser(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: "NOSUCHTARGET"})
		if !errors.As(err, &pe) || res.TargetInfo != nil {
			t.Fatalf("unknown target: %+v %v", res, err)
		}
		if got := eval(t, ctx, s, "1+1"); got != "2" {
			t.Fatalf("after protocol errors: %s", got)
		}
	})
}

func TestClosingTabEndsItsSession(t *testing.T) {
	eachTransport(t, func(t *testing.T, ctx context.Context, conn *cdp.Conn) {
		id, s := newTab(t, ctx, conn, "about:blank")
		_, keep := newTab(t, ctx, conn, "about:blank")
		events, cancelSub := s.Subscribe("Page.loadEventFired")
		defer cancelSub()
		pending := pendingCall(t, ctx, s)

		if _, err := cdproto.Call(ctx, conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: id}); err != nil {
			t.Fatalf("closeTarget: %v", err)
		}
		select {
		case <-s.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("session Done still open 5s after its tab closed")
		}
		select {
		case err := <-pending:
			if errs.Code(err) != errs.TabNotFound {
				t.Fatalf("pending call on the closed tab: %v, want tab_not_found", err)
			}
		case <-time.After(time.Second):
			t.Fatal("pending call on the closed tab still waiting 1s after its session ended")
		}
		// Its subscriptions end, and new ones end at once.
		waitClosed(t, events, time.Second)
		late, _ := s.Subscribe("Page.loadEventFired")
		waitClosed(t, late, time.Second)
		// A later call on it fails; the other tab and the connection live on.
		callCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if _, err := cdproto.Call(callCtx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: "1"}); err == nil {
			t.Fatal("call on a closed tab's session succeeded")
		}
		if got := eval(t, ctx, keep, "'alive'"); got != `"alive"` {
			t.Fatalf("other tab: %s", got)
		}
		select {
		case <-keep.Done():
			t.Fatal("the other tab's session ended")
		default:
		}
		if conn.Err() != nil {
			t.Fatalf("connection died with a tab: %v", conn.Err())
		}
	})
}

func TestRoundTrips(t *testing.T) {
	eachTransport(t, func(t *testing.T, ctx context.Context, conn *cdp.Conn) {
		_, s := newTab(t, ctx, conn, "about:blank")
		before := conn.RoundTrips()
		for i := range 5 {
			eval(t, ctx, s, fmt.Sprint(i))
		}
		conn.Browser().Call(ctx, "Nope.noSuchMethod", nil, nil) // answered with an error: still one trip
		if got := conn.RoundTrips() - before; got != 6 {
			t.Fatalf("RoundTrips grew by %d, want 6", got)
		}
	})
}

func TestCloseFailsCalls(t *testing.T) {
	eachFreshTransport(t, func(t *testing.T, ctx context.Context, conn *cdp.Conn, _ func()) {
		_, s := newTab(t, ctx, conn, "about:blank")
		pending := pendingCall(t, ctx, s)
		closed := time.Now()
		conn.Close()
		select {
		case err := <-pending:
			if errs.Code(err) != errs.BrowserUnavailable {
				t.Fatalf("pending call at Close: %v, want browser_unavailable", err)
			}
		case <-time.After(time.Second):
			t.Fatal("pending call still waiting 1s after Close")
		}
		if d := time.Since(closed); d > time.Second {
			t.Fatalf("pending call failed %v after Close", d)
		}
		for _, done := range []<-chan struct{}{conn.Done(), s.Done(), conn.Browser().Done()} {
			select {
			case <-done:
			default:
				t.Fatal("a Done channel is open after Close")
			}
		}
		if e := errs.As(conn.Err()); e.Code != errs.BrowserUnavailable || e.Hint == "" {
			t.Fatalf("Err after Close: %+v", e)
		}
		trips := conn.RoundTrips()
		for _, sess := range []*cdp.Session{conn.Browser(), s} {
			start := time.Now()
			_, err := cdproto.Call(ctx, sess, browser.GetVersion, cdproto.Empty{})
			// Generous "at once": a loaded machine is slow; hanging is what it catches.
			if errs.Code(err) != errs.BrowserUnavailable || time.Since(start) > 10*time.Second {
				t.Fatalf("call after Close: %v after %v, want browser_unavailable at once", err, time.Since(start))
			}
		}
		if got := conn.RoundTrips() - trips; got != 0 {
			t.Fatalf("calls refused after Close counted %d round trips", got)
		}
		late, _ := s.Subscribe("Page.loadEventFired")
		waitClosed(t, late, time.Second)
		if err := conn.Close(); errs.Code(conn.Err()) != errs.BrowserUnavailable {
			t.Fatalf("second Close changed Err: %v / %v", err, conn.Err())
		}
	})
}

// Closing a WebSocket connection leaves the attached browser running.
func TestCloseLeavesAttachedBrowserRunning(t *testing.T) {
	ctx := testCtx(t)
	_, db := sharedBrowsers(t)
	first, err := launch.Attach(ctx, db.HTTPURL)
	if err != nil {
		t.Fatal(err)
	}
	created, err := cdproto.Call(ctx, first.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank#kept"})
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	second, err := launch.Attach(ctx, db.WSURL)
	if err != nil {
		t.Fatalf("reattach after Close: %v", err)
	}
	defer second.Close()
	info, err := cdproto.Call(ctx, second.Browser(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: created.TargetID})
	if err != nil || info.TargetInfo.URL != "about:blank#kept" {
		t.Fatalf("the tab made on the first connection: %+v %v", info.TargetInfo, err)
	}
	select {
	case <-db.Exited():
		t.Fatal("the browser exited when a client closed its connection")
	default:
	}
}

func TestDyingBrowserFailsPendingCalls(t *testing.T) {
	eachFreshTransport(t, func(t *testing.T, ctx context.Context, conn *cdp.Conn, kill func()) {
		_, s := newTab(t, ctx, conn, "about:blank")
		_, s2 := newTab(t, ctx, conn, "about:blank")
		events, cancelSub := s.Subscribe("Page.loadEventFired")
		defer cancelSub()
		pending := []<-chan error{pendingCall(t, ctx, s), pendingCall(t, ctx, s), pendingCall(t, ctx, s2)}

		kill()
		killed := time.Now()
		for i, p := range pending {
			select {
			case err := <-p:
				if errs.Code(err) != errs.BrowserUnavailable {
					t.Fatalf("pending call %d: %v, want browser_unavailable", i, err)
				}
			case <-time.After(time.Second - time.Since(killed)):
				t.Fatalf("pending call %d still waiting 1s after the browser died", i)
			}
		}
		select {
		case <-conn.Done():
		case <-time.After(time.Second):
			t.Fatal("connection Done open 1s after the browser died")
		}
		select {
		case <-s.Done():
		default:
			t.Fatal("session Done open after the connection died")
		}
		waitClosed(t, events, time.Second)
		if _, err := cdproto.Call(ctx, conn.Browser(), browser.GetVersion, cdproto.Empty{}); errs.Code(err) != errs.BrowserUnavailable {
			t.Fatalf("later call: %v, want browser_unavailable", err)
		}
	})
}

// killPid kills the process pid the way a crash would (SIGKILL on Unix,
// TerminateProcess on Windows).
func killPid(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
