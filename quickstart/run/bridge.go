package run

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"sync"

	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/egress"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// SandboxOptions choose and configure an attempt's sandbox.
type SandboxOptions struct {
	Backend        string           // sandbox.Isolated, sandbox.Container or sandbox.Local ("" is local)
	Runtime        *sandbox.Runtime // the container backend's engine
	Image          string           // the container backend's image ("" is sandbox.DefaultImage)
	Adopt          string           // an existing workspace (qs check --sandbox), or "" for a fresh one
	Bridge         *ExpectBridge
	EgressDial     func(ctx context.Context, network, addr string) (net.Conn, error)
	EgressTLS      *tls.Config                             // HTTPS to the mirrors' upstreams; nil: system roots
	Cache          *egress.Cache                           // the registry cache (sandbox backend only), or nil
	OnEvent        func(typ string, fields map[string]any) // the proxy's decisions
	WorkspaceBytes int64                                   // see Options.WorkspaceBytes
	Limits         sandbox.Limits                          // see Options.Limits
}

// ErrCacheNeedsSandbox: the registry cache lives in the egress proxy, which
// only the sandbox backend has.
var ErrCacheNeedsSandbox = errors.New("qs.cache_needs_sandbox: --registry-cache caches through the sandbox backend's egress proxy, and the local backend's proxy is only advisory; run where `tabwright doctor` says the sandbox can enforce, or drop --registry-cache")

// AdvisoryNote says what the local backend's egress proxy does and does not.
const AdvisoryNote = "egress: advisory. The shell's HTTP(S) goes through the harness's proxy, which applies the task's network policy and records every connection and refusal, but a command that ignores the proxy variables reaches the network unrecorded, and the filesystem is not isolated."

// NewSandbox makes t's sandbox, with an egress proxy applying t's policy
// (enforced under the sandbox backend, advisory under local). With a
// Bridge, the proxy also answers the check's qs_browser_expect.
func NewSandbox(t *task.Task, o SandboxOptions) (*sandbox.Sandbox, error) {
	p := &egress.Proxy{Policy: t.Policy(), Dial: o.EgressDial, OnEvent: o.OnEvent, Cache: o.Cache, UpstreamTLS: o.EgressTLS}
	if o.Bridge != nil {
		p.Harness, p.HarnessKey = o.Bridge, o.Bridge.key
	}
	sb, err := newSandbox(p, o)
	if err != nil {
		return nil, err
	}
	if o.Bridge != nil {
		o.Bridge.sb = sb
	}
	return sb, nil
}

func newSandbox(p *egress.Proxy, o SandboxOptions) (*sandbox.Sandbox, error) {
	switch {
	case o.Backend == sandbox.Container && o.Adopt != "":
		return sandbox.AdoptContainer(context.Background(), o.Runtime, o.Image, o.Adopt, p)
	case o.Backend == sandbox.Container:
		return sandbox.NewContainer(context.Background(), o.Runtime, o.Image, p, workspaceBytes(o.WorkspaceBytes))
	case o.Backend == sandbox.Isolated && o.Adopt != "":
		return sandbox.AdoptIsolated(o.Adopt, p)
	case o.Backend == sandbox.Isolated:
		return sandbox.NewIsolatedLimited(p, workspaceBytes(o.WorkspaceBytes), limits(o.Limits))
	case o.Cache != nil:
		return nil, ErrCacheNeedsSandbox
	case o.Adopt != "":
		return sandbox.AdoptLocal(o.Adopt, p)
	}
	// The same proxy, advisory: it records what goes through it.
	return sandbox.NewLocal(p)
}

// limits reads Options.Limits: the zero value is the default.
func limits(l sandbox.Limits) sandbox.Limits {
	if l == (sandbox.Limits{}) {
		return sandbox.DefaultLimits
	}
	return l
}

// workspaceBytes reads Options.WorkspaceBytes: 0 the default, negative none.
func workspaceBytes(n int64) int64 {
	switch {
	case n == 0:
		return sandbox.DefaultWorkspaceBytes
	case n < 0:
		return 0
	}
	return n
}

// ExpectBridge is the success check's one way to a browser
// (qs_browser_expect), and a capability of the check alone:
//
//   - it answers only at the egress proxy's harness host, and only a request
//     carrying the key of the check now running (a fresh random key per
//     check, in the check's environment and nowhere else); the agent's
//     commands, replay steps and whatever they left running get a recorded
//     refusal;
//   - it renders http(s) URLs only;
//   - its Chromium, started for the check and stopped with it, sends every
//     request (navigations, redirects, subresources, workers) through an
//     egress proxy of its own with the task's policy, which records each
//     decision with by=check_browser. Loopback there is the sandbox's
//     loopback, where the check's server runs: the harness machine's own
//     loopback (its docs server, its other services) is never reached.
//
// No TCP port serves the bridge: the proxy answers it in process.
type ExpectBridge struct {
	policy egress.Policy
	launch launch.Options
	dial   func(ctx context.Context, network, addr string) (net.Conn, error)
	record func(typ string, fields map[string]any)
	sb     *sandbox.Sandbox // set by NewSandbox
	expect http.Handler

	mu     sync.Mutex
	armed  string // the running check's key; "" between checks
	proxy  *egress.Proxy
	m      *tabs.Manager
	closed bool
}

// NewExpectBridge makes t's bridge. lo says which Chromium to start (its
// proxy flags are added here); dial is how the browser's proxy reaches
// allowed hosts (nil: the network); record receives its decisions.
func NewExpectBridge(t *task.Task, lo launch.Options, dial func(ctx context.Context, network, addr string) (net.Conn, error), record func(typ string, fields map[string]any)) *ExpectBridge {
	b := &ExpectBridge{policy: t.Policy(), launch: lo, dial: dial, record: record}
	b.expect = docs.ExpectHandler(b.browser)
	return b
}

// ServeHTTP answers what the proxy passed on: only /expect.
func (b *ExpectBridge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/expect" {
		http.Error(w, "tabwright harness: only /expect is served here", http.StatusNotFound)
		return
	}
	b.expect.ServeHTTP(w, r)
}

func (b *ExpectBridge) key() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.armed
}

// arm makes a fresh key for one check; disarm forgets it and stops the
// check's browser, so nothing the page started outlives the check.
func (b *ExpectBridge) arm() (key string, disarm func()) {
	raw := make([]byte, 32)
	rand.Read(raw) // never fails (crypto/rand)
	key = hex.EncodeToString(raw)
	b.mu.Lock()
	b.armed = key
	b.mu.Unlock()
	return key, func() {
		b.mu.Lock()
		b.armed = ""
		b.mu.Unlock()
		b.stopBrowser()
	}
}

// browser starts, on the check's first qs_browser_expect, the browser's
// proxy and a Chromium that sends everything through it.
func (b *ExpectBridge) browser(ctx context.Context) (*tabs.Manager, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed || b.armed == "":
		return nil, errors.New("no check is running")
	case b.m != nil:
		return b.m, nil
	case b.sb == nil:
		return nil, errors.New("the bridge has no sandbox")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	sb := b.sb
	b.proxy = &egress.Proxy{Policy: b.policy, Dial: b.dial,
		Loopback: func(ctx context.Context, port int) (net.Conn, error) { return sb.DialInside(port) },
		OnEvent: func(typ string, f map[string]any) {
			f["by"] = string(trace.ByCheckBrowser)
			if b.record != nil {
				b.record(typ, f)
			}
		}}
	go b.proxy.Serve(ln)
	lo := b.launch
	lo.Args = append(append([]string{}, lo.Args...),
		"--proxy-server=http://"+ln.Addr().String(),
		// Chromium sends loopback direct unless told otherwise; here
		// loopback is the sandbox's, which only the proxy reaches.
		"--proxy-bypass-list=<-loopback>",
		// WebRTC's UDP would not go through a proxy at all.
		"--force-webrtc-ip-handling-policy=disable_non_proxied_udp")
	if b.m, err = tabs.New(tabs.Options{Launch: lo}); err != nil {
		b.proxy.Close()
		b.proxy = nil
		return nil, err
	}
	return b.m, nil
}

func (b *ExpectBridge) stopBrowser() {
	b.mu.Lock()
	m, p := b.m, b.proxy
	b.m, b.proxy = nil, nil
	b.mu.Unlock()
	if m != nil {
		m.Close()
	}
	if p != nil {
		p.Close()
	}
}

// Close ends the bridge for good.
func (b *ExpectBridge) Close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.closed, b.armed = true, ""
	b.mu.Unlock()
	b.stopBrowser()
}

// egressMode is run_start's word for the egress proxy's hold on the shell.
func egressMode(enforced bool) string {
	if enforced {
		return "enforced"
	}
	return "advisory"
}
