package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabwright/tabwright/quickstart/agent/agenttest"
)

// modelsBuild is tabwright-models built once beside the test binary, as
// `make build` puts it beside bin/tabwright.
var modelsBuild struct {
	once sync.Once
	err  error
}

func modelsBinaryBeside(t testing.TB) string {
	path := filepath.Join(filepath.Dir(binary), modelsBinary)
	modelsBuild.once.Do(func() {
		build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", path, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			modelsBuild.err = fmt.Errorf("building %s: %v\n%s", modelsBinary, err, out)
		}
	})
	if modelsBuild.err != nil {
		t.Fatal(modelsBuild.err)
	}
	return path
}

// linkedSDKs lists the model vendors' modules linked into the binary at
// path, as its build information records them.
func linkedSDKs(t testing.TB, path string) []string {
	out, err := exec.Command("go", "version", "-m", path).Output()
	if err != nil {
		t.Fatalf("go version -m %s: %v", path, err)
	}
	var sdks []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "dep" && (strings.Contains(f[1], "anthropic-sdk-go") || strings.Contains(f[1], "openai-go")) {
			sdks = append(sdks, f[1])
		}
	}
	return sdks
}

// The binary that serves MCP leaves the model SDKs out; tabwright-models
// has them. A model agent's run asked of the lean binary is handed over to
// tabwright-models beside it and runs to its verdict; without that binary
// it is refused with the path it looked at and what to do.
func TestModelAgentsLiveInTheModelsBuild(t *testing.T) {
	if sdks := linkedSDKs(t, binary); len(sdks) > 0 {
		t.Errorf("the shipped binary links %v; `tabwright mcp` would load them for nothing", sdks)
	}
	models := modelsBinaryBeside(t)
	if sdks := linkedSDKs(t, models); len(sdks) != 2 {
		t.Errorf("%s links %v, want both vendor SDKs", modelsBinary, sdks)
	}

	docs := docsServer(t)
	dir := t.TempDir()
	actionTasks(t, dir, docs.URL)
	task := filepath.Join(dir, "tasks", "a.yaml")
	run := func(bin string, fake *agenttest.Server) (int, string) {
		cmd := exec.Command(bin, "qs", "run", task, "--agent", "openai:gpt-test", "--base-url", fake.BaseURL(),
			"--backend", "local", "--allow-unenforced", "--out", filepath.Join(t.TempDir(), "res"))
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}

	fake := agenttest.OpenAI(
		agenttest.Turn{Calls: []agenttest.Call{{Name: "bash", Input: map[string]any{"command": "echo done > done.txt"}}}},
		agenttest.Turn{Text: "Created done.txt."},
	)
	defer fake.Close()
	if code, out := run(binary, fake); code != 0 || !strings.Contains(out, "passed") || len(fake.Requests()) != 2 {
		t.Errorf("handed over to %s: exit %d, %d model calls:\n%s", modelsBinary, code, len(fake.Requests()), out)
	}

	alone := filepath.Join(t.TempDir(), "tabwright")
	copyFile(t, binary, alone)
	unused := agenttest.OpenAI()
	defer unused.Close()
	code, out := run(alone, unused)
	want := "qs.models_missing: --agent openai:gpt-test runs in tabwright-models"
	if code != int(exitUsage) || !strings.Contains(out, want) || !strings.Contains(out, filepath.Join(filepath.Dir(alone), modelsBinary)) || !strings.Contains(out, "make build") {
		t.Errorf("without %s: exit %d, want %d and %q with the path it looked at:\n%s", modelsBinary, code, exitUsage, want, out)
	}
}

func copyFile(t testing.TB, from, to string) {
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// coldStart spawns `bin mcp`, answers initialize and tools/list over
// stdio, closes stdin and waits for the exit: the time to the tools/list
// answer and the process's peak resident memory until then, in KiB. The
// peak is the kernel's VmHWM of the process, not wait4's ru_maxrss: Go
// forks its children sharing its own memory until they exec, so a child's
// ru_maxrss is at least this test binary's.
func coldStart(b testing.TB, bin string) (time.Duration, int64) {
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
	if err != nil || !bytes.Contains(line, []byte(`"tools":[`)) {
		b.Fatalf("tools/list answered %.200s (%v)", line, err)
	}
	peak := peakRSS(b, cmd.Process.Pid)
	stdin.Close()
	io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("%s mcp: %v", bin, err)
	}
	return took, peak
}

// peakRSS is the VmHWM line of /proc/PID/status, in KiB.
func peakRSS(b testing.TB, pid int) int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kib int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kib); err == nil {
				return kib
			}
		}
	}
	b.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// BenchmarkLeanColdStart: the MCP server as shipped (-tags nomodels)
// against the full build with the model SDKs (tabwright-models, what one
// binary was before), cold starts interleaved one for one so both see the
// same machine: median time to tools/list answered, median peak RSS, and
// each binary's size.
func BenchmarkLeanColdStart(b *testing.B) {
	builds := map[string]string{"lean": binary, "full": modelsBinaryBeside(b)}
	took := map[string][]time.Duration{}
	rss := map[string][]int64{}
	for i := 0; i < b.N; i++ {
		for _, name := range []string{"lean", "full"} {
			d, kib := coldStart(b, builds[name])
			took[name] = append(took[name], d)
			rss[name] = append(rss[name], kib)
		}
	}
	for name, bin := range builds {
		st, err := os.Stat(bin)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(medianMS(took[name]), "ms/start-"+name)
		b.ReportMetric(float64(median(rss[name]))/1024, "MiB-peak-rss-"+name)
		b.ReportMetric(float64(st.Size())/1e6, "MB-binary-"+name)
	}
}

func median(v []int64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
