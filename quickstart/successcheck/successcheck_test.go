package successcheck

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/internal/procwait"
	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/egress"
	"github.com/tabwright/tabwright/quickstart/sandbox"
)

const testKey = "k-test-9d2"

var (
	mgr    *tabs.Manager
	expect *httptest.Server
	app    *httptest.Server
)

func TestMain(m *testing.M) {
	var err error
	mgr, err = tabs.New(tabs.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "qs_browser_expect tests need Chromium:", err)
		os.Exit(1)
	}
	// The check's endpoint as the harness mounts it: behind the key the
	// check's environment holds.
	expect = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(egress.HarnessKeyHeader) != testKey {
			http.Error(w, "no key", http.StatusForbidden)
			return
		}
		docs.ExpectHandler(func(context.Context) (*tabs.Manager, error) { return mgr, nil }).ServeHTTP(w, r)
	}))
	app = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/health":
			fmt.Fprint(w, "status: ok (a.b)\n")
		case "/item":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"message": "Hello World", "count": 42, "ready": true, "a.b": 1}`)
		case "/created":
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, "made")
		case "/spa":
			// The text appears only once the page's script has run.
			fmt.Fprint(w, `<html><body><div id="app"></div><script>document.getElementById("app").textContent = "Rendered " + "by script";</script></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	code := m.Run()
	app.Close()
	expect.Close()
	mgr.Close()
	os.Exit(code)
}

// runCheck runs compiled as task name's check in a fresh sandbox, the way
// the harness does: its own process group, killed when the check ends.
func runCheck(t *testing.T, name, compiled string, env ...string) (sandbox.CommandResult, *sandbox.Sandbox) {
	t.Helper()
	sb, err := sandbox.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close(false) })
	env = append(env, "QS_SESSION_LOG="+filepath.Join(sb.Workspace, SessionLogName))
	r := sb.Run(context.Background(), Script(name, compiled), sandbox.Options{Timeout: time.Minute, Env: env, KillGroup: true})
	return r, sb
}

func appPort(t *testing.T) string {
	u, _ := url.Parse(app.URL)
	return "QS_PORT=" + u.Port()
}

func TestQSPortBaseVectors(t *testing.T) {
	for name, want := range map[string]int{"demo": 27848, "httpx-quickstart": 23093, "streamlit-quickstart": 21493, "fastapi-quickstart": 28644, "vite-quickstart": 37949} {
		if got := PortBase(name); got != want {
			t.Errorf("PortBase(%q) = %d, want %d", name, got, want)
		}
	}
}

func TestQSPortSkipsBusyPorts(t *testing.T) {
	// Find a name whose base port and the next are free, occupy the base.
	for i := 0; i < 50; i++ {
		name := fmt.Sprintf("port-test-%d", i)
		base := PortBase(name)
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(base))
		if err != nil {
			continue
		}
		defer l.Close()
		if got := Port(name); got != base+1 {
			t.Errorf("Port(%q) = %d with %d busy, want %d", name, got, base, base+1)
		}
		// The prelude chooses the same port when the harness gives none.
		r, _ := runCheck(t, name, `echo "port=$QS_PORT"`)
		if want := fmt.Sprintf("port=%d\n", base+1); r.Output != want {
			t.Errorf("prelude chose %q, want %q", r.Output, want)
		}
		// The harness's choice wins.
		r, _ = runCheck(t, name, `echo "port=$QS_PORT"`, "QS_PORT=1234")
		if r.Output != "port=1234\n" {
			t.Errorf("QS_PORT from the harness: %q", r.Output)
		}
		return
	}
	t.Fatal("no free base port found")
}

func TestQSWaitHTTP(t *testing.T) {
	port := appPort(t)
	pass := []string{
		`qs_wait_http /health`,
		`qs_wait_http health --contains 'status: ok (a.b)'`,
		`qs_wait_http ` + app.URL + `/health --matches '^status: [a-z]+'`,
		`qs_wait_http /created --status 201 --contains made`,
		`qs_wait_http /item --json 'message=Hello World' --json 'count=42' --json 'ready=true' --json 'a.b=1'`,
	}
	for _, c := range pass {
		if r, _ := runCheck(t, "wait", c, port); r.ExitCode != 0 {
			t.Errorf("%s: exit %d\n%s", c, r.ExitCode, r.Output)
		}
	}
	fail := []struct{ check, want string }{
		{`qs_wait_http /created --timeout 1`, "Last attempt: HTTP 201, wanted 200. Body: made"},
		{`qs_wait_http /health --contains 'status: ok (aXb)' --timeout 1`, `the body does not show status: ok (aXb)`},
		{`qs_wait_http /item --json 'count=4' --timeout 1`, `does not show "count": 4.`},      // 42 is not 4
		{`qs_wait_http /item --json 'a_b=1' --timeout 1`, `does not show "a_b": 1.`},          // keys are literal
		{`qs_wait_http /item --json 'ready=True' --timeout 1`, `does not show "ready": True`}, // JSON spells it true
		{`qs_wait_http /health --bogus 1`, "check failed: qs_wait_http: unknown option --bogus"},
		{`qs_wait_http /health --contains ''`, "empty --contains matches anything"},
	}
	for _, c := range fail {
		r, _ := runCheck(t, "wait", c.check, port)
		if r.ExitCode != 1 || !strings.Contains(r.Output, c.want) {
			t.Errorf("%s: exit %d, want output containing %q:\n%s", c.check, r.ExitCode, c.want, r.Output)
		}
	}
}

func TestQSWaitHTTPTimeoutDumpsServerLog(t *testing.T) {
	// Nothing listens; the server printed its complaint and died.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	free := l.Addr().(*net.TCPAddr).Port
	l.Close()
	start := time.Now()
	r, _ := runCheck(t, "dead", "qs_serve 'echo starting; echo \"bind: address in use\" >&2; exit 1'\nqs_wait_http / --timeout 2", fmt.Sprintf("QS_PORT=%d", free))
	took := time.Since(start)
	out := r.Output
	if r.ExitCode != 1 || !strings.Contains(out, "--- server log (last 20 lines) ---\nstarting\nbind: address in use\n") ||
		!strings.Contains(out, fmt.Sprintf("check failed: http://127.0.0.1:%d/ never answered as expected after 2s. Last attempt: connection failed", free)) {
		t.Errorf("exit %d:\n%s", r.ExitCode, out)
	}
	if took < time.Second || took > 10*time.Second { // whole seconds, as date +%s counts them
		t.Errorf("the timeout took %s", took)
	}
	// No server at all: said so.
	r, _ = runCheck(t, "dead", "qs_wait_http / --timeout 1", fmt.Sprintf("QS_PORT=%d", free))
	if !strings.Contains(r.Output, "(no server output; it may never have started)") {
		t.Errorf("%s", r.Output)
	}
}

func TestQSServeLifecycle(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	free := l.Addr().(*net.TCPAddr).Port
	l.Close()
	// The served command is a shell line: `cd site && …` serves the whole
	// line, not `cd` alone; its grandchild records its pid.
	check := `mkdir -p site && echo '<h1>served page</h1>' > site/index.html
qs_serve 'cd site && bash -c "echo \$\$ > ../served.pid; exec python3 -m http.server $QS_PORT --bind 127.0.0.1"'
qs_wait_http / --contains 'served page' --timeout 20`
	r, sb := runCheck(t, "serve", check, fmt.Sprintf("QS_PORT=%d", free))
	if r.ExitCode != 0 {
		t.Fatalf("exit %d:\n%s", r.ExitCode, r.Output)
	}
	b, _ := os.ReadFile(filepath.Join(sb.Workspace, "served.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid == 0 {
		t.Fatal("no served pid")
	}
	if !procwait.Within(pid, 10*time.Second) { // a guard against a hang, not a speed bound
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
		t.Fatalf("the served process %d outlived the check", pid)
	}
	if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", free), time.Second); err == nil {
		c.Close()
		t.Errorf("port %d still answers after the check", free)
	}
}

func TestQSExpectOutput(t *testing.T) {
	write := func(sb *sandbox.Sandbox, s string) {
		os.WriteFile(filepath.Join(sb.Workspace, SessionLogName), []byte(s), 0o644)
	}
	// The log is written before the check; a check reads it through the
	// helper. Run in two steps: write, then check, in one sandbox.
	sb, _ := sandbox.New()
	defer sb.Close(false)
	run := func(compiled string) sandbox.CommandResult {
		return sb.Run(context.Background(), Script("expect", compiled), sandbox.Options{Timeout: 30 * time.Second, KillGroup: true,
			Env: []string{"QS_SESSION_LOG=" + filepath.Join(sb.Workspace, SessionLogName)}})
	}
	if r := run(`qs_expect_output --contains x`); r.ExitCode != 1 || !strings.Contains(r.Output, "no recorded session output at "+sb.Workspace) {
		t.Errorf("missing log: %s", r.Output)
	}
	write(sb, "<Response [200 OK]>\ntotal 35.75 (USD)\n")
	for _, c := range []string{
		`qs_expect_output --contains '35.75' --contains '(USD)'`,
		`qs_expect_output --matches '(^|[^0-9])200([^0-9]|$)'`,
		`qs_expect_output --contains 'total' --matches '^total [0-9.]+'`,
	} {
		if r := run(c); r.ExitCode != 0 {
			t.Errorf("%s: %s", c, r.Output)
		}
	}
	for _, c := range []struct{ check, want string }{
		{`qs_expect_output --contains '35x75'`, "check failed: nothing the run printed matched: 35x75"}, // '.' is literal in contains
		{`qs_expect_output --matches '^2000$'`, "--- last 20 lines the run printed ---\n<Response [200 OK]>\ntotal 35.75 (USD)\n"},
		{`qs_expect_output --contains ''`, "empty pattern matches anything"},
		{`qs_expect_output --contains`, "--contains needs a value"},
		{`qs_expect_output --equals x`, "unknown option --equals"},
	} {
		if r := run(c.check); r.ExitCode != 1 || !strings.Contains(r.Output, c.want) {
			t.Errorf("%s: exit %d, want %q in\n%s", c.check, r.ExitCode, c.want, r.Output)
		}
	}
}

func TestQSBrowserExpect(t *testing.T) {
	env := []string{appPort(t), "QS_BROWSER_ENDPOINT=" + expect.URL + "/expect", "QS_BROWSER_KEY=" + testKey}
	// The text exists only after the page's script ran: a person sees it,
	// curl would not.
	if r, _ := runCheck(t, "browser", `qs_browser_expect /spa --text 'Rendered by script'`, env...); r.ExitCode != 0 || !strings.HasPrefix(r.Output, "ok: ") {
		t.Errorf("exit %d: %s", r.ExitCode, r.Output)
	}
	if r, _ := runCheck(t, "browser", `curl -s `+app.URL+`/spa | grep -q 'Rendered by script' || qs_fail "not in the HTML"`, env...); r.ExitCode != 1 {
		t.Errorf("the raw HTML should not contain the text: %s", r.Output)
	}
	r, _ := runCheck(t, "browser", `qs_browser_expect `+app.URL+`/spa --text 'Something else'`, env...)
	if r.ExitCode != 1 || !strings.Contains(r.Output, `does not show "Something else"`) || !strings.Contains(r.Output, "Rendered by script") {
		t.Errorf("exit %d: %s", r.ExitCode, r.Output)
	}
	if r, _ := runCheck(t, "browser", `qs_browser_expect /spa --text x`, appPort(t)); r.ExitCode != 1 || !strings.Contains(r.Output, "without the harness's browser") {
		t.Errorf("no endpoint: %s", r.Output)
	}
	if r, _ := runCheck(t, "browser", `qs_browser_expect /spa`, env...); r.ExitCode != 1 || !strings.Contains(r.Output, "usage: qs_browser_expect URL --text TEXT") {
		t.Errorf("usage: %s", r.Output)
	}
	// Web pages only: a file: URL is refused by the helper with the reason.
	if r, _ := runCheck(t, "browser", `qs_browser_expect file:///etc/passwd --text root`, env...); r.ExitCode != 1 || !strings.Contains(r.Output, "renders http(s) pages only") || strings.Contains(r.Output, "root:") {
		t.Errorf("file: URL: %s", r.Output)
	}
	// Without the key the endpoint refuses, and the helper says so.
	if r, _ := runCheck(t, "browser", `qs_browser_expect /spa --text 'Rendered by script'`, env[0], env[1]); r.ExitCode != 1 || !strings.Contains(r.Output, "no key") {
		t.Errorf("no key: %s", r.Output)
	}
}

func TestQSFailAndScriptShape(t *testing.T) {
	s := Script("demo", "test -f x || qs_fail \"x is missing\"\n")
	if !strings.HasPrefix(s, "QS_PORT_BASE=27848\n") || !strings.HasSuffix(s, "\ntest -f x || qs_fail \"x is missing\"\n") {
		t.Errorf("script shape:\n%s", s)
	}
	r, _ := runCheck(t, "demo", "echo before\nqs_fail the file  was missing\necho after")
	if r.ExitCode != 1 || r.Output != "before\ncheck failed: the file was missing\n" {
		t.Errorf("%d %q", r.ExitCode, r.Output)
	}
}
