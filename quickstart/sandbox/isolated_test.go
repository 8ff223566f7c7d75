package sandbox

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabwright/tabwright/quickstart/egress"
)

// The sandbox backend's tests fail, never skip, without bubblewrap: CI
// installs it, and a skipped isolation test proves nothing.
func requireBwrap(t testing.TB) {
	t.Helper()
	if ok, why := Probe(context.Background()); !ok {
		t.Fatalf("the sandbox backend cannot run here: %s", why)
	}
}

type events struct {
	mu  sync.Mutex
	evs []string
}

func (e *events) add(typ string, f map[string]any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.evs = append(e.evs, fmt.Sprintf("%s %v %v", typ, f["host"], f["reason"]))
}

func (e *events) has(s string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, x := range e.evs {
		if x == s {
			return true
		}
	}
	return false
}

// netSandbox is an isolated sandbox whose proxy allows registry.test and
// refuses docs.test (a docs host) and everything else; every *.test name
// resolves, on the harness's side, to a loopback server.
func netSandbox(t *testing.T) (*Sandbox, *events, *httptest.Server) {
	t.Helper()
	requireBwrap(t)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "http://evil.test/after-redirect", http.StatusFound)
			return
		}
		fmt.Fprintf(w, "served %s%s\n", r.Host, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	ev := &events{}
	p := &egress.Proxy{Policy: egress.Policy{Docs: []string{"docs.test"}, Allow: []string{"registry.test"}}, OnEvent: ev.add,
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if !strings.HasSuffix(strings.Split(addr, ":")[0], ".test") {
				return nil, fmt.Errorf("tests reach only *.test names, not %s", addr)
			}
			var d net.Dialer
			return d.DialContext(ctx, network, srv.Listener.Addr().String())
		}}
	s, err := NewIsolated(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(false) })
	if s.BackendName() != Isolated || !s.Enforced() {
		t.Fatalf("backend %s enforced %v", s.BackendName(), s.Enforced())
	}
	return s, ev, srv
}

func TestQSIsolatedNetwork(t *testing.T) {
	s, ev, srv := netSandbox(t)
	ctx := context.Background()
	run := func(cmd string) Result {
		t.Helper()
		return s.Run(ctx, cmd, Options{Timeout: 20 * time.Second})
	}
	// The allowed registry is reachable through the proxy the environment names.
	if r := run(`curl -fsS http://registry.test/simple/pkg/`); r.ExitCode != 0 || r.Output != "served registry.test/simple/pkg/\n" {
		t.Errorf("registry: %d %q", r.ExitCode, r.Output)
	}
	if !ev.has("egress_allowed registry.test <nil>") {
		t.Errorf("no egress_allowed event: %v", ev.evs)
	}
	// A host on no list is refused, with the reason, and recorded.
	if r := run(`curl -fsS http://evil.test/`); r.ExitCode != 22 {
		t.Errorf("refused host: %d %q", r.ExitCode, r.Output)
	}
	if r := run(`curl -sS http://evil.test/`); !strings.HasPrefix(r.Output, "blocked from the shell: evil.test") {
		t.Errorf("refusal text: %q", r.Output)
	}
	if !ev.has("egress_blocked evil.test not_allowlisted") {
		t.Errorf("no egress_blocked event: %v", ev.evs)
	}
	// HTTPS goes through CONNECT, refused the same way.
	if r := run(`curl -sS https://evil.test/`); r.ExitCode == 0 || !strings.Contains(r.Output, "403") {
		t.Errorf("CONNECT to a refused host: %d %q", r.ExitCode, r.Output)
	}
	// The docs host is refused from the shell (it is read through read_docs).
	if r := run(`curl -fsS http://docs.test/guide/`); r.ExitCode == 0 || !ev.has("egress_blocked docs.test docs_host_requires_read_docs") {
		t.Errorf("docs host from the shell: %d %q %v", r.ExitCode, r.Output, ev.evs)
	}
	// A redirect from the allowed registry to a refused host: the client asks
	// the proxy again for the new host, and is refused.
	if r := run(`curl -fsSL http://registry.test/redirect`); r.ExitCode != 22 || strings.Contains(r.Output, "served") {
		t.Errorf("redirect to a refused host: %d %q", r.ExitCode, r.Output)
	}
	// A direct dial that ignores the proxy fails: the loopback server the
	// proxy reaches is not there inside the namespace, and nothing else is.
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	if r := run(fmt.Sprintf(`curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:%d/`, port)); r.ExitCode == 0 || strings.Contains(r.Output, "served") {
		t.Errorf("direct dial to the host's loopback server: %d %q", r.ExitCode, r.Output)
	}
	if r := run(fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo connected`, port)); r.ExitCode == 0 {
		t.Errorf("bash /dev/tcp reached the host: %q", r.Output)
	}
	if r := run(`awk -F: 'NR>2{gsub(/ /,"",$1); print $1}' /proc/net/dev`); r.Output != "lo\n" {
		t.Errorf("an interface besides loopback: %q", r.Output)
	}
}

func TestQSIsolatedFilesystemAndEnvironment(t *testing.T) {
	requireBwrap(t)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	secret, err := os.CreateTemp(home, ".tabwright-secret-")
	if err != nil {
		t.Fatal(err)
	}
	secret.WriteString("do not read")
	secret.Close()
	defer os.Remove(secret.Name())
	t.Setenv("ANTHROPIC_API_KEY", "sk-leak")
	t.Setenv("TABWRIGHT_HARNESS_ONLY", "leak")
	s, err := NewIsolated(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(false)
	hostTmp, err := os.CreateTemp("", "tabwright-host-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	hostTmp.Close()
	defer os.Remove(hostTmp.Name())
	r := s.Run(context.Background(), fmt.Sprintf(`
cat %q 2>&1 | grep -c 'do not read'
ls -A %q | wc -l
env | grep -c -e ANTHROPIC -e TABWRIGHT_HARNESS
echo "QS=$QS_EXTRA HOME=$HOME"
test -e %q && echo host-tmp-visible || echo host-tmp-hidden
touch /usr/tabwright-x 2>&1 | grep -c 'Read-only'
echo w > $HOME/h && echo w > $TMPDIR/t && echo w > ws && echo writable
grep NoNewPrivs /proc/self/status | tr -d '\t'
grep CapEff /proc/self/status | tr -d '\t'
`, secret.Name(), home, hostTmp.Name()), Options{Env: []string{"QS_EXTRA=1"}})
	want := []string{"0", "0", "0", "QS=1 HOME=" + s.Home, "host-tmp-hidden", "1", "writable",
		"NoNewPrivs:1", "CapEff:0000000000000000"}
	got := strings.Split(strings.TrimSpace(r.Output), "\n")
	if r.ExitCode != 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("exit %d\n got: %q\nwant: %q", r.ExitCode, got, want)
	}
	if b, err := os.ReadFile(filepath.Join(s.Workspace, "ws")); err != nil || string(b) != "w\n" {
		t.Errorf("the workspace is the harness's directory: %v %q", err, b)
	}
}

// marked lists the host's processes whose command line contains mark.
func marked(mark string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), mark) && e.Name() != fmt.Sprint(os.Getpid()) {
			st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if !strings.Contains(string(st), ") Z ") {
				out = append(out, e.Name()+" "+strings.ReplaceAll(string(b), "\x00", " "))
			}
		}
	}
	sort.Strings(out)
	return out
}

func waitNoneMarked(t *testing.T, mark, what string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for len(marked(mark)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := marked(mark); len(left) > 0 {
		for _, l := range left {
			var pid int
			fmt.Sscan(l, &pid)
			exec.Command("kill", "-9", fmt.Sprint(pid)).Run()
		}
		t.Errorf("%s: processes left behind: %v", what, left)
	}
}

func TestQSIsolatedTimeoutLeavesNoProcess(t *testing.T) {
	requireBwrap(t)
	s, err := NewIsolated(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(false)
	// A daemon that leaves the process group and the session (setsid,
	// double fork) escapes a process-group kill; the PID namespace ends it.
	mark := fmt.Sprintf("%d", 400000+time.Now().UnixNano()%100000)
	start := time.Now()
	r := s.Run(context.Background(), fmt.Sprintf(`setsid sh -c 'sleep %s.1 & sleep %s.2 &' ; sleep %s.3`, mark, mark, mark), Options{Timeout: 700 * time.Millisecond})
	if !r.TimedOut || r.ExitCode != 124 || time.Since(start) > 5*time.Second {
		t.Fatalf("%+v", r)
	}
	waitNoneMarked(t, mark, "timeout")
	// Without a timeout too: what a command leaves running ends with it.
	mark2 := fmt.Sprintf("%d", 500000+time.Now().UnixNano()%100000)
	if r := s.Run(context.Background(), fmt.Sprintf(`setsid sh -c 'sleep %s &'; echo started`, mark2), Options{}); r.ExitCode != 0 || r.Output != "started\n" {
		t.Fatalf("%+v", r)
	}
	waitNoneMarked(t, mark2, "command end")
}

// BenchmarkQSCommandOverhead runs `true` per iteration on each backend; the
// sandbox's overhead is the difference of the medians (target <= 15 ms).
func BenchmarkQSCommandOverhead(b *testing.B) {
	for _, backend := range []string{Local, Isolated} {
		b.Run(backend, func(b *testing.B) {
			var s *Sandbox
			var err error
			if backend == Local {
				s, err = New()
			} else {
				requireBwrap(b)
				s, err = NewIsolated(&egress.Proxy{})
			}
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close(false)
			var ds []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if r := s.Run(context.Background(), "true", Options{}); r.ExitCode != 0 {
					b.Fatalf("%+v", r)
				}
				ds = append(ds, time.Since(t0))
			}
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms")
		})
	}
}
