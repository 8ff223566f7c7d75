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
