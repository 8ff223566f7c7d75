package observe

import (
	"context"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domsnapshot"
)

// BenchmarkExtractorPlacement compares the two places the extractors could
// run: page-side JS (what Capture does: walk the live DOM in an isolated
// world and return only the result), against only fetching a DOM snapshot
// with the computed styles visibility needs (DOMSnapshot.captureSnapshot),
// before any Go code has even looked at it. If fetching the snapshot alone
// is slower than the whole page-side observation, extracting in Go over a
// snapshot cannot be faster.
func BenchmarkExtractorPlacement(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, page := range []string{"signup", "article", "links"} {
		p := open(b, ctx, "/"+page+".html")
		if _, err := Capture(ctx, p, Options{}); err != nil {
			b.Fatal(err)
		}
		b.Run(page+"/page-js", func(b *testing.B) {
			for b.Loop() {
				if _, err := Capture(ctx, p, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		})
		b.Run(page+"/snapshot-fetch", func(b *testing.B) {
			var nodes int
			for b.Loop() {
				res, err := cdproto.Call(ctx, p.sess, domsnapshot.CaptureSnapshot, domsnapshot.CaptureSnapshotParams{
					ComputedStyles: []string{"display", "visibility", "opacity", "content-visibility"},
				})
				if err != nil {
					b.Fatal(err)
				}
				nodes = 0
				for _, d := range res.Documents {
					nodes += len(d.Nodes.NodeName)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
			b.ReportMetric(float64(nodes), "nodes")
		})
	}
}
