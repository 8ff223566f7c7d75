//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/quickstart/egress"
	"github.com/tabwright/tabwright/quickstart/egress/egresstest"
)

// cachedSandbox is an isolated sandbox whose proxy caches in dir and whose
// upstreams are reg (registry.test over plain HTTP, and the public
// registries' names over HTTPS).
func cachedSandbox(t testing.TB, reg *egresstest.Registry, dir string, ev *events) (*Sandbox, *egress.Proxy) {
	t.Helper()
	requireBwrap(t)
	c, err := egress.OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := &egress.Proxy{Policy: egress.Policy{Allow: []string{"registry.test", "registry.npmjs.org", "proxy.golang.org"}},
		Cache: c, Dial: reg.Dial, UpstreamTLS: reg.ClientTLS}
	if ev != nil {
		p.OnEvent = ev.add
	}
	s, err := NewIsolated(p)
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

// Two runs share a cache directory: what the first downloaded (a plain-HTTP
// tarball through the proxy, a Go module through the mirror the go command
// is pointed at) the second gets from the cache; the registry's own counts
// prove it.
func TestQSIsolatedRegistryCache(t *testing.T) {
	reg, err := egresstest.New()
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	reg.ArtifactSize = 3 << 20
	dir := t.TempDir()
	cmds := []string{
		`curl -fsS http://registry.test/pkg/-/pkg-1.0.0.tgz | sha256sum`,
		`case "$GOPROXY" in http://127.0.0.1:*/_tabwright/mirror/go,direct) echo mirror-env;; *) echo "GOPROXY=$GOPROXY";; esac
export GOFLAGS=-modcacherw GOSUMDB=off GOTOOLCHAIN=local
go mod download -json example.com/hello@v1.0.0 | grep -c '"Zip"'
grep -h 'hello from the registry' "$(go env GOMODCACHE)/example.com/hello@v1.0.0/hello.go"`,
	}
	var outs [2][]string
	var evs [2]*events
	for run := 0; run < 2; run++ {
		evs[run] = &events{}
		s, _ := cachedSandbox(t, reg, dir, evs[run])
		for _, c := range cmds {
			r := s.Run(context.Background(), c, Options{Timeout: 2 * time.Minute})
			if r.ExitCode != 0 {
				s.Close(false)
				t.Fatalf("run %d: %s: exit %d\n%s", run+1, c, r.ExitCode, r.Output)
			}
			outs[run] = append(outs[run], r.Output)
		}
		s.Close(false)
	}
	if strings.Join(outs[0], "") != strings.Join(outs[1], "") {
		t.Errorf("the runs saw different bytes:\n%q\n%q", outs[0], outs[1])
	}
	if !strings.Contains(outs[0][1], "mirror-env\n1\n") || !strings.Contains(outs[0][1], "hello from the registry") {
		t.Errorf("go through the mirror: %q", outs[0][1])
	}
	for _, hp := range []string{"registry.test/pkg/-/pkg-1.0.0.tgz", "proxy.golang.org/example.com/hello/@v/v1.0.0.zip", "proxy.golang.org/example.com/hello/@v/v1.0.0.mod"} {
		if n := reg.Hits(hp); n != 1 {
			t.Errorf("%s: upstream served it %d times over two runs, want 1", hp, n)
		}
	}
	for run, want := range []string{"egress_cache_miss", "egress_cache_hit"} {
		for _, host := range []string{"registry.test", "proxy.golang.org"} {
			if !evs[run].hasPrefix(want + " " + host) {
				t.Errorf("run %d: no %s for %s: %v", run+1, want, host, evs[run].evs)
			}
		}
	}
}

func (e *events) hasPrefix(s string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, x := range e.evs {
		if strings.HasPrefix(x, s) {
			return true
		}
	}
	return false
}

// BenchmarkQSRegistryCache fetches a 4 MB npm tarball through the registry
// mirror inside the sandbox, cold (empty cache: the proxy fetches it over
// HTTPS) and warm (from the cache), and reports both medians and their
// ratio. "loopback" is the registry on this machine, the cache's own cost;
// "link-100Mbit-20ms" paces the registry like a distant one (20 ms before
// each response, 100 Mbit/s).
func BenchmarkQSRegistryCache(b *testing.B) {
	for _, link := range []struct {
		name    string
		latency time.Duration
		bps     int
	}{{"loopback", 0, 0}, {"link-100Mbit-20ms", 20 * time.Millisecond, 100e6 / 8}} {
		b.Run(link.name, func(b *testing.B) {
			reg, err := egresstest.New()
			if err != nil {
				b.Fatal(err)
			}
			defer reg.Close()
			reg.ArtifactSize, reg.Latency, reg.BytesPerSecond = 4<<20, link.latency, link.bps
			dir := b.TempDir()
			s, _ := cachedSandbox(b, reg, dir, nil)
			defer s.Close(false)
			fetch := `curl -fsS -o tarball.tgz -w '%{http_code} %{size_download}\n' "${npm_config_registry}pkg/-/pkg-1.0.0.tgz"`
			want := fmt.Sprintf("200 %d\n", reg.ArtifactSize)
			run := func() time.Duration {
				t0 := time.Now()
				r := s.Run(context.Background(), fetch, Options{Timeout: time.Minute})
				d := time.Since(t0)
				if r.ExitCode != 0 || r.Output != want {
					b.Fatalf("%d %q", r.ExitCode, r.Output)
				}
				return d
			}
			var cold, warm []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				os.RemoveAll(dir)
				if _, err := egress.OpenCache(dir); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				cold = append(cold, run())
				warm = append(warm, run())
			}
			b.StopTimer()
			c, w := medianMS(cold), medianMS(warm)
			b.ReportMetric(c, "cold-ms")
			b.ReportMetric(w, "warm-ms")
			b.ReportMetric(c/w, "speedup")
			if n := reg.Hits("registry.npmjs.org/pkg/-/pkg-1.0.0.tgz"); n != b.N {
				b.Errorf("upstream served the tarball %d times in %d cold runs", n, b.N)
			}
		})
	}
}
