package run

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/internal/procwait"
	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/egress"
	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// fuzzWorker reports whether this process is one of go test -fuzz's
// workers, which run only the fuzz target.
func fuzzWorker() bool {
	for _, a := range os.Args {
		if strings.HasPrefix(a, "-test.fuzzworker") {
			return true
		}
	}
	return false
}

var (
	browser *docs.Browser
	docsSrv *httptest.Server
	offSrv  *httptest.Server
)

func TestMain(m *testing.M) {
	if fuzzWorker() {
		os.Exit(m.Run()) // the fuzz targets parse bytes; a browser per worker only slowed them to a halt
	}
	var err error
	browser, err = docs.NewBrowser()
	if err != nil {
		fmt.Fprintln(os.Stderr, "read_docs tests need Chromium:", err)
		os.Exit(1)
	}
	offSrv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><p>elsewhere</p></body></html>")
	}))
	docsSrv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			// Same port, other host name: off the allowlist.
			http.Redirect(w, r, strings.Replace(offSrv.URL, "127.0.0.1", "localhost", 1)+"/x", http.StatusFound)
		case "/moved":
			http.Redirect(w, r, "/docs/", http.StatusMovedPermanently)
		case "/plain.md":
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprint(w, "# Plain\n\nRun `echo hi`.\n")
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><title>Quickstart</title></head><body><main><article>
<h1>Quickstart</h1><p>Create the file with <code>echo done &gt; done.txt</code>, then read the <a href="/docs/next">next page</a>.</p>
<p>This paragraph is long enough for the reader view to treat it as the article of the page, which it is.</p>
</article></main></body></html>`)
		}
	}))
	code := m.Run()
	docsSrv.Close()
	offSrv.Close()
	browser.Close()
	os.Exit(code)
}

func newTask(t testing.TB, body string) *task.Task {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "t.yaml")
	os.WriteFile(p, []byte(strings.ReplaceAll(body, "DOCS", docsSrv.URL)), 0o644)
	os.WriteFile(filepath.Join(dir, "check.sh"), []byte("# marker-51c7e\ntest -f done.txt || qs_fail \"done.txt was never created\"\n"), 0o644)
	tk, err := task.Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func opts() Options { return Options{Docs: &docs.Reader{Browser: browser}} }

const head = "name: NAME\ngoal: g\ndocs:\n  path: [DOCS/docs/]\n"

func TestPassingReplay(t *testing.T) {
	t.Parallel()
	tk := newTask(t, strings.Replace(head, "NAME", "pass", 1)+`replay:
  - echo done > done.txt
  - grep -q marker-51c7e -r . && echo LEAK || echo clean
success:
  file: check.sh
`)
	r := Attempt(context.Background(), tk, 1, opts())
	if r.Classification != Passed || r.StopReason != StopCompleted || r.Turns != 2 {
		t.Fatalf("%s %s %d: %s", r.Classification, r.StopReason, r.Turns, r.Trace.JSONL())
	}
	if len(r.DocsPagesRead) != 1 || r.DocsReads[0].ContentHash == "" || !strings.Contains(r.DocsReads[0].Text, "[next page](") {
		t.Errorf("docs read: %+v", r.DocsReads[0])
	}
	ev := r.Trace.Events()
	// The harness read the route: a docs_read by the harness, no tool call.
	if trace.TypeOf(ev[1]) != "docs_read" || ev[1]["by"] != "harness" || trace.TypeOf(ev[2]) != "tool_call" || ev[2]["tool"] != "bash" {
		t.Errorf("route read: %v / %v", ev[1], ev[2])
	}
	if out := ev[5]["output"]; out != "clean\n" {
		t.Errorf("the check file was visible to the agent: %v", out)
	}
	if trace.TypeOf(ev[0]) != "run_start" || trace.TypeOf(ev[len(ev)-1]) != "run_end" || r.Enforced || r.Backend != "local" {
		t.Errorf("trace shape / backend")
	}
}

func TestFailingCommandIsDocsGap(t *testing.T) {
	t.Parallel()
	tk := newTask(t, strings.Replace(head, "NAME", "gap", 1)+"replay: ['true', 'exit 3', 'echo never']\nsuccess:\n  script: test -f done.txt || qs_fail \"done.txt was never created\"\n")
	r := Attempt(context.Background(), tk, 1, opts())
	if r.Classification != DocsGap || r.StopReason != StopCommandFailed || r.Turns != 2 || r.SuspectPage == nil || *r.SuspectPage != docsSrv.URL+"/docs/" {
		t.Fatalf("%+v", r)
	}
	if !strings.Contains(r.SuccessCheck.Output, "done.txt was never created") {
		t.Errorf("check output %q", r.SuccessCheck.Output)
	}
}

func TestBudgetKillsProcessGroup(t *testing.T) {
	t.Parallel()
	tk := newTask(t, strings.Replace(head, "NAME", "budget", 1)+`replay:
  - (sleep 300 & echo $! > bg.pid; wait)
success:
  script: test -f done.txt || qs_fail "no done.txt"
budgets: {max_command_seconds: 1}
`)
	opt := opts()
	opt.KeepSandbox = true
	r := Attempt(context.Background(), tk, 1, opt)
	defer os.RemoveAll(filepath.Dir(r.Sandbox))
	if r.Classification != DocsGap && r.Classification != BudgetExhausted {
		t.Fatalf("%s", r.Classification)
	}
	pid, _ := os.ReadFile(filepath.Join(r.Sandbox, "bg.pid"))
	var n int
	fmt.Sscan(string(pid), &n)
	if n == 0 {
		t.Fatal("no pid recorded")
	}
	// Killed is not yet gone: on a loaded machine the sleep may not have run
	// its exit when the attempt returns (it read as running 1 soak run in 10).
	if !procwait.Within(n, 10*time.Second) { // a guard against a hang, not a speed bound
		t.Errorf("background sleep %d survived the command timeout", n)
	}
	// max_seconds is the agent's budget: exhausted is budget_exhausted. It
	// covers the docs read too, so it leaves room for that on a loaded
	// machine (a run that read no docs is infra_error).
	tk = newTask(t, strings.Replace(head, "NAME", "budget2", 1)+"replay: ['sleep 30']\nsuccess:\n  script: test -f done.txt || qs_fail no\nbudgets: {max_seconds: 5}\n")
	start := time.Now()
	r = Attempt(context.Background(), tk, 1, opts())
	if r.Classification != BudgetExhausted || r.StopReason != StopTimeout || time.Since(start) > 10*time.Second {
		t.Errorf("%s %s after %s", r.Classification, r.StopReason, time.Since(start))
	}
}

func TestServeWaitHTTP(t *testing.T) {
	t.Parallel()
	tk := newTask(t, strings.Replace(head, "NAME", "serve-ok", 1)+`replay:
  - |
    mkdir site && echo '{"message": "Hello World", "count": 42}' > site/index.json
success:
  serve: cd site && python3 -m http.server $QS_PORT --bind 127.0.0.1
  wait_http: {path: /index.json, json: {message: Hello World, count: 42}, timeout: 20}
`)
	r := Attempt(context.Background(), tk, 1, opts())
	if r.Classification != Passed {
		t.Fatalf("%s: %s", r.Classification, r.SuccessCheck.Output)
	}
	tk = newTask(t, strings.Replace(head, "NAME", "serve-bad", 1)+`replay: ['true']
success:
  serve: echo starting up; echo 'port in use' >&2; exit 1
  wait_http: {path: /, timeout: 2}
`)
	r = Attempt(context.Background(), tk, 1, opts())
	out := r.SuccessCheck.Output
	if r.Classification != DocsGap || !strings.Contains(out, "--- server log") || !strings.Contains(out, "port in use") || !strings.Contains(out, "never answered") {
		t.Fatalf("%s: %s", r.Classification, out)
	}
}

func TestExpectOutput(t *testing.T) {
	t.Parallel()
	body := strings.Replace(head, "NAME", "expect", 1) + "replay: ['echo total 35.75', 'echo secret-xyz >&2; true']\nsuccess:\n  expect_output: {contains: ['35.75'], matches: '^total'}\n"
	if r := Attempt(context.Background(), newTask(t, body), 1, opts()); r.Classification != Passed {
		t.Fatalf("%s: %s", r.Classification, r.SuccessCheck.Output)
	}
	body = strings.Replace(head, "NAME", "expect2", 1) + "setup: ['echo 99.1']\nreplay: ['echo total 1']\nsuccess:\n  expect_output: {contains: '99.1'}\n"
	r := Attempt(context.Background(), newTask(t, body), 1, opts())
	if r.Classification != DocsGap || !strings.Contains(r.SuccessCheck.Output, "nothing the run printed matched: 99.1") {
		t.Fatalf("setup output must not count: %s %s", r.Classification, r.SuccessCheck.Output)
	}
}

func TestRedirectOffAllowlistRefused(t *testing.T) {
	t.Parallel()
	tk := newTask(t, "name: redir\ngoal: g\ndocs:\n  path: [DOCS/away, DOCS/moved, 'http://example.invalid/x']\nreplay: ['true']\nsuccess:\n  script: 'true'\n")
	r := Attempt(context.Background(), tk, 1, opts())
	ev := r.Trace.Events()
	var blocked, followed int
	for _, e := range ev {
		switch trace.TypeOf(e) {
		case "docs_read_blocked":
			blocked++
		case "docs_redirect_followed":
			followed++
		}
	}
	if blocked != 1 || followed != 1 || len(r.DocsPagesRead) != 1 || r.DocsPagesRead[0] != docsSrv.URL+"/moved" {
		t.Fatalf("blocked %d followed %d read %v\n%s", blocked, followed, r.DocsPagesRead, r.Trace.JSONL())
	}
	if r.DocsReads[0].Blocked != "redirect_outside_allowlist" || r.DocsReads[2].Err == "" {
		t.Errorf("%+v %+v", r.DocsReads[0], r.DocsReads[2])
	}
}

func TestSkippedAndSuite(t *testing.T) {
	t.Parallel()
	skip := newTask(t, strings.Replace(head, "NAME", "agent-only", 1)+"success:\n  script: 'true'\n")
	pass := newTask(t, strings.Replace(head, "NAME", "ok", 1)+"replay: ['echo done > done.txt']\nsuccess:\n  script: test -f done.txt || qs_fail no\n")
	fail := newTask(t, strings.Replace(head, "NAME", "bad", 1)+"replay: ['exit 1']\nsuccess:\n  script: test -f done.txt || qs_fail no\n")
	noev := newTask(t, strings.Replace(head, "NAME", "noev", 1)+"setup: ['exit 1']\nreplay: ['true']\nsuccess:\n  script: 'true'\n")

	s := RunSuite(context.Background(), []*task.Task{skip}, SuiteOptions{Options: opts()}, nil)
	if s.Tasks[0].Runs[0].Classification != Skipped || s.Tasks[0].Runs[0].SuccessCheck != nil || s.Exit(false) != 2 {
		t.Errorf("skipped: %+v exit %d", s.Tasks[0].Runs[0], s.Exit(false))
	}
	s = RunSuite(context.Background(), []*task.Task{skip, pass}, SuiteOptions{Options: opts(), Repeat: 3, Workers: 3}, nil)
	if s.Exit(false) != 0 || *s.Tasks[1].PassRate != 1.0 || s.Tasks[1].Attempts != 3 {
		t.Errorf("skip+pass exit %d", s.Exit(false))
	}
	for i, r := range s.Tasks[1].Runs {
		if r.Attempt != i+1 {
			t.Errorf("attempts out of order")
		}
	}
	s = RunSuite(context.Background(), []*task.Task{pass, noev}, SuiteOptions{Options: opts(), Workers: 2}, nil)
	if s.Exit(false) != 2 || s.Exit(true) != 1 || s.Tasks[1].PassRate != nil || s.Tasks[1].Discarded[string(HarnessError)] != 1 {
		t.Errorf("pass + no evidence: exit %d, %+v", s.Exit(false), s.Tasks[1])
	}
	s = RunSuite(context.Background(), []*task.Task{pass, fail, noev}, SuiteOptions{Options: opts(), Repeat: 2, Workers: 4}, nil)
	if s.Exit(false) != 1 || *s.Tasks[1].PassRate != 0 {
		t.Errorf("gap exit %d", s.Exit(false))
	}
	dir := t.TempDir()
	if err := s.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	if err := json.Unmarshal(b, &doc); err != nil || doc["schema_version"] != "2.0" {
		t.Fatalf("results.json: %v", err)
	}
	run0 := doc["tasks"].([]any)[0].(map[string]any)["runs"].([]any)[0].(map[string]any)
	for _, k := range []string{"task", "attempt", "agent", "model_reported", "classification", "passed", "evidential", "stop_reason", "turns", "duration_seconds", "backend", "enforced", "image", "docs_pages_read", "suspect_page", "docs_bypass_attempts", "success_check", "tokens"} {
		if _, ok := run0[k]; !ok {
			t.Errorf("run lacks %s", k)
		}
	}
	for _, f := range []string{"ok/attempt-1/trace.jsonl", "bad/attempt-2/transcript.txt", "ok/attempt-2/check.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%v", err)
		}
	}
}

func TestClassifyOrder(t *testing.T) {
	yes := true
	no := false
	infra, harness := agent.FailureInfra, agent.FailureHarness
	cases := []struct {
		stop    agent.StopReason
		failure agent.Failure
		pass    *bool
		facts   trace.Facts
		want    Classification
	}{
		{StopSkipped, "", &yes, trace.Facts{}, Skipped},
		{StopCompleted, "", &yes, trace.Facts{}, Passed},
		{StopMaxTurns, "", &yes, trace.Facts{}, Passed},
		{StopError, harness, &yes, trace.Facts{}, HarnessError}, // never a pass
		{StopRefusal, "", &yes, trace.Facts{}, AgentRefusal},
		{StopError, infra, nil, trace.Facts{}, InfraError},
		{StopTimeout, "", &no, trace.Facts{}, BudgetExhausted},
		{StopTokenBudget, "", &no, trace.Facts{}, BudgetExhausted},
		{StopCompleted, "", &no, trace.Facts{EgressErrors: 1}, InfraError},
		{StopCommandFailed, "", &no, trace.Facts{EgressBlocked: 1, DocsHostRefusals: 1}, HarnessError},
		{StopCompleted, "", &no, trace.Facts{EgressBlocked: 1, DocsHostRefusals: 1}, DocsGap},
		{StopCompleted, "", &no, trace.Facts{EgressBlocked: 1, NotAllowlisted: 1}, HarnessError},
		{StopCompleted, "", &no, trace.Facts{}, DocsGap},
	}
	for i, c := range cases {
		if got := Classify(c.stop, c.failure, c.pass, c.facts); got != c.want {
			t.Errorf("%d: %s, want %s", i, got, c.want)
		}
	}
	// The facts are counted from the typed events as they are recorded.
	tr := trace.New(nil)
	tr.Add(trace.Raw(trace.EgressBlocked, map[string]any{"host": "x", "reason": egress.ReasonNotListed}))
	tr.Add(trace.Raw(trace.EgressBlocked, map[string]any{"host": "y", "reason": egress.ReasonDocsHost}))
	if f := tr.Facts(); f.EgressBlocked != 2 || f.NotAllowlisted != 1 || f.DocsHostRefusals != 1 {
		t.Errorf("facts %+v", f)
	}
}

// BenchmarkHarnessOverhead: one attempt of a replay task whose commands are
// `true`, minus the commands' own time (browser launch excluded: the
// manager is warm; the one docs read is included).
func BenchmarkHarnessOverhead(b *testing.B) {
	tk := newTask(b, strings.Replace(head, "NAME", "overhead", 1)+"replay: ['true', 'true', 'true']\nsuccess:\n  script: 'true'\n")
	opt := opts()
	Attempt(context.Background(), tk, 1, opt) // warm the tab
	var overhead time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		r := Attempt(context.Background(), tk, 1, opt)
		total := time.Since(start)
		var cmds time.Duration
		for _, e := range r.Trace.Events() {
			if trace.TypeOf(e) == "tool_result" {
				cmds += time.Duration(e["duration"].(float64) * float64(time.Second))
			}
		}
		overhead += total - cmds
		if r.Classification != Passed {
			b.Fatal(r.Classification)
		}
	}
	b.ReportMetric(float64(overhead.Milliseconds())/float64(b.N), "overhead-ms/attempt")
}
