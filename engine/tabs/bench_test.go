package tabs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/tabwright/tabwright/engine/observe"
)

// BenchmarkNavigateObserve: a warm navigation plus an observation of a small
// form page, in process, with the CDP commands each one costs.
func BenchmarkNavigateObserve(b *testing.B) {
	page, err := os.ReadFile("../../testdata/pages/signin.html")
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(page) }))
	defer srv.Close()
	m, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	opened, err := m.Open(ctx, OpenOptions{Owner: "bench", URL: "about:blank", Active: true, Claim: true})
	if err != nil {
		b.Fatal(err)
	}
	tab := opened.Tab
	if _, err := tab.Navigate(ctx, Navigation{URL: srv.URL + "/warmup"}); err != nil {
		b.Fatal(err)
	}
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
