package launch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/errs"
)

func TestFindResolvesRealBinary(t *testing.T) {
	p, err := Find()
	if err != nil {
		t.Fatalf("no browser: %v", err)
	}
	if isScript(p) {
		t.Fatalf("Find returned the wrapper script %s, want the real binary", p)
	}
}

func TestFindHonoursEnvAndReportsMissing(t *testing.T) {
	t.Setenv(EnvChrome, "/nonexistent/chrome")
	_, err := Find()
	if errs.Code(err) != errs.BrowserNotFound || !strings.Contains(err.Error(), EnvChrome) {
		t.Fatalf("got %v, want browser_not_found naming %s", err, EnvChrome)
	}
}

func TestStartEvaluateAndDieCleanly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !strings.Contains(b.Version, "/") {
		t.Fatalf("version %q", b.Version)
	}
	created, err := cdproto.Call(ctx, b.Conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Conn.Attach(ctx, created.TargetID)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: "6*7", ReturnByValue: ptr(true)})
	if err != nil || string(res.Result.Value) != "42" {
		t.Fatalf("evaluate: %v %s", err, res.Result.Value)
	}

	// A call that never answers (the page spins) must fail when the browser
	// dies, with browser_unavailable, not wait for its deadline (the bound
	// below is far from that deadline, and far above the milliseconds it
	// takes on a quiet machine: a loaded one reaps the renderers slowly). The page tells a fixture
	// server, with a synchronous request, that it is about to spin.
	spinning := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case spinning <- struct{}{}:
		default:
		}
	}))
	defer srv.Close()
	spin := "var x = new XMLHttpRequest(); x.open('GET', " + strconv.Quote(srv.URL) + ", false); try { x.send() } catch (e) {}; for(;;){}"
	errc := make(chan error, 1)
	go func() {
		_, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: spin})
		errc <- err
	}()
	select {
	case <-spinning:
	case <-time.After(10 * time.Second):
		t.Fatal("the page never reached its endless loop")
	}
	if p, err := os.FindProcess(b.Pid()); err == nil {
		p.Kill()
	}
	killed := time.Now()
	select {
	case err := <-errc:
		if errs.Code(err) != errs.BrowserUnavailable {
			t.Fatalf("pending call: %v, want browser_unavailable", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("pending call still waiting %v after the browser died", time.Since(killed))
	}
	if _, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: "1"}); errs.Code(err) != errs.BrowserUnavailable {
		t.Fatalf("later call: %v, want browser_unavailable", err)
	}
	b.Close()
	if _, err := os.Stat(b.DataDir()); !os.IsNotExist(err) {
		t.Fatalf("profile dir %s still exists", b.DataDir())
	}
}

func ptr[T any](v T) *T { return &v }
