package tabs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/timing"
)

// benchTab is a claimed tab on a manager of its own, warmed on the small
// form page the benchmarks load, and the page's server.
func benchTab(b *testing.B) (*Tab, *httptest.Server) {
	page, err := os.ReadFile("../../testdata/pages/signin.html")
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(page) }))
	b.Cleanup(srv.Close)
	m, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	opened, err := m.Open(context.Background(), OpenOptions{Owner: "bench", URL: "about:blank", Active: true, Claim: true})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := opened.Tab.Navigate(context.Background(), Navigation{URL: srv.URL + "/warmup"}); err != nil {
		b.Fatal(err)
	}
	return opened.Tab, srv
}

// BenchmarkNavigateObserve: a warm navigation plus an observation of a small
// form page, in process, with the CDP commands each one costs. With -v it
// logs one traced run: each call's commands, when each was sent and how
// long it took, which says where the time goes.
func BenchmarkNavigateObserve(b *testing.B) {
	tab, srv := benchTab(b)
	ctx := context.Background()
	step := func(ctx context.Context, i int) {
		rec := timing.From(ctx)
		rec.Begin("navigate")
		if _, err := tab.Navigate(ctx, Navigation{URL: fmt.Sprintf("%s/p%d", srv.URL, i)}); err != nil {
			b.Fatal(err)
		}
		rec.Begin("observe")
		if _, err := observe.Capture(ctx, tab, observe.Options{}); err != nil {
			b.Fatal(err)
		}
		rec.Begin("observe again") // the same document: our scripts are in it now
		if _, err := observe.Capture(ctx, tab, observe.Options{}); err != nil {
			b.Fatal(err)
		}
		rec.End()
	}
	rec := &timing.Recorder{}
	step(timing.With(ctx, rec), -1)
	b.Logf("one traced navigate + observe (ms):\n%s", commandTimes(rec.Spans()))

	var navCalls, obsCalls int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := tab.RoundTrips()
		if _, err := tab.Navigate(ctx, Navigation{URL: fmt.Sprintf("%s/p%d", srv.URL, i)}); err != nil {
			b.Fatal(err)
		}
		mid := tab.RoundTrips()
		if _, err := observe.Capture(ctx, tab, observe.Options{}); err != nil {
			b.Fatal(err)
		}
		navCalls += mid - before
		obsCalls += tab.RoundTrips() - mid
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/nav+observe")
	b.ReportMetric(float64(navCalls)/float64(b.N), "cdp-calls/nav")
	b.ReportMetric(float64(obsCalls)/float64(b.N), "cdp-calls/observe")
}

// BenchmarkViewportCapture: the viewport screenshot browser_screenshot
// takes by default (PNG, vision bounds), in process, with its CDP
// commands; -v logs one traced capture.
func BenchmarkViewportCapture(b *testing.B) {
	tab, _ := benchTab(b)
	ctx := context.Background()
	rec := &timing.Recorder{}
	rec.Begin("capture")
	if _, err := tab.Capture(timing.With(ctx, rec), Shot{}); err != nil {
		b.Fatal(err)
	}
	rec.End()
	b.Logf("one traced viewport capture (ms):\n%s", commandTimes(rec.Spans()))

	var calls int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := tab.RoundTrips()
		if _, err := tab.Capture(ctx, Shot{}); err != nil {
			b.Fatal(err)
		}
		calls += tab.RoundTrips() - before
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/capture")
	b.ReportMetric(float64(calls)/float64(b.N), "cdp-calls/capture")
}

// commandTimes lists each span's wall time and its commands: when each was
// sent (from the span's start) and how long its answer took.
func commandTimes(spans []timing.Span) string {
	var out strings.Builder
	ms := func(d interface{ Microseconds() int64 }) float64 { return float64(d.Microseconds()) / 1000 }
	for _, s := range spans {
		fmt.Fprintf(&out, "%s: %.1f\n", s.Name, ms(s.End.Sub(s.Start)))
		for _, c := range s.Commands {
			fmt.Fprintf(&out, "  %-28s at %5.1f took %5.1f\n", c.Method, ms(c.Sent.Sub(s.Start)), ms(c.Answered.Sub(c.Sent)))
		}
	}
	return out.String()
}
