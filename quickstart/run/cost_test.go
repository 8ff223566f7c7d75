package run

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/quickstart/agent/agenttest"
	"github.com/tabwright/tabwright/quickstart/task"
)

func TestPrices(t *testing.T) {
	p, err := ParsePrices("book.json", []byte(`{"gpt-x": {"input": 2, "output": 8, "cache_read": 0.5}, "claude-y": {"input": 3, "output": 15, "cache_write": 3.75, "cache_read": 0.3}}`))
	if err != nil {
		t.Fatal(err)
	}
	tok := Tokens{Input: 1000, Output: 500, CacheWrite: 2000, CacheRead: 4000}
	cases := []struct {
		reported, agent string
		want            float64
		ok              bool
	}{
		{"claude-y", "claude:claude-y", (1000*3 + 500*15 + 2000*3.75 + 4000*0.3) / 1e6, true},
		{"gpt-x-2026-01-01", "openai:gpt-x-2026-01-01", (1000*2 + 500*8 + 4000*0.5) / 1e6, true}, // a dated snapshot
		{"served-name", "openai:gpt-x", (1000*2 + 500*8 + 4000*0.5) / 1e6, true},                 // what was asked for
		{"other", "openai:other", 0, false},
	}
	for _, c := range cases {
		r, ok := p.Rate(c.reported, c.agent)
		if ok != c.ok || math.Abs(r.Cost(tok)-c.want) > 1e-12 {
			t.Errorf("%s: %v %v, want %v", c.reported, r.Cost(tok), ok, c.want)
		}
	}
	for _, bad := range []string{`[]`, `{"m": 3}`, `{"m": {"input": -1}}`, `{"m": {"inputs": 1}}`, `{"m": {"input": "1"}}`, `{"": {}}`, `{"m": null}`} {
		if _, err := ParsePrices("b.json", []byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "qs.prices: b.json") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func FuzzParsePrices(f *testing.F) {
	f.Add([]byte(`{"m": {"input": 1, "output": 2}}`))
	f.Add([]byte(`{"m": {"cache_read": 1e308}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePrices("f.json", b)
		if err == nil {
			for _, r := range p {
				if r.Input < 0 || r.Output < 0 || r.CacheWrite < 0 || r.CacheRead < 0 {
					t.Fatalf("negative rate accepted: %+v", r)
				}
			}
		}
	})
}

// The cost cap stops the suite before the next attempt starts; what ran is
// kept, priced and summed, and the exit code says it stopped.
func TestMaxCostStopsTheSuite(t *testing.T) {
	t.Parallel()
	turn := agenttest.Turn{Text: "nothing to do", Usage: agenttest.Usage{Input: 1000000, Output: 0}}
	srv := agenttest.OpenAI(turn, turn, turn)
	defer srv.Close()
	tk := newTask(t, strings.Replace(head, "NAME", "costly", 1)+"success:\n  script: 'true'\n")
	o := modelOpts(t, opts(), "openai:gpt-test", srv, "")
	s := RunSuite(context.Background(), []*task.Task{tk}, SuiteOptions{Options: o, Repeat: 3, Prices: Prices{"gpt-test": {Input: 2}}, MaxCostUSD: 3}, nil)
	if s.Totals.Runs != 2 || !s.StoppedAtCost || s.Exit(false) != 130 || s.Totals.EstimatedCost == nil || *s.Totals.EstimatedCost != 4 {
		t.Fatalf("runs %d stopped %v exit %d cost %v", s.Totals.Runs, s.StoppedAtCost, s.Exit(false), s.Totals.EstimatedCost)
	}
	st := s.Tasks[0]
	if st.Tokens.Input != 2000000 || *st.EstimatedCost != 4 || len(st.ModelsReported) != 1 || st.ModelsReported[0] != "gpt-test-fake" {
		t.Errorf("stat %+v", st)
	}
	var b strings.Builder
	PrintSummary(&b, s, 1)
	for _, want := range []string{"tokens: 2000000 in / 0 out", "estimated cost: $4.0000", "STOPPED AT THE COST CAP ($3.00)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	// No book: the tokens are counted, the model named as unpriced.
	s = Summarise(s.Tasks[0].Runs[:1])
	s.Tasks[0].Runs[0].EstimatedCost = nil
	s = Summarise(s.Tasks[0].Runs)
	if s.Totals.EstimatedCost != nil || len(s.Totals.UnpricedModels) != 1 {
		t.Errorf("unpriced: %+v", s.Totals)
	}
}
