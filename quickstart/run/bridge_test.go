package run

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// hostService stands for what listens on the harness machine's loopback (the
// docs server, another service): it answers anyone, cross-origin included,
// and counts who reached it.
func hostService(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "<title>host</title><p>HOST-LOOPBACK-SECRET</p>")
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func checkBrowserEvents(r *AttemptResult) []string {
	var out []string
	for _, e := range r.Trace.Events() {
		if e["by"] == "check_browser" {
			out = append(out, fmt.Sprint(e["type"], " ", e["host"], ":", e["port"], " ", e["reason"]))
		}
	}
	return out
}

// A replay step (or anything the agent runs) that asks the harness's bridge
// for a page is refused and recorded: the bridge belongs to the check,
// which alone holds its key. Here the page would redirect the harness's
// browser to a service on the harness machine's loopback.
func TestIsolatedBridgeRefusesTheAgent(t *testing.T) {
	t.Parallel()
	host, hits := hostService(t)
	o := isolatedOpts(t)
	o.ExpectBrowser = &launch.Options{}
	tk := newTask(t, strings.Replace(head, "NAME", "bridge-agent", 1)+`replay:
  - |
    cat > redir.py <<'PY'
    import http.server
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(302); self.send_header("Location", "HOST/"); self.end_headers()
    http.server.HTTPServer(("127.0.0.1", 18081), H).serve_forever()
    PY
    (python3 redir.py >/dev/null 2>&1 &)
    until curl -s -o /dev/null http://127.0.0.1:18081/; do :; done; echo redirect-up
  - curl -sS "http://tabwright-harness.invalid/expect?url=http://127.0.0.1:18081/&text=HOST-LOOPBACK-SECRET"
  - 'curl -sS -H "X-Tabwright-Check-Key: 0123" "http://tabwright-harness.invalid/expect?url=http://127.0.0.1:18081/&text=x"' 
  - echo done > done.txt
success:
  script: test -f done.txt || qs_fail "no done.txt"
`)
	tk.Replay[0] = strings.ReplaceAll(tk.Replay[0], "HOST", host.URL)
	r := Attempt(context.Background(), tk, 1, o)
	var outs []string
	var refused int
	for _, e := range r.Trace.Events() {
		if trace.TypeOf(e) == "tool_result" {
			outs = append(outs, fmt.Sprint(e["output"]))
		}
		if trace.TypeOf(e) == "egress_blocked" && e["host"] == "tabwright-harness.invalid" && e["reason"] == "harness_needs_check_key" {
			refused++
		}
	}
	if len(outs) < 3 || !strings.Contains(outs[0], "redirect-up") {
		t.Fatalf("replay: %q", outs)
	}
	for _, out := range outs[1:3] {
		if !strings.Contains(out, "blocked from the shell: tabwright-harness.invalid answers only the success check") || strings.Contains(out, "HOST-LOOPBACK-SECRET") {
			t.Errorf("the bridge answered the agent: %q", out)
		}
	}
	if refused != 2 || r.EgressBlocked != 2 {
		t.Errorf("refusals recorded %d, egress_blocked %d; want 2", refused, r.EgressBlocked)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the harness machine's loopback service was reached %d times", n)
	}
	if r.Classification != Passed {
		t.Errorf("classification %s %+v", r.Classification, r.SuccessCheck)
	}
}

// The check's own browser obeys the task's egress policy for every request
// it makes: a subresource or fetch to a docs host or an unlisted host is
// refused, loopback is the sandbox's (the harness machine's loopback service
// is never reached, by fetch or by a script navigation), an allowlisted host
// is reached; each decision is recorded with by=check_browser, and none of
// them counts as the agent's docs bypass.
func TestIsolatedCheckBrowserObeysThePolicy(t *testing.T) {
	t.Parallel()
	host, hits := hostService(t)
	o := isolatedOpts(t)
	o.ExpectBrowser = &launch.Options{}
	tk := newTask(t, strings.Replace(head, "NAME", "bridge-policy", 1)+`  allow: [docs.test]
network: {allow: [registry.test]}
replay:
  - mkdir site
  - |
    cat > site/index.html <<'HTML'
    <title>probe</title><div id=out>waiting</div>
    <img src="http://registry.test/pixel.png"><img src="http://evil.test/pixel.png">
    <script>
    // Synchronous requests: the answer is on the page before it loads.
    const probe = u => {
      try { const x = new XMLHttpRequest(); x.open("GET", u, false); x.send(); return x.responseText.includes("SECRET") ? "leaked" : "odd"; }
      catch (e) { return "refused"; }
    };
    out.textContent = "results " + ["HOST/fetch", "http://docs.test/secret", "http://evil.test/x"].map(probe).join(" ");
    </script>
    HTML
  - printf '<title>nav</title><script>location.href = "HOST/nav"</script>' > site/nav.html
  - echo done > done.txt
success:
  serve: python3 -m http.server "$QS_PORT" --bind 127.0.0.1 --directory site
  wait_http: {path: /, contains: probe, timeout: 20}
  script: |
    qs_browser_expect / --text "results refused refused refused"
    if (qs_browser_expect /nav.html --text HOST-LOOPBACK-SECRET); then qs_fail "a script navigation reached the host's loopback"; fi
    echo check-done
`)
	tk.Replay[1] = strings.ReplaceAll(tk.Replay[1], "HOST", host.URL)
	tk.Replay[2] = strings.ReplaceAll(tk.Replay[2], "HOST", host.URL)
	r := Attempt(context.Background(), tk, 1, o)
	if r.SuccessCheck == nil || r.SuccessCheck.ExitCode != 0 || !strings.Contains(r.SuccessCheck.Output, "check-done") {
		t.Fatalf("check: %+v", r.SuccessCheck)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the harness machine's loopback service was reached %d times", n)
	}
	ev := strings.Join(checkBrowserEvents(r), "\n")
	for _, want := range []string{
		"egress_blocked docs.test:<nil> docs_host_requires_read_docs",
		"egress_blocked evil.test:<nil> not_allowlisted",
		"egress_allowed registry.test:80 explicit_network_override",
		"egress_error 127.0.0.1:<nil> <nil>", // carried into the sandbox, where nothing listens on that port
	} {
		if !strings.Contains(ev, want) {
			t.Errorf("no %q in the check browser's record:\n%s", want, ev)
		}
	}
	if !strings.Contains(ev, "egress_allowed 127.0.0.1:") {
		t.Errorf("the check's own server is not recorded:\n%s", ev)
	}
	if r.DocsBypassAttempts != 0 || r.Classification != Passed {
		t.Errorf("docs bypass %d, classification %s", r.DocsBypassAttempts, r.Classification)
	}
}

// Under the local backend the check reaches the same bridge through the
// local proxy, with its key; the agent's commands are refused the same way.
func TestLocalCheckBrowserWithKey(t *testing.T) {
	t.Parallel()
	o := opts()
	o.ExpectBrowser = &launch.Options{}
	tk := newTask(t, strings.Replace(head, "NAME", "local-web", 1)+`replay:
  - mkdir site && printf '<title>t</title><div id=app></div><script>app.textContent="Rendered "+(1+1)</script>' > site/index.html
  - curl -sS "http://tabwright-harness.invalid/expect?url=http://127.0.0.1:1/&text=x"
success:
  serve: python3 -m http.server "$QS_PORT" --bind 127.0.0.1 --directory site
  wait_http: {path: /, contains: id=app, timeout: 20}
  script: qs_browser_expect / --text "Rendered 2"
`)
	r := Attempt(context.Background(), tk, 1, o)
	if r.Classification != Passed || r.Enforced {
		t.Fatalf("%s enforced=%v: %+v", r.Classification, r.Enforced, r.SuccessCheck)
	}
	var agentRefused bool
	for _, e := range r.Trace.Events() {
		if trace.TypeOf(e) == "tool_result" && strings.Contains(fmt.Sprint(e["output"]), "answers only the success check") {
			agentRefused = true
		}
	}
	if !agentRefused || r.EgressBlocked != 1 {
		t.Errorf("the agent's request to the bridge: refused %v, egress_blocked %d", agentRefused, r.EgressBlocked)
	}
}
