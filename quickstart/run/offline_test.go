package run

import (
	"context"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// --offline with a page the docs cache lacks: the run stops at the miss and
// says so (stop reason offline_cache_miss, infra_error, no check), instead
// of running on to fail a step (it said command_failed) on docs it never
// read.
func TestOfflineMissIsTheStopReason(t *testing.T) {
	t.Parallel()
	cache, err := docs.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tk := newTask(t, strings.Replace(head, "NAME", "offline", 1)+"replay: ['echo done > done.txt', 'false']\nsuccess:\n  script: 'true'\n")
	r := Attempt(context.Background(), tk, 1, Options{Docs: &docs.Reader{Browser: browser, Cache: cache, Offline: true}})
	if r.StopReason != StopOfflineMiss || r.Classification != InfraError || r.SuccessCheck != nil {
		t.Fatalf("stop %q (%s), classification %s, check %v", r.StopReason, r.Detail, r.Classification, r.SuccessCheck)
	}
	if !strings.Contains(r.Detail, docsSrv.URL+"/docs/ is not in the docs cache") || !strings.Contains(r.Detail, "without --offline") {
		t.Errorf("detail %q", r.Detail)
	}
	for _, e := range r.Trace.Events() {
		if trace.TypeOf(e) == "tool_call" {
			t.Errorf("a replay step ran after the miss: %v", e["command"])
		}
	}
}
