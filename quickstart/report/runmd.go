package report

import (
	"fmt"
	"path/filepath"
	"strings"

	qsrun "github.com/tabwright/tabwright/quickstart/run"
)

// RunMarkdown is one run's report.md: the verdict, the facts, why a run is
// not evidence, the pages read (linked to their copies under root, see
// pageHref), the check's output and where to look.
func RunMarkdown(r *qsrun.AttemptResult, root string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# tabwright qs: %s\n\n", mdText(r.Task))
	fmt.Fprintf(&b, "**Result: %s** (`%s`, agent: %s, attempt %d)\n\n", qsrun.Label(r.Classification), r.Classification, mdText(r.Agent), r.Attempt)
	fmt.Fprintf(&b, "- Stop reason: %s\n- Turns: %d\n- Duration: %.1f s\n", mdText(stopText(r)), r.Turns, r.DurationSeconds)
	if r.Enforced {
		fmt.Fprintf(&b, "- Backend: %s (enforced)\n", r.Backend)
	} else {
		fmt.Fprintf(&b, "- Backend: %s (**unenforced**: the egress proxy records, but a command may bypass it)\n", r.Backend)
	}
	if r.ModelReported != "" {
		fmt.Fprintf(&b, "- Model served: %s\n", mdText(r.ModelReported))
	}
	if t := r.Tokens; t.Input+t.Output+t.CacheWrite+t.CacheRead > 0 {
		fmt.Fprintf(&b, "- Tokens: %d in / %d out, cache %d written / %d read\n", t.Input, t.Output, t.CacheWrite, t.CacheRead)
	}
	if len(r.Warnings) > 0 {
		b.WriteString("\n## Warnings\n\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "- %s\n", mdCell(w))
		}
	}
	if !r.Evidential && r.Classification != qsrun.Skipped {
		fmt.Fprintf(&b, "\n## This run is not evidence about the documentation\n\nIt ended as `%s`, which counts toward no pass rate: %s\n", r.Classification, mdText(stopText(r)))
	}
	b.WriteString("\n## Docs pages the agent read\n\n")
	b.WriteString(pagesMarkdown(r, root))
	if r.DocsBypassAttempts > 0 {
		fmt.Fprintf(&b, "\n## Blocked shell access to documentation\n\nThe shell tried to reach a docs host %d time(s); the proxy refused, since pages are read through read_docs.\n", r.DocsBypassAttempts)
	}
	if c := r.SuccessCheck; c != nil {
		out := strings.TrimRight(c.Output, "\n")
		if out == "" {
			out = "(the check printed nothing)"
		}
		fmt.Fprintf(&b, "\n## Success check\n\nExited %d.\n\n```\n%s\n```\n", c.ExitCode, strings.ReplaceAll(out, "```", "`\u200b``"))
	}
	if r.Classification == qsrun.DocsGap && r.SuspectPage != nil {
		fmt.Fprintf(&b, "\n## Where to look first\n\nThe last page read before the failure: %s\n", mdText(*r.SuspectPage))
	}
	return b.String()
}

// WriteMarkdown writes suite.md in dir and each run's report.md in its run
// directory, atomically.
func WriteMarkdown(dir string, s *qsrun.Suite) error {
	for _, st := range s.Tasks {
		for _, r := range st.Runs {
			runDir := s.RunDir(dir, r)
			root, err := filepath.Rel(runDir, dir)
			if err != nil {
				return err
			}
			if err := qsrun.WriteFileAtomic(filepath.Join(runDir, "report.md"), []byte(RunMarkdown(r, filepath.ToSlash(root)))); err != nil {
				return err
			}
		}
	}
	return qsrun.WriteFileAtomic(filepath.Join(dir, "suite.md"), []byte(Markdown(s, "")))
}
