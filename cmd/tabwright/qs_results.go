package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tabwright/tabwright/quickstart/report"
	qsrun "github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/task"
)

// progressPrinter prints the progress lines as events happen, each
// prefixed by task#attempt when several run. A task's image warning is
// printed at its first attempt's start, not again at each attempt's.
func progressPrinter(stdout io.Writer, multi, verbose bool) func(*task.Task, int, map[string]any, time.Duration) {
	var mu sync.Mutex
	warned := map[string]bool{}
	return func(t *task.Task, attempt int, ev map[string]any, el time.Duration) {
		where := ""
		if multi {
			where = fmt.Sprintf("%s#%d ", t.Name, attempt)
		}
		if ev["type"] == qsrun.ImageCheckEvent {
			w := qsrun.ImageWarning(ev)
			mu.Lock()
			first := !warned[t.Name+"\x00"+w]
			warned[t.Name+"\x00"+w] = true
			mu.Unlock()
			if w != "" && first {
				fmt.Fprintf(stdout, "  [%4.0fs] %swarning  %s\n", el.Seconds(), where, w)
			}
			return
		}
		if line := progressLine(ev, verbose); line != "" {
			fmt.Fprintf(stdout, "  [%4.0fs] %s%s\n", el.Seconds(), where, line)
		}
	}
}

// writeResults writes the JUnit file and the results directory (suite.md,
// each run's files and report.md, then results.json last, so a
// results.json is never beside a write that failed), when asked; a write
// that failed is said and exits 3.
func writeResults(s *qsrun.Suite, out, junit string, stdout, stderr io.Writer) exitCode {
	if junit != "" {
		if err := qsrun.WriteFileAtomic(junit, report.JUnit(s)); err != nil {
			fmt.Fprintf(stderr, "could not write %s: %v\n", junit, err)
			return exitUsage
		}
	}
	if out == "" {
		return exitOK
	}
	err := os.MkdirAll(out, 0o755)
	if err == nil {
		err = report.WriteMarkdown(out, s)
	}
	if err == nil {
		err = s.WriteFiles(out)
	}
	if err != nil {
		fmt.Fprintf(stderr, "could not write results: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "  results written to %s/\n", strings.TrimRight(out, "/"))
	return exitOK
}

// runExit is qs run's exit code: interrupted (or stopped at the cost cap),
// then an invalid task file, then an empty shard (more shards than tasks,
// not a failure), then the suite's own verdict; it says why when the suite
// stopped at its cost cap (capFlag, the cap's flag as typed) or every task
// was skipped.
func runExit(suite *qsrun.Suite, strict, emptyShard bool, invalid int, capFlag string, stderr io.Writer) exitCode {
	code := suite.Exit(strict)
	if suite.StoppedAtCost {
		fmt.Fprintf(stderr, "stopped at %s $%.2f; $%.4f estimated over %d run(s)\n", capFlag, suite.MaxCostUSD, *suite.Totals.EstimatedCost, suite.Totals.Runs)
	}
	switch {
	case code == exitInterrupt:
		return code
	case invalid > 0:
		return exitUsage
	case emptyShard:
		return exitOK
	}
	allSkipped := true
	for _, st := range suite.Tasks {
		allSkipped = allSkipped && st.Skipped == st.Attempts
	}
	if allSkipped && len(suite.Tasks) > 0 {
		fmt.Fprintln(stderr, "nothing ran: every task was skipped. Agent-only tasks have no `replay` commands; use a model agent (--agent claude), or add them.")
	}
	return code
}

// suggestFlag follows the flag package's "flag provided but not defined"
// with the nearest flag the command has, when there is one.
func suggestFlag(fs *flag.FlagSet, err error) {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if n := task.Nearest(strings.TrimPrefix(name, "-"), names); n != "" {
		fmt.Fprintf(fs.Output(), "did you mean --%s?\n", n)
	}
}
