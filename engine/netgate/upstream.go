package netgate

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/proxy"

	"github.com/tabwright/tabwright/engine/errs"
)

// dialFunc opens a connection to addr through the upstream proxy.
type dialFunc func(ctx context.Context, addr string) (net.Conn, error)

// upstreamDialer is how tunnels reach the upstream proxy u (nil: none).
func upstreamDialer(u *url.URL) (dialFunc, error) {
	if u == nil {
		return nil, nil
	}
	switch u.Scheme {
	case "http", "https":
		return func(ctx context.Context, addr string) (net.Conn, error) { return connectThrough(ctx, u, addr) }, nil
	case "socks5":
		var auth *proxy.Auth
		if u.User != nil {
			pw, _ := u.User.Password()
			auth = &proxy.Auth{User: u.User.Username(), Password: pw}
		}
		d, err := proxy.SOCKS5("tcp", u.Host, auth, &net.Dialer{})
		if err != nil {
			return nil, errs.Input("--proxy-server", "%v", err).WithHint("give socks5://user:password@host:port")
		}
		cd := d.(proxy.ContextDialer)
		return func(ctx context.Context, addr string) (net.Conn, error) { return cd.DialContext(ctx, "tcp", addr) }, nil
	}
	return nil, errs.Input("--proxy-server", "a %s proxy cannot carry a user name and password or origin rules", u.Scheme).
		WithHint("use an http, https or socks5 proxy")
}

// connectThrough opens a tunnel to addr through an http(s) proxy, with
// its credentials when it has some.
func connectThrough(ctx context.Context, u *url.URL, addr string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", hostPort(TargetOf(u)))
	if err != nil {
		return nil, err
	}
	if u.Scheme == "https" {
		tc := tls.Client(conn, &tls.Config{ServerName: u.Hostname()})
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, err
		}
		conn = tc
	}
	if deadline, ok := ctx.Deadline(); ok {
		conn.SetDeadline(deadline)
		defer conn.SetDeadline(time.Time{})
	}
	req := "CONNECT " + addr + " HTTP/1.1\r\nHost: " + addr + "\r\n"
	if u.User != nil {
		pw, _ := u.User.Password()
		req += "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw)) + "\r\n"
	}
	if _, err := conn.Write([]byte(req + "\r\n")); err != nil {
		conn.Close()
		return nil, err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		conn.Close()
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		conn.Close()
		return nil, fmt.Errorf("CONNECT %s: %s", addr, resp.Status)
	}
	if br.Buffered() > 0 {
		return &bufferedConn{Conn: conn, r: br}, nil
	}
	return conn, nil
}

// bufferedConn reads what the proxy sent after its answer first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// IsLoopback reports whether host names the loopback: localhost (and its
// subdomains, which browsers resolve to it), 127.0.0.0/8 or ::1, with or
// without brackets. It is the one answer to "is this host on this machine's
// loopback" for every boundary of ours: listen addresses, peers, origins
// and proxies.
func IsLoopback(host string) bool {
	h := strings.Trim(strings.ToLower(host), "[].")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// BoundToLoopback reports whether ln listens on a loopback address: a name
// IsLoopback accepts could still resolve elsewhere (a hosts file), so a
// listener is checked again once bound.
func BoundToLoopback(ln net.Listener) bool {
	a, ok := ln.Addr().(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}

// skipsUpstream reports whether host goes direct: loopback, or a match of
// the bypass list ("host", ".suffix" or "*.suffix", "<local>" for names
// without a dot).
func (g *Gate) skipsUpstream(host string) bool {
	if IsLoopback(host) {
		return true
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	for _, b := range g.opt.Bypass {
		b = strings.ToLower(strings.TrimSpace(b))
		suffix := strings.TrimPrefix(b, "*")
		switch {
		case b == "":
		case b == "<local>" && !strings.Contains(host, "."):
			return true
		case strings.HasPrefix(suffix, ".") && (strings.HasSuffix(host, suffix) || host == suffix[1:]):
			return true
		case host == b:
			return true
		}
	}
	return false
}
