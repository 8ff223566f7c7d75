package egress

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

func TestQSPolicyOrder(t *testing.T) {
	p := Policy{Explicit: []string{"pypi.org"}, Docs: []string{"pypi.org", "example.com"}, Allow: []string{"pypi.org", "npmjs.org", "example.com"}}
	for _, c := range []struct {
		host   string
		reason Reason
		ok     bool
	}{
		{"pypi.org", ReasonExplicit, true},          // named by hand beats docs
		{"docs.example.com", ReasonDocsHost, false}, // docs beats the registry list
		{"registry.npmjs.org", ReasonAllowlisted, true},
		{"notnpmjs.org", ReasonNotListed, false},
		{"npmjs.org.evil.test", ReasonNotListed, false},
		{"127.0.0.1", ReasonNotListed, false},
	} {
		if ok, why := p.Decide(c.host); ok != c.ok || why != c.reason {
			t.Errorf("%s: %v %s, want %v %s", c.host, ok, why, c.ok, c.reason)
		}
	}
}

type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(typ string, f map[string]any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf("%s %v %v %v", typ, f["host"], f["method"], f["reason"]))
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.events, "\n")
}

// startProxy serves p on loopback and maps every *.test host to target.
func startProxy(t *testing.T, p *Proxy, targets map[string]string) *url.URL {
	t.Helper()
	p.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		a, ok := targets[addr]
		if !ok {
			return nil, fmt.Errorf("no test server for %s", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, a)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go p.Serve(ln)
	t.Cleanup(func() { p.Close() })
	u, _ := url.Parse("http://" + ln.Addr().String())
	return u
}

func TestQSProxyPlainAndConnect(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "pkg %s host %s proxy-hdr %q", r.URL.Path, r.Host, r.Header.Get("Proxy-Connection"))
	}))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "tls ok") }))
	defer secure.Close()
	rec := &recorder{}
	p := &Proxy{Policy: Policy{Docs: []string{"docs.test"}, Allow: []string{"registry.test"}}, OnEvent: rec.add}
	pu := startProxy(t, p, map[string]string{"registry.test:80": plain.Listener.Addr().String(), "registry.test:443": secure.Listener.Addr().String(),
		"broken.test:80": "127.0.0.1:1"})
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	get := func(u string) (int, string) {
		t.Helper()
		r, err := c.Get(u)
		if err != nil {
			return 0, err.Error()
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(b)
	}
	if code, body := get("http://registry.test/simple/x/"); code != 200 || body != `pkg /simple/x/ host registry.test proxy-hdr ""` {
		t.Errorf("plain: %d %q", code, body)
	}
	if code, body := get("https://registry.test/"); code != 200 || body != "tls ok" {
		t.Errorf("connect: %d %q", code, body)
	}
	if code, body := get("http://evil.test/x"); code != 403 || !strings.HasPrefix(body, "blocked from the shell: evil.test") {
		t.Errorf("refused: %d %q", code, body)
	}
	if code, body := get("http://docs.test/x"); code != 403 || !strings.Contains(body, "read_docs") {
		t.Errorf("docs: %d %q", code, body)
	}
	if code, _ := get("https://evil.test/"); code != 0 {
		t.Errorf("CONNECT to a refused host must fail the client: %d", code)
	}
	p.Policy.Allow = append(p.Policy.Allow, "broken.test")
	if code, body := get("http://broken.test/"); code != 502 || !strings.Contains(body, "upstream connection to broken.test failed") {
		t.Errorf("upstream error: %d %q", code, body)
	}
	want := "egress_allowed registry.test GET allowlisted\negress_allowed registry.test CONNECT allowlisted\negress_blocked evil.test GET not_allowlisted\n" +
		"egress_blocked docs.test GET docs_host_requires_read_docs\negress_blocked evil.test CONNECT not_allowlisted\negress_error broken.test GET <nil>"
	if got := rec.String(); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
	// A request that is not a proxy request (no absolute URL) is refused.
	conn, err := net.Dial("tcp", pu.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /x HTTP/1.1\r\nHost: registry.test\r\n\r\n")
	b, _ := io.ReadAll(conn)
	if !strings.HasPrefix(string(b), "HTTP/1.1 403") || !strings.Contains(string(b), "(relative-url)") {
		t.Errorf("relative: %q", b)
	}
}
