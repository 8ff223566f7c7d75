package runcmd

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tabwright/tabwright/quickstart/report"
	"github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/task"
)

// writeResults writes the JUnit file and the results directory (suite.md,
// each run's files and report.md, then results.json last, so a
// results.json is never beside a write that failed), when asked; a write
// that failed is said and exits 3.
func writeResults(s *run.Suite, out, junit string, stdout, stderr io.Writer) run.ExitCode {
	if junit != "" {
		if err := run.WriteFileAtomic(junit, report.JUnit(s)); err != nil {
			fmt.Fprintf(stderr, "could not write %s: %v\n", junit, err)
			return run.ExitUsage
		}
	}
	if out == "" {
		return run.ExitOK
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
		return run.ExitUsage
	}
	fmt.Fprintf(stdout, "  results written to %s/\n", strings.TrimRight(out, "/"))
	return run.ExitOK
}

// runExit is qs run's exit code: interrupted (or stopped at the cost cap),
// then an invalid task file, then an empty shard (more shards than tasks,
// not a failure), then the suite's own verdict; it says why when the suite
// stopped at its cost cap (capFlag, the cap's flag as typed) or every task
// was skipped.
func runExit(suite *run.Suite, strict, emptyShard bool, invalid int, capFlag string, stderr io.Writer) run.ExitCode {
	code := suite.Exit(strict)
	if suite.StoppedAtCost {
		fmt.Fprintf(stderr, "stopped at %s $%.2f; $%.4f estimated over %d run(s)\n", capFlag, suite.MaxCostUSD, *suite.Totals.EstimatedCost, suite.Totals.Runs)
	}
	switch {
	case code == run.ExitInterrupted:
		return code
	case invalid > 0:
		return run.ExitUsage
	case emptyShard:
		return run.ExitOK
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

// selectShard narrows tasks to the shard asked for.
func selectShard(tasks []*task.Task, shard string, stdout, stderr io.Writer) ([]*task.Task, *run.ShardInfo, run.ExitCode) {
	if shard == "" {
		return tasks, nil, 0
	}
	i, n, err := run.ParseShard(shard)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, nil, run.ExitUsage
	}
	mine, info := run.SelectShard(tasks, i, n)
	fmt.Fprintf(stdout, "shard %d/%d: %d of %d task(s)\n", i, n, len(mine), len(tasks))
	return mine, info, 0
}

// ciAfter reports the finished suite to GitHub: the step summary (asked
// for) and, inside GitHub Actions, an error annotation per task with a
// documentation gap.
func ciAfter(s *run.Suite, githubSummary bool, stdout, stderr io.Writer) run.ExitCode {
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		annotate(s, stdout)
	}
	if !githubSummary {
		return run.ExitOK
	}
	path := os.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		fmt.Fprintln(stderr, "warning  --github-summary was given but GITHUB_STEP_SUMMARY is not set, so there is nowhere to write it")
		return run.ExitOK
	}
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = io.WriteString(fh, report.Markdown(s, "")+"\n")
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "could not write the GitHub step summary %s: %v\n", path, err)
		return run.ExitUsage
	}
	return run.ExitOK
}

// annotate prints a workflow command per task with a documentation gap:
// the pass rate, the check's last line and the last page read.
func annotate(s *run.Suite, w io.Writer) {
	for _, st := range s.Tasks {
		for _, r := range st.Runs {
			if r.Classification != run.DocsGap || r.SuspectPage == nil {
				continue
			}
			file := r.Source
			if file == "" {
				file = "tasks/" + r.Task + ".yaml"
			}
			why := "the check failed and printed nothing"
			if r.SuccessCheck != nil {
				if l := lastLine(r.SuccessCheck.Output); l != "" {
					why = l
				}
			}
			rate := "no evidence"
			if st.PassRate != nil {
				rate = fmt.Sprintf("%.0f%%", *st.PassRate*100)
			}
			msg := fmt.Sprintf("pass rate %s for %s. %s\nLast documentation page read before failing: %s", rate, r.Task, why, *r.SuspectPage)
			fmt.Fprintf(w, "::error file=%s,title=tabwright qs::%s\n", escapeProperty(file), escapeData(msg))
			break
		}
	}
}

func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n "), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if t := strings.TrimSpace(lines[i]); t != "" {
			return t
		}
	}
	return ""
}
