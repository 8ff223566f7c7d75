package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/tabs"
)

// stepCounts are the batch lengths of BenchmarkBatchSteps.
var stepCounts = []int{1, 2, 5, 10, 20, 30}

// BenchmarkBatchSteps: one batch of 1, 2, 5, 10, 20 and 30 steps on a warm
// tab of a generated form (20 labelled text fields, 10 checkboxes), two
// fills for each click, by label and by CSS selector in turn. Each round
// runs every length once, so a loaded machine slows all points alike.
// Reported per length: the median batch time, that time per step, and the
// CDP commands per batch.
//
//	go test ./engine/batch -run '^$' -bench BatchSteps -benchtime 10x
func BenchmarkBatchSteps(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(longForm())
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	opened, _, err := env.Manager.OpenAndLoad(ctx, tabs.OpenOptions{Owner: "test", URL: srv.URL + "/form", Active: true})
	if err != nil {
		b.Fatal(err)
	}
	tab := opened.Tab
	defer env.Manager.CloseTab(context.Background(), "test", tab.Handle())
	requests := make([]*Request, len(stepCounts))
	for i, n := range stepCounts {
		req, v := Prevalidate(request(tab, mixedSteps(n), ""))
		if len(v) > 0 {
			b.Fatal(v)
		}
		requests[i] = req
	}
	run := func(req *Request) (time.Duration, int64) {
		before, start := tab.RoundTrips(), time.Now()
		r := Run(ctx, tab, req)
		took, calls := time.Since(start), tab.RoundTrips()-before
		if !r.OK {
			out, _ := json.Marshal(r)
			b.Fatalf("batch failed: %s", out)
		}
		return took, calls
	}
	run(requests[len(requests)-1]) // warm: world, helpers, every field once
	times := make([][]time.Duration, len(stepCounts))
	calls := make([]int64, len(stepCounts))
	b.ResetTimer()
	for range b.N {
		for i, req := range requests {
			took, n := run(req)
			times[i] = append(times[i], took)
			calls[i] += n
		}
	}
	b.StopTimer()
	for i, n := range stepCounts {
		p50 := median(times[i])
		b.ReportMetric(p50, fmt.Sprintf("ms/batch-%d", n))
		b.ReportMetric(p50/float64(n), fmt.Sprintf("ms/step-%d", n))
		b.ReportMetric(float64(calls[i])/float64(b.N), fmt.Sprintf("cdp/batch-%d", n))
	}
	b.ReportMetric(0, "ns/op")
}

// mixedSteps is n steps over longForm: fill, fill, click, repeated, each on
// a field of its own, the fills located by label and by id in turn.
func mixedSteps(n int) string {
	steps := make([]string, 0, n)
	fills, clicks := 0, 0
	for i := range n {
		switch {
		case i%3 == 2:
			steps = append(steps, fmt.Sprintf(`{"action":"click","selector":"#c%d"}`, clicks))
			clicks++
		case fills%2 == 0:
			steps = append(steps, fmt.Sprintf(`{"action":"fill","selector":"Field %d","selector_type":"label","text":"value %d"}`, fills, fills))
			fills++
		default:
			steps = append(steps, fmt.Sprintf(`{"action":"fill","selector":"#f%d","text":"value %d"}`, fills, fills))
			fills++
		}
	}
	return "[" + strings.Join(steps, ",") + "]"
}

// longForm is a form of 20 labelled text fields and 10 checkboxes.
func longForm() []byte {
	var b strings.Builder
	b.WriteString("<!doctype html><title>Long form</title><form>")
	for i := range 20 {
		fmt.Fprintf(&b, `<p><label for="f%d">Field %d</label> <input id="f%d" name="f%d"></p>`, i, i, i, i)
	}
	for i := range 10 {
		fmt.Fprintf(&b, `<p><label><input type="checkbox" id="c%d" name="c%d"> Option %d</label></p>`, i, i, i)
	}
	b.WriteString("</form>")
	return []byte(b.String())
}
