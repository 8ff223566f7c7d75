package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/agent/agenttest"
	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// belt is a toolbelt that records calls and answers from a table.
type belt struct {
	mu       sync.Mutex
	commands []string
	reads    []string
	extra    agent.ExtraTools
}

func (b *belt) Bash(ctx context.Context, c string) trace.Command {
	b.mu.Lock()
	b.commands = append(b.commands, c)
	b.mu.Unlock()
	if strings.HasPrefix(c, "exit ") {
		return trace.Command{Command: c, ExitCode: 3}
	}
	return trace.Command{Command: c, Output: "ran: " + c + "\n"}
}

func (b *belt) ReadDocs(ctx context.Context, url string) string {
	b.mu.Lock()
	b.reads = append(b.reads, url)
	b.mu.Unlock()
	return "# Quickstart\n\nRun `make hello`.\n"
}
func (b *belt) ReadRoute(ctx context.Context) {}
func (b *belt) Extra() agent.ExtraTools       { return b.extra }

const docsURL = "http://docs.example.test/start"

func testTask(b task.Budgets) *task.Task {
	if b.MaxTurns == 0 {
		b.MaxTurns = 10
	}
	if b.MaxSeconds == 0 {
		b.MaxSeconds = 30
	}
	return &task.Task{Name: "t", Goal: "Say hello.", Route: []string{docsURL, docsURL + "/2"}, DocsAllow: []string{"docs.example.test"},
		Setup: []string{"git init -q"}, Budgets: b}
}

var fast = &agent.RetryPolicy{Attempts: 5, Base: time.Millisecond, Max: 5 * time.Millisecond}

// vendors runs f once per protocol, with an agent pointed at the fake.
func vendors(t *testing.T, turns []agenttest.Turn, f func(t *testing.T, srv *agenttest.Server, a agent.Agent)) {
	for _, v := range []string{"claude", "openai"} {
		t.Run(v, func(t *testing.T) {
			var srv *agenttest.Server
			spec := "claude:claude-test"
			if v == "claude" {
				srv = agenttest.Anthropic(turns...)
			} else {
				srv = agenttest.OpenAI(turns...)
				spec = "openai:gpt-test"
			}
			defer srv.Close()
			a, err := agent.New(agent.Config{Agent: spec, BaseURL: srv.BaseURL(), Retry: fast})
			if err != nil {
				t.Fatal(err)
			}
			f(t, srv, a)
			for _, e := range srv.Errs() {
				t.Errorf("protocol: %s", e)
			}
		})
	}
}

func run(a agent.Agent, tk *task.Task, b *belt) (agent.Outcome, *trace.Trace) {
	tr := trace.New(nil)
	ctx, cancel := context.WithTimeoutCause(context.Background(), time.Duration(tk.Budgets.MaxSeconds)*time.Second, agent.ErrMaxSeconds)
	defer cancel()
	return a.Run(ctx, &agent.Session{Task: tk, Tools: b, Trace: tr}), tr
}

func count(tr *trace.Trace, typ trace.Type) int {
	n := 0
	for _, e := range tr.Events() {
		if trace.TypeOf(e) == typ {
			n++
		}
	}
	return n
}

func TestFollowsDocsAndStops(t *testing.T) {
	turns := []agenttest.Turn{
		{Text: "Reading the docs.", Calls: []agenttest.Call{{Name: "read_docs", Input: map[string]any{"url": docsURL}}}, Usage: agenttest.Usage{Input: 2, Output: 146, CacheWrite: 4100}},
		{Calls: []agenttest.Call{{Name: "bash", Input: map[string]any{"command": "make hello"}}, {Name: "bash", Input: map[string]any{"command": "test -f hello"}}}, Usage: agenttest.Usage{Input: 20, Output: 300, CacheRead: 4100}},
		{Text: "Done: make hello created hello, and test -f hello confirmed it.", Usage: agenttest.Usage{Input: 5, Output: 40, CacheRead: 4200}},
	}
	vendors(t, turns, func(t *testing.T, srv *agenttest.Server, a agent.Agent) {
		b := &belt{}
		o, tr := run(a, testTask(task.Budgets{}), b)
		if o.StopReason != agent.StopCompleted || o.Turns != 3 || !strings.Contains(o.Detail, "Done") {
			t.Fatalf("%+v\n%s", o, tr.JSONL())
		}
		if strings.Join(b.commands, ";") != "make hello;test -f hello" || len(b.reads) != 1 {
			t.Errorf("commands %q reads %q", b.commands, b.reads)
		}
		wantTok := agent.Tokens{Input: 27, Output: 486, CacheWrite: 4100, CacheRead: 8300}
		if strings.HasPrefix(a.Name(), "openai") {
			wantTok.CacheWrite = 0 // Chat Completions reports no cache writes
		}
		if o.Tokens != wantTok {
			t.Errorf("tokens %+v, want %+v", o.Tokens, wantTok)
		}
		if !strings.HasSuffix(o.ModelReported, "-fake") || count(tr, trace.AgentTurn) != 3 || count(tr, trace.AgentFinal) != 1 {
			t.Errorf("model %q, events\n%s", o.ModelReported, tr.JSONL())
		}
		reqs := srv.Requests()
		first := reqs[0].Raw
		for _, want := range []string{"Goal: Say hello.", "1. " + docsURL, "2. " + docsURL + "/2", "Allowed documentation hosts: docs.example.test", "$ git init -q", `"read_docs"`, `"bash"`, "only source about this project"} {
			if !strings.Contains(first, want) {
				t.Errorf("first request lacks %q", want)
			}
		}
		// The command results went back to the model.
		if !strings.Contains(reqs[2].Raw, `exit code: 0\nran: make hello`) {
			t.Errorf("third request lacks the tool results: %s", reqs[2].Raw)
		}
	})
}

func TestRetryAfterThenSuccess(t *testing.T) {
	turns := []agenttest.Turn{{Status: 429, RetryAfter: "0.05", Message: "rate limited"}, {Text: "done"}}
	vendors(t, turns, func(t *testing.T, srv *agenttest.Server, a agent.Agent) {
		o, tr := run(a, testTask(task.Budgets{}), &belt{})
		if o.StopReason != agent.StopCompleted || count(tr, trace.APIRetry) != 1 || tr.Facts().APIRetries != 1 {
			t.Fatalf("%+v\n%s", o, tr.JSONL())
		}
		for _, e := range tr.Events() {
			if trace.TypeOf(e) == trace.APIRetry && (e["sleep"] != 0.05 || e["status"] != 429) {
				t.Errorf("retry-after not honoured: %v", e)
			}
		}
	})
}

func TestRetriesExhaustedIsInfra(t *testing.T) {
	var turns []agenttest.Turn
	for i := 0; i < 5; i++ {
		turns = append(turns, agenttest.Turn{Status: 529, Message: "Overloaded"})
	}
	vendors(t, turns, func(t *testing.T, srv *agenttest.Server, a agent.Agent) {
		o, tr := run(a, testTask(task.Budgets{}), &belt{})
		if o.StopReason != agent.StopError || o.Failure != agent.FailureInfra || count(tr, trace.APIRetry) != 4 || len(srv.Requests()) != 5 {
			t.Fatalf("%+v, %d requests\n%s", o, len(srv.Requests()), tr.JSONL())
		}
	})
	vendors(t, []agenttest.Turn{{Status: 401, Message: "invalid x-api-key"}}, func(t *testing.T, srv *agenttest.Server, a agent.Agent) {
		o, tr := run(a, testTask(task.Budgets{}), &belt{})
		if o.StopReason != agent.StopError || o.Failure != agent.FailureHarness || count(tr, trace.APIRetry) != 0 || !strings.Contains(o.Detail, "API error 401") {
			t.Fatalf("%+v", o)
		}
	})
}

func TestBudgets(t *testing.T) {
	loop := agenttest.Turn{Calls: []agenttest.Call{{Name: "bash", Input: map[string]any{"command": "ls"}}}, Usage: agenttest.Usage{Input: 60, Output: 50}}
	vendors(t, []agenttest.Turn{loop, loop, loop}, func(t *testing.T, srv *agenttest.Server, a agent.Agent) {
		o, _ := run(a, testTask(task.Budgets{MaxTurns: 2}), &belt{})
		if o.StopReason != agent.StopMaxTurns || o.Turns != 2 || len(srv.Requests()) != 2 {
			t.Errorf("max_turns: %+v", o)
		}
	})
	vendors(t, []agenttest.Turn{loop, loop, loop}, func(t *testing.T, srv *agenttest.Server, a agent.Agent) {
		o, _ := run(a, testTask(task.Budgets{MaxTokens: 150}), &belt{})
		if o.StopReason != agent.StopTokenBudget || o.Turns != 2 || o.Tokens.Total() != 220 {
			t.Errorf("max_tokens: %+v", o)
		}
	})
	// max_seconds ends a model call in flight.
	vendors(t, []agenttest.Turn{{Text: "late", Delay: 20 * time.Second}}, func(t *testing.T, srv *agenttest.Server, a agent.Agent) {
		start := time.Now()
		o, _ := run(a, testTask(task.Budgets{MaxSeconds: 1}), &belt{})
		if o.StopReason != agent.StopTimeout || time.Since(start) > 5*time.Second || !strings.Contains(o.Detail, "during model turn 1") {
			t.Errorf("max_seconds: %+v after %s", o, time.Since(start))
		}
	})
}

func TestRefusalAndUnknownTool(t *testing.T) {
	vendors(t, []agenttest.Turn{{Text: "I can't help with that.", Refuse: true}}, func(t *testing.T, srv *agenttest.Server, a agent.Agent) {
		o, _ := run(a, testTask(task.Budgets{}), &belt{})
		if o.StopReason != agent.StopRefusal || o.Turns != 1 {
			t.Errorf("%+v", o)
		}
	})
	turns := []agenttest.Turn{
		{Calls: []agenttest.Call{{Name: "web_search", Input: map[string]any{"q": "x"}}, {Name: "bash", Input: map[string]any{"cmd": "ls"}}}},
		{Text: "ok"},
	}
	vendors(t, turns, func(t *testing.T, srv *agenttest.Server, a agent.Agent) {
		b := &belt{}
		o, tr := run(a, testTask(task.Budgets{}), b)
		if o.StopReason != agent.StopCompleted || len(b.commands) != 0 {
			t.Fatalf("%+v %v", o, b.commands)
		}
		second := srv.Requests()[1].Raw
		if !strings.Contains(second, "Unknown tool: web_search") || !strings.Contains(second, `bash needs {\"command\"`) {
			t.Errorf("error results not sent: %s", second)
		}
		if strings.HasPrefix(a.Name(), "claude") && strings.Count(second, `"is_error":true`) != 2 {
			t.Errorf("tool_result blocks lack is_error: %s", second)
		}
		if count(tr, trace.ToolResult) != 2 {
			t.Errorf("unknown calls not traced:\n%s", tr.JSONL())
		}
	})
}

func TestThinkingFallback(t *testing.T) {
	srv := agenttest.Anthropic(agenttest.Turn{Status: 400, Message: "adaptive thinking is not supported on this model"}, agenttest.Turn{Text: "done"}, agenttest.Turn{Text: "again"})
	defer srv.Close()
	a, err := agent.New(agent.Config{Agent: "claude:old-model", BaseURL: srv.URL, Retry: fast})
	if err != nil {
		t.Fatal(err)
	}
	o, tr := run(a, testTask(task.Budgets{}), &belt{})
	reqs := srv.Requests()
	if o.StopReason != agent.StopCompleted || count(tr, trace.ThinkingUnsupported) != 1 || len(reqs) != 2 {
		t.Fatalf("%+v\n%s", o, tr.JSONL())
	}
	if reqs[0].Body["thinking"] == nil || reqs[1].Body["thinking"] != nil || reqs[0].Body["cache_control"] == nil {
		t.Errorf("thinking %v then %v; cache_control %v", reqs[0].Body["thinking"], reqs[1].Body["thinking"], reqs[0].Body["cache_control"])
	}
	// The model is remembered: the next run does not ask again.
	o, tr = run(a, testTask(task.Budgets{}), &belt{})
	if o.StopReason != agent.StopCompleted || srv.Requests()[2].Body["thinking"] != nil || count(tr, trace.ThinkingUnsupported) != 0 {
		t.Errorf("second run: %+v", o)
	}
}

func TestCredentials(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		cfg  agent.Config
		env  map[string]string
		want string // the key used, or the error's code
	}{
		{agent.Config{Agent: "claude"}, map[string]string{"ANTHROPIC_API_KEY": "c", "QUICKSTARTED_ANTHROPIC_API_KEY": "b", "TABWRIGHT_ANTHROPIC_API_KEY": "a"}, "a"},
		{agent.Config{Agent: "claude"}, map[string]string{"ANTHROPIC_API_KEY": "c", "QUICKSTARTED_ANTHROPIC_API_KEY": "b"}, "b"},
		{agent.Config{Agent: "openai:m"}, map[string]string{"OPENAI_API_KEY": "c", "TABWRIGHT_OPENAI_API_KEY": " "}, "c"},
		{agent.Config{Agent: "gemini:m"}, map[string]string{"GOOGLE_API_KEY": "g"}, "g"},
		{agent.Config{Agent: "openai:m", APIKeyEnv: "MY_KEY"}, map[string]string{"OPENAI_API_KEY": "c", "MY_KEY": "k"}, "k"},
		{agent.Config{Agent: "openai:m"}, nil, "qs.agent_key_missing"},
		{agent.Config{Agent: "openai:m", APIKeyEnv: "MY_KEY"}, map[string]string{"OPENAI_API_KEY": "c"}, "qs.agent_key_missing"},
		{agent.Config{Agent: "openai:m", BaseURL: "http://127.0.0.1:11434/v1"}, map[string]string{"OPENAI_API_KEY": "c"}, ""},
		{agent.Config{Agent: "openai"}, nil, "qs.agent_model_missing"},
		{agent.Config{Agent: "llama:x"}, nil, "qs.agent_unknown"},
		{agent.Config{Agent: "openai:m", BaseURL: "ftp://x"}, nil, "qs.agent_base_url"},
	}
	for i, c := range cases {
		c.cfg.Getenv = env(c.env)
		a, err := agent.New(c.cfg)
		if err != nil {
			if !strings.HasPrefix(err.Error(), c.want+":") {
				t.Errorf("%d: %v, want %s", i, err, c.want)
			}
			continue
		}
		if got := agent.KeyForTest(a); got != c.want {
			t.Errorf("%d: key %q, want %q", i, got, c.want)
		}
	}
	_, err := agent.New(agent.Config{Agent: "claude:x", Getenv: env(nil)})
	for _, v := range []string{"TABWRIGHT_ANTHROPIC_API_KEY", "QUICKSTARTED_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY", "--api-key-env"} {
		if err == nil || !strings.Contains(err.Error(), v) {
			t.Errorf("missing-key error should name %s: %v", v, err)
		}
	}
}

// The key reaches the fake in the vendor's header, and a loopback server
// with no key gets no Authorization at all.
func TestKeyOnTheWire(t *testing.T) {
	srv := agenttest.OpenAI(agenttest.Turn{Text: "a"}, agenttest.Turn{Text: "b"})
	defer srv.Close()
	srv.Key = "sk-test-123"
	a, _ := agent.New(agent.Config{Agent: "openai:m", BaseURL: srv.BaseURL(), APIKeyEnv: "K", Getenv: func(string) string { return srv.Key }})
	run(a, testTask(task.Budgets{}), &belt{})
	srv.Key = ""
	a, _ = agent.New(agent.Config{Agent: "openai:m", BaseURL: srv.BaseURL(), Getenv: func(string) string { return "sk-not-for-loopback" }})
	run(a, testTask(task.Budgets{}), &belt{})
	reqs := srv.Requests()
	if len(srv.Errs()) > 0 || len(reqs) != 2 || reqs[1].Header.Get("Authorization") != "" {
		t.Errorf("errs %v; loopback Authorization %q", srv.Errs(), reqs[len(reqs)-1].Header.Get("Authorization"))
	}
}

// extra is a fake extra toolset; browser_screenshot answers with shot.
type extra struct {
	calls []string
	shot  agent.Image
}

func (x *extra) Defs() []agent.ToolDef {
	schema := map[string]any{"type": "object", "properties": map[string]any{"tab_handle": map[string]any{"type": "string"}}, "additionalProperties": false}
	return []agent.ToolDef{{Name: "browser_observe", Description: "read the page", Schema: schema}, {Name: "browser_screenshot", Description: "see the page", Schema: schema}}
}
func (x *extra) Call(ctx context.Context, name string, in json.RawMessage) agent.ToolAnswer {
	x.calls = append(x.calls, name+" "+string(in))
	if name == "browser_screenshot" {
		return agent.ToolAnswer{Text: "image/png 2x2", Images: []agent.Image{x.shot}}
	}
	return agent.ToolAnswer{Text: "counter: 1"}
}

func TestExtraTools(t *testing.T) {
	turns := []agenttest.Turn{{Calls: []agenttest.Call{{Name: "browser_observe", Input: map[string]any{"tab_handle": "t1"}}}}, {Text: "seen"}}
	vendors(t, turns, func(t *testing.T, srv *agenttest.Server, a agent.Agent) {
		x := &extra{}
		o, _ := run(a, testTask(task.Budgets{}), &belt{extra: x})
		first := srv.Requests()[0].Raw
		if o.StopReason != agent.StopCompleted || len(x.calls) != 1 || !strings.Contains(first, "browser_observe") || !strings.Contains(first, "additionalProperties") || !strings.Contains(first, "browser tools for the app") {
			t.Errorf("%+v %v\n%s", o, x.calls, first)
		}
		if !strings.Contains(srv.Requests()[1].Raw, "counter: 1") {
			t.Errorf("browser result not sent back")
		}
	})
}

func ExampleKickoff() {
	fmt.Print(agent.Kickoff(&task.Task{Goal: "Print hello.", Route: []string{"https://docs.example.com/start"}, DocsAllow: []string{"docs.example.com"}}))
	// Output:
	// Goal: Print hello.
	//
	// Documentation entrypoint: https://docs.example.com/start
	// Allowed documentation hosts: docs.example.com
}

// A service that quotes the key in its error (OpenAI's 401 does) does not
// put it in the outcome or the trace.
func TestKeyNotInErrors(t *testing.T) {
	const key = "sk-echoed-0123456789"
	srv := agenttest.OpenAI(agenttest.Turn{Status: 401, Message: "Incorrect API key provided: sk-echo***6789. You can find your API key at the dashboard. Also " + key})
	defer srv.Close()
	a, _ := agent.New(agent.Config{Agent: "openai:m", BaseURL: srv.BaseURL(), APIKeyEnv: "K", Getenv: func(string) string { return key }})
	o, tr := run(a, testTask(task.Budgets{}), &belt{})
	if strings.Contains(o.Detail, "sk-echo") || strings.Contains(string(tr.JSONL()), "sk-echo") || !strings.Contains(o.Detail, "API error 401") {
		t.Errorf("detail %q", o.Detail)
	}
}

// A bare --agent claude asks for the model quickstarted's does, so the same
// command line compares like with like; openai and gemini have no default
// there, nor here.
func TestDefaultModelsAreQuickstarteds(t *testing.T) {
	a, err := agent.New(agent.Config{Agent: "claude", BaseURL: "http://127.0.0.1:9"})
	if err != nil || a.Name() != "claude:claude-opus-5" {
		t.Fatalf("--agent claude: %v %v, want claude:claude-opus-5 (quickstarted 0.6.1's default)", a, err)
	}
	for _, v := range []string{"openai", "gemini"} {
		if _, err := agent.New(agent.Config{Agent: v, BaseURL: "http://127.0.0.1:9"}); err == nil || !strings.Contains(err.Error(), "no default is assumed") {
			t.Errorf("--agent %s: %v, want a model asked for", v, err)
		}
	}
}
