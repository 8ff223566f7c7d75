package netgate

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
)

func TestRulesMatch(t *testing.T) {
	rules, err := ParseRules("--blocked-origins", "https://bank.example; *.ads.example,http://127.0.0.1:8080;localhost:3000")
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{Blocked: rules}
	for _, c := range []struct {
		t       Target
		refused bool
	}{
		{Target{"https", "bank.example", 443}, true},
		{Target{"", "bank.example", 443}, true},      // a tunnel: https or wss
		{Target{"http", "bank.example", 80}, false},  // another origin
		{Target{"https", "BANK.example", 443}, true}, // hosts ignore case
		{Target{"", "tracker.ads.example", 443}, true},
		{Target{"", "ads.example", 80}, true},
		{Target{"", "notads.example", 443}, false},
		{Target{"http", "127.0.0.1", 8080}, true},
		{Target{"ws", "127.0.0.1", 8080}, true}, // a WebSocket to a blocked http origin
		{Target{"http", "127.0.0.1", 8081}, false},
		{Target{"http", "localhost", 3000}, true},
	} {
		if got := p.Refusal(c.t) != ""; got != c.refused {
			t.Errorf("%+v: refused %v, want %v", c.t, got, c.refused)
		}
	}
	allowed, _ := ParseRules("--allowed-origins", "example.com")
	if (Policy{Allowed: allowed}).Refusal(Target{"https", "other.com", 443}) != "not in --allowed-origins" {
		t.Error("an origin outside --allowed-origins went through")
	}
}

func TestRulesRefuseWhatIsNotAnOrigin(t *testing.T) {
	for _, bad := range []string{"ftp://x.example", "https://x.example/path", "x.example:99999", "user@x.example", "*", "https://", "a*b.example"} {
		if bad == "*" {
			continue // "*" is every origin, and valid
		}
		_, err := ParseRules("--allowed-origins", bad)
		if e := errs.As(err); err == nil || e.Path != "--allowed-origins" {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzParseRules(f *testing.F) {
	for _, s := range []string{"https://a.example;*.b.example", "localhost:3000", "[::1]:80", "*", "ws://x:1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		rules, err := ParseRules("--allowed-origins", list)
		if err != nil {
			return
		}
		for _, r := range rules {
			if !r.Any && r.Host == "" {
				t.Fatalf("%q: a rule without a host: %+v", list, r)
			}
			Policy{Allowed: rules}.Refusal(Target{Host: "a.example", Port: 443})
		}
	})
}

// connectProxy wants a password and opens tunnels, sending every name to
// the one server it fronts.
func connectProxy(t *testing.T, user, password, backend string) *httptest.Server {
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect || r.Header.Get("Proxy-Authorization") != want {
			http.Error(w, "no", http.StatusProxyAuthRequired)
			return
		}
		up, err := net.Dial("tcp", backend)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		client, buf, _ := http.NewResponseController(w).Hijack()
		client.Write([]byte("HTTP/1.1 200 OK\r\n\r\n"))
		go splice(up, client, buf.Reader)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// An https request goes through the gate and then the upstream proxy's
// tunnel, which wants the password the gate was given.
func TestTunnelThroughAProxyWithAPassword(t *testing.T) {
	site := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "secure hello")
	}))
	defer site.Close()
	proxy := connectProxy(t, "agent", "s3cret", strings.TrimPrefix(site.URL, "https://"))
	up, _ := url.Parse(strings.Replace(proxy.URL, "http://", "http://agent:s3cret@", 1))
	for _, c := range []struct {
		upstream *url.URL
		works    bool
	}{{up, true}, {mustParse(proxy.URL), false}} {
		g, err := Start(Options{Upstream: c.upstream})
		if err != nil {
			t.Fatal(err)
		}
		gateURL, _ := url.Parse("http://" + g.ln.Addr().String())
		client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(gateURL), TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
		resp, err := client.Get("https://secure.example/")
		if c.works {
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != "secure hello" {
				t.Fatalf("body %q", body)
			}
		} else if err == nil {
			resp.Body.Close()
			t.Fatal("a tunnel without the password was opened")
		}
		g.Close()
	}
}

func mustParse(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// A caller's rule, dialer and refusal hook: what the rule lets through is
// reached by the caller's dialer (not the network), and a refusal is told
// to the hook and, with RefusalPage, answered by a page that says why.
func TestCallerRuleAndDialer(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "inside "+r.Host)
	}))
	defer site.Close()
	var mu sync.Mutex // the hooks run on the gate's goroutines
	var dialed []Target
	var refused []string
	g, err := Start(Options{
		Refuse: func(t Target) string {
			if t.Host != "app.example" {
				return "only app.example"
			}
			return ""
		},
		Dial: func(ctx context.Context, t Target) (net.Conn, error) {
			mu.Lock()
			dialed = append(dialed, t)
			mu.Unlock()
			return net.Dial("tcp", site.Listener.Addr().String())
		},
		OnRefused: func(t Target, rawURL string) {
			mu.Lock()
			refused = append(refused, t.Host+" "+rawURL)
			mu.Unlock()
		},
		RefusalPage: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	gateURL, _ := url.Parse("http://" + g.ln.Addr().String())
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(gateURL), DisableKeepAlives: true}}
	get := func(u string) (int, string) {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get("http://app.example:3000/"); code != 200 || body != "inside app.example:3000" {
		t.Errorf("allowed: %d %q", code, body)
	}
	if code, body := get("http://docs.example/x"); code != http.StatusForbidden || !strings.Contains(body, "tabwright: only app.example") {
		t.Errorf("refused: %d %q", code, body)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialed) != 1 || dialed[0] != (Target{Host: "app.example", Port: 3000}) {
		t.Errorf("dialed %v", dialed)
	}
	if len(refused) != 1 || refused[0] != "docs.example http://docs.example/x" || g.Refusal("http://docs.example/y") != "only app.example" {
		t.Errorf("refused %v, remembered %q", refused, g.Refusal("http://docs.example/y"))
	}
}

// A streamed response (server-sent events) reaches the page as it is sent:
// the site holds its stream open until the client has read the first
// event, which it could not if the gate waited for the end.
func TestStreamedResponseIsFlushed(t *testing.T) {
	read := make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: one\n\n")
		http.NewResponseController(w).Flush()
		<-read
		fmt.Fprint(w, "data: two\n\n")
	}))
	defer site.Close()
	g, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	gateURL, _ := url.Parse("http://" + g.ln.Addr().String())
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(gateURL)}}
	resp, err := client.Get(site.URL)
	if err != nil {
		close(read)
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	close(read)
	if err != nil || line != "data: one\n" {
		t.Fatalf("first event: %q, %v", line, err)
	}
}
