package observe

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// BenchmarkObservePages reports, per fixture page, the time of a warm
// observation and its size in characters, as JSON (what structuredContent
// carries) and as text (Render, the text content), for the default sections
// and for all of them (include ["all"]). Targets, default sections, both
// forms: signup form <= 1,500; article <= 6,000; 50-row table and 30
// product cards <= 4,000 each; iframe page (its frame's form inline)
// <= 1,500; 2,000 links <= 16,000; signup <= 30 ms. The async page builds its content after load; it is
// observed once that is done.
func BenchmarkObservePages(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, page := range []string{"signup", "article", "table", "products", "async", "iframe", "links"} {
		for _, full := range []bool{false, true} {
			name := page + "/default"
			opt := Options{}
			if full {
				name, opt.Include = page+"/all", []string{"all"}
			}
			b.Run(name, func(b *testing.B) {
				p := benchPage(b, ctx, page)
				if _, err := Capture(ctx, p, opt); err != nil { // warm: install the extractors
					b.Fatal(err)
				}
				var size, text int
				for b.Loop() {
					o, err := Capture(ctx, p, opt)
					if err != nil {
						b.Fatal(err)
					}
					raw, _ := json.Marshal(o)
					size = len([]rune(string(raw)))
					text = len([]rune(Render(o)))
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/obs")
				b.ReportMetric(float64(size), "chars")
				b.ReportMetric(float64(text), "textchars")
			})
		}
	}
}

// benchPage opens a fixture as the server observes it: a tab, reaching
// its frames; the async page once its content is built.
func benchPage(b *testing.B, ctx context.Context, page string) Page {
	switch page {
	case "iframe":
		return openFramed(b, ctx, "/iframe.html")
	case "async":
		p := openTracked(b, ctx, "/async.html", nil)
		waitFor(b, ctx, p.tab, `document.body.dataset.ready === '1'`)
		return p
	}
	return openTracked(b, ctx, "/"+page+".html", nil)
}
