package egress

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tabwright/tabwright/quickstart/egress/egresstest"
)

func TestQSImmutable(t *testing.T) {
	for p, want := range map[string]bool{
		"/left-pad/-/left-pad-1.3.0.tgz":                              true,
		"/@types/node/-/node-20.1.0.tgz":                              true,
		"/left-pad":                                                   false, // the packument changes
		"/packages/ab/cd/ef/requests-2.31.0-py3-none-any.whl":         true,
		"/packages/ab/cd/requests-2.31.0.tar.gz":                      true,
		"/packages/ab/requests-2.31.0-py3-none-any.whl.metadata":      true,
		"/simple/requests/":                                           false,
		"/golang.org/x/mod/@v/v0.17.0.zip":                            true,
		"/golang.org/x/mod/@v/v0.17.0.mod":                            true,
		"/golang.org/x/mod/@v/v0.17.0.info":                           true,
		"/golang.org/x/mod/@v/list":                                   false,
		"/golang.org/x/mod/@latest":                                   false,
		"/sumdb/sum.golang.org/tile/8/0/001":                          true,
		"/sumdb/sum.golang.org/tile/8/0/001.p/5":                      false,
		"/sumdb/sum.golang.org/lookup/golang.org/x/mod@v0.17.0":       false,
		"/debian/pool/main/c/curl/curl_7.88.1-10_amd64.deb":           true,
		"/debian/dists/bookworm/main/binary-amd64/by-hash/SHA256/abc": true,
		"/debian/dists/bookworm/InRelease":                            false,
		"/api/v1/crates/serde/1.0.0/download":                         false,
		"/crates/serde/serde-1.0.0.crate":                             true,
		"/x/../packages/a.whl":                                        true,
	} {
		if got := Immutable(p); got != want {
			t.Errorf("%s: %v, want %v", p, got, want)
		}
	}
}

func newRegistry(t testing.TB) *egresstest.Registry {
	t.Helper()
	reg, err := egresstest.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	return reg
}

// cachedProxy serves a proxy with a cache in dir on loopback, its upstreams
// the local registry.
func cachedProxy(t testing.TB, reg *egresstest.Registry, dir string, allow []string, rec *recorder) (*Proxy, string) {
	t.Helper()
	c, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Policy: Policy{Docs: []string{"docs.test"}, Allow: allow}, Cache: c, Dial: reg.Dial, UpstreamTLS: reg.ClientTLS}
	if rec != nil {
		p.OnEvent = rec.add
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go p.Serve(ln)
	t.Cleanup(func() { p.Close() })
	return p, "http://" + ln.Addr().String()
}

type fetched struct {
	code  int
	body  []byte
	cache string
	hdr   http.Header
}

func get(t testing.TB, c *http.Client, method, u string) fetched {
	t.Helper()
	req, _ := http.NewRequest(method, u, nil)
	r, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return fetched{r.StatusCode, b, r.Header.Get("X-Tabwright-Cache"), r.Header}
}

func viaProxy(proxy string) *http.Client {
	pu, _ := url.Parse(proxy)
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}}
}

func TestQSCachePlainHTTP(t *testing.T) {
	reg := newRegistry(t)
	dir := t.TempDir()
	rec := &recorder{}
	_, proxy := cachedProxy(t, reg, dir, []string{"registry.test"}, rec)
	c := viaProxy(proxy)
	tgz := "http://registry.test/pkg/-/pkg-1.0.0.tgz"
	want := reg.Artifact("/pkg/-/pkg-1.0.0.tgz")
	// First run: a miss, fetched and stored; second: a hit, upstream untouched.
	for i, wantCache := range []string{"miss", "hit"} {
		r := get(t, c, "GET", tgz)
		if r.code != 200 || !bytes.Equal(r.body, want) || r.cache != wantCache {
			t.Fatalf("fetch %d: %d cache=%q %d bytes", i+1, r.code, r.cache, len(r.body))
		}
	}
	if n := reg.Hits("registry.test/pkg/-/pkg-1.0.0.tgz"); n != 1 {
		t.Errorf("upstream served the tarball %d times, want 1", n)
	}
	// HEAD from the cache: the length, no body.
	if r := get(t, c, "HEAD", tgz); r.code != 200 || len(r.body) != 0 || r.hdr.Get("Content-Length") != fmt.Sprint(len(want)) || r.cache != "hit" {
		t.Errorf("HEAD: %d %q %v", r.code, r.body, r.hdr)
	}
	// Metadata changes: never cached.
	for i := 0; i < 2; i++ {
		if r := get(t, c, "GET", "http://registry.test/pkg"); r.code != 200 || r.cache != "" {
			t.Errorf("packument: %d %q", r.code, r.cache)
		}
	}
	if n := reg.Hits("registry.test/pkg"); n != 2 {
		t.Errorf("the packument was served %d times upstream, want 2", n)
	}
	// What upstream did not serve whole is not stored.
	for i := 0; i < 2; i++ {
		get(t, c, "GET", "http://registry.test/example.com/m/@v/v9.9.9.zip")
	}
	if n := reg.Hits("registry.test/example.com/m/@v/v9.9.9.zip"); n != 2 {
		t.Errorf("a 404 was cached: upstream hits %d", n)
	}
	events := rec.String()
	if !strings.Contains(events, "egress_cache_miss registry.test <nil> <nil>\n") || !strings.Contains(events, "egress_cache_hit registry.test <nil> <nil>") {
		t.Errorf("events:\n%s", events)
	}
	cacheOutlivesProxy(t, reg, dir, c, tgz, want)
}

// cacheOutlivesProxy: what TestQSCachePlainHTTP stored serves the next
// proxy on dir, never a refused host, and a damaged entry is replaced.
func cacheOutlivesProxy(t *testing.T, reg *egresstest.Registry, dir string, c *http.Client, tgz string, want []byte) {
	// A second run (another proxy, the same directory) starts warm.
	_, proxy2 := cachedProxy(t, reg, dir, []string{"registry.test"}, nil)
	if r := get(t, viaProxy(proxy2), "GET", tgz); r.cache != "hit" || !bytes.Equal(r.body, want) {
		t.Errorf("second run: %q", r.cache)
	}
	// The policy applies before the cache: a refused host gets nothing, even
	// what is stored.
	_, proxy3 := cachedProxy(t, reg, dir, []string{"other.test"}, nil)
	if r := get(t, viaProxy(proxy3), "GET", tgz); r.code != 403 || !strings.HasPrefix(string(r.body), "blocked from the shell: registry.test") {
		t.Errorf("refused host served from the cache: %d %q", r.code, r.body)
	}
	if n := reg.Hits("registry.test/pkg/-/pkg-1.0.0.tgz"); n != 1 {
		t.Errorf("upstream hits %d, want still 1", n)
	}
	// A damaged entry is a miss, and is replaced.
	ents, _ := filepath.Glob(filepath.Join(dir, "v1", "*", "*.body"))
	if len(ents) != 1 {
		t.Fatalf("cache entries: %v", ents)
	}
	os.WriteFile(ents[0], []byte("short"), 0o644)
	if r := get(t, c, "GET", tgz); r.cache != "miss" || !bytes.Equal(r.body, want) {
		t.Errorf("damaged entry: %q %d bytes", r.cache, len(r.body))
	}
	if r := get(t, c, "GET", tgz); r.cache != "hit" {
		t.Errorf("after repair: %q", r.cache)
	}
}

func TestQSCacheTruncatedUpstreamNotStored(t *testing.T) {
	// An upstream that promises more than it sends, then hangs up.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var hits atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			hits.Add(1)
			http.ReadRequest(bufio.NewReader(c))
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nonly this")
			c.Close()
		}
	}()
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Policy: Policy{Allow: []string{"registry.test"}}, Cache: c}
	pu := startProxy(t, p, map[string]string{"registry.test:80": ln.Addr().String()})
	cl := viaProxy(pu.String())
	for i := 0; i < 2; i++ {
		req, _ := http.NewRequest("GET", "http://registry.test/a/-/a-1.tgz", nil)
		if r, err := cl.Do(req); err == nil {
			io.ReadAll(r.Body)
			r.Body.Close()
		}
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("a truncated download was stored: upstream hits %d", n)
	}
	if ents, _ := filepath.Glob(filepath.Join(c.Dir(), "*", "*")); len(ents) != 0 {
		t.Errorf("entries: %v", ents)
	}
	if ents, _ := os.ReadDir(filepath.Join(c.Dir(), "tmp")); len(ents) != 0 {
		t.Errorf("temporary files left: %v", ents)
	}
}

func TestQSMirrors(t *testing.T) {
	reg := newRegistry(t)
	rec := &recorder{}
	allow := []string{"registry.npmjs.org", "pypi.org", "files.pythonhosted.org", "proxy.golang.org"}
	p, proxy := cachedProxy(t, reg, t.TempDir(), allow, rec)
	env := strings.Join(p.MirrorEnv(proxy), "\n")
	wantEnv := fmt.Sprintf("npm_config_registry=%[1]s/_tabwright/mirror/npm/\nPIP_INDEX_URL=%[1]s/_tabwright/mirror/pypi/\nUV_INDEX_URL=%[1]s/_tabwright/mirror/pypi/\nGOPROXY=%[1]s/_tabwright/mirror/go,direct", proxy)
	if env != wantEnv {
		t.Errorf("env:\n%s\nwant:\n%s", env, wantEnv)
	}
	if (&Proxy{}).MirrorEnv(proxy) != nil {
		t.Errorf("mirrors without a cache")
	}
	direct := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	// npm: the packument names the mirror for its tarball, which is cached.
	r := get(t, direct, "GET", proxy+"/_tabwright/mirror/npm/left-pad")
	tarball := proxy + "/_tabwright/mirror/npm/left-pad/-/left-pad-1.0.0.tgz"
	if r.code != 200 || !strings.Contains(string(r.body), `"tarball":"`+tarball+`"`) || strings.Contains(string(r.body), "registry.npmjs.org") {
		t.Fatalf("packument: %d %s", r.code, r.body)
	}
	for i := 0; i < 2; i++ {
		if r := get(t, direct, "GET", tarball); r.code != 200 || !bytes.Equal(r.body, reg.Artifact("/left-pad/-/left-pad-1.0.0.tgz")) {
			t.Fatalf("tarball: %d", r.code)
		}
	}
	// PyPI: the simple page links the files mirror.
	r = get(t, direct, "GET", proxy+"/_tabwright/mirror/pypi/requests/")
	whl := proxy + "/_tabwright/mirror/pythonhosted/packages/ab/cd/requests-1.0-py3-none-any.whl"
	if r.code != 200 || !strings.Contains(string(r.body), `href="`+whl+`#sha256=00"`) {
		t.Fatalf("simple page: %d %s", r.code, r.body)
	}
	for i := 0; i < 2; i++ {
		if r := get(t, direct, "GET", whl); r.code != 200 || len(r.body) != reg.ArtifactSize {
			t.Fatalf("wheel: %d", r.code)
		}
	}
	// Go: versioned files cached, the version list always fetched.
	for i := 0; i < 2; i++ {
		for _, f := range []string{"v1.0.0.zip", "v1.0.0.mod", "list"} {
			if r := get(t, direct, "GET", proxy+"/_tabwright/mirror/go/example.com/m/@v/"+f); r.code != 200 {
				t.Fatalf("%s: %d", f, r.code)
			}
		}
	}
	wantUpstreamHits(t, reg)
	// The upstream's host is under the policy like any other.
	p.Policy = Policy{Allow: []string{"pypi.org"}}
	if r := get(t, direct, "GET", tarball); r.code != 403 || !strings.HasPrefix(string(r.body), "blocked from the shell: registry.npmjs.org") {
		t.Errorf("refused upstream: %d %q", r.code, r.body)
	}
	if !strings.HasSuffix(rec.String(), "egress_blocked registry.npmjs.org GET not_allowlisted") {
		t.Errorf("events:\n%s", rec.String())
	}
	if r := get(t, direct, "GET", proxy+"/_tabwright/mirror/cargo/x"); r.code != 404 || !strings.Contains(string(r.body), "npm, pypi, pythonhosted, go") {
		t.Errorf("unknown mirror: %d %q", r.code, r.body)
	}
	// Without a cache there are no mirrors: a relative request is refused.
	np := &Proxy{Policy: Policy{Allow: allow}, Dial: reg.Dial}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go np.Serve(ln)
	defer np.Close()
	if r := get(t, direct, "GET", "http://"+ln.Addr().String()+"/_tabwright/mirror/npm/left-pad"); r.code != 403 {
		t.Errorf("mirror without a cache: %d %q", r.code, r.body)
	}
}

// wantUpstreamHits: TestQSMirrors fetched each immutable file upstream
// once, and the Go version list each time.
func wantUpstreamHits(t *testing.T, reg *egresstest.Registry) {
	for hp, want := range map[string]int{
		"registry.npmjs.org/left-pad/-/left-pad-1.0.0.tgz":                    1,
		"pypi.org/simple/requests/":                                           1,
		"files.pythonhosted.org/packages/ab/cd/requests-1.0-py3-none-any.whl": 1,
		"proxy.golang.org/example.com/m/@v/v1.0.0.zip":                        1,
		"proxy.golang.org/example.com/m/@v/v1.0.0.mod":                        1,
		"proxy.golang.org/example.com/m/@v/list":                              2,
	} {
		if n := reg.Hits(hp); n != want {
			t.Errorf("%s: upstream hits %d, want %d", hp, n, want)
		}
	}
}

func TestQSOpenCacheErrors(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := OpenCache(f); err == nil || !strings.HasPrefix(err.Error(), "egress.cache_dir: ") || !strings.Contains(err.Error(), "give --registry-cache a directory you can write") {
		t.Errorf("%v", err)
	}
	if _, err := OpenCache(""); err == nil || !strings.HasPrefix(err.Error(), "egress.cache_dir: ") {
		t.Errorf("%v", err)
	}
}
