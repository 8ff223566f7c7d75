package launch

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/internal/testbrowser"
)

func TestEndpoint(t *testing.T) {
	good := []struct{ raw, hostPort string }{
		{"http://127.0.0.1:9222", "127.0.0.1:9222"},
		{"http://127.0.0.1:9222/", "127.0.0.1:9222"},
		{"http://localhost:9222", "localhost:9222"},
		{"https://devtools.example:443", "devtools.example:443"},
		{"http://[::1]:9222", "[::1]:9222"},
		{"ws://127.0.0.1:9222/devtools/browser/7b0c6a3e-3c5d-4d7e-9f1a-1b2c3d4e5f60", "127.0.0.1:9222"},
		{"wss://devtools.example:9443/devtools/browser/abc", "devtools.example:9443"},
	}
	for _, c := range good {
		got, err := Endpoint(c.raw)
		if err != nil || got != c.hostPort {
			t.Errorf("Endpoint(%q) = %q, %v; want %q", c.raw, got, err, c.hostPort)
		}
	}
	bad := []struct{ raw, msg string }{
		{"", "is not a URL"},
		{"127.0.0.1:9222", "is not a URL"}, // no scheme
		{"localhost:9222", "is not a URL"}, // parses as scheme "localhost"
		{"9222", "is not a URL"},
		{"http://", "is not a URL"},
		{"file:///tmp/DevToolsActivePort", "is not a URL"},
		{"http://127.0.0.1:9222/%zz", "is not a URL"},
		{"ftp://127.0.0.1:9222", `scheme "ftp" is not supported`},
		{"chrome://127.0.0.1:9222", `scheme "chrome" is not supported`},
	}
	for _, c := range bad {
		got, err := Endpoint(c.raw)
		e := errs.As(err)
		if err == nil || e.Code != errs.InvalidInput || e.Path != "cdp_url" || !strings.Contains(e.Message, c.msg) {
			t.Errorf("Endpoint(%q) = %q, %v; want invalid_input at cdp_url ~%q", c.raw, got, err, c.msg)
		}
	}
}

// A bad URL is refused before any connection is tried.
func TestAttachRejectsBadURL(t *testing.T) {
	for _, raw := range []string{"localhost:9222", "ftp://127.0.0.1:9222"} {
		conn, err := Attach(context.Background(), raw)
		if e := errs.As(err); conn != nil || e.Code != errs.InvalidInput || e.Path != "cdp_url" {
			t.Errorf("Attach(%q) = %v, %v; want invalid_input at cdp_url", raw, conn, err)
		}
	}
}

func TestAttachUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	for _, c := range []struct{ raw, hint string }{
		{"http://" + addr, "--remote-debugging-port"},
		{"ws://" + addr + "/devtools/browser/x", "running"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		start := time.Now()
		conn, err := Attach(ctx, c.raw)
		cancel()
		e := errs.As(err)
		if conn != nil || e.Code != errs.BrowserUnavailable {
			t.Fatalf("Attach(%s) = %v, %v; want browser_unavailable", c.raw, conn, err)
		}
		if !strings.Contains(e.Hint, c.hint) || !strings.Contains(e.Message, addr) {
			t.Fatalf("Attach(%s): %+v; want the address in the message and a hint about %q", c.raw, e, c.hint)
		}
		// Generous (a loaded machine is slow): it catches retrying, not speed.
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("Attach(%s) took %v to find nothing listening", c.raw, d)
		}
	}
}

// Something answers on the port, but it is not a DevTools endpoint.
func TestAttachNotDevTools(t *testing.T) {
	var srvURL string
	for _, c := range []struct {
		name    string
		handler http.HandlerFunc
		msg     string
	}{
		{"missing", http.NotFound, "HTTP 404"},
		{"html", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>hi</html>") }, "invalid character"},
		{"nows", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"Browser":"X/1"}`) }, "no webSocketDebuggerUrl"},
		{"badws", func(w http.ResponseWriter, r *http.Request) {
			json.NewEncoder(w).Encode(map[string]string{"webSocketDebuggerUrl": strings.Replace(srvURL, "http", "ws", 1) + "/not-a-socket"})
		}, "connecting to ws://"},
	} {
		mux := http.NewServeMux()
		mux.HandleFunc("/json/version", c.handler)
		srv := httptest.NewServer(mux)
		srvURL = srv.URL
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, err := Attach(ctx, srv.URL)
		cancel()
		srv.Close()
		e := errs.As(err)
		if conn != nil || e.Code != errs.BrowserUnavailable || !strings.Contains(e.Message, c.msg) || e.Hint == "" {
			t.Errorf("Attach(%s) = %v, %v; want browser_unavailable ~%q with a hint", c.name, conn, err, c.msg)
		}
	}
}

// Only the scheme and host of an http URL matter, in any letter case.
func TestAttachIgnoresPathAndCase(t *testing.T) {
	httpURL, _ := startDebugPortBrowser(t)
	for _, raw := range []string{strings.Replace(httpURL, "http://", "HTTP://", 1), httpURL + "/devtools", httpURL + "?x=1", httpURL + "/"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, err := Attach(ctx, raw)
		cancel()
		if err != nil {
			t.Fatalf("Attach(%s): %v", raw, err)
		}
		conn.Close()
	}
}

func TestAttachRealBrowser(t *testing.T) {
	httpURL, wsURL := startDebugPortBrowser(t)
	resp, err := http.Get(httpURL + "/json/version")
	if err != nil {
		t.Fatal(err)
	}
	var want struct{ Browser string }
	json.NewDecoder(resp.Body).Decode(&want)
	resp.Body.Close()
	for _, raw := range []string{httpURL, httpURL + "/", wsURL} {
		hostPort, err := Endpoint(raw)
		if err != nil || "http://"+hostPort != httpURL {
			t.Fatalf("Endpoint(%s) = %s, %v", raw, hostPort, err)
		}
		// The connection outlives the context it was made with (the
		// manager attaches inside a tool call's context).
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, err := Attach(ctx, raw)
		cancel()
		if err != nil {
			t.Fatalf("Attach(%s): %v", raw, err)
		}
		ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
		ver, err := cdproto.Call(ctx, conn.Browser(), browser.GetVersion, cdproto.Empty{})
		cancel()
		if err != nil || ver.Product != want.Browser {
			t.Fatalf("Attach(%s): version %q, %v; want %q", raw, ver.Product, err, want.Browser)
		}
		if conn.RoundTrips() != 1 {
			t.Fatalf("Attach(%s) sent %d commands before ours, want none", raw, conn.RoundTrips()-1)
		}
		conn.Close()
	}
}

// startDebugPortBrowser starts headless Chromium with --remote-debugging-port
// and returns its http:// endpoint and browser WebSocket URL, read from
// DevToolsActivePort. The browser is killed when the test ends.
func startDebugPortBrowser(t *testing.T) (httpURL, wsURL string) {
	t.Helper()
	path, err := FindHeadless()
	if err != nil {
		t.Fatalf("no browser to test with: %v", err)
	}
	b, err := testbrowser.Start(path, "0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Kill)
	return b.HTTPURL, b.WSURL
}
