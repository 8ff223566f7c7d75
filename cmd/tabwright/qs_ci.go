package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tabwright/tabwright/quickstart/report"
	qsrun "github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/task"
)

// ciFlags are qs run's flags for running in CI: a shard of the suite, and
// GitHub's step summary.
type ciFlags struct {
	shard         string
	githubSummary bool
}

func addCIFlags(fs *flag.FlagSet) *ciFlags {
	f := &ciFlags{}
	fs.StringVar(&f.shard, "shard", "", "run shard I of N (I/N) of the tasks, for a CI matrix; join the results with qs report --merge")
	fs.BoolVar(&f.githubSummary, "github-summary", false, "append the suite's Markdown to $GITHUB_STEP_SUMMARY")
	return f
}

// selectShard narrows tasks to the shard asked for.
func (f *ciFlags) selectShard(tasks []*task.Task, stdout, stderr io.Writer) ([]*task.Task, *qsrun.ShardInfo, exitCode) {
	if f.shard == "" {
		return tasks, nil, 0
	}
	i, n, err := qsrun.ParseShard(f.shard)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, nil, exitUsage
	}
	mine, info := qsrun.SelectShard(tasks, i, n)
	fmt.Fprintf(stdout, "shard %d/%d: %d of %d task(s)\n", i, n, len(mine), len(tasks))
	return mine, info, 0
}

// after reports the finished suite to GitHub: the step summary (asked
// for) and, inside GitHub Actions, an error annotation per task with a
// documentation gap.
func (f *ciFlags) after(s *qsrun.Suite, stdout, stderr io.Writer) exitCode {
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		annotate(s, stdout)
	}
	if !f.githubSummary {
		return exitOK
	}
	path := os.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		fmt.Fprintln(stderr, "warning  --github-summary was given but GITHUB_STEP_SUMMARY is not set, so there is nowhere to write it")
		return exitOK
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
		return exitUsage
	}
	return exitOK
}

// annotate prints a workflow command per task with a documentation gap:
// the pass rate, the check's last line and the last page read.
func annotate(s *qsrun.Suite, w io.Writer) {
	for _, st := range s.Tasks {
		for _, r := range st.Runs {
			if r.Classification != qsrun.DocsGap || r.SuspectPage == nil {
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

// qsSchema prints the task file's JSON Schema.
func qsSchema(stdout, stderr io.Writer) exitCode {
	b, err := task.OwnSchema()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailed
	}
	stdout.Write(append(b, '\n'))
	return exitOK
}

// qsMerge is qs report --merge DIR...: the shards' results joined into one
// results directory (results.json, suite.md, every run's files), as an
// unsharded run would have written it. It exits with the merged suite's
// code, so a CI job can fail on the whole suite.
func qsMerge(dirs []string, out string, strict bool, stdout, stderr io.Writer) exitCode {
	if out == "" {
		fmt.Fprintln(stderr, "qs.merge: qs report --merge needs --out DIR, the directory the merged results are written to")
		return exitUsage
	}
	var shards []*qsrun.Suite
	for _, d := range dirs {
		s, _, err := report.Load(d)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
		shards = append(shards, s)
	}
	merged, err := qsrun.Merge(shards)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	for _, d := range dirs {
		if err := copyRunFiles(resultsDir(d), out); err != nil {
			fmt.Fprintf(stderr, "could not copy the run files of %s: %v\n", d, err)
			return exitUsage
		}
	}
	merged.ExitCode = merged.Exit(strict)
	b, _ := json.MarshalIndent(merged, "", "  ")
	if err := qsrun.WriteFileAtomic(filepath.Join(out, "results.json"), append(b, '\n')); err != nil {
		fmt.Fprintf(stderr, "could not write results: %v\n", err)
		return exitUsage
	}
	if err := qsrun.WriteFileAtomic(filepath.Join(out, "suite.md"), []byte(report.Markdown(merged, ""))); err != nil {
		fmt.Fprintf(stderr, "could not write results: %v\n", err)
		return exitUsage
	}
	qsrun.PrintSummary(stdout, merged, len(merged.Tasks))
	fmt.Fprintf(stdout, "  %d shard(s) merged into %s/\n", len(shards), strings.TrimRight(out, "/"))
	return merged.ExitCode
}

func resultsDir(p string) string {
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return filepath.Dir(p)
	}
	return p
}

// copyRunFiles copies a shard's per-run directories (everything but its
// results.json and suite.md) into out.
func copyRunFiles(from, out string) error {
	return filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() || filepath.Dir(rel) == "." {
			return nil // the shard's own top-level files are replaced by the merge's
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return qsrun.WriteFileAtomic(filepath.Join(out, rel), data)
	})
}
