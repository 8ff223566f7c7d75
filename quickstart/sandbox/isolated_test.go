//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tabwright/tabwright/internal/procwait"
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
	run := func(cmd string) CommandResult {
		t.Helper()
		return s.Run(ctx, cmd, Options{Timeout: 20 * time.Second})
	}
	// The allowed registry is reachable through the proxy the environment names.
	if r := run(`curl -fsS http://registry.test/simple/pkg/`); r.ExitCode != 0 || r.Output != "served registry.test/simple/pkg/\n" {
		t.Errorf("registry: %d %q", r.ExitCode, r.Output)
	}
	if !ev.has("egress_allowed registry.test allowlisted") {
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
ls -A %q 2>/dev/null | wc -l
env | grep -c -e ANTHROPIC -e TABWRIGHT_HARNESS
echo "QS=$QS_EXTRA HOME=$HOME"
test -e %q && echo host-tmp-visible || echo host-tmp-hidden
touch /usr/tabwright-x 2>&1 | grep -c 'Read-only'
echo w > $HOME/h && echo w > $TMPDIR/t && echo w > ws && echo writable
tr '\0' '\n' < /proc/1/environ | grep -c -e ANTHROPIC -e TABWRIGHT_HARNESS
grep NoNewPrivs /proc/self/status | tr -d '\t'
grep CapEff /proc/self/status | tr -d '\t'
`, secret.Name(), home, hostTmp.Name()), Options{Env: []string{"QS_EXTRA=1"}})
	want := []string{"0", "0", "0", "QS=1 HOME=" + s.Home, "host-tmp-hidden", "1", "writable", "0",
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
	for _, l := range marked(mark) {
		var pid int
		fmt.Sscan(l, &pid)
		procwait.Within(pid, 10*time.Second) // a guard against a hang, not a speed bound
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

// sleeping lists the host's processes that run exactly `sleep arg`, one of
// args. Not marked: a command line that merely contains the mark also
// belongs to passers-by (the command's shell, a shell forked for a
// background job and not yet exec'd, the setsid shell that exits at once),
// and a process in the middle of its exec reads as an empty command line;
// once a process runs sleep with the mark as its argument, it stays so
// until it ends.
func sleeping(args ...string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		argv := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
		if err != nil || len(argv) != 2 || filepath.Base(argv[0]) != "sleep" || !slices.Contains(args, argv[1]) {
			continue
		}
		if st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); !strings.Contains(string(st), ") Z ") {
			out = append(out, e.Name()+" sleep "+argv[1])
		}
	}
	return out
}

// waitSleeping waits until a `sleep arg` runs for each of args.
func waitSleeping(t *testing.T, what string, args ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second) // a guard against a hang, not a speed bound
	// A poll, not a stand-in for a signal: the process starts inside the
	// sandbox, which announces nothing; each look checks /proc itself.
	for len(sleeping(args...)) < len(args) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := sleeping(args...); len(got) < len(args) {
		t.Errorf("%s: not all of sleep %v run: %v", what, args, got)
	}
}

// A person's terminal: what a command leaves in the background serves the
// next commands (and the harness's browser) until the sandbox closes; a
// timeout kills the timed-out command's own process group only; Close ends
// everything, daemons that left the group and the session included.
func TestQSIsolatedBackgroundLivesUntilClose(t *testing.T) {
	requireBwrap(t)
	s, err := NewIsolated(nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			s.Close(false)
		}
	}()
	ctx := context.Background()
	base := 400000 + time.Now().UnixNano()%100000
	bg, daemon, fg, check := fmt.Sprint(base), fmt.Sprint(base+100000), fmt.Sprint(base+200000), fmt.Sprint(base+300000)
	os.WriteFile(filepath.Join(s.Workspace, "page.txt"), []byte("served"), 0o644)
	start := time.Now()
	r := s.Run(ctx, fmt.Sprintf(`python3 -m http.server 8766 --bind 127.0.0.1 >/dev/null 2>&1 &
sleep %s &
setsid sh -c 'sleep %s.1 & sleep %s.2 &'
echo started`, bg, daemon, daemon), Options{Timeout: 20 * time.Second})
	if r.ExitCode != 0 || r.Output != "started\n" || time.Since(start) > 5*time.Second {
		t.Fatalf("%+v", r)
	}
	waitSleeping(t, "a background job after its command", bg)
	waitSleeping(t, "a daemon after its command", daemon+".1", daemon+".2")
	// The next command reaches the server the previous one left.
	r = s.Run(ctx, `for i in $(seq 100); do curl -fs --noproxy '*' http://127.0.0.1:8766/page.txt && exit 0; sleep 0.1; done; exit 1`, Options{Timeout: 20 * time.Second})
	if r.ExitCode != 0 || r.Output != "served" {
		t.Errorf("the server from the previous command: %d %q", r.ExitCode, r.Output)
	}
	// A timeout kills the command's own work, foreground and background,
	// and nothing an earlier command left.
	r = s.Run(ctx, fmt.Sprintf(`sleep %s.1 & sleep %s.2`, fg, fg), Options{Timeout: 700 * time.Millisecond})
	if !r.TimedOut || r.ExitCode != 124 || !strings.Contains(r.Output, "its process group was killed") {
		t.Fatalf("%+v", r)
	}
	waitNoneMarked(t, fg, "the timed-out command")
	// A check's group (KillGroup) ends with it.
	if r := s.Run(ctx, fmt.Sprintf(`sleep %s & echo ok`, check), Options{KillGroup: true}); r.ExitCode != 0 || r.Output != "ok\n" {
		t.Fatalf("%+v", r)
	}
	waitNoneMarked(t, check, "KillGroup")
	if left := sleeping(bg, daemon+".1", daemon+".2"); len(left) != 3 {
		t.Errorf("a timeout or a check killed what an earlier command left: %v", left)
	}
	c, err := s.DialInside(8766)
	if err != nil {
		t.Fatalf("the harness cannot reach the server: %v", err)
	}
	fmt.Fprint(c, "GET /page.txt HTTP/1.0\r\n\r\n")
	b, _ := io.ReadAll(c)
	c.Close()
	if !strings.HasSuffix(string(b), "\r\n\r\nserved") {
		t.Errorf("through DialInside: %q", b)
	}
	s.Close(false)
	closed = true
	waitNoneMarked(t, bg, "Close: the background job")
	waitNoneMarked(t, daemon, "Close: the daemon")
	waitNoneMarked(t, "http.server 8766", "Close: the server")
}

// BenchmarkQSCommandOverhead measures what the sandbox backend adds to a
// command: each iteration runs `true` once on a local sandbox and once on an
// isolated one, interleaved so that a loaded machine slows both alike. It
// reports both medians and overhead-ms, the difference of the medians (the
// target is <= 15 ms; run with -benchtime 50x for the median of 50).
func BenchmarkQSCommandOverhead(b *testing.B) {
	requireBwrap(b)
	local, err := New()
	if err != nil {
		b.Fatal(err)
	}
	defer local.Close(false)
	iso, err := NewIsolated(&egress.Proxy{})
	if err != nil {
		b.Fatal(err)
	}
	defer iso.Close(false)
	ctx := context.Background()
	// One untimed command each: the first one pays for cold caches.
	local.Run(ctx, "true", Options{})
	iso.Run(ctx, "true", Options{})
	var dl, di []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range []*Sandbox{local, iso} {
			t0 := time.Now()
			if r := s.Run(ctx, "true", Options{}); r.ExitCode != 0 {
				b.Fatalf("%s: %+v", s.BackendName(), r)
			}
			if s == local {
				dl = append(dl, time.Since(t0))
			} else {
				di = append(di, time.Since(t0))
			}
		}
	}
	b.StopTimer()
	ml, mi := medianMS(dl), medianMS(di)
	b.ReportMetric(ml, "local-ms")
	b.ReportMetric(mi, "sandbox-ms")
	b.ReportMetric(mi-ml, "overhead-ms")
}

// BenchmarkQSSandboxStart measures what a sandbox costs once, when it is
// made (bwrap and this binary's start as its first process) and closed.
func BenchmarkQSSandboxStart(b *testing.B) {
	requireBwrap(b)
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		s, err := NewIsolated(&egress.Proxy{})
		if err != nil {
			b.Fatal(err)
		}
		s.Close(false)
		ds = append(ds, time.Since(t0))
	}
	b.ReportMetric(medianMS(ds), "start-ms")
}

func medianMS(ds []time.Duration) float64 {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[len(s)/2].Microseconds()) / 1000
}

// keeperPID is the host's pid of s's keeper (the sandbox's PID 1).
func keeperPID(t *testing.T, s *Sandbox) int {
	t.Helper()
	s.iso.mu.Lock()
	bw := s.iso.k.cmd.Process.Pid
	s.iso.mu.Unlock()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:]))
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if len(f) > 1 && f[1] == fmt.Sprint(bw) && strings.Contains(string(cmd), keeperArg) {
			var pid int
			fmt.Sscan(e.Name(), &pid)
			return pid
		}
	}
	t.Fatalf("no keeper under bwrap %d", bw)
	return 0
}

func TestQSIsolatedKeeperHoldsAndRecovers(t *testing.T) {
	requireBwrap(t)
	s, err := NewIsolated(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(false)
	ctx := context.Background()
	mark := fmt.Sprintf("qs-tmp-%d", time.Now().UnixNano())
	// A command cannot stop the sandbox's first process, and no descriptor
	// leaks into a command: only stdin, stdout and stderr are open. (Listed
	// into a file: in a pipeline bash itself briefly holds the pipe.)
	// (The signals go only to the keeper, and only after checking that PID 1
	// is the keeper: on a broken sandbox they would reach the host's init.)
	r := s.Run(ctx, `echo kept > /tmp/`+mark+`
grep -q `+keeperArg+` /proc/1/cmdline || exit 3
for sig in KILL TERM STOP HUP INT QUIT USR1 PIPE; do kill -s $sig 1; done
ls /proc/$$/fd > /tmp/fds; tr '\n' ' ' < /tmp/fds; echo; echo survived`, Options{Timeout: 20 * time.Second})
	if r.ExitCode != 0 || r.Output != "0 1 2 \nsurvived\n" {
		t.Fatalf("%d %q", r.ExitCode, r.Output)
	}
	// /tmp is the sandbox's own: kept between its commands, seen nowhere else.
	if r := s.Run(ctx, "cat /tmp/"+mark, Options{}); r.ExitCode != 0 || r.Output != "kept\n" {
		t.Errorf("the sandbox was restarted, or /tmp is not kept: %d %q", r.ExitCode, r.Output)
	}
	if _, err := os.Stat("/tmp/" + mark); !os.IsNotExist(err) {
		t.Errorf("the sandbox's /tmp is the host's: %v", err)
	}
	other, err := NewIsolated(nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := other.Run(ctx, "test -e /tmp/"+mark+" && echo shared || echo private", Options{}); r.Output != "private\n" {
		t.Errorf("two sandboxes share /tmp: %q", r.Output)
	}
	other.Close(false)
	// If the first process dies anyway (killed from outside), the command
	// running says so, and the next command gets a fresh sandbox.
	done := make(chan CommandResult, 1)
	sleepMark := fmt.Sprintf("%d", 600000+time.Now().UnixNano()%100000)
	go func() { done <- s.Run(ctx, "echo started; sleep "+sleepMark, Options{Timeout: time.Minute}) }()
	deadline := time.Now().Add(10 * time.Second)
	for len(sleeping(sleepMark)) == 0 && time.Now().Before(deadline) { // as in waitSleeping
		time.Sleep(10 * time.Millisecond)
	}
	if len(sleeping(sleepMark)) == 0 {
		select {
		case r := <-done:
			t.Fatalf("the command never started: it ended %d %q", r.ExitCode, r.Output)
		default:
			t.Fatal("the command never started")
		}
	}
	syscall.Kill(keeperPID(t, s), syscall.SIGKILL)
	select {
	case r := <-done:
		if r.ExitCode != 137 || !strings.Contains(r.Output, "sandbox.lost") || !strings.Contains(r.Output, "fresh sandbox") {
			t.Errorf("lost sandbox: %d %q", r.ExitCode, r.Output)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the command did not end with its sandbox")
	}
	if r := s.Run(ctx, "cat /tmp/"+mark+" 2>/dev/null || echo fresh; pwd", Options{}); r.ExitCode != 0 || r.Output != "fresh\n"+s.Workspace+"\n" {
		t.Errorf("after a lost sandbox: %d %q", r.ExitCode, r.Output)
	}
}

func TestQSIsolatedDialInside(t *testing.T) {
	requireBwrap(t)
	s, err := NewIsolated(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(false)
	if _, err := s.DialInside(1); err == nil || !strings.Contains(err.Error(), "sandbox.inbound") {
		t.Errorf("nothing listens: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	os.WriteFile(filepath.Join(s.Workspace, "page.txt"), []byte("inside"), 0o644)
	done := make(chan CommandResult, 1)
	go func() {
		done <- s.Run(ctx, "exec python3 -m http.server 8765 --bind 127.0.0.1", Options{Timeout: time.Minute})
	}()
	var c net.Conn
	deadline := time.Now().Add(15 * time.Second)
	// A poll, not a stand-in for a signal: nothing says when the server
	// inside listens but a connection it accepts.
	for c == nil && time.Now().Before(deadline) {
		if c, err = s.DialInside(8765); err != nil {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if c == nil {
		t.Fatalf("the server inside never answered: %v", err)
	}
	fmt.Fprint(c, "GET /page.txt HTTP/1.0\r\n\r\n")
	b, _ := io.ReadAll(c)
	c.Close()
	if !strings.HasPrefix(string(b), "HTTP/1.0 200") || !strings.HasSuffix(string(b), "\r\n\r\ninside") {
		t.Errorf("%q", b)
	}
	// The host's own loopback has no such server: the port was inside.
	if hc, err := net.Dial("tcp", "127.0.0.1:8765"); err == nil {
		hc.Close()
		t.Errorf("port 8765 answers on the host too; this test needs it free there")
	}
	cancel()
	select {
	case r := <-done:
		if !r.TimedOut || r.ExitCode != 124 || !strings.Contains(r.Output, "its process group was killed") {
			t.Errorf("%+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelling did not stop the command")
	}
}
