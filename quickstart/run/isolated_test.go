package run

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/quickstart/egress"
	"github.com/tabwright/tabwright/quickstart/egress/egresstest"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/trace"
)

func isolatedOpts(t *testing.T) Options {
	t.Helper()
	if ok, why := sandbox.Probe(context.Background()); !ok {
		t.Fatalf("the sandbox backend cannot run here: %s", why)
	}
	o := opts()
	o.Backend = sandbox.Isolated
	// *.test names reach the loopback server offSrv, on the harness's side.
	o.EgressDial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if !strings.HasSuffix(strings.Split(addr, ":")[0], ".test") {
			return nil, fmt.Errorf("tests reach only *.test names, not %s", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, offSrv.Listener.Addr().String())
	}
	return o
}

func TestIsolatedAttemptAndCheckUnderTheSameRules(t *testing.T) {
	u, _ := url.Parse(docsSrv.URL)
	tk := newTask(t, strings.Replace(head, "NAME", "iso", 1)+`network: {allow: [registry.test]}
replay:
  - curl -fsS http://registry.test/pkg | grep -c elsewhere
  - curl -sS --max-time 5 DOCS/docs/ && exit 1 || echo direct-dial-failed
  - curl -sS --noproxy '' --proxy "$HTTP_PROXY" DOCS/docs/
  - curl -fsS http://evil.test/ || echo refused
  - echo done > done.txt
success:
  script: |
    curl -fsS http://evil.test/check && qs_fail "the check reached evil.test"
    curl -fsS http://registry.test/pkg >/dev/null || qs_fail "the check could not reach the registry"
    test -z "$ANTHROPIC_API_KEY" || qs_fail "a harness variable leaked"
    test -f done.txt || qs_fail "done.txt was never created"
`)
	t.Setenv("ANTHROPIC_API_KEY", "sk-leak")
	r := Attempt(context.Background(), tk, 1, isolatedOpts(t))
	ev := r.Trace.Events()
	if r.Backend != sandbox.Isolated || !r.Enforced || ev[0]["backend"] != sandbox.Isolated || ev[0]["enforced"] != true {
		t.Errorf("backend %s enforced %v, run_start %v", r.Backend, r.Enforced, ev[0])
	}
	// The docs host was read through read_docs, and refused from the shell.
	if len(r.DocsPagesRead) != 1 || r.DocsBypassAttempts != 1 {
		t.Errorf("pages read %v, bypass attempts %d", r.DocsPagesRead, r.DocsBypassAttempts)
	}
	var outs []string
	var blocked []string
	for _, e := range ev {
		if trace.TypeOf(e) == "tool_result" {
			outs = append(outs, fmt.Sprint(e["output"]))
		}
		if trace.TypeOf(e) == "egress_blocked" {
			blocked = append(blocked, fmt.Sprint(e["host"], " ", e["reason"]))
		}
	}
	host := u.Hostname()
	want := []string{"1\n", "direct-dial-failed", "blocked from the shell: " + host, "refused\n"}
	for i, w := range want {
		if i >= len(outs) || !strings.Contains(outs[i], w) {
			t.Errorf("step %d: want %q in %q", i+1, w, outs)
		}
	}
	wantBlocked := []string{host + " docs_host_requires_read_docs", "evil.test not_allowlisted", "evil.test not_allowlisted"}
	if strings.Join(blocked, ",") != strings.Join(wantBlocked, ",") || r.EgressBlocked != 3 {
		t.Errorf("blocked %v (%d), want %v", blocked, r.EgressBlocked, wantBlocked)
	}
	if r.SuccessCheck == nil || r.SuccessCheck.ExitCode != 0 {
		t.Errorf("check: %+v", r.SuccessCheck)
	}
	// The check passed: refusals are counted, and do not turn a pass into an error.
	if r.Classification != Passed {
		t.Errorf("classification %s", r.Classification)
	}
}

func TestIsolatedServeAndBrowserExpect(t *testing.T) {
	t.Parallel()
	o := isolatedOpts(t)
	o.ExpectBrowser = &launch.Options{}
	tk := newTask(t, strings.Replace(head, "NAME", "iso-web", 1)+`replay:
  - mkdir site && printf '<title>t</title><div id=app></div><script>app.textContent="Rendered "+(1+1)</script>' > site/index.html
success:
  serve: python3 -m http.server "$QS_PORT" --bind 127.0.0.1 --directory site
  wait_http: {path: /, contains: id=app, timeout: 20}
  script: qs_browser_expect / --text "Rendered 2"
`)
	r := Attempt(context.Background(), tk, 1, o)
	if r.Classification != Passed || !r.Enforced {
		t.Fatalf("%s enforced=%v: %+v", r.Classification, r.Enforced, r.SuccessCheck)
	}
}

// Two attempts of one task share --cache-dir: the second gets the tarball
// from the cache (the trace says so, and the registry served it once), and
// the task's policy still decides.
func TestIsolatedRegistryCacheAcrossAttempts(t *testing.T) {
	t.Parallel()
	reg, err := egresstest.New()
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	cache, err := egress.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := isolatedOpts(t)
	o.EgressDial, o.EgressTLS, o.Cache = reg.Dial, reg.ClientTLS, cache
	tk := newTask(t, strings.Replace(head, "NAME", "cached", 1)+`network: {only: [registry.npmjs.org]}
replay:
  - curl -fsS -o pkg.tgz "${npm_config_registry}pkg/-/pkg-1.0.0.tgz" && test -s pkg.tgz
  - curl -fsS "${PIP_INDEX_URL}requests/" || echo pypi-refused
  - echo done > done.txt
success:
  script: test -s pkg.tgz || qs_fail "no tarball"
`)
	for attempt, want := range []string{"egress_cache_miss", "egress_cache_hit"} {
		r := Attempt(context.Background(), tk, attempt+1, o)
		if r.Classification != Passed {
			t.Fatalf("attempt %d: %s %s %+v", attempt+1, r.Classification, r.Detail, r.SuccessCheck)
		}
		var got []string
		for _, e := range r.Trace.Events() {
			switch trace.TypeOf(e) {
			case "run_start":
				if e["registry_cache"] != cache.Dir() {
					t.Errorf("run_start: %v", e)
				}
			case "egress_cache_hit", "egress_cache_miss", "egress_blocked":
				got = append(got, fmt.Sprint(e["type"], " ", e["host"]))
			case "tool_result":
				if strings.Contains(fmt.Sprint(e["output"]), "pypi-refused") {
					got = append(got, "pypi-refused")
				}
			}
		}
		wantEv := []string{want + " registry.npmjs.org", "egress_blocked pypi.org", "pypi-refused"}
		if strings.Join(got, ",") != strings.Join(wantEv, ",") {
			t.Errorf("attempt %d: %v, want %v", attempt+1, got, wantEv)
		}
	}
	if n := reg.Hits("registry.npmjs.org/pkg/-/pkg-1.0.0.tgz"); n != 1 {
		t.Errorf("the registry served the tarball %d times in two attempts, want 1", n)
	}
	// The local backend has no proxy to cache with: refused, and said why.
	lo := opts()
	lo.Cache = cache
	r := Attempt(context.Background(), tk, 3, lo)
	if r.Classification != HarnessError && r.Classification != InfraError || !strings.Contains(r.Detail, "qs.cache_needs_sandbox") {
		t.Errorf("local with a cache: %s %q", r.Classification, r.Detail)
	}
}

// A replay step that writes past the workspace's bound stops the attempt
// with workspace_full (a budget, not the docs' fault); the steps after it
// never run, and the check still does.
func TestIsolatedWorkspaceFullStopsTheAttempt(t *testing.T) {
	t.Parallel()
	tk := newTask(t, strings.Replace(head, "NAME", "full", 1)+`replay:
  - dd if=/dev/zero of=big bs=1M count=64 status=none; true
  - echo after > after.txt
success:
  script: test -f after.txt || qs_fail "after.txt was never created"
`)
	o := isolatedOpts(t)
	o.WorkspaceBytes = 16 << 20
	r := Attempt(context.Background(), tk, 1, o)
	if os.Geteuid() != 0 {
		// Without root there is no bound to reach (documented).
		if r.StopReason != StopCompleted {
			t.Fatalf("not root: %s %s", r.StopReason, r.Detail)
		}
		return
	}
	if r.StopReason != StopWorkspaceFull || r.Classification != BudgetExhausted || r.Turns != 1 || !strings.Contains(r.Detail, "16 MiB") {
		t.Fatalf("stop %s (%s), %s, turns %d", r.StopReason, r.Detail, r.Classification, r.Turns)
	}
	if r.SuccessCheck == nil || !strings.Contains(r.SuccessCheck.Output, "after.txt was never created") {
		t.Errorf("check: %+v", r.SuccessCheck)
	}
}

// A replay step that starts processes without end meets the sandbox's
// process bound: the attempt stops there with process_bound, classified
// budget_exhausted, and the check still runs (issue 44, item 1).
func TestIsolatedProcessBoundStopsTheAttempt(t *testing.T) {
	t.Parallel()
	tk := newTask(t, strings.Replace(head, "NAME", "forks", 1)+`replay:
  - sh -c 'i=0; while [ $i -lt 300 ]; do sleep 600 & i=$((i+1)); done'
  - echo after > after.txt
success:
  script: test -f after.txt || qs_fail "after.txt was never created"
`)
	o := isolatedOpts(t)
	o.Limits = sandbox.Limits{Processes: 64, MemoryBytes: sandbox.DefaultLimits.MemoryBytes}
	r := Attempt(context.Background(), tk, 1, o)
	if r.StopReason != StopProcessBound || r.Classification != BudgetExhausted || r.Turns != 1 {
		t.Fatalf("stop %s (%s), %s, turns %d", r.StopReason, r.Detail, r.Classification, r.Turns)
	}
	if r.SuccessCheck == nil || !strings.Contains(r.SuccessCheck.Output, "after.txt was never created") {
		t.Errorf("check: %+v", r.SuccessCheck)
	}
}
