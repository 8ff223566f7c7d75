package tabs

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/timing"
)

// scaleSizes are the page sizes of BenchmarkObserveScale, in elements.
var scaleSizes = []int{1_000, 10_000, 100_000}

// bigRounds bounds the rounds that observe the 100k page, seconds each on
// a loaded machine, so that make bench's 20 rounds stay near a minute.
const bigRounds = 2

// BenchmarkObserveScale: a warm observation (default sections) of a
// generated page of 1k, 10k and 100k elements, in process on a real tab, as
// browser_observe does without the MCP framing. Each round observes every
// size once (the 100k page in the first bigRounds only), so a loaded
// machine slows all points alike. Reported per size:
// the median time, and of each size's last observation the payload's
// characters as JSON and as text, its CDP commands and the share of its
// time a Runtime command (the observe script) was in flight (each
// observation is traced: the recorder costs next to nothing).
//
//	go test ./engine/tabs -run '^$' -bench ObserveScale -benchtime 5x
func BenchmarkObserveScale(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Path, "/%d", &n)
		w.Header().Set("Content-Type", "text/html")
		w.Write(scalePage(n))
	}))
	defer srv.Close()
	m, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tabs := make([]*Tab, len(scaleSizes))
	for i, n := range scaleSizes {
		opened, _, err := m.OpenAndLoad(ctx, OpenOptions{Owner: "bench", URL: fmt.Sprintf("%s/%d", srv.URL, n), Active: true})
		if err != nil {
			b.Fatal(err)
		}
		tabs[i] = opened.Tab
		if _, err := observe.Capture(ctx, tabs[i], observe.Options{}); err != nil { // warm: install the extractors
			b.Fatal(err)
		}
	}
	times := make([][]time.Duration, len(scaleSizes))
	last := make([]*observe.Observation, len(scaleSizes))
	traced := make([]timing.Breakdown, len(scaleSizes))
	b.ResetTimer()
	for round := range b.N {
		for i, tab := range tabs {
			if scaleSizes[i] >= 100_000 && round >= bigRounds {
				continue
			}
			rec := &timing.Recorder{}
			rec.Begin("observe")
			start := time.Now()
			o, err := observe.Capture(timing.With(ctx, rec), tab, observe.Options{})
			times[i] = append(times[i], time.Since(start))
			rec.End()
			if err != nil {
				b.Fatal(err)
			}
			last[i], traced[i] = o, timing.Of(rec.Spans()[0])
		}
	}
	b.StopTimer()
	for i, n := range scaleSizes {
		label := fmt.Sprintf("%dk", n/1000)
		o, parts := last[i], traced[i]
		raw, _ := json.Marshal(o)
		b.ReportMetric(medianMS(times[i]), "ms/obs-"+label)
		b.ReportMetric(float64(len([]rune(string(raw)))), "chars-"+label)
		b.ReportMetric(float64(len([]rune(observe.Render(o)))), "textchars-"+label)
		b.ReportMetric(float64(parts.Commands), "cdp/obs-"+label)
		b.ReportMetric(float64(parts.Page)/float64(parts.Wall), "page-share-"+label)
	}
	b.ReportMetric(0, "ns/op")
}

// scalePage is a page of about n elements: product cards of ten elements
// each (a section, a container, a heading, a paragraph with a link and a
// span, a one-item list, a button and an input), as a long catalogue is.
func scalePage(n int) []byte {
	var b strings.Builder
	b.WriteString("<!doctype html><title>Catalogue</title><main>")
	for i := range n / 10 {
		fmt.Fprintf(&b, `<section><div class="card"><h3>Item %d</h3>`+
			`<p>Hand-made item number %d, shipped in two days. <a href="/item/%d">Details</a> <span>in stock</span></p>`+
			`<ul><li>Colour %d</li></ul><button type="button">Add item %d</button>`+
			`<input name="qty%d" placeholder="Quantity of item %d"></div></section>`, i, i, i, i%7, i, i, i)
	}
	b.WriteString("</main>")
	return []byte(b.String())
}

func medianMS(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}
