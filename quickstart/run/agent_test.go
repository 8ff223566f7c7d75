package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/agent/agenttest"
	"github.com/tabwright/tabwright/quickstart/task"
)

func call(name, key, value string) agenttest.Call {
	return agenttest.Call{Name: name, Input: map[string]any{key: value}}
}

func modelOpts(t *testing.T, o Options, spec string, srv *agenttest.Server, keyEnv string) Options {
	t.Helper()
	a, err := agent.New(agent.Config{Agent: spec, BaseURL: srv.BaseURL(), APIKeyEnv: keyEnv,
		Retry: &agent.RetryPolicy{Attempts: 3, Base: time.Millisecond, Max: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	o.Agent = a
	return o
}

const checkDone = "success:\n  script: test -f done.txt || qs_fail \"done.txt was never created\"\n"

// A model reads the docs, runs what they say, and stops: passed, with the
// page it read on record and its tokens counted. Then one that gives up
// naming the page: docs_gap, that page the suspect.
func TestModelAgentPassesAndGaps(t *testing.T) {
	t.Parallel()
	page := docsSrv.URL + "/docs/"
	srv := agenttest.Anthropic(
		agenttest.Turn{Calls: []agenttest.Call{call("read_docs", "url", page)}, Usage: agenttest.Usage{Input: 10, Output: 20, CacheWrite: 300}},
		agenttest.Turn{Calls: []agenttest.Call{call("bash", "command", "echo done > done.txt"), call("bash", "command", "test -f done.txt && echo ok")}, Usage: agenttest.Usage{Input: 5, Output: 30, CacheRead: 300}},
		agenttest.Turn{Text: "Created done.txt as the quickstart says, and checked it exists.", Usage: agenttest.Usage{Input: 4, Output: 15, CacheRead: 350}},
	)
	defer srv.Close()
	tk := newTask(t, strings.Replace(head, "NAME", "model-pass", 1)+checkDone)
	r := Attempt(context.Background(), tk, 1, modelOpts(t, opts(), "claude:claude-test", srv, ""))
	if r.Classification != Passed || r.StopReason != StopCompleted || r.Turns != 3 || r.Agent != "claude:claude-test" {
		t.Fatalf("%s %s %d %s\n%s", r.Classification, r.StopReason, r.Turns, r.Detail, r.Trace.JSONL())
	}
	if len(r.DocsPagesRead) != 1 || r.DocsPagesRead[0] != page || r.ModelReported != "claude-test-fake" || r.Tokens != (Tokens{Input: 19, Output: 65, CacheWrite: 300, CacheRead: 650}) {
		t.Errorf("pages %v model %q tokens %+v", r.DocsPagesRead, r.ModelReported, r.Tokens)
	}
	// The page text the model got is the reader view, with its command.
	if !strings.Contains(srv.Requests()[1].Raw, "echo done \\u003e done.txt") && !strings.Contains(srv.Requests()[1].Raw, "echo done > done.txt") {
		t.Errorf("the docs text did not reach the model: %s", srv.Requests()[1].Raw)
	}
	for _, e := range srv.Errs() {
		t.Errorf("protocol: %s", e)
	}

	gap := agenttest.OpenAI(
		agenttest.Turn{Calls: []agenttest.Call{call("read_docs", "url", page)}},
		agenttest.Turn{Calls: []agenttest.Call{call("bash", "command", "make hello")}},
		agenttest.Turn{Text: "Stuck: " + page + " step 1 says to run make hello, and there is no Makefile."},
	)
	defer gap.Close()
	tk = newTask(t, strings.Replace(head, "NAME", "model-gap", 1)+checkDone)
	r = Attempt(context.Background(), tk, 1, modelOpts(t, opts(), "openai:gpt-test", gap, ""))
	if r.Classification != DocsGap || r.SuspectPage == nil || *r.SuspectPage != page || !strings.Contains(r.Detail, "no Makefile") {
		t.Fatalf("%s %v %q", r.Classification, r.SuspectPage, r.Detail)
	}
	tr := Transcript(r.Trace.Events(), false)
	for _, want := range []string{"turn 3: gpt-test-fake", "$ make hello", "read_docs " + page, "agent says: Stuck", "docs_gap (stop reason: completed"} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q:\n%s", want, tr)
		}
	}
}

// max_seconds ends the model call in flight, and the run is
// budget_exhausted; a refusal is agent_refusal and is not scored.
func TestModelAgentBudgetAndRefusal(t *testing.T) {
	t.Parallel()
	slow := agenttest.OpenAI(agenttest.Turn{Text: "late", Delay: 30 * time.Second})
	defer slow.Close()
	tk := newTask(t, strings.Replace(head, "NAME", "model-slow", 1)+checkDone+"budgets: {max_seconds: 1}\n")
	start := time.Now()
	r := Attempt(context.Background(), tk, 1, modelOpts(t, opts(), "openai:gpt-test", slow, ""))
	if r.Classification != BudgetExhausted || r.StopReason != StopTimeout || time.Since(start) > 15*time.Second {
		t.Errorf("%s %s after %s", r.Classification, r.StopReason, time.Since(start))
	}
	no := agenttest.Anthropic(agenttest.Turn{Text: "I won't do that.", Refuse: true})
	defer no.Close()
	tk = newTask(t, strings.Replace(head, "NAME", "model-refuse", 1)+"success:\n  script: 'true'\n")
	r = Attempt(context.Background(), tk, 1, modelOpts(t, opts(), "claude:claude-test", no, ""))
	if r.Classification != AgentRefusal || r.SuccessCheck != nil {
		t.Errorf("%s, check %v", r.Classification, r.SuccessCheck)
	}
}

// A planted key is used on the wire and found nowhere else: not in the
// sandbox's environment (the commands look), the workspace, the trace, the
// transcript or the results.
func TestPlantedKeyFoundNowhere(t *testing.T) {
	const key = "sk-planted-5e1b9d7c"
	t.Setenv("TABWRIGHT_OPENAI_API_KEY", key)
	page := docsSrv.URL + "/docs/"
	srv := agenttest.OpenAI(
		agenttest.Turn{Calls: []agenttest.Call{call("read_docs", "url", page)}},
		agenttest.Turn{Calls: []agenttest.Call{
			call("bash", "command", "env > env.txt; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' > procenv.txt; echo done > done.txt"),
			call("bash", "command", "env; grep -c sk- env.txt procenv.txt || true")}},
		agenttest.Turn{Text: "done"},
	)
	defer srv.Close()
	srv.Key = key
	o := isolatedOpts(t)
	o.KeepSandbox = true
	o = modelOpts(t, o, "openai:gpt-test", srv, "TABWRIGHT_OPENAI_API_KEY")
	tk := newTask(t, strings.Replace(head, "NAME", "key", 1)+checkDone)
	s := RunSuite(context.Background(), []*task.Task{tk}, SuiteOptions{Options: o, Prices: Prices{"gpt-test": {Input: 1}}}, nil)
	r := s.Tasks[0].Runs[0]
	defer os.RemoveAll(filepath.Dir(r.Sandbox))
	if r.Classification != Passed || len(srv.Errs()) > 0 || len(srv.Requests()) != 3 {
		t.Fatalf("%s %v\n%s", r.Classification, srv.Errs(), r.Trace.JSONL())
	}
	out := t.TempDir()
	if err := s.WriteFiles(out); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{out, r.Sandbox, filepath.Join(filepath.Dir(r.Sandbox), "support")} {
		filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return nil
			}
			if b, _ := os.ReadFile(p); strings.Contains(string(b), key) {
				t.Errorf("the key is in %s", p)
			}
			return nil
		})
	}
	if b, _ := os.ReadFile(filepath.Join(r.Sandbox, "env.txt")); len(b) == 0 {
		t.Errorf("the commands did not run (no env.txt)")
	}
	if strings.Contains(string(r.Trace.JSONL()), key) {
		t.Errorf("the key is in the trace")
	}
}

// A model that only asks for pages off the allowlist read nothing, but the
// docs were not down: its run is judged by its check, not infra_error.
func TestModelOffAllowlistIsNotInfra(t *testing.T) {
	t.Parallel()
	srv := agenttest.OpenAI(
		agenttest.Turn{Calls: []agenttest.Call{call("read_docs", "url", "https://elsewhere.example/guide")}},
		agenttest.Turn{Text: "I could not find the docs."},
	)
	defer srv.Close()
	tk := newTask(t, strings.Replace(head, "NAME", "model-offlist", 1)+checkDone)
	r := Attempt(context.Background(), tk, 1, modelOpts(t, opts(), "openai:gpt-test", srv, ""))
	if r.Classification != DocsGap || len(r.DocsReads) != 1 || r.DocsReads[0].Blocked != "outside_allowlist" {
		t.Fatalf("%s %q %+v", r.Classification, r.Detail, r.DocsReads)
	}
	if !strings.Contains(srv.Requests()[1].Raw, "BLOCKED") {
		t.Errorf("the model was not told the read was blocked")
	}
}
