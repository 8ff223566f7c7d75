package observe

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// BenchmarkObservePages reports, per fixture page, the time of a warm
// observation and its size in characters of JSON, for the default sections
// and for all of them (include ["all"]). Targets: signup form <= 1,500 chars
// and <= 30 ms default; article <= 6,000 default; 50-row table <= 4,000;
// 2,000 links <= 16,000.
func BenchmarkObservePages(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, page := range []string{"signup", "article", "table", "products", "links"} {
		for _, full := range []bool{false, true} {
			name := page + "/default"
			opt := Options{}
			if full {
				name, opt.Include = page+"/all", []string{"all"}
			}
			b.Run(name, func(b *testing.B) {
				p := openTracked(b, ctx, "/"+page+".html", nil) // a tab, as the server observes it
				if _, err := Capture(ctx, p, opt); err != nil { // warm: install the extractors
					b.Fatal(err)
				}
				var size int
				for b.Loop() {
					o, err := Capture(ctx, p, opt)
					if err != nil {
						b.Fatal(err)
					}
					raw, _ := json.Marshal(o)
					size = len([]rune(string(raw)))
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/obs")
				b.ReportMetric(float64(size), "chars")
			})
		}
	}
}
