package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tabwright/tabwright/mcpserver/session"
)

// BenchmarkSaveSessionOverhead: the same fill and click on the demo form,
// on a server with --save-session and one without, called in turn so that
// both see the same load. Reported: each one's median per call, and the
// bytes the recording wrote per call (its JSON line and, for an action,
// its screenshot).
//
//	go test ./cmd/tabwright -run '^$' -bench SaveSessionOverhead -benchtime 30x
func BenchmarkSaveSessionOverhead(b *testing.B) {
	site := fixtures(b)
	root := b.TempDir()
	plain, _ := connectClient(b)
	defer plain.Close()
	saved, _ := connectClient(b, "--save-session", root)
	defer saved.Close()
	type side struct {
		fills, clicks []time.Duration
		fill, click   map[string]any
	}
	sides := map[string]*side{"plain": {}, "saved": {}}
	sessions := []struct {
		name string
		s    *side
		call func(string, map[string]any) map[string]any
	}{
		{"plain", sides["plain"], func(tool string, args map[string]any) map[string]any { return mustCall(b, plain, tool, args) }},
		{"saved", sides["saved"], func(tool string, args map[string]any) map[string]any { return mustCall(b, saved, tool, args) }},
	}
	for _, x := range sessions {
		h := x.call("browser_open_tab", map[string]any{"url": site.URL + "/form"})["tab_handle"]
		x.s.fill = map[string]any{"tab_handle": h, "selector": "#email", "text": "ada@example.com"}
		x.s.click = map[string]any{"tab_handle": h, "selector": "input[name=remember]"}
		for range 3 {
			x.call("browser_fill", x.s.fill)
			x.call("browser_click", x.s.click)
		}
	}
	b.ResetTimer()
	for range b.N {
		for _, x := range sessions {
			start := time.Now()
			x.call("browser_fill", x.s.fill)
			mid := time.Now()
			x.call("browser_click", x.s.click)
			x.s.fills = append(x.s.fills, mid.Sub(start))
			x.s.clicks = append(x.s.clicks, time.Since(mid))
		}
	}
	b.StopTimer()
	for _, x := range sessions {
		b.ReportMetric(medianMS(x.s.fills), x.name+"-fill-p50-ms")
		b.ReportMetric(medianMS(x.s.clicks), x.name+"-click-p50-ms")
	}
	calls := 1 + 2*(3+b.N)
	b.ReportMetric(float64(folderBytes(root))/float64(calls), "saved-bytes/call")
	b.ReportMetric(medianMS(shotTimes(b, root)), "saved-shot-p50-ms")
	b.ReportMetric(0, "ns/op")
}

// shotTimes are the screenshot times the recorded calls under root name.
func shotTimes(b *testing.B, root string) []time.Duration {
	dirs, _ := os.ReadDir(root)
	var out []time.Duration
	for _, d := range dirs {
		s, err := session.Load(filepath.Join(root, d.Name()))
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range s.Calls {
			if c.Shot != nil {
				out = append(out, time.Duration(c.Shot.MS*float64(time.Millisecond)))
			}
		}
	}
	return out
}

func folderBytes(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}
