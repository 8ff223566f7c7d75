package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	qsrun "github.com/tabwright/tabwright/quickstart/run"
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
	events, err := readTrace(paths[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	fmt.Fprint(stdout, qsrun.Transcript(events, *verbose))
	return exitOK
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
