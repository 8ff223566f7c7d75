package agent_test

import (
	"strings"
	"testing"

	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/agent/agenttest"
	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// A gateway in front of a reasoning model refuses max_tokens as OpenAI
// does (400, param max_tokens, unsupported_parameter): the call is sent
// again with max_completion_tokens, which later calls and runs to that
// model send first.
func TestGatewayWantsMaxCompletionTokens(t *testing.T) {
	srv := agenttest.OpenAI(agenttest.Turn{Text: "done"}, agenttest.Turn{Text: "again"})
	srv.RefuseParams = []string{"max_tokens"}
	defer srv.Close()
	a, err := agent.New(agent.Config{Agent: "openai:o-reasoning", BaseURL: srv.BaseURL(), Retry: fast})
	if err != nil {
		t.Fatal(err)
	}
	o, tr := run(a, testTask(task.Budgets{}), &belt{})
	reqs := srv.Requests()
	if o.StopReason != agent.StopCompleted || count(tr, trace.TokenParamSwitched) != 1 || len(reqs) != 2 {
		t.Fatalf("%+v, %d requests\n%s", o, len(reqs), tr.JSONL())
	}
	if reqs[0].Body["max_tokens"] == nil || reqs[1].Body["max_tokens"] != nil || reqs[1].Body["max_completion_tokens"] == nil {
		t.Errorf("sent %v, then %v", reqs[0].Raw, reqs[1].Raw)
	}
	o, tr = run(a, testTask(task.Budgets{}), &belt{})
	if third := srv.Requests()[2]; o.StopReason != agent.StopCompleted || third.Body["max_completion_tokens"] == nil || count(tr, trace.TokenParamSwitched) != 0 {
		t.Errorf("second run: %+v, sent %s", o, third.Raw)
	}
	for _, e := range srv.Errs() {
		t.Errorf("protocol: %s", e)
	}
}

// The server decides both ways (a gateway whose model changed refuses
// what it asked for before), and a 400 about anything else, the cap's
// value included, is not sent again.
func TestGatewayFallbackOnlyForTheParameter(t *testing.T) {
	srv := agenttest.OpenAI(agenttest.Turn{Text: "one"}, agenttest.Turn{Text: "two"},
		agenttest.Turn{Status: 400, Message: "max_tokens is too large: 900000. This model supports at most 4096 completion tokens."})
	defer srv.Close()
	a, _ := agent.New(agent.Config{Agent: "openai:m-switch", BaseURL: srv.BaseURL(), Retry: fast})
	srv.RefuseParams = []string{"max_tokens"}
	run(a, testTask(task.Budgets{}), &belt{})
	srv.RefuseParams = []string{"max_completion_tokens"}
	o, tr := run(a, testTask(task.Budgets{}), &belt{})
	reqs := srv.Requests()
	if o.StopReason != agent.StopCompleted || count(tr, trace.TokenParamSwitched) != 1 || len(reqs) != 4 || reqs[3].Body["max_tokens"] == nil {
		t.Fatalf("back to max_tokens: %+v, %d requests", o, len(reqs))
	}
	o, tr = run(a, testTask(task.Budgets{}), &belt{})
	if len(srv.Requests()) != 5 || count(tr, trace.TokenParamSwitched) != 0 || !strings.Contains(o.Detail, "API error 400") {
		t.Errorf("a 400 about the value was sent again: %+v, %d requests", o, len(srv.Requests()))
	}
}

// A 401 from a gateway on loopback, which was sent no key, says so and
// how to send one.
func TestLoopback401SaysNoKeyWasSent(t *testing.T) {
	for _, v := range []string{"openai", "claude"} {
		t.Run(v, func(t *testing.T) {
			turn := agenttest.Turn{Status: 401, Message: "Authentication Error, No api key passed in."}
			srv, spec := agenttest.OpenAI(turn), "openai:m"
			if v == "claude" {
				srv, spec = agenttest.Anthropic(turn), "claude:m"
			}
			defer srv.Close()
			a, _ := agent.New(agent.Config{Agent: spec, BaseURL: srv.BaseURL(), Retry: fast})
			o, _ := run(a, testTask(task.Budgets{}), &belt{})
			if !strings.Contains(o.Detail, "API error 401") || !strings.Contains(o.Detail, "no API key was sent") || !strings.Contains(o.Detail, "--api-key-env NAME") {
				t.Errorf("detail %q", o.Detail)
			}
			if h := srv.Requests()[0].Header; h.Get("Authorization") != "" || h.Get("X-Api-Key") != "" {
				t.Errorf("a key was sent: %v", h)
			}
			// With a key sent, a 401 is about that key.
			srv.Reset()
			a, _ = agent.New(agent.Config{Agent: spec, BaseURL: srv.BaseURL(), APIKeyEnv: "K", Getenv: func(string) string { return "sk-test-1" }, Retry: fast})
			if o, _ := run(a, testTask(task.Budgets{}), &belt{}); strings.Contains(o.Detail, "no API key was sent") {
				t.Errorf("with a key: %q", o.Detail)
			}
		})
	}
}
