// Package egress is the harness's forward proxy: the only way out of the
// enforced sandbox. It speaks HTTP CONNECT (tunnels, for HTTPS) and plain
// HTTP with absolute URLs, decides by host name, and reports every decision.
// With a Cache it also keeps immutable registry downloads and serves
// registry mirrors (mirror.go).
//
// Policy, first match wins:
//
//  1. a host named by hand under network.allow or network.only: allowed
//     (explicit_network_override);
//  2. a docs host: refused (docs_host_requires_read_docs): pages are read
//     through read_docs, where they are recorded;
//  3. the registry list (the defaults plus network.allow, or network.only):
//     allowed (allowlisted);
//  4. anything else: refused (not_allowlisted).
//
// Loopback is set apart: the proxy runs on the harness's machine, so a
// loopback host is refused (harness_machine_loopback) whatever the policy
// says, unless Loopback carries it to the sandbox's own loopback (the
// check's browser). The harness's own host answers only the running check.
//
// The proxy is not a security product: for HTTPS it sees only the CONNECT
// host name, and a client that follows a redirect asks the proxy again for
// the new host, which is how a redirect to a refused host is refused.
package egress

import (
	"bufio"
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tabwright/tabwright/engine/netgate"
)

// Proxy is one attempt's egress proxy.
type Proxy struct {
	Policy Policy
	// Decide, when set, decides every host in place of Policy and the
	// loopback rule below: read_docs' browser, whose allowlist changes with
	// each read and may name a loopback docs server (docs/gate.go).
	Decide func(host string) (bool, Reason)
	// OnEvent receives every decision: egress_allowed {host, port, method
	// [, path]}, egress_blocked {host, reason, method}, egress_error {host,
	// error, method}. It may be called from several goroutines at once.
	OnEvent func(typ string, fields map[string]any)
	// Dial reaches an allowed upstream; nil dials the network with a 30 s
	// timeout. Tests point it at loopback servers.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Harness answers plain HTTP requests for HarnessHost (the check's
	// qs_browser_expect) instead of the network, for a request that carries
	// HarnessKey() in HarnessKeyHeader; every other request for that host is
	// refused and recorded (ReasonHarnessKey). nil refuses them all.
	Harness http.Handler
	// HarnessKey is the key of the check now running, "" when none runs.
	HarnessKey func() string
	// Loopback, when set, carries requests for loopback hosts (localhost,
	// 127.0.0.0/8, ::1) to the sandbox's own loopback instead of deciding
	// them by the policy: the check's browser, outside the sandbox, reaches
	// the app the check served there, never the harness machine's loopback.
	Loopback func(ctx context.Context, port int) (net.Conn, error)
	// IdleTimeout ends a tunnel with no traffic either way (default 60 s).
	IdleTimeout time.Duration
	// Cache, when set, keeps immutable registry downloads (plain-HTTP
	// requests, and the registry mirrors) on disk; see mirror.go.
	Cache *Cache
	// Mirrors are the registries mirrored when Cache is set; nil means
	// DefaultMirrors.
	Mirrors []Mirror
	// UpstreamTLS configures HTTPS to the mirrors' upstreams; nil trusts the
	// system's roots. Tests trust their own servers with it.
	UpstreamTLS *tls.Config

	hcOnce sync.Once
	hc     *http.Client
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	lns    []net.Listener
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

func (p *Proxy) event(typ string, fields map[string]any) {
	if p.OnEvent != nil {
		p.OnEvent(typ, fields)
	}
}

func (p *Proxy) dial(ctx context.Context, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if p.Loopback != nil {
		if host, port := splitHostPort(addr, ""); netgate.IsLoopback(host) {
			n, err := strconv.Atoi(port)
			if err != nil {
				return nil, fmt.Errorf("no port in %q", addr)
			}
			return p.Loopback(ctx, n)
		}
	}
	if p.Dial != nil {
		return p.Dial(ctx, "tcp", addr)
	}
	return DialNotHostLocal(ctx, "tcp", addr)
}

// DialNotHostLocal dials addr unless it resolves to an address of the
// harness's own machine (see refuseHostLocal).
func DialNotHostLocal(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Control: refuseHostLocal}
	return d.DialContext(ctx, network, addr)
}

// refuseHostLocal stops a dial to the harness machine's own addresses and
// its networks: an allowed name (or address) that resolves to loopback, to
// 0.0.0.0 (which Linux takes as loopback), to a link-local address (a
// cloud's metadata service), to any address of the host's own interfaces,
// or to a private network (RFC 1918, IPv6 unique local, carrier-grade NAT)
// must not lead the sandbox to services only the host or its network can
// reach. A task file is untrusted, and its network.allow is its word.
func refuseHostLocal(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if why := hostLocal(net.ParseIP(host)); why != "" {
		return fmt.Errorf("%s is %s, which the sandbox never reaches", host, why)
	}
	return nil
}

// carrierNAT is 100.64.0.0/10 (RFC 6598), private in practice though
// net.IP.IsPrivate leaves it out.
var carrierNAT = &net.IPNet{IP: net.IPv4(100, 64, 0, 0), Mask: net.CIDRMask(10, 32)}

// hostLocal says why ip belongs to the harness machine or its private
// network, or "" when it is a public address (or no address).
func hostLocal(ip net.IP) string {
	switch {
	case ip == nil:
		return ""
	case ip.IsLoopback() || ip.IsUnspecified() || ip.IsLinkLocalUnicast():
		return "an address of the harness's own machine"
	case isOwnAddress(ip):
		return "an address of one of the harness machine's own interfaces"
	case ip.IsPrivate() || carrierNAT.Contains(ip):
		return "a private network address (RFC 1918, IPv6 unique local or carrier-grade NAT)"
	}
	return ""
}

// isOwnAddress reports whether ip is assigned to one of this machine's
// interfaces (read at each dial: addresses come and go).
func isOwnAddress(ip net.IP) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// decide is the policy's word on host, with loopback set apart. With
// Loopback set, loopback hosts are the sandbox's and allowed; without it the
// proxy's loopback is the harness machine's, so a loopback host the policy
// would allow (named under network.allow, say) is refused all the same.
func (p *Proxy) decide(host string) (bool, Reason) {
	if p.Decide != nil {
		return p.Decide(host)
	}
	if netgate.IsLoopback(host) && p.Loopback != nil {
		return true, ReasonSandboxLoopback
	}
	ok, reason := p.Policy.Decide(host)
	ip := net.ParseIP(strings.Trim(host, "[]"))
	if ok && (netgate.IsLoopback(host) || ip != nil && ip.IsUnspecified()) {
		return false, ReasonHostLoopback
	}
	if ok && hostLocal(ip) != "" {
		return false, ReasonHostNetwork
	}
	return ok, reason
}

// Serve accepts connections on ln until Close; it returns nil after Close.
func (p *Proxy) Serve(ln net.Listener) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		ln.Close()
		return nil
	}
	p.lns = append(p.lns, ln)
	if p.conns == nil {
		p.conns = map[net.Conn]struct{}{}
	}
	p.mu.Unlock()
	for {
		c, err := ln.Accept()
		if err != nil {
			p.mu.Lock()
			closed := p.closed
			p.mu.Unlock()
			if closed {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("egress: accept: %w", err)
		}
		if !p.track(c, true) {
			c.Close()
			return nil
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.track(c, false)
			defer c.Close()
			p.handle(c)
		}()
	}
}

func (p *Proxy) track(c net.Conn, add bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if add {
		if p.closed {
			return false
		}
		p.conns[c] = struct{}{}
	} else {
		delete(p.conns, c)
	}
	return true
}

// context is cancelled by Close: upstream fetches end with the proxy.
func (p *Proxy) context() context.Context {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx == nil {
		p.ctx, p.cancel = context.WithCancel(context.Background())
		if p.closed {
			p.cancel()
		}
	}
	return p.ctx
}

// EndConnections ends every connection open now, tunnels included, and
// keeps serving: a tunnel decided under one policy carries no request
// under the next.
func (p *Proxy) EndConnections() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

// Close stops the listeners, ends every open connection and waits for
// their handlers.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	if p.cancel != nil {
		p.cancel()
	}
	for _, ln := range p.lns {
		ln.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	if p.hc != nil {
		p.hc.CloseIdleConnections()
	}
	return nil
}

// HarnessHost is the name under which the proxy answers for the harness
// itself (Proxy.Harness); .invalid never resolves anywhere else.
const HarnessHost = "tabwright-harness.invalid"

// HarnessKeyHeader carries the running check's key to HarnessHost.
const HarnessKeyHeader = "X-Tabwright-Check-Key"

// Refusal is the body of a 403, the same words the shell's user sees.
func Refusal(host string, reason Reason) string {
	switch reason {
	case ReasonDocsHost:
		return fmt.Sprintf("blocked from the shell: %s is a documentation host; read its pages with read_docs, which records them\n", host)
	case ReasonHarnessKey:
		return fmt.Sprintf("blocked from the shell: %s answers only the success check while it runs (qs_browser_expect), with the key the harness gave it\n", host)
	case ReasonHostNetwork:
		return fmt.Sprintf("blocked from the shell: %s is an address of the harness's machine or its private network, which the sandbox never reaches, even when the task allows it\n", host)
	case ReasonDocsNotListed, ReasonDocsNoRead:
		return fmt.Sprintf("refused by read_docs: %s is not on this task's documentation allowlist\n", host)
	case ReasonHostLoopback:
		return fmt.Sprintf("blocked from the shell: %s is the loopback of the harness's machine, not the sandbox's; reach your own servers directly, without the proxy\n", host)
	}
	return fmt.Sprintf("blocked from the shell: %s is not on this task's network allowlist (network.allow / network.only)\n", host)
}

func (p *Proxy) handle(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	c.SetReadDeadline(time.Time{})
	if req.Method == http.MethodConnect {
		p.connect(c, br, req)
		return
	}
	if p.isMirrorRequest(req) {
		p.mirror(c, req)
		return
	}
	p.plain(c, req)
}

func splitHostPort(hostport, defPort string) (string, string) {
	if h, port, err := net.SplitHostPort(hostport); err == nil {
		return strings.Trim(h, "[]"), port
	}
	return strings.Trim(hostport, "[]"), defPort
}

func reply(c net.Conn, status int, body string) {
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(body), body)
}

func (p *Proxy) refuse(c net.Conn, host string, reason Reason, method string) {
	p.refusePath(c, host, reason, method, "")
}

// refusePath refuses a plain request, recording its path (never its query,
// which may carry a secret).
func (p *Proxy) refusePath(c net.Conn, host string, reason Reason, method, path string) {
	f := map[string]any{"host": host, "reason": string(reason), "method": method}
	if path != "" {
		f["path"] = path
	}
	p.event("egress_blocked", f)
	reply(c, http.StatusForbidden, Refusal(host, reason))
}

func (p *Proxy) connect(c net.Conn, br *bufio.Reader, req *http.Request) {
	host, port := splitHostPort(req.Host, "443")
	ok, reason := p.decide(host)
	if !ok {
		p.refuse(c, host, reason, "CONNECT")
		return
	}
	up, err := p.dial(context.Background(), net.JoinHostPort(host, port))
	if err != nil {
		p.event("egress_error", map[string]any{"host": host, "error": err.Error(), "method": "CONNECT"})
		reply(c, http.StatusBadGateway, fmt.Sprintf("tabwright proxy: upstream connection to %s failed: %v\n", host, err))
		return
	}
	defer up.Close()
	p.track(up, true)
	defer p.track(up, false)
	n, _ := strconv.Atoi(port)
	p.event("egress_allowed", map[string]any{"host": host, "port": n, "method": "CONNECT", "reason": string(reason)})
	io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	// Bytes the client sent after the request line are already buffered.
	if k := br.Buffered(); k > 0 {
		b, _ := br.Peek(k)
		if _, err := up.Write(b); err != nil {
			return
		}
	}
	p.relay(c, up)
}

// relay copies both ways until either side closes or the tunnel idles.
func (p *Proxy) relay(a, b net.Conn) {
	idle := p.IdleTimeout
	if idle <= 0 {
		idle = 60 * time.Second
	}
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			src.SetReadDeadline(time.Now().Add(idle))
			n, err := src.Read(buf)
			if n > 0 {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	// One side finished; give the other a moment to drain, then end both.
	select {
	case <-done:
	case <-time.After(idle):
	}
}

var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authorization", "Proxy-Authenticate", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func (p *Proxy) plain(c net.Conn, req *http.Request) {
	if req.URL == nil || req.URL.Host == "" {
		p.refuse(c, "(relative-url)", ReasonNotListed, req.Method)
		return
	}
	if req.URL.Scheme != "http" {
		reply(c, http.StatusBadRequest, fmt.Sprintf("tabwright proxy: only http:// is proxied as a plain request, not %s://; HTTPS goes through CONNECT\n", req.URL.Scheme))
		return
	}
	host, port := splitHostPort(req.URL.Host, "80")
	if strings.EqualFold(strings.Trim(host, "."), HarnessHost) {
		p.harness(c, req)
		return
	}
	ok, reason := p.decide(host)
	if !ok {
		p.refusePath(c, host, reason, req.Method, req.URL.Path)
		return
	}
	if p.Cache != nil && reason != ReasonSandboxLoopback && (req.Method == http.MethodGet || req.Method == http.MethodHead) && Immutable(req.URL.Path) {
		p.fetch(c, req, req.URL, "", nil)
		return
	}
	up, err := p.dial(req.Context(), net.JoinHostPort(host, port))
	if err != nil {
		p.event("egress_error", map[string]any{"host": host, "error": err.Error(), "method": req.Method})
		reply(c, http.StatusBadGateway, fmt.Sprintf("tabwright proxy: upstream connection to %s failed: %v\n", host, err))
		return
	}
	defer up.Close()
	p.track(up, true)
	defer p.track(up, false)
	n, _ := strconv.Atoi(port)
	p.event("egress_allowed", map[string]any{"host": host, "port": n, "method": req.Method, "path": req.URL.RequestURI(), "reason": string(reason)})
	for _, h := range hopHeaders {
		req.Header.Del(h)
	}
	req.Host = req.URL.Host
	req.Close = true
	req.RequestURI = ""
	// Write in origin form: the path, with Host carrying the authority.
	out := req.Clone(context.Background())
	if err := out.Write(up); err != nil {
		reply(c, http.StatusBadGateway, fmt.Sprintf("tabwright proxy: sending the request to %s failed: %v\n", host, err))
		return
	}
	// The response goes back byte for byte; the upstream closes after it.
	io.Copy(c, up)
}

// harness answers one request with p.Harness when it carries the running
// check's key; anything else asking for the harness is refused and
// recorded. The key never reaches the record.
func (p *Proxy) harness(c net.Conn, req *http.Request) {
	if !p.keyMatches(req.Header.Get(HarnessKeyHeader)) {
		p.refuse(c, HarnessHost, ReasonHarnessKey, req.Method)
		return
	}
	p.event("egress_allowed", map[string]any{"host": HarnessHost, "method": req.Method, "path": req.URL.Path, "reason": string(ReasonHarness)})
	rw := &bufferedResponse{header: http.Header{}, status: http.StatusOK}
	p.Harness.ServeHTTP(rw, req)
	resp := &http.Response{StatusCode: rw.status, ProtoMajor: 1, ProtoMinor: 1, Header: rw.header, Close: true,
		ContentLength: int64(len(rw.body)), Body: io.NopCloser(strings.NewReader(string(rw.body)))}
	resp.Write(c)
}

func (p *Proxy) keyMatches(got string) bool {
	if p.Harness == nil || p.HarnessKey == nil {
		return false
	}
	want := p.HarnessKey()
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

type bufferedResponse struct {
	header http.Header
	status int
	body   []byte
}

func (b *bufferedResponse) Header() http.Header  { return b.header }
func (b *bufferedResponse) WriteHeader(code int) { b.status = code }
func (b *bufferedResponse) Write(p []byte) (int, error) {
	b.body = append(b.body, p...)
	return len(p), nil
}
