package main

// The figures of README "Performance" come from these benchmarks
// (make bench). Targets on a 2-core machine: cold start <= 30 ms, spawn to
// first navigation <= 600 ms, warm navigate+observe <= 60 ms, server RSS
// after 100 observations <= 30 MiB.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func connectClient(b *testing.B) (*mcp.ClientSession, *exec.Cmd) {
	cmd := exec.Command(binary, "mcp")
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	sess, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return sess, cmd
}

// BenchmarkColdStart: spawn the server, initialize, and have tools/list answered.
func BenchmarkColdStart(b *testing.B) {
	var total time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		sess, _ := connectClient(b)
		if _, err := sess.ListTools(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		b.StopTimer()
		sess.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/start")
}

// BenchmarkFirstNavigate: spawn the server and open a tab on a page, which
// launches the browser and waits for the load event.
func BenchmarkFirstNavigate(b *testing.B) {
	site := fixtures(b)
	var total time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		sess, _ := connectClient(b)
		mustCall(b, sess, "browser_open_tab", map[string]any{"url": site.URL + "/form"})
		total += time.Since(start)
		b.StopTimer()
		sess.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/first-navigate")
}

// BenchmarkWarmNavigateObserve: one navigation plus one observation of a
// small form page, through MCP, on a running browser.
func BenchmarkWarmNavigateObserve(b *testing.B) {
	site := fixtures(b)
	sess, _ := connectClient(b)
	defer sess.Close()
	h := mustCall(b, sess, "browser_open_tab", map[string]any{"url": site.URL + "/form"})["tab_handle"]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mustCall(b, sess, "browser_navigate", map[string]any{"tab_handle": h, "url": fmt.Sprintf("%s/form?i=%d", site.URL, i)})
		mustCall(b, sess, "browser_observe", map[string]any{"tab_handle": h})
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/nav+observe")
}

// BenchmarkServerRSS: the server's resident memory after 100 observations
// (the server process alone; Chromium's memory is its own).
func BenchmarkServerRSS(b *testing.B) {
	site := fixtures(b)
	for i := 0; i < b.N; i++ {
		sess, cmd := connectClient(b)
		h := mustCall(b, sess, "browser_open_tab", map[string]any{"url": site.URL + "/form"})["tab_handle"]
		for j := 0; j < 100; j++ {
			mustCall(b, sess, "browser_observe", map[string]any{"tab_handle": h})
		}
		rss := rssMiB(b, cmd.Process.Pid)
		sess.Close()
		b.ReportMetric(rss, "MiB-rss")
	}
}

func rssMiB(b *testing.B, pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
