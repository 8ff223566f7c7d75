package agent_test

import (
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/agent/agenttest"
	"github.com/tabwright/tabwright/quickstart/task"
)

// BenchmarkTurnOverhead: what the harness adds to each model turn (the SDK
// client, the loopback round trip, the loop, dispatch and tracing), with
// the fake server's own time subtracted; the tools answer at once. Reports
// the median over runs of 10 turns.
func BenchmarkTurnOverhead(b *testing.B) {
	const turns = 10
	var script []agenttest.Turn
	for i := 0; i < turns-1; i++ {
		script = append(script, agenttest.Turn{Calls: []agenttest.Call{{Name: "bash", Input: map[string]any{"command": "true"}}}, Usage: agenttest.Usage{Input: 100, Output: 20}})
	}
	script = append(script, agenttest.Turn{Text: "done"})
	for _, v := range []string{"claude", "openai"} {
		b.Run(v, func(b *testing.B) {
			srv, spec := agenttest.Anthropic(script...), "claude:m"
			if v == "openai" {
				srv, spec = agenttest.OpenAI(script...), "openai:m"
			}
			defer srv.Close()
			a, _ := agent.New(agent.Config{Agent: spec, BaseURL: srv.BaseURL()})
			tk := testTask(task.Budgets{MaxTurns: turns})
			var per []float64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				srv.Reset()
				start := time.Now()
				o, _ := run(a, tk, &belt{})
				total := time.Since(start)
				if o.StopReason != agent.StopCompleted {
					b.Fatal(o)
				}
				per = append(per, float64((total-srv.Busy()).Microseconds())/1000/turns)
			}
			sort.Float64s(per)
			b.ReportMetric(per[len(per)/2], "overhead-ms/turn(median)")
		})
	}
}

// BenchmarkPromptSize: what every turn carries besides the conversation:
// the system prompt and the tool definitions, in characters as sent, and
// an estimate in tokens (characters / 4).
func BenchmarkPromptSize(b *testing.B) {
	srv := agenttest.Anthropic(agenttest.Turn{Text: "done"})
	defer srv.Close()
	a, _ := agent.New(agent.Config{Agent: "claude:m", BaseURL: srv.URL})
	run(a, testTask(task.Budgets{}), &belt{})
	body := srv.Requests()[0].Body
	tools, _ := json.Marshal(body["tools"])
	system, _ := json.Marshal(body["system"])
	for i := 0; i < b.N; i++ {
		_ = agent.BuiltinTools()
	}
	b.ReportMetric(float64(len(tools)), "tool-defs-chars")
	b.ReportMetric(float64(len(system)), "system-chars")
	b.ReportMetric(float64(len(tools)+len(system))/4, "est-tokens/turn")
}
