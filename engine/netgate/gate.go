package netgate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
)

// Options configure a gate.
type Options struct {
	Policy Policy
	// Upstream is the proxy requests go out through (--proxy-server, its
	// user name and password included); nil dials the target itself.
	Upstream *url.URL
	// Bypass are hosts that skip Upstream (--proxy-bypass); loopback
	// always does, as in Chromium.
	Bypass []string
	// Refuse is the caller's own rule, checked after Policy: why t may not
	// go, "" when it may (qs's agent browser: the sandbox's loopback only).
	Refuse func(t Target) string
	// Dial reaches a target the rules let through, instead of the network
	// or Upstream (qs's agent browser: a port inside the sandbox).
	Dial func(ctx context.Context, t Target) (net.Conn, error)
	// OnRefused is told of each refusal and the URL the browser asked for
	// (qs records it in the run's trace).
	OnRefused func(t Target, rawURL string)
	// RefusalPage answers a refused page request with a 403 page that
	// says why, not a dropped connection: for an agent, which reads the
	// page to learn what to do instead.
	RefusalPage bool
}

// Gate is a running gate.
type Gate struct {
	opt      Options
	ln       net.Listener
	srv      *http.Server
	forward  *http.Transport
	upstream dialFunc

	mu      sync.Mutex
	refused map[string]string // host:port → why, the latest refusals
}

// maxRemembered bounds the refusals kept to explain failed requests.
const maxRemembered = 256

// Start listens on a loopback port and serves until Close.
func Start(opt Options) (*Gate, error) {
	up, err := upstreamDialer(opt.Upstream)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errs.Wrap(errs.BrowserUnavailable, err, "starting the network gate").WithHint("the gate listens on 127.0.0.1: check that loopback works here, or leave out --allowed-origins, --blocked-origins and the proxy password")
	}
	g := &Gate{opt: opt, ln: ln, upstream: up, refused: map[string]string{}}
	g.forward = &http.Transport{
		Proxy:                 g.proxyFor,
		DialContext:           g.forwardDialer(),
		ResponseHeaderTimeout: 5 * time.Minute,
		IdleConnTimeout:       30 * time.Second,
	}
	g.srv = &http.Server{Handler: g, ReadHeaderTimeout: 30 * time.Second}
	go g.srv.Serve(ln)
	return g, nil
}

// BrowserArgs point a browser at the gate for every request: loopback is
// not left out (Chromium's default), and WebRTC may not go around it.
func (g *Gate) BrowserArgs() []string {
	return []string{
		"--proxy-server=http://" + g.ln.Addr().String(),
		"--proxy-bypass-list=<-loopback>",
		"--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
	}
}

// Close stops the gate and the connections it holds.
func (g *Gate) Close() {
	g.srv.Close()
	g.forward.CloseIdleConnections()
}

// Refusal says why requests to rawURL's host and port were refused, or "".
func (g *Gate) Refusal(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	t := TargetOf(u)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refused[hostPort(t)]
}

func (g *Gate) remember(t Target, why string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.refused) >= maxRemembered {
		clear(g.refused)
	}
	g.refused[hostPort(t)] = why
}

func hostPort(t Target) string { return net.JoinHostPort(t.Host, strconv.Itoa(t.Port)) }

// ServeHTTP takes the browser's proxy requests: tunnels (CONNECT, for
// https and every WebSocket) and plain http requests.
func (g *Gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		g.tunnel(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Host == "" {
		http.Error(w, "tabwright's network gate only forwards proxy requests", http.StatusBadRequest)
		return
	}
	t := TargetOf(r.URL)
	if why := g.check(t, r.URL.String()); why != "" {
		if g.opt.RefusalPage {
			http.Error(w, "tabwright: "+why, http.StatusForbidden)
			return
		}
		dropConnection(w) // a network error in the page, not a page of ours
		return
	}
	g.relay(w, r)
}

// check applies the policy and the caller's rule to t; a refusal is
// remembered (for the tab's logs) and told. It returns why, or "".
func (g *Gate) check(t Target, rawURL string) string {
	why := g.opt.Policy.Refusal(t)
	if why == "" && g.opt.Refuse != nil {
		why = g.opt.Refuse(t)
	}
	if why == "" {
		return ""
	}
	g.remember(t, why)
	if g.opt.OnRefused != nil {
		g.opt.OnRefused(t, rawURL)
	}
	return why
}

// relay forwards a plain http request and copies the answer back.
func (g *Gate) relay(w http.ResponseWriter, r *http.Request) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	resp, err := g.forward.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	copyBody(w, resp)
}

// copyBody copies a response to the page. A streamed one (no length, or
// server-sent events) is flushed as it comes, as httputil.ReverseProxy
// does, so a dev server's live updates reach the page as they are sent.
func copyBody(w http.ResponseWriter, resp *http.Response) {
	if resp.ContentLength != -1 && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		io.Copy(w, resp.Body)
		return
	}
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			rc.Flush()
		}
		if err != nil {
			return
		}
	}
}

// tunnel checks a CONNECT target, then joins the two connections.
func (g *Gate) tunnel(w http.ResponseWriter, r *http.Request) {
	host, portText, err := net.SplitHostPort(r.Host)
	port, _ := strconv.Atoi(portText)
	if err != nil || port == 0 {
		http.Error(w, "CONNECT needs host:port", http.StatusBadRequest)
		return
	}
	t := Target{Host: host, Port: port}
	if why := g.check(t, r.URL.String()); why != "" {
		http.Error(w, "refused by tabwright: "+why, http.StatusForbidden)
		return
	}
	upstream, err := g.dial(r.Context(), t)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	client, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	client.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	go splice(upstream, client, buf.Reader)
}

// splice copies both ways until either side ends.
func splice(upstream, client net.Conn, pending io.Reader) {
	done := make(chan struct{}, 2)
	go func() { io.Copy(upstream, pending); done <- struct{}{} }()
	go func() { io.Copy(client, upstream); done <- struct{}{} }()
	<-done
	upstream.Close()
	client.Close()
	<-done
}

// dropConnection ends a request's connection without an answer.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		http.Error(w, "refused", http.StatusForbidden)
		return
	}
	conn.Close()
}

// dial reaches t: directly when it is loopback or bypassed, else through
// the upstream proxy when there is one.
func (g *Gate) dial(ctx context.Context, t Target) (net.Conn, error) {
	if g.opt.Dial != nil {
		return g.opt.Dial(ctx, t)
	}
	addr := hostPort(t)
	if g.upstream == nil || g.skipsUpstream(t.Host) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
	conn, err := g.upstream(ctx, addr)
	if err != nil {
		return nil, errors.New("the upstream proxy: " + err.Error())
	}
	return conn, nil
}

// proxyFor is the plain-request transport's proxy choice.
func (g *Gate) proxyFor(r *http.Request) (*url.URL, error) {
	if g.opt.Upstream == nil || g.opt.Dial != nil || g.skipsUpstream(r.URL.Hostname()) {
		return nil, nil
	}
	return g.opt.Upstream, nil
}

// forwardDialer is how page requests (not tunnels) reach their target:
// Options.Dial when set, else the network.
func (g *Gate) forwardDialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	if g.opt.Dial == nil {
		return (&net.Dialer{Timeout: 30 * time.Second}).DialContext
	}
	return func(ctx context.Context, _, addr string) (net.Conn, error) {
		host, portText, err := net.SplitHostPort(addr)
		port, perr := strconv.Atoi(portText)
		if err != nil || perr != nil {
			return nil, fmt.Errorf("netgate.bad_address: %q is not host:port", addr)
		}
		return g.opt.Dial(ctx, Target{Host: host, Port: port})
	}
}
