package egress

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tabwright/tabwright/engine/netgate"
)

// Registry mirrors. HTTPS through CONNECT is a tunnel the proxy cannot read,
// so it cannot cache it. Clients that take a registry URL (npm, pip, uv, the
// go command) are pointed instead, when a Cache is set, at a plain-HTTP
// mirror on the proxy itself: http://PROXY/_tabwright/mirror/NAME/PATH. The
// proxy fetches https://UPSTREAM/PATH, under the same policy as any other
// request to UPSTREAM's host, and caches what Immutable says never changes.
// Index pages that name the upstream's file host absolutely (npm packuments,
// PyPI simple pages) are rewritten to name the mirror, so the files come
// through it too.

// MirrorPrefix starts every mirror path on the proxy.
const MirrorPrefix = "/_tabwright/mirror/"

// Mirror is one registry the proxy mirrors.
type Mirror struct {
	Name     string // the path segment after MirrorPrefix
	Upstream string // the registry's base URL, https://...
	// Env are the variables that point clients at the mirror; {URL} is the
	// mirror's base URL (no trailing slash).
	Env []string
	// Rewrite maps an absolute URL prefix found in index pages to the name
	// of the mirror that serves it.
	Rewrite map[string]string
}

// DefaultMirrors are the public registries whose clients honour a mirror
// setting through the environment.
var DefaultMirrors = []Mirror{
	{Name: "npm", Upstream: "https://registry.npmjs.org", Env: []string{"npm_config_registry={URL}/"},
		Rewrite: map[string]string{"https://registry.npmjs.org/": "npm"}},
	{Name: "pypi", Upstream: "https://pypi.org/simple", Env: []string{"PIP_INDEX_URL={URL}/", "UV_INDEX_URL={URL}/"},
		Rewrite: map[string]string{"https://files.pythonhosted.org/": "pythonhosted"}},
	{Name: "pythonhosted", Upstream: "https://files.pythonhosted.org"},
	{Name: "go", Upstream: "https://proxy.golang.org", Env: []string{"GOPROXY={URL},direct"}},
}

func (p *Proxy) mirrors() []Mirror {
	if p.Mirrors != nil {
		return p.Mirrors
	}
	return DefaultMirrors
}

// MirrorEnv is the environment that points registry clients at the mirrors
// on the proxy at base (http://HOST:PORT). It is empty without a Cache: the
// mirrors exist to cache.
func (p *Proxy) MirrorEnv(base string) []string {
	if p == nil || p.Cache == nil {
		return nil
	}
	var env []string
	for _, m := range p.mirrors() {
		for _, e := range m.Env {
			env = append(env, strings.ReplaceAll(e, "{URL}", strings.TrimSuffix(base, "/")+MirrorPrefix+m.Name))
		}
	}
	return env
}

// isMirrorRequest: an origin-form request for a mirror path (the client
// reached the proxy directly, since NO_PROXY names loopback), or the same
// through the proxy with an absolute loopback URL.
func (p *Proxy) isMirrorRequest(req *http.Request) bool {
	if p.Cache == nil || req.URL == nil || !strings.HasPrefix(req.URL.Path, MirrorPrefix) {
		return false
	}
	if req.URL.Host == "" {
		return true
	}
	return netgate.IsLoopback(req.URL.Hostname())
}

func (p *Proxy) mirror(c net.Conn, req *http.Request) {
	escaped := strings.TrimPrefix(req.URL.EscapedPath(), MirrorPrefix)
	name, sub, _ := strings.Cut(escaped, "/")
	var m *Mirror
	for i, x := range p.mirrors() {
		if x.Name == name {
			m = &p.mirrors()[i]
		}
	}
	if m == nil {
		var names []string
		for _, x := range p.mirrors() {
			names = append(names, x.Name)
		}
		reply(c, http.StatusNotFound, fmt.Sprintf("tabwright proxy: no registry mirror named %q; the mirrors are %s\n", name, strings.Join(names, ", ")))
		return
	}
	target := strings.TrimSuffix(m.Upstream, "/") + "/" + sub
	if req.URL.RawQuery != "" {
		target += "?" + req.URL.RawQuery
	}
	u, err := url.Parse(target)
	if err != nil {
		reply(c, http.StatusBadRequest, fmt.Sprintf("tabwright proxy: bad mirror path %q: %v\n", req.URL.Path, err))
		return
	}
	host := u.Hostname()
	if ok, reason := p.Policy.Decide(host); !ok {
		p.refuse(c, host, reason, req.Method)
		return
	}
	self := req.Host // the proxy, as the client named it
	if req.URL.Host != "" {
		self = req.URL.Host
	}
	var rewrite func([]byte) []byte
	if len(m.Rewrite) > 0 {
		base := "http://" + self + MirrorPrefix
		rewrite = func(b []byte) []byte {
			for from, to := range m.Rewrite {
				b = bytes.ReplaceAll(b, []byte(from), []byte(base+to+"/"))
			}
			return b
		}
	}
	p.fetch(c, req, u, m.Name, rewrite)
}

// client is the proxy's HTTP client for upstream fetches (the mirrors, and
// cacheable plain-HTTP requests). It dials through Dial, follows no
// redirects (the client follows them, asking the proxy again) and uses no
// proxy itself.
func (p *Proxy) client() *http.Client {
	p.hcOnce.Do(func() {
		p.hc = &http.Client{
			Transport: &http.Transport{
				Proxy: nil,
				DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					return p.dial(ctx, addr)
				},
				TLSClientConfig:       p.UpstreamTLS,
				TLSHandshakeTimeout:   20 * time.Second,
				ResponseHeaderTimeout: 60 * time.Second,
				MaxIdleConnsPerHost:   8,
				IdleConnTimeout:       30 * time.Second,
			},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	})
	return p.hc
}

// fetch answers req with the upstream resource u: from the cache when it is
// there and immutable, else from upstream (storing it when immutable and
// whole). via is the mirror's name, or "" for a plain-HTTP proxy request.
func (p *Proxy) fetch(c net.Conn, req *http.Request, u *url.URL, via string, rewrite func([]byte) []byte) {
	host := u.Hostname()
	p.allowed(req, u, via)
	key := u.String()
	head := req.Method == http.MethodHead
	cacheable := p.Cache != nil && (req.Method == http.MethodGet || head) && req.Header.Get("Range") == "" && Immutable(u.Path)
	if cacheable && p.serveCached(c, key, host, head) {
		return
	}
	ctx, cancel := context.WithCancel(p.context())
	defer cancel()
	out, err := upstreamRequest(ctx, req, key, cacheable)
	if err != nil {
		reply(c, http.StatusBadRequest, fmt.Sprintf("tabwright proxy: %v\n", err))
		return
	}
	resp, err := p.client().Do(out)
	if err != nil {
		p.event("egress_error", map[string]any{"host": host, "error": err.Error(), "method": req.Method})
		reply(c, http.StatusBadGateway, fmt.Sprintf("tabwright proxy: fetching %s failed: %v\n", key, err))
		return
	}
	defer resp.Body.Close()
	ok := !head && resp.StatusCode == http.StatusOK
	switch {
	case cacheable && ok:
		p.storeAndSend(c, resp, key, host, req.Method)
	case rewrite != nil && ok && textual(resp.Header.Get("Content-Type")):
		sendRewritten(c, resp, key, rewrite)
	default:
		writeHead(c, resp.StatusCode, resp.Header, resp.ContentLength)
		if !head {
			io.Copy(c, resp.Body)
		}
	}
}

// allowed reports the request as egress_allowed.
func (p *Proxy) allowed(req *http.Request, u *url.URL, via string) {
	port, _ := strconv.Atoi(u.Port())
	if port == 0 {
		port = 80
		if u.Scheme == "https" {
			port = 443
		}
	}
	ev := map[string]any{"host": u.Hostname(), "port": port, "method": req.Method, "path": u.RequestURI()}
	if via != "" {
		ev["mirror"] = via
	}
	p.event("egress_allowed", ev)
}

// serveCached answers from the cache and reports whether it held key.
func (p *Proxy) serveCached(c net.Conn, key, host string, head bool) bool {
	f, meta, ok := p.Cache.get(key)
	if !ok {
		return false
	}
	defer f.Close()
	h := http.Header{}
	if meta.ContentType != "" {
		h.Set("Content-Type", meta.ContentType)
	}
	h.Set("X-Tabwright-Cache", "hit")
	p.event("egress_cache_hit", map[string]any{"host": host, "url": key, "bytes": meta.Size})
	writeHead(c, http.StatusOK, h, meta.Size)
	if !head {
		io.Copy(c, f)
	}
	return true
}

// upstreamRequest is req as sent upstream, without hop-by-hop headers.
func upstreamRequest(ctx context.Context, req *http.Request, key string, cacheable bool) (*http.Request, error) {
	var body io.Reader
	if req.ContentLength != 0 {
		body = req.Body
	}
	out, err := http.NewRequestWithContext(ctx, req.Method, key, body)
	if err != nil {
		return nil, err
	}
	out.ContentLength = req.ContentLength
	for k, vs := range req.Header {
		out.Header[k] = vs
	}
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	// The transport asks for gzip itself and decompresses, so what is stored
	// and rewritten is the artifact's own bytes.
	out.Header.Del("Accept-Encoding")
	if cacheable {
		// A conditional request could answer 304, which stores nothing.
		out.Header.Del("If-None-Match")
		out.Header.Del("If-Modified-Since")
	}
	return out, nil
}

// storeAndSend copies a 200 answer to the client and into the cache.
func (p *Proxy) storeAndSend(c net.Conn, resp *http.Response, key, host, method string) {
	h := resp.Header.Clone()
	w, err := p.Cache.create(key, resp.Header.Get("Content-Type"))
	if err != nil {
		p.event("egress_error", map[string]any{"host": host, "error": "registry cache: " + err.Error(), "method": method})
		writeHead(c, resp.StatusCode, h, resp.ContentLength)
		io.Copy(c, resp.Body)
		return
	}
	h.Set("X-Tabwright-Cache", "miss")
	clientOK := writeHead(c, resp.StatusCode, h, resp.ContentLength) == nil
	// The whole body goes to the cache even if the client leaves. The last
	// chunk reaches the client only after the entry is in place (and
	// reported), so a client that fetches again at once finds it.
	buf, last := make([]byte, 64<<10), make([]byte, 0, 64<<10)
	send := func(b []byte) {
		if clientOK && len(b) > 0 {
			if _, err := c.Write(b); err != nil {
				clientOK = false
			}
		}
	}
	var rerr error
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			w.Write(buf[:n])
			send(last)
			last = append(last[:0], buf[:n]...)
		}
		if err != nil {
			if err != io.EOF {
				rerr = err
			}
			break
		}
	}
	stored := false
	if rerr != nil {
		w.abort()
	} else {
		stored = w.commit(resp.ContentLength)
	}
	p.event("egress_cache_miss", map[string]any{"host": host, "url": key, "bytes": w.n, "stored": stored})
	send(last)
}

// sendRewritten sends a textual index page with its links rewritten.
func sendRewritten(c net.Conn, resp *http.Response, key string, rewrite func([]byte) []byte) {
	const limit = 64 << 20
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil || len(b) > limit {
		reply(c, http.StatusBadGateway, fmt.Sprintf("tabwright proxy: the index page %s could not be read whole (%d bytes, at most %d): %v\n", key, len(b), limit, err))
		return
	}
	b = rewrite(b)
	h := resp.Header.Clone()
	h.Del("ETag") // the body is not upstream's any more
	writeHead(c, resp.StatusCode, h, int64(len(b)))
	c.Write(b)
}

func textual(ct string) bool {
	ct = strings.ToLower(ct)
	return strings.Contains(ct, "json") || strings.Contains(ct, "html") || strings.HasPrefix(ct, "text/")
}

// writeHead writes a response head; length < 0 means the body ends when
// the connection closes (every proxy response closes it).
func writeHead(c net.Conn, status int, h http.Header, length int64) error {
	h = h.Clone()
	for _, x := range hopHeaders {
		h.Del(x)
	}
	h.Del("Content-Length")
	if length >= 0 {
		h.Set("Content-Length", strconv.FormatInt(length, 10))
	}
	h.Set("Connection", "close")
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	h.Write(&b)
	b.WriteString("\r\n")
	_, err := c.Write(b.Bytes())
	return err
}
