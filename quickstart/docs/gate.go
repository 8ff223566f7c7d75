package docs

import (
	"context"
	"net"
	"net/http"
	"slices"
	"sync"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/netgate"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/quickstart/egress"
)

// Browser is read_docs' browser: a managed Chromium whose only way to the
// network is a proxy the harness owns (the gate). The gate allows the hosts
// of the read under way and nothing else, and records every decision for
// that read.
//
// Why a proxy and not CDP's Fetch interception: Chromium sends every
// request of the profile through its proxy, whatever made it (the page,
// its iframes in other processes, dedicated, shared and service workers,
// WebSockets, each hop of a redirect, preloads), while Fetch sees only the
// targets it was enabled on and never a WebSocket's handshake. Loopback is
// sent through the proxy too (--proxy-bypass-list=<-loopback>), and
// WebRTC is kept from sending UDP around it.
//
// A Browser made otherwise than by NewBrowser has no gate: a reader opens
// its tab there but renders nothing.
type Browser struct {
	Manager *tabs.Manager
	gate    *gate
}

// NewBrowser starts the gate and makes the browser (Chromium itself starts
// at the first use, as tabs.New does).
func NewBrowser() (*Browser, error) {
	g, err := openGate()
	if err != nil {
		return nil, err
	}
	opt := browserOptions()
	opt.Launch.Args = append(opt.Launch.Args, g.chromiumArgs()...)
	m, err := tabs.New(opt)
	if err != nil {
		g.close()
		return nil, err
	}
	return &Browser{Manager: m, gate: g}, nil
}

// Close stops the browser, then its gate.
func (b *Browser) Close() {
	b.Manager.Close()
	b.gate.close()
}

// Request is one request the docs browser made during a read, as the gate
// decided it. An HTTPS request or a WebSocket is a CONNECT to its host: the
// gate sees the host only, which is what the allowlist is about.
type Request struct {
	Host    string        `json:"host"`
	Method  string        `json:"method"`
	Path    string        `json:"path,omitempty"` // plain HTTP only
	Allowed bool          `json:"allowed"`
	Reason  egress.Reason `json:"reason"`
	Error   string        `json:"error,omitempty"` // allowed, but the host could not be reached
}

// maxRequests bounds one read's record; a page that asks for more is told
// by RequestsLeftOut.
const maxRequests = 500

// gate is the proxy in front of the docs browser. A proxy cannot tell
// which tab asked, so one read's window is open at a time, whichever
// reader of the browser it is for (turn); between reads every request is
// refused.
type gate struct {
	proxy *egress.Proxy
	addr  string
	turn  chan struct{} // held while a window is open

	mu     sync.Mutex
	window *window
	last   []string // the allowlist of the last window opened
	used   bool     // a window was open: the browser may hold answers
}

// window is one read's allowlist and what its page asked for.
type window struct {
	allow    []string
	requests []Request
	leftOut  int
	refused  int
}

func openGate() (*gate, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errs.Wrap(errs.BrowserUnavailable, err, "read_docs could not open the proxy its browser goes through").
			WithHint("the harness needs a free port on 127.0.0.1")
	}
	g := &gate{addr: ln.Addr().String(), turn: make(chan struct{}, 1)}
	g.proxy = &egress.Proxy{Decide: g.decide, OnEvent: g.record, Dial: dialDocs}
	go g.proxy.Serve(ln)
	return g, nil
}

// chromiumArgs send every request of the browser through the gate.
func (g *gate) chromiumArgs() []string {
	return []string{
		"--proxy-server=http://" + g.addr,
		// Chromium sends loopback direct unless told otherwise, and the
		// harness machine's loopback is exactly what a page must not reach.
		"--proxy-bypass-list=<-loopback>",
		// WebRTC's UDP would not go through a proxy at all.
		"--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
	}
}

func (g *gate) close() { g.proxy.Close() }

// open starts a read's window on allow, once no other is open; the
// function it returns closes it and gives what the page asked for. changed
// says whether allow differs from the last read's, when what the browser
// kept (its HTTP cache) may hold answers the new allowlist refuses.
func (g *gate) open(ctx context.Context, allow []string) (changed bool, done func() *window, err error) {
	select {
	case g.turn <- struct{}{}:
	case <-ctx.Done():
		return false, nil, errs.Wrap(errs.Timeout, ctx.Err(), "read_docs waited for another read of its browser to end")
	}
	w := &window{allow: slices.Clone(allow)}
	g.mu.Lock()
	g.window = w
	changed = g.used && !slices.Equal(g.last, w.allow)
	g.last, g.used = w.allow, true
	g.mu.Unlock()
	if changed {
		// Chromium keeps an HTTPS tunnel open and sends later requests for
		// its host through it, unseen: none outlives its allowlist.
		g.proxy.EndConnections()
	}
	var once sync.Once
	return changed, func() *window {
		once.Do(func() {
			g.mu.Lock()
			g.window = nil
			g.mu.Unlock()
			<-g.turn
		})
		return w
	}, nil
}

// decide allows a host of the open read's allowlist, and nothing between
// reads. A loopback host is allowed only when the allowlist names it (a
// docs server on loopback, as in tests and the bundled examples).
func (g *gate) decide(host string) (bool, egress.Reason) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.window == nil:
		return false, egress.ReasonDocsNoRead
	case egress.HostMatches(host, g.window.allow):
		return true, egress.ReasonDocsListed
	}
	return false, egress.ReasonDocsNotListed
}

// record keeps the proxy's word on one request in the open window.
func (g *gate) record(typ string, f map[string]any) {
	r := Request{Allowed: typ != "egress_blocked"}
	r.Host, _ = f["host"].(string)
	r.Method, _ = f["method"].(string)
	r.Path, _ = f["path"].(string)
	reason, _ := f["reason"].(string)
	r.Reason = egress.Reason(reason)
	r.Error, _ = f["error"].(string)
	g.mu.Lock()
	defer g.mu.Unlock()
	w := g.window
	if w == nil {
		return // refused between reads: the page it came from was already read
	}
	if !r.Allowed {
		w.refused++
	}
	if len(w.requests) >= maxRequests {
		w.leftOut++
		return
	}
	w.requests = append(w.requests, r)
}

// dialDocs reaches a host the gate (or the reader's own check) allowed: a
// loopback host as named, since only an allowlist that names loopback lets
// one through; any other name never to an address of the harness's own
// machine, so a docs host's name cannot lead to the machine's services.
func dialDocs(ctx context.Context, network, addr string) (net.Conn, error) {
	if host, _, err := net.SplitHostPort(addr); err == nil && netgate.IsLoopback(host) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	return egress.DialNotHostLocal(ctx, network, addr)
}

// direct is the client of the reader's own requests (the page's answer
// checked before it is rendered, robots.txt, affordance probes): they reach
// hosts the reader checked against the allowlist, dialled as the gate
// dials them.
var direct = &http.Client{Transport: directTransport()}

func directTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = dialDocs
	return t
}
