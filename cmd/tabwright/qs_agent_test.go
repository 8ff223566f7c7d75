package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/quickstart/agent/agenttest"
)

func TestQSShow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "trace.jsonl")
	os.WriteFile(p, []byte(`{"ts":1.0,"type":"run_start","task":"t","agent":"openai:m","backend":"sandbox","enforced":true,"attempt":1}
{"ts":1.5,"type":"agent_turn","turn":1,"model":"m-1","stop_reason":"tool_calls","text":"Reading first.","input_tokens":10,"output_tokens":5,"cache_write_tokens":0,"cache_read_tokens":0}
{"ts":1.6,"type":"tool_call","tool":"read_docs","url":"https://d/"}
{"ts":1.7,"type":"docs_read","url":"https://d/","chars":100,"by":"agent"}
{"ts":2.0,"type":"api_retry","turn":2,"attempt":1,"status":429,"sleep":0.5,"error":"API error 429: slow down"}
{"ts":2.6,"type":"tool_call","tool":"bash","command":"make"}
{"ts":3.0,"type":"tool_result","tool":"bash","exit_code":2,"output":"make: *** No targets.\n"}
{"ts":3.1,"type":"agent_final","text":"Stuck at https://d/ step 1."}
{"ts":4.0,"type":"run_end","classification":"docs_gap","stop_reason":"completed","passed":false}
`), 0o644)
	var out, errb bytes.Buffer
	if code := runQS(context.Background(), []string{"show", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"[   0.0s] t on sandbox (enforced), agent openai:m, attempt 1", "turn 1: m-1, stop tool_calls, tokens 10 in / 5 out", "| Reading first.",
		"read_docs https://d/", "api retry: turn 2 try 1 failed (API error 429: slow down), waiting 0.5s", "$ make", "  exit 2", "| make: *** No targets.",
		"agent says: Stuck at https://d/ step 1.", "docs_gap (stop reason: completed)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q:\n%s", want, out.String())
		}
	}
	os.WriteFile(p, []byte("{\"type\":\"run_start\"}\nnot json\n"), 0o644)
	for args, want := range map[string]string{p: "line 2 is not a JSON object", filepath.Join(dir, "nope.jsonl"): "no such file"} {
		errb.Reset()
		if code := runQS(context.Background(), []string{"show", args}, &out, &errb); code != 3 || !strings.Contains(errb.String(), want) {
			t.Errorf("%s: exit %d %q", args, code, errb.String())
		}
	}
}

// A missing key is one error naming the variables, before anything runs.
func TestQSRunAgentFlags(t *testing.T) {
	for _, v := range []string{"TABWRIGHT_OPENAI_API_KEY", "QUICKSTARTED_OPENAI_API_KEY", "OPENAI_API_KEY"} {
		t.Setenv(v, "")
	}
	cases := map[string][]string{
		"qs.agent_key_missing: --agent openai:gpt-x needs an API key": {"--agent", "openai:gpt-x"},
		"qs.agent_model_missing":                 {"--agent", "openai"},
		"qs.agent_unknown":                       {"--agent", "llama"},
		"qs.agent_tools":                         {"--agent-tools", "+browser"},
		"qs.max_cost: --max-cost-usd: -1 is not": {"--max-cost-usd", "-1"},
		"qs.prices":                              {"--prices", "/nonexistent/prices.json"},
	}
	for want, args := range cases {
		var out, errb bytes.Buffer
		code := runQS(context.Background(), append([]string{"run", "--example", "hello"}, args...), &out, &errb)
		if code != 3 || !strings.Contains(errb.String(), want) || strings.Contains(out.String(), "started") {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", args, code, errb.String(), out.String())
		}
	}
}

// A model run prints one line per turn without --verbose (turn, tools,
// seconds, tokens), and a bash call whose input does not fit ({"command":
// 42}) is shown as the model sent it: no "<nil>" in the console, qs show,
// the report or the warnings.
func TestQSRunTurnLinesAndNoNil(t *testing.T) {
	t.Parallel()
	docs := docsServer(t)
	fake := agenttest.OpenAI(
		agenttest.Turn{Calls: []agenttest.Call{{Name: "bash", Input: map[string]any{"command": 42}}}, Usage: agenttest.Usage{Input: 120, Output: 7}},
		agenttest.Turn{Calls: []agenttest.Call{{Name: "read_docs", Input: map[string]any{"url": docs.URL + "/docs/"}}, {Name: "bash", Input: map[string]any{"command": "echo done > done.txt"}}}},
		agenttest.Turn{Text: "Created done.txt."},
	)
	defer fake.Close()
	dir := t.TempDir()
	actionTasks(t, dir, docs.URL)
	res := filepath.Join(dir, "res")
	code, out, stderr := qsCmd(t, "run", filepath.Join(dir, "tasks", "a.yaml"), "--agent", "openai:gpt-test", "--base-url", fake.BaseURL(),
		"--backend", "local", "--allow-unenforced", "--out", res)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{"turn 1: bash (", "s, 120 in / 7 out tokens)", "turn 2: read_docs, bash (", "turn 3: answered, no tool ("} {
		if !strings.Contains(out, want) {
			t.Errorf("the console lacks %q:\n%s", want, out)
		}
	}
	_, shown, _ := qsCmd(t, "show", filepath.Join(res, "a"))
	if !strings.Contains(shown, `bash {"command":42}`) {
		t.Errorf("qs show does not show the refused input:\n%s", shown)
	}
	report := filepath.Join(dir, "report.html")
	qsCmd(t, "report", res, "--out", report)
	page, _ := os.ReadFile(report)
	results, _ := os.ReadFile(filepath.Join(res, "results.json"))
	for what, text := range map[string]string{"console": out, "qs show": shown, "report": string(page), "results.json": string(results)} {
		if strings.Contains(text, "<nil>") || strings.Contains(text, "&lt;nil&gt;") {
			t.Errorf("%s says <nil>:\n%s", what, text)
		}
	}
}
