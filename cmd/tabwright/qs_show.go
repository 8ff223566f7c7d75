package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	qsrun "github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// qsShow is `tabwright qs show TRACE [--verbose]`: a run's story.
func qsShow(args []string, stdout, stderr io.Writer) exitCode {
	fs := newFlags("qs show")
	fs.SetOutput(stderr)
	verbose := fs.Bool("verbose", false, "longer text, and the output of commands that succeeded")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(paths) != 1 {
		fmt.Fprintln(stderr, "usage: tabwright qs show TRACE [--verbose]  (a trace.jsonl, or the run directory holding one)")
		return exitUsage
	}
	if traces := tracesUnder(paths[0]); len(traces) > 1 {
		listTraces(stdout, paths[0], traces)
		return exitOK
	} else if len(traces) == 1 {
		paths[0] = traces[0]
	}
	events, err := readTrace(paths[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	fmt.Fprint(stdout, qsrun.Transcript(events, *verbose))
	return exitOK
}

// tracesUnder finds the traces of a results directory (DIR/TASK/ and
// DIR/TASK/attempt-N/, as qs run --out writes them), sorted; none when dir
// is not a directory or holds a trace itself.
func tracesUnder(dir string) []string {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "trace.jsonl")); err == nil {
		return nil
	}
	one, _ := filepath.Glob(filepath.Join(dir, "*", "trace.jsonl"))
	two, _ := filepath.Glob(filepath.Join(dir, "*", "*", "trace.jsonl"))
	all := append(one, two...)
	sort.Strings(all)
	return all
}

// listTraces names each trace of a results directory with how its run
// ended, and the command that shows it.
func listTraces(stdout io.Writer, dir string, traces []string) {
	fmt.Fprintf(stdout, "%s holds %d runs; show one with tabwright qs show RUN-DIR:\n", dir, len(traces))
	for _, tr := range traces {
		ended := "did not finish"
		if events, err := readTrace(tr); err != nil {
			ended = "unreadable: " + err.Error()
		} else if last := events[len(events)-1]; trace.TypeOf(last) == "run_end" {
			ended = fmt.Sprintf("%v (stop reason: %v)", last["classification"], last["stop_reason"])
		}
		fmt.Fprintf(stdout, "  %-40s %s\n", filepath.Dir(tr), ended)
	}
}

// readTrace reads a trace.jsonl (or DIR/trace.jsonl): one JSON object per
// line; blank lines are skipped.
func readTrace(path string) ([]map[string]any, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "trace.jsonl")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("qs.trace_missing: %s: no such file", path)
	}
	var events []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal(line, &ev); err != nil {
			return nil, fmt.Errorf("qs.trace_line: %s: line %d is not a JSON object: %v", path, n, err)
		}
		events = append(events, ev)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("qs.trace_line: %s: %v", path, err)
	}
	if len(events) == 0 {
		return nil, fmt.Errorf("qs.trace_empty: %s: no events", path)
	}
	return events, nil
}
