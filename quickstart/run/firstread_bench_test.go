package run

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
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
// It reports the median (first-read-ms/op) as well as the mean.
func BenchmarkRunStartToFirstDocsRead(b *testing.B) {
	if ok, why := sandbox.Probe(context.Background()); !ok {
		b.Fatalf("the sandbox backend cannot run here: %s", why)
	}
	tk := newTask(b, strings.Replace(head, "NAME", "first-read", 1)+"replay: ['true']\nsuccess:\n  script: 'true'\n")
	b.Run("first-run", func(b *testing.B) {
		benchFirstRead(b, tk, func() (*docs.Reader, func()) {
			m, err := tabs.New(tabs.Options{})
			if err != nil {
				b.Fatal(err)
			}
			return &docs.Reader{Manager: m}, m.Close
		})
	})
	shared := &docs.Reader{Manager: mgr}
	Attempt(context.Background(), tk, 1, Options{Docs: shared, Backend: sandbox.Isolated}) // the browser and tab start here
	b.Run("next-runs", func(b *testing.B) {
		benchFirstRead(b, tk, func() (*docs.Reader, func()) { return shared, func() {} })
	})
}

func benchFirstRead(b *testing.B, tk *task.Task, reader func() (*docs.Reader, func())) {
	var times []time.Duration
	for i := 0; i < b.N; i++ {
		d, done := reader()
		var once sync.Once
		var first time.Duration
		start := time.Now()
		opt := Options{Docs: d, Backend: sandbox.Isolated, OnEvent: func(_ *task.Task, _ int, ev map[string]any, _ time.Duration) {
			if ev["type"] == "docs_read" {
				once.Do(func() { first = time.Since(start) })
			}
		}}
		r := Attempt(context.Background(), tk, 1, opt)
		done()
		if r.Classification != Passed || first == 0 {
			b.Fatalf("%s: %s", r.Classification, r.Detail)
		}
		times = append(times, first)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	var sum time.Duration
	for _, t := range times {
		sum += t
	}
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "first-read-ms/op")
	b.ReportMetric(float64(sum.Microseconds())/1000/float64(len(times)), "mean-first-read-ms")
}
