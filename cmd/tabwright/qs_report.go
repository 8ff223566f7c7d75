package main

// qs report and qs diff: pages and comparisons made from results.

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tabwright/tabwright/quickstart/report"
	qsrun "github.com/tabwright/tabwright/quickstart/run"
)

func qsReport(args []string, stdout, stderr io.Writer) exitCode {
	fs := newFlags("qs report")
	fs.SetOutput(stderr)
	out := fs.String("out", "", "the page to write (default: the results path with .html, or .md with --markdown)")
	md := fs.Bool("markdown", false, "write Markdown instead of HTML")
	merge := fs.Bool("merge", false, "join the results directories of qs run --shard into one (--out DIR)")
	strict := fs.Bool("strict-inconclusive", false, "with --merge: exit 1 instead of 2 when a task produced no evidence")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if *merge && len(paths) > 0 {
		return qsMerge(paths, *out, *strict, stdout, stderr)
	}
	if len(paths) != 1 {
		fmt.Fprintln(stderr, "usage: tabwright qs report RESULTS [--out PATH] [--markdown] | qs report --merge DIR... --out DIR")
		return exitUsage
	}
	s, resultsPath, err := report.Load(paths[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	ext := ".html"
	if *md {
		ext = ".md"
	}
	dest := *out
	if dest == "" {
		base := strings.TrimRight(paths[0], "/")
		dest = strings.TrimSuffix(base, filepath.Ext(base)) + ext
	}
	root := pagesRoot(dest, resultsPath)
	var data []byte
	if *md {
		data = []byte(report.Markdown(s, root))
	} else {
		data = report.HTML(s, report.Transcripts(resultsPath), root)
	}
	if err := qsrun.WriteFileAtomic(dest, data); err != nil {
		fmt.Fprintf(stderr, "could not write %s: %v\n", dest, err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "wrote %s\n", dest)
	return exitOK
}

// pagesRoot is the results directory of resultsPath as a report written at
// dest links to it: relative when it can be, else absolute.
func pagesRoot(dest, resultsPath string) string {
	dir, _ := filepath.Abs(filepath.Dir(resultsPath))
	from, _ := filepath.Abs(filepath.Dir(dest))
	if rel, err := filepath.Rel(from, dir); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(dir)
}

func qsDiff(args []string, stdout, stderr io.Writer) exitCode {
	fs := newFlags("qs diff")
	fs.SetOutput(stderr)
	failOn := fs.Bool("fail-on-regression", false, "exit 1 when a task regressed significantly (p < 0.05)")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(paths) != 2 {
		fmt.Fprintln(stderr, "usage: tabwright qs diff BEFORE AFTER [--fail-on-regression]")
		return exitUsage
	}
	before, _, err := report.Load(paths[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	after, _, err := report.Load(paths[1])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	d := report.Compare(before, after)
	d.Print(stdout)
	if *failOn && len(d.Regressions) > 0 {
		fmt.Fprintf(stderr, "regression: %s\n", strings.Join(d.Regressions, ", "))
		return exitFailed
	}
	return exitOK
}
