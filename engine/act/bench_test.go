package act

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/tabs"
)

// benchStep runs one step b.N times on a warm tab (the page loaded, the
// act helpers installed by a first run) and reports the mean and median
// latency and the CDP commands per step. Targets (issue 3): click <= 25 ms,
// fill <= 25 ms, <= 8 round trips per click.
//
//	go test ./engine/act -run '^$' -bench . -benchtime 200x
func benchStep(b *testing.B, s *Step) {
	tab := page(b, "basics.html")
	if v := s.Validate(""); len(v) > 0 {
		b.Fatal(v)
	}
	do := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := Run(ctx, tab, s); err != nil {
			b.Fatalf("%s: %v", s.Action, err)
		}
	}
	for range 3 { // warm: isolated world, injected helpers, renderer caches
		do()
	}
	durations := make([]time.Duration, 0, b.N)
	calls := tab.RoundTrips()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		do()
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	reportCalls(b, tab, calls)
	slices.Sort(durations)
	var total time.Duration
	for _, d := range durations {
		total += d
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(len(durations)), "ms/op")
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(0, "ns/op") // ms/op says it in the unit of the targets
}

func reportCalls(b *testing.B, tab *tabs.Tab, before int64) {
	b.ReportMetric(float64(tab.RoundTrips()-before)/float64(b.N), "cdp-calls/op")
}

func BenchmarkClick(b *testing.B) {
	benchStep(b, &Step{Action: Click, Locator: css("#plain")})
}

func BenchmarkFill(b *testing.B) {
	benchStep(b, &Step{Action: Fill, Locator: css("#email"), Text: ptr("someone@example.com")})
}

// BenchmarkType10 types ten characters with trusted key events, no delay.
func BenchmarkType10(b *testing.B) {
	benchStep(b, &Step{Action: Type, Locator: css("#keys"), Text: ptr("abcdefghij")})
}
