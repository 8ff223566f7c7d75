package run

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// A docs host that is down: the check passes, but the run is no evidence.
func TestDocsDownIsInfraError(t *testing.T) {
	t.Parallel()
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL
	down.Close() // nothing listens there now
	tk := newTask(t, "name: down\ngoal: g\ndocs:\n  path: ["+url+"/docs/]\nreplay: ['true']\nsuccess:\n  script: 'true'\n")
	r := Attempt(context.Background(), tk, 1, opts())
	if r.Classification != InfraError || r.Evidential || !strings.Contains(r.Detail, "no docs page could be read") {
		t.Fatalf("%s evidential=%v detail=%q", r.Classification, r.Evidential, r.Detail)
	}
	s := Summarise([]*AttemptResult{r})
	if s.Tasks[0].PassRate != nil || s.Exit(false) != 2 {
		t.Errorf("a run without docs counted: rate %v exit %d", s.Tasks[0].PassRate, s.Exit(false))
	}
}

// A replay step that timed out while the check passed says so, in the
// console block and in the result.
func TestTimeoutShownWhenCheckPasses(t *testing.T) {
	t.Parallel()
	tk := newTask(t, strings.Replace(head, "NAME", "slow", 1)+"replay: ['sleep 5; true']\nsuccess:\n  script: 'true'\nbudgets: {max_command_seconds: 1}\n")
	r := Attempt(context.Background(), tk, 1, opts())
	if r.Classification != Passed {
		t.Fatalf("%s: %s", r.Classification, r.Trace.JSONL())
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "step 1 timed out") {
		t.Fatalf("warnings %q", r.Warnings)
	}
	var out bytes.Buffer
	PrintRun(&out, r)
	if !strings.Contains(out.String(), "[PASS]") || !strings.Contains(out.String(), "warning: step 1 timed out (exit 124): sleep 5; true") {
		t.Errorf("console:\n%s", out.String())
	}
	if !strings.Contains(Transcript(r.Trace.Events(), false), "exit 124 (timed out)") {
		t.Errorf("transcript:\n%s", Transcript(r.Trace.Events(), false))
	}
}

// --probe-affordances records on attempt 1 only; --affordances none turns a
// read of llms.txt into affordance_withheld, which is no docs failure.
func TestAffordanceEvents(t *testing.T) {
	t.Parallel()
	tk := newTask(t, "name: aff\ngoal: g\ndocs:\n  path: [DOCS/docs/, DOCS/llms.txt]\nreplay: ['true']\nsuccess:\n  script: 'true'\n")
	o := opts()
	o.ProbeAffordances = true
	o.Docs = &docs.Reader{Browser: browser, Affordances: docs.AffordancesNone}
	types := func(r *AttemptResult) map[string]int {
		n := map[string]int{}
		for _, e := range r.Trace.Events() {
			n[fmt.Sprint(e["type"])]++
		}
		return n
	}
	first := Attempt(context.Background(), tk, 1, o)
	if n := types(first); n["affordances"] != 1 || n["affordance_withheld"] != 1 || n["docs_read"] != 1 || first.Classification != Passed {
		t.Errorf("attempt 1: %v %s", n, first.Classification)
	}
	if tx := Transcript(first.Trace.Events(), false); !strings.Contains(tx, "affordances: llms.txt absent (served HTML") || !strings.Contains(tx, "BLOCKED "+docsSrv.URL+"/llms.txt (withheld)") {
		t.Errorf("transcript:\n%s", tx)
	}
	order := ""
	for _, e := range first.Trace.Events() {
		if trace.TypeOf(e) == "docs_read" || trace.TypeOf(e) == "affordances" {
			order += fmt.Sprint(e["type"], " ")
		}
	}
	if order != "docs_read affordances " {
		t.Errorf("the probe did not wait for the agent's reads: %s", order)
	}
	if ev := first.Trace.Events()[0]; ev["affordance_policy"] != "none" {
		t.Errorf("run_start %v", ev)
	}
	if n := types(Attempt(context.Background(), tk, 2, o)); n["affordances"] != 0 {
		t.Errorf("attempt 2 probed: %v", n)
	}
}
