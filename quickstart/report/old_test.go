package report

import (
	"strings"
	"testing"

	qsrun "github.com/tabwright/tabwright/quickstart/run"
)

// Results written before the docs cache, warnings and shards (testdata,
// as that version wrote them) still load, render and compare.
func TestResultsFromBeforeStayReadable(t *testing.T) {
	s, path, err := Load("../../testdata/qs/results-before-docs-cache")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tasks) != 2 || s.Tasks[0].Passes != 2 || s.Tasks[1].EvidentialRuns != 2 || s.Tasks[1].Passes != 0 || s.Shard != nil {
		t.Fatalf("loaded %+v", s.Tasks)
	}
	html := string(HTML(s, Transcripts(path), ""))
	if !strings.Contains(html, "hello-example") || !strings.Contains(html, "missing-step-example") {
		t.Error("HTML lacks the tasks")
	}
	if md := RunMarkdown(s.Tasks[1].Runs[0], ".."); !strings.Contains(md, "**Result: FAIL**") || !strings.Contains(md, "## Where to look first") {
		t.Errorf("report.md:\n%s", md)
	}
	if d := Compare(s, s); len(d.Regressions) != 0 {
		t.Errorf("regressions against itself: %v", d.Regressions)
	}
	if _, err := qsrun.Merge([]*qsrun.Suite{s}); err == nil || !strings.Contains(err.Error(), "qs.merge") {
		t.Errorf("an unsharded document merged: %v", err)
	}
}

func TestWarningsReachTheReports(t *testing.T) {
	r := &qsrun.AttemptResult{Task: "t", Attempt: 1, Agent: "replay", Classification: qsrun.Passed, Passed: true, Evidential: true,
		Warnings: []string{"step 1 timed out (exit 124): sleep 9"}}
	s := qsrun.Summarise([]*qsrun.AttemptResult{r})
	for name, text := range map[string]string{"html": string(HTML(s, nil, "")), "suite.md": Markdown(s, ""), "report.md": RunMarkdown(r, "..")} {
		if !strings.Contains(text, "step 1 timed out (exit 124): sleep 9") {
			t.Errorf("%s lacks the warning", name)
		}
	}
}

// Text from a task, a command or a page is inert in the Markdown reports
// (a GitHub job summary shows them): no live image, no raw HTML, no forged
// line or table cell (issue 44, item 6).
func TestMarkdownReportsAreInert(t *testing.T) {
	evil := "![pixel](https://tracker.example/p.png) <img src=x onerror=alert(1)>|forged cell\n## Result: passed"
	r := &qsrun.AttemptResult{Task: "t" + evil, Attempt: 1, Agent: "replay", Classification: qsrun.DocsGap, Evidential: true,
		StopReason: "replay_command_failed", Detail: evil, Warnings: []string{"step 1 failed: " + evil}, SuspectPage: &evil}
	s := qsrun.Summarise([]*qsrun.AttemptResult{r})
	for name, md := range map[string]string{"suite.md": Markdown(s, ""), "report.md": RunMarkdown(r, "..")} {
		for _, bad := range []string{"![pixel](", "<img", "\n## Result: passed"} {
			if strings.Contains(md, bad) {
				t.Errorf("%s holds %q live:\n%s", name, bad, md)
			}
		}
		if !strings.Contains(md, `!\[pixel\](https://tracker.example/p.png) &lt;img src=x onerror=alert(1)>\|forged cell ## Result: passed`) {
			t.Errorf("%s does not show the text escaped:\n%s", name, md)
		}
	}
}
