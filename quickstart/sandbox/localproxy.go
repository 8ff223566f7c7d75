//go:build linux

package sandbox

import (
	"fmt"
	"net"

	"github.com/tabwright/tabwright/quickstart/egress"
)

// The local backend's egress proxy: the same proxy, policy and records as
// the sandbox backend's, on a loopback port of the harness, named to every
// command through the proxy variables. It is advisory: a command that
// ignores the variables (or unsets them) reaches the network directly, and
// nothing records that. What it records is true; what it does not see may
// still have happened.

// localProxy is the local backend's proxy and where it listens.
type localProxy struct {
	p    *egress.Proxy
	addr string
}

// NewLocal is New with p serving the commands' proxy variables (p nil: no
// proxy, as New). The proxy is closed with the sandbox.
func NewLocal(p *egress.Proxy) (*Sandbox, error) {
	s, err := New()
	if err != nil {
		return nil, err
	}
	if err := s.proxyLocally(p); err != nil {
		s.Close(false)
		return nil, err
	}
	return s, nil
}

// AdoptLocal is Adopt with p as in NewLocal.
func AdoptLocal(dir string, p *egress.Proxy) (*Sandbox, error) {
	s, err := Adopt(dir)
	if err != nil {
		return nil, err
	}
	if err := s.proxyLocally(p); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Sandbox) proxyLocally(p *egress.Proxy) error {
	if p == nil {
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("sandbox.proxy_listen: the local backend's egress proxy needs a loopback port: %v", err)
	}
	go p.Serve(ln)
	s.local = &localProxy{p: p, addr: ln.Addr().String()}
	return nil
}

// Proxied reports whether the commands' network goes through an egress
// proxy that records it: always on the sandbox backend with a proxy, and on
// the local backend when it was given one (advisory there).
func (s *Sandbox) Proxied() bool { return s.local != nil || s.iso != nil && s.iso.proxy != nil }

// proxyEnv points every HTTP client's proxy variables, and the registry
// mirrors' when the proxy caches, at addr; loopback goes direct.
func proxyEnv(p *egress.Proxy, addr string) []string {
	proxy := "http://" + addr
	env := p.MirrorEnv(proxy)
	for _, v := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		env = append(env, v+"="+proxy)
	}
	return append(env, "NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1")
}
