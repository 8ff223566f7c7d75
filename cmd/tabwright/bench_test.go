package main

// The figures of README "Performance" come from these benchmarks
// (make bench). Targets on a 2-core machine: cold start <= 30 ms, spawn to
// first navigation <= 600 ms (issue 24: 400; issue 41: with the browser
// started at that first call, the default on stdio), warm navigate+observe
// <= 60 ms (issue 24: 30), server RSS after 100 observations <= 30 MiB.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func connectClient(b *testing.B, flags ...string) (*mcp.ClientSession, *exec.Cmd) {
	cmd := exec.Command(binary, append([]string{"mcp"}, flags...)...)
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	sess, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return sess, cmd
}

// BenchmarkColdStart: spawn the server, initialize, and have tools/list
// answered. The client is raw JSON-RPC on the pipes, so the figure is the
// server's: a full SDK client adds its own decoding of the 100 KB listing
// (reported apart as ms/start-sdk-client).
func BenchmarkColdStart(b *testing.B) {
	var raw, sdk []time.Duration
	for i := 0; i < b.N; i++ {
		raw = append(raw, coldStart(b, binary).took)
		b.StopTimer()
		start := time.Now()
		sess, _ := connectClient(b)
		if _, err := sess.ListTools(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		sdk = append(sdk, time.Since(start))
		sess.Close()
		b.StartTimer()
	}
	b.ReportMetric(medianMS(raw), "ms/start")
	b.ReportMetric(medianMS(sdk), "ms/start-sdk-client")
}

// started is what one cold start of `tabwright mcp` cost.
type started struct {
	took    time.Duration // spawn to the tools/list answer
	cpu     time.Duration // the process's user and system time, start to exit
	peakMiB float64       // peak resident memory until the answer
}

// coldStart spawns `bin mcp`, answers initialize and tools/list over
// stdio, closes stdin and waits for the exit. The peak memory is VmHWM,
// what `/usr/bin/time -f %M` says; not wait4's ru_maxrss, which for a
// child Go forked sharing its memory until the exec is at least the test
// binary's.
func coldStart(b *testing.B, bin string) started {
	const (
		initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
		listTools  = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	)
	start := time.Now()
	cmd := exec.Command(bin, "mcp")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	r := bufio.NewReaderSize(stdout, 1<<20)
	fmt.Fprintln(stdin, initialize)
	if _, err := r.ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	fmt.Fprintln(stdin, listTools)
	line, err := r.ReadBytes('\n')
	took := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	var answer struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &answer); err != nil || len(answer.Result.Tools) < 10 { // the default profile (mcpserver/profiles.go)
		b.Fatalf("tools/list answered %.200s (%v)", line, err)
	}
	s := started{took: took, peakMiB: statusMiB(b, cmd.Process.Pid, "VmHWM:")}
	stdin.Close()
	io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("%s mcp: %v", bin, err)
	}
	s.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return s
}

// medianMS is the median of ds in milliseconds: one slow spawn on a shared
// machine moves a mean far more than the typical start.
func medianMS(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}

// BenchmarkFirstNavigate: spawn the server and open a tab on a page, which
// waits for the browser to start and for the load event: the default
// stdio server, which starts the browser at that first call ("lazy"),
// and one started with --warm-browser, which starts it with the server
// ("warm"), interleaved one for one so both see the same machine. Also
// the CPU time the server and its browser processes spent until then
// (less moved by a busy machine than the wall clock). Medians.
func BenchmarkFirstNavigate(b *testing.B) {
	site := fixtures(b)
	modes := []struct{ name, flag string }{{"lazy", ""}, {"warm", "--warm-browser"}}
	walls, cpus := map[string][]time.Duration{}, map[string][]time.Duration{}
	for i := 0; i < b.N; i++ {
		for _, m := range modes {
			var flags []string
			if m.flag != "" {
				flags = append(flags, m.flag)
			}
			start := time.Now()
			sess, cmd := connectClient(b, flags...)
			mustCall(b, sess, "browser_open_tab", map[string]any{"url": site.URL + "/form"})
			walls[m.name] = append(walls[m.name], time.Since(start))
			b.StopTimer()
			cpus[m.name] = append(cpus[m.name], treeCPU(b, cmd.Process.Pid))
			sess.Close()
			b.StartTimer()
		}
	}
	for _, m := range modes {
		b.ReportMetric(medianMS(walls[m.name]), "ms/first-navigate-"+m.name)
		b.ReportMetric(medianMS(cpus[m.name]), "ms-cpu/first-navigate-"+m.name)
	}
}

// treeCPU is the user and system time of process root and every process
// under it (what they reaped included), from /proc in clock ticks.
func treeCPU(b *testing.B, root int) time.Duration {
	const tick = 10 * time.Millisecond // USER_HZ on Linux
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		b.Fatal(err)
	}
	children, ticks := map[int][]int{}, map[int]int{}
	for _, dir := range dirs {
		stat, err := os.ReadFile(dir + "/stat")
		if err != nil {
			continue // ended meanwhile
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // after the command name, which may hold spaces
		pid, _ := strconv.Atoi(filepath.Base(dir))
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], pid)
		for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime
			n, _ := strconv.Atoi(f[i])
			ticks[pid] += n
		}
	}
	var sum int
	var walk func(int)
	walk = func(pid int) {
		sum += ticks[pid]
		for _, c := range children[pid] {
			walk(c)
		}
	}
	walk(root)
	return time.Duration(sum) * tick
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
// (the server process alone; Chromium's memory is its own), in all and as
// its own anonymous memory. The rest is clean pages of the binary mapped
// from the page cache, shared and reclaimable: it grows with the binary's
// code (the model SDKs' among it) more than with anything the server does.
func BenchmarkServerRSS(b *testing.B) {
	site := fixtures(b)
	for i := 0; i < b.N; i++ {
		sess, cmd := connectClient(b)
		h := mustCall(b, sess, "browser_open_tab", map[string]any{"url": site.URL + "/form"})["tab_handle"]
		for j := 0; j < 100; j++ {
			mustCall(b, sess, "browser_observe", map[string]any{"tab_handle": h})
		}
		rss, anon := statusMiB(b, cmd.Process.Pid, "VmRSS:"), statusMiB(b, cmd.Process.Pid, "RssAnon:")
		sess.Close()
		b.ReportMetric(rss, "MiB-rss")
		b.ReportMetric(anon, "MiB-anon")
	}
}

// statusMiB reads one kB figure of /proc/PID/status, in MiB.
func statusMiB(b *testing.B, pid int, field string) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return float64(kb) / 1024
		}
	}
	b.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
