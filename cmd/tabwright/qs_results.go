package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tabwright/tabwright/quickstart/report"
	qsrun "github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/task"
)

// progressPrinter prints the progress lines as events happen, each
// prefixed by task#attempt when several run.
func progressPrinter(stdout io.Writer, multi, verbose bool) func(*task.Task, int, map[string]any, time.Duration) {
	return func(t *task.Task, attempt int, ev map[string]any, el time.Duration) {
		where := ""
		if multi {
			where = fmt.Sprintf("%s#%d ", t.Name, attempt)
		}
		if line := progressLine(ev, verbose); line != "" {
			fmt.Fprintf(stdout, "  [%4.0fs] %s%s\n", el.Seconds(), where, line)
		}
	}
}

// writeResults writes the results directory (results.json, suite.md, each
// run's files and report.md) and the JUnit file, when asked; a write that
// failed is said and exits 3.
func writeResults(s *qsrun.Suite, out, junit string, stdout, stderr io.Writer) int {
	if out != "" {
		err := os.MkdirAll(out, 0o755)
		if err == nil {
			err = s.WriteFiles(out)
		}
		if err == nil {
			err = report.WriteMarkdown(out, s)
		}
		if err != nil {
			fmt.Fprintf(stderr, "could not write results: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "  results written to %s/\n", strings.TrimRight(out, "/"))
	}
	if junit != "" {
		if err := qsrun.WriteFileAtomic(junit, report.JUnit(s)); err != nil {
			fmt.Fprintf(stderr, "could not write %s: %v\n", junit, err)
			return exitUsage
		}
	}
	return 0
}

// runExit is qs run's exit code once the results are written: interrupted,
// then an invalid task file, then the suite's own code; it says why when
// the suite stopped at its cost cap or every task was skipped.
func runExit(suite *qsrun.Suite, code, invalid int, stderr io.Writer) int {
	if suite.StoppedAtCost {
		fmt.Fprintf(stderr, "stopped at --max-cost-usd $%.2f; $%.4f estimated over %d run(s)\n", suite.MaxCostUSD, *suite.Totals.EstimatedCost, suite.Totals.Runs)
	}
	if code == 130 {
		return 130
	}
	if invalid > 0 {
		return 3
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
