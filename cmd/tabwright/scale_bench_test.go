package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionCounts are the concurrency levels of BenchmarkConcurrentSessions.
var sessionCounts = []int{1, 2, 4, 8}

// cyclesPerRound is how many fill, click, observe cycles each session makes
// in one round (one keeps make bench's 20 rounds under a minute).
const cyclesPerRound = 1

// BenchmarkConcurrentSessions: 1, 2, 4 and 8 MCP sessions at once on one
// streamable HTTP server (so one browser), each working its own tab of the
// demo form: browser_fill, browser_click on the checkbox, browser_observe,
// as fast as their answers come. Each round runs every level once, so a
// loaded machine slows all points alike. Reported per level: the calls
// answered per second over all sessions and the p95 of one call.
//
//	go test ./cmd/tabwright -run '^$' -bench ConcurrentSessions -benchtime 5x
func BenchmarkConcurrentSessions(b *testing.B) {
	site := fixtures(b)
	endpoint, _ := startHTTP(b)
	sessions := make([]*mcp.ClientSession, sessionCounts[len(sessionCounts)-1])
	handles := make([]any, len(sessions))
	for i := range sessions {
		sessions[i] = connectHTTP(b, endpoint)
		handles[i] = mustCall(b, sessions[i], "browser_open_tab", map[string]any{"url": fmt.Sprintf("%s/form?session=%d", site.URL, i)})["tab_handle"]
	}
	for i := range sessions { // warm: every tab's world and helpers
		if err := workCycles(sessions[i], handles[i], 1, nil); err != nil {
			b.Fatal(err)
		}
	}
	walls := make([]time.Duration, len(sessionCounts))
	latencies := make([][]time.Duration, len(sessionCounts))
	calls := make([]int, len(sessionCounts))
	b.ResetTimer()
	for range b.N {
		for i, n := range sessionCounts {
			wall, took, err := concurrently(sessions[:n], handles[:n])
			if err != nil {
				b.Fatal(err)
			}
			walls[i] += wall
			latencies[i] = append(latencies[i], took...)
			calls[i] += len(took)
		}
	}
	b.StopTimer()
	for i, n := range sessionCounts {
		b.ReportMetric(float64(calls[i])/walls[i].Seconds(), fmt.Sprintf("calls/s-%d", n))
		b.ReportMetric(percentileMS(latencies[i], 95), fmt.Sprintf("p95-ms-%d", n))
		b.ReportMetric(medianMS(latencies[i]), fmt.Sprintf("p50-ms-%d", n))
	}
	b.ReportMetric(0, "ns/op")
}

// concurrently runs cyclesPerRound cycles on every session at once and
// returns the wall time of the whole and each call's time.
func concurrently(sessions []*mcp.ClientSession, handles []any) (time.Duration, []time.Duration, error) {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		took []time.Duration
		errs = make([]error, len(sessions))
	)
	start := time.Now()
	for i := range sessions {
		wg.Go(func() {
			var own []time.Duration
			errs[i] = workCycles(sessions[i], handles[i], cyclesPerRound, &own)
			mu.Lock()
			took = append(took, own...)
			mu.Unlock()
		})
	}
	wg.Wait()
	wall := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return 0, nil, err
		}
	}
	return wall, took, nil
}

// workCycles makes n fill, click, observe cycles on one session's tab,
// appending each call's time to took (when not nil).
func workCycles(sess *mcp.ClientSession, handle any, n int, took *[]time.Duration) error {
	calls := []struct {
		name string
		args map[string]any
	}{
		{"browser_fill", map[string]any{"tab_handle": handle, "selector": "#email", "text": "ada@example.com"}},
		{"browser_click", map[string]any{"tab_handle": handle, "selector": "input[name=remember]"}},
		{"browser_observe", map[string]any{"tab_handle": handle}},
	}
	for range n {
		for _, c := range calls {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			start := time.Now()
			res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: c.name, Arguments: c.args})
			cancel()
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			if res.IsError {
				out, _ := json.Marshal(res.StructuredContent)
				return fmt.Errorf("%s failed: %s", c.name, out)
			}
			if took != nil {
				*took = append(*took, time.Since(start))
			}
		}
	}
	return nil
}

// percentileMS is the p-th percentile of ds in milliseconds (nearest rank).
func percentileMS(ds []time.Duration, p int) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := (len(s)*p + 99) / 100
	return float64(s[max(rank-1, 0)].Microseconds()) / 1000
}
