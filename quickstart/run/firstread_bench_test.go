package run

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// BenchmarkRunStartToFirstDocsRead is the harness's time from an attempt's
// start to its first page read (the docs_read event), on the sandbox
// backend, with docs on loopback: what the harness spends before the agent
// has read anything.
//
//   - first-run: a process's first attempt (the browser not yet started: a
//     fresh manager per op);
//   - next-runs: a later attempt of the same process (browser and docs tab
//     already there).
//
// It reports the medians of that (first-read-ms/op) and of the attempt's
// start to the agent's (agent-start-ms/op), and the mean of the first. With
// -v it logs one attempt's timeline: sandbox ready, agent start, its first
// read_docs request, browser ready, page rendered, page returned.
func BenchmarkRunStartToFirstDocsRead(b *testing.B) {
	if ok, why := sandbox.Probe(context.Background()); !ok {
		b.Fatalf("the sandbox backend cannot run here: %s", why)
	}
	loadStart := time.Now()
	tk := newTask(b, strings.Replace(head, "NAME", "first-read", 1)+"replay: ['true']\nsuccess:\n  script: 'true'\n")
	b.Logf("task load (file written and loaded): %v", time.Since(loadStart).Round(time.Microsecond))
	b.Run("first-run", func(b *testing.B) {
		benchFirstRead(b, tk, func() (*docs.Reader, func()) {
			br, err := docs.NewBrowser()
			if err != nil {
				b.Fatal(err)
			}
			return &docs.Reader{Browser: br}, br.Close
		})
	})
	shared := &docs.Reader{Browser: browser}
	Attempt(context.Background(), tk, 1, Options{Docs: shared, Backend: sandbox.Isolated}) // the browser and tab start here
	b.Run("next-runs", func(b *testing.B) {
		benchFirstRead(b, tk, func() (*docs.Reader, func()) { return shared, func() {} })
	})
}

// timeline is when each stage of one attempt first happened, from its start.
type timeline struct {
	mu    sync.Mutex
	start time.Time
	at    map[string]time.Duration
	order []string
}

func (tl *timeline) mark(stage string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if _, ok := tl.at[stage]; !ok {
		tl.at[stage] = time.Since(tl.start)
		tl.order = append(tl.order, stage)
	}
}

func (tl *timeline) String() string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	sort.SliceStable(tl.order, func(i, j int) bool { return tl.at[tl.order[i]] < tl.at[tl.order[j]] })
	var parts []string
	for _, s := range tl.order {
		parts = append(parts, s+" "+tl.at[s].Round(100*time.Microsecond).String())
	}
	return strings.Join(parts, ", ")
}

// timedAgent is replay, marking when it starts and when it first asks for
// a docs page.
type timedAgent struct{ tl *timeline }

func (a timedAgent) Name() string { return "replay" }

func (a timedAgent) Run(ctx context.Context, s *agent.Session) agent.Outcome {
	a.tl.mark("agent start")
	s.Tools = timedBelt{s.Tools, a.tl}
	return agent.Replay{}.Run(ctx, s)
}

type timedBelt struct {
	agent.Toolbelt
	tl *timeline
}

func (b timedBelt) ReadRoute(ctx context.Context) {
	b.tl.mark("first read_docs request")
	b.Toolbelt.ReadRoute(ctx)
}

func (b timedBelt) ReadDocs(ctx context.Context, url string) string {
	b.tl.mark("first read_docs request")
	return b.Toolbelt.ReadDocs(ctx, url)
}

func benchFirstRead(b *testing.B, tk *task.Task, reader func() (*docs.Reader, func())) {
	var reads, agentStarts []time.Duration
	var last *timeline
	for i := 0; i < b.N; i++ {
		d, done := reader()
		tl := &timeline{start: time.Now(), at: map[string]time.Duration{}}
		d.OnStage = func(stage string) { tl.mark(stage) }
		opt := Options{Docs: d, Backend: sandbox.Isolated, Agent: timedAgent{tl}, OnEvent: func(_ *task.Task, _ int, ev map[string]any, _ time.Duration) {
			switch trace.TypeOf(ev) {
			case "run_start":
				tl.mark("sandbox ready")
			case "docs_read":
				tl.mark("page returned")
			}
		}}
		r := Attempt(context.Background(), tk, 1, opt)
		d.OnStage = nil
		done()
		first, ok := tl.at["page returned"]
		if r.Classification != Passed || !ok {
			b.Fatalf("%s: %s", r.Classification, r.Detail)
		}
		reads, agentStarts = append(reads, first), append(agentStarts, tl.at["agent start"])
		last = tl
	}
	b.ReportMetric(ms(median(reads)), "first-read-ms/op")
	b.ReportMetric(ms(median(agentStarts)), "agent-start-ms/op")
	var sum time.Duration
	for _, t := range reads {
		sum += t
	}
	b.ReportMetric(ms(sum)/float64(len(reads)), "mean-first-read-ms")
	b.Logf("the last attempt: %s", last)
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
