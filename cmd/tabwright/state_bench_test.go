package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// longArticle is a page some 14,000 CSS px tall.
func longArticle() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Long article</title><style>body{max-width:720px;margin:2em auto;font:18px/1.6 serif}</style><article><h1>A long article</h1>`)
	for i := 0; i < 80; i++ {
		fmt.Fprintf(&b, "<h2>Section %d</h2><p>%s</p>", i+1, strings.Repeat("The quick brown fox jumps over the lazy dog while the docs explain each step. ", 6))
	}
	b.WriteString("</article>")
	return b.String()
}

// BenchmarkScreenshot: browser_screenshot over MCP on a warm tab, median
// of 20 calls each: the viewport (PNG), the full page of a long article
// (PNG, and JPEG at quality 80), scaled to the vision bounds. Reports
// milliseconds and image bytes.
//
//	go test ./cmd/tabwright -run '^$' -bench Screenshot -benchtime 1x
func BenchmarkScreenshot(b *testing.B) {
	page := longArticle()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, page) }))
	defer site.Close()
	s := startServer(b)
	h := openOn(b, s.sess, site.URL+"/")
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"viewport", map[string]any{}},
		{"fullpage", map[string]any{"full_page": true}},
		{"fullpage-jpeg", map[string]any{"full_page": true, "format": "jpeg"}},
	} {
		c.args["tab_handle"] = h
		var times []time.Duration
		var bytes int
		for i := 0; i < b.N*20; i++ {
			start := time.Now()
			res, out := callFull(b, s.sess, "browser_screenshot", c.args)
			times = append(times, time.Since(start))
			imageOf(b, res)
			bytes = int(out["bytes"].(float64))
		}
		b.ReportMetric(medianMS(times), "ms/"+c.name)
		b.ReportMetric(float64(bytes), "bytes/"+c.name)
	}
}

// BenchmarkLogsRead: a page logs 998 console messages (1,000 entries with
// its navigation and request); browser_logs
// reads them in one call (limit 1000). Reports the median time of 20 reads
// and the characters of the structured and text forms, per 1,000 entries.
func BenchmarkLogsRead(b *testing.B) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Logs</title><script>for (let i = 0; i < 998; i++) console.log("message number " + i, {i});</script>`)
	}))
	defer site.Close()
	s := startServer(b)
	h := openOn(b, s.sess, site.URL+"/")
	args := map[string]any{"tab_handle": h, "limit": 1000} // 998 messages, the navigation, the page's request
	waitFor(b, "the log entries", 15*time.Second, func() bool {
		_, out := callFull(b, s.sess, "browser_logs", args)
		return len(out["entries"].([]any)) == 1000
	})
	var times []time.Duration
	var structured, text int
	for i := 0; i < b.N*20; i++ {
		start := time.Now()
		res, _ := callFull(b, s.sess, "browser_logs", args)
		times = append(times, time.Since(start))
		raw, _ := json.Marshal(res.StructuredContent)
		structured, text = len(raw), len(res.Content[0].(*mcp.TextContent).Text)
	}
	b.ReportMetric(medianMS(times), "ms/1000-entries")
	b.ReportMetric(float64(structured), "json-chars/1000-entries")
	b.ReportMetric(float64(text), "text-chars/1000-entries")
}
