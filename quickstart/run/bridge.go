package run

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"

	"github.com/tabwright/tabwright/quickstart/egress"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
)

// SandboxOptions choose and configure an attempt's sandbox.
type SandboxOptions struct {
	Backend         string // sandbox.Isolated or sandbox.Local ("" is local)
	Adopt           string // an existing workspace (qs check --sandbox), or "" for a fresh one
	BrowserEndpoint string // the harness's qs_browser_expect endpoint, or ""
	EgressDial      func(ctx context.Context, network, addr string) (net.Conn, error)
	EgressTLS       *tls.Config                             // HTTPS to the mirrors' upstreams; nil: system roots
	Cache           *egress.Cache                           // the registry cache (sandbox backend only), or nil
	OnEvent         func(typ string, fields map[string]any) // the proxy's decisions
	WorkspaceBytes  int64                                   // see Options.WorkspaceBytes
}

// ErrCacheNeedsSandbox: the registry cache lives in the egress proxy, which
// only the sandbox backend has.
var ErrCacheNeedsSandbox = errors.New("qs.cache_needs_sandbox: --registry-cache caches through the sandbox backend's egress proxy, and the local backend's proxy is only advisory; run where `tabwright doctor` says the sandbox can enforce, or drop --registry-cache")

// AdvisoryNote says what the local backend's egress proxy does and does not.
const AdvisoryNote = "egress: advisory. The shell's HTTP(S) goes through the harness's proxy, which applies the task's network policy and records every connection and refusal, but a command that ignores the proxy variables reaches the network unrecorded, and the filesystem is not isolated."

// NewSandbox makes t's sandbox. Under the sandbox backend it owns an egress
// proxy with t's policy, which also answers the check's qs_browser_expect.
func NewSandbox(t *task.Task, o SandboxOptions) (*sandbox.Sandbox, error) {
	p := &egress.Proxy{Policy: t.Policy(), Dial: o.EgressDial, OnEvent: o.OnEvent, Cache: o.Cache, UpstreamTLS: o.EgressTLS}
	if o.Backend != sandbox.Isolated {
		// The same proxy, advisory: it records what goes through it.
		if o.Cache != nil {
			return nil, ErrCacheNeedsSandbox
		}
		if o.Adopt != "" {
			return sandbox.AdoptLocal(o.Adopt, p)
		}
		return sandbox.NewLocal(p)
	}
	var sb *sandbox.Sandbox
	var err error
	if o.Adopt != "" {
		sb, err = sandbox.AdoptIsolated(o.Adopt, p)
	} else {
		sb, err = sandbox.NewIsolatedBounded(p, workspaceBytes(o.WorkspaceBytes))
	}
	if err != nil {
		return nil, err
	}
	if o.BrowserEndpoint != "" {
		p.Harness = bridgeExpect(sb, o.BrowserEndpoint)
	}
	return sb, nil
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

// bridgeExpect answers qs_browser_expect from inside the sandbox. The page
// is on the sandbox's own loopback, which the harness's browser cannot see:
// a loopback listener on the harness's side relays each connection into the
// sandbox (DialInside), the page URL is rewritten to that listener, and the
// harness's endpoint renders it.
func bridgeExpect(sb *sandbox.Sandbox, endpoint string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/expect" {
			http.Error(w, "tabwright harness: only /expect is served here", http.StatusNotFound)
			return
		}
		q := r.URL.Query()
		u, err := url.Parse(q.Get("url"))
		if err != nil || u.Hostname() != "127.0.0.1" && u.Hostname() != "localhost" {
			http.Error(w, fmt.Sprintf("qs_browser_expect in the sandbox renders the sandbox's own pages (http://127.0.0.1:PORT/...), not %q", q.Get("url")), http.StatusBadRequest)
			return
		}
		port := 80
		if u.Port() != "" {
			port, _ = strconv.Atoi(u.Port())
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			http.Error(w, "tabwright harness: cannot open the bridge: "+err.Error(), http.StatusBadGateway)
			return
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					in, err := sb.DialInside(port)
					if err != nil {
						return
					}
					defer in.Close()
					go io.Copy(in, c)
					io.Copy(c, in)
				}()
			}
		}()
		u.Host = ln.Addr().String()
		q.Set("url", u.String())
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, endpoint+"?"+q.Encode(), nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, "tabwright harness: the browser endpoint did not answer: "+err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	})
}

// egressMode is run_start's word for the egress proxy's hold on the shell.
func egressMode(enforced bool) string {
	if enforced {
		return "enforced"
	}
	return "advisory"
}
