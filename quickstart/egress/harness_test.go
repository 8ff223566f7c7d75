package egress

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// proxyClient is an HTTP client whose every request goes through the proxy
// at pu, the key header set when key is not empty.
func proxyGet(t *testing.T, pu *url.URL, target, key string) (int, string) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
	req, _ := http.NewRequest(http.MethodGet, target, nil)
	if key != "" {
		req.Header.Set(HarnessKeyHeader, key)
	}
	r, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, string(b)
}

// The harness's host answers only a request with the running check's key;
// without a key, with a wrong one, or when no check runs, it is refused and
// the refusal is recorded (without the key).
func TestQSHarnessHostNeedsCheckKey(t *testing.T) {
	t.Parallel()
	key := ""
	rec := &recorder{}
	p := &Proxy{OnEvent: rec.add, HarnessKey: func() string { return key },
		Harness: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok: harness") })}
	pu := startProxy(t, p, nil)
	target := "http://" + HarnessHost + "/expect?url=http://127.0.0.1:1/&text=x"
	for _, c := range []struct{ name, running, sent string }{
		{"no check running, no key", "", ""},
		{"no check running, a guessed key", "", "guess"},
		{"a check running, no key", "k-123", ""},
		{"a check running, a wrong key", "k-123", "k-124"},
	} {
		key = c.running
		if code, body := proxyGet(t, pu, target, c.sent); code != 403 || !strings.Contains(body, "answers only the success check") {
			t.Errorf("%s: %d %q", c.name, code, body)
		}
	}
	key = "k-123"
	if code, body := proxyGet(t, pu, target, "k-123"); code != 200 || body != "ok: harness" {
		t.Errorf("with the key: %d %q", code, body)
	}
	want := strings.Repeat("egress_blocked tabwright-harness.invalid GET harness_needs_check_key\n", 4) + "egress_allowed tabwright-harness.invalid GET harness_check"
	if got := rec.String(); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(rec.String(), "k-123") {
		t.Error("the key reached the record")
	}
}

// The proxy never reaches the harness machine's loopback: a loopback host is
// refused even when the task names it, and an allowed name that resolves to
// loopback fails at the dial. With Loopback set (the check's browser),
// loopback goes to the sandbox's loopback instead.
func TestQSProxyNeverReachesHostLoopback(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); fmt.Fprint(w, "HOST-LOOPBACK-SECRET") }))
	defer host.Close()
	_, port, _ := net.SplitHostPort(host.Listener.Addr().String())
	rec := &recorder{}
	p := &Proxy{Policy: Policy{Explicit: []string{"127.0.0.1", "127.0.0.2", "localhost", "::1", "0.0.0.0"}}, OnEvent: rec.add}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go p.Serve(ln)
	defer p.Close()
	pu, _ := url.Parse("http://" + ln.Addr().String())
	for _, h := range []string{"127.0.0.1", "localhost", "127.0.0.2", "[::1]", "0.0.0.0"} {
		if code, body := proxyGet(t, pu, "http://"+h+":"+port+"/", ""); code != 403 || !strings.Contains(body, "loopback of the harness's machine") {
			t.Errorf("%s: %d %q", h, code, body)
		}
	}
	if err := refuseHostLocal("tcp", "127.0.0.1:"+port, nil); err == nil {
		t.Error("the dialer would reach the host's loopback")
	}
	if err := refuseHostLocal("tcp", "169.254.169.254:80", nil); err == nil {
		t.Error("the dialer would reach a link-local address")
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the host's loopback server was reached %d times", n)
	}

	// With Loopback, the same requests go to the sandbox's side instead.
	inside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "sandbox app on ", r.Host) }))
	defer inside.Close()
	var asked atomic.Int32
	p2 := &Proxy{OnEvent: rec.add, Loopback: func(ctx context.Context, port int) (net.Conn, error) {
		asked.Store(int32(port))
		return net.Dial("tcp", inside.Listener.Addr().String())
	}}
	ln2, _ := net.Listen("tcp", "127.0.0.1:0")
	go p2.Serve(ln2)
	defer p2.Close()
	pu2, _ := url.Parse("http://" + ln2.Addr().String())
	if code, body := proxyGet(t, pu2, "http://127.0.0.1:"+port+"/", ""); code != 200 || !strings.HasPrefix(body, "sandbox app on 127.0.0.1:"+port) {
		t.Errorf("loopback into the sandbox: %d %q", code, body)
	}
	if fmt.Sprint(asked.Load()) != port || hits.Load() != 0 {
		t.Errorf("asked for port %d, host hits %d", asked.Load(), hits.Load())
	}
	if !strings.Contains(rec.String(), "egress_allowed 127.0.0.1 GET sandbox_loopback") {
		t.Errorf("events: %s", rec.String())
	}
}

// The host's own non-loopback addresses and private networks are refused
// like loopback, whether the task names the address or an allowed name
// resolves to it (issue 44); a public address is not.
func TestQSProxyNeverReachesHostAddressesOrPrivateNetworks(t *testing.T) {
	t.Parallel()
	own := ownNonLoopbackIP(t)
	var hits atomic.Int32
	ln, err := net.Listen("tcp", net.JoinHostPort(own, "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); fmt.Fprint(w, "HOST-SECRET") }))
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	rec := &recorder{}
	p := &Proxy{Policy: Policy{Explicit: []string{own, "10.1.2.3"}}, OnEvent: rec.add}
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go p.Serve(pln)
	defer p.Close()
	pu, _ := url.Parse("http://" + pln.Addr().String())
	if code, body := proxyGet(t, pu, "http://"+net.JoinHostPort(own, port)+"/", ""); code != 403 || !strings.Contains(body, "private network") {
		t.Errorf("the host's own %s: %d %q", own, code, body)
	}
	if hits.Load() != 0 {
		t.Errorf("the host's server was reached %d times", hits.Load())
	}
	// A name that resolves to these addresses is stopped at the dial.
	for _, addr := range []string{net.JoinHostPort(own, port), "10.1.2.3:80", "192.168.1.1:80", "172.16.0.1:80", "100.64.0.1:80", "[fd00::1]:80"} {
		if err := refuseHostLocal("tcp", addr, nil); err == nil {
			t.Errorf("the dialer would reach %s", addr)
		}
	}
	if err := refuseHostLocal("tcp", "93.184.215.14:443", nil); err != nil {
		t.Errorf("a public address is refused: %v", err)
	}
}

// ownNonLoopbackIP is an address of one of this machine's interfaces other
// than loopback; CI's machine has one, and the test fails without it.
func ownNonLoopbackIP(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	t.Fatalf("this machine has no non-loopback IPv4 address to test with: %v", addrs)
	return ""
}
