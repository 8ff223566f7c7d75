package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkQSFirstDocsRead runs `tabwright qs run` as a user does, one
// process per op (its own browser), with the docs on loopback and the
// replay agent, and reads the times from the run's trace:
//
//   - run-start-to-read-ms/op: from the attempt's run_start to its first
//     docs_read, what the harness spends before the agent has read
//     anything (issue 23's 0.2 s);
//   - process-to-read-ms/op: from the exec to that docs_read, the browser's
//     start included (it starts with the process, beside the task's load
//     and the sandbox's setup).
//
// Medians over the ops.
func BenchmarkQSFirstDocsRead(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><article><h1>Quickstart</h1><p>Write done.txt with echo. That is the whole of it, and it is enough.</p></article></body></html>")
	}))
	defer srv.Close()
	dir := b.TempDir()
	taskPath := filepath.Join(dir, "first-read.yaml")
	task := fmt.Sprintf("name: first-read\ngoal: g\ndocs:\n  path: [%s/docs/]\nreplay: ['echo done > done.txt']\nsuccess:\n  script: test -f done.txt\n", srv.URL)
	if err := os.WriteFile(taskPath, []byte(task), 0o644); err != nil {
		b.Fatal(err)
	}
	var fromStart, fromExec []time.Duration
	for i := 0; i < b.N; i++ {
		out := filepath.Join(dir, fmt.Sprint("res", i))
		execAt := time.Now()
		if o, err := exec.Command(binary, "qs", "run", taskPath, "--out", out).CombinedOutput(); err != nil {
			b.Fatalf("qs run: %v\n%s", err, o)
		}
		start, read := traceTimes(b, filepath.Join(out, "first-read", "trace.jsonl"))
		fromStart = append(fromStart, read.Sub(start))
		fromExec = append(fromExec, read.Sub(execAt))
	}
	b.ReportMetric(medianMS(fromStart), "run-start-to-read-ms/op")
	b.ReportMetric(medianMS(fromExec), "process-to-read-ms/op")
}

// traceTimes are the times of a trace's run_start and first docs_read.
func traceTimes(b *testing.B, path string) (start, read time.Time) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Type string  `json:"type"`
			TS   float64 `json:"ts"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			b.Fatal(err)
		}
		at := time.UnixMicro(int64(ev.TS * 1e6))
		switch {
		case ev.Type == "run_start" && start.IsZero():
			start = at
		case ev.Type == "docs_read" && read.IsZero():
			read = at
		}
	}
	if start.IsZero() || read.IsZero() {
		b.Fatalf("%s has no run_start or no docs_read", path)
	}
	return start, read
}
