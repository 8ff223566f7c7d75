package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	qsrun "github.com/tabwright/tabwright/quickstart/run"
)

func TestQSFisherMatchesR(t *testing.T) {
	for _, c := range []struct {
		a, b, c, d int
		want, tol  float64
	}{
		{3, 1, 1, 3, 0.4857, 1e-4},
		{1, 9, 11, 3, 0.0027, 1e-4},
		{5, 0, 0, 5, 0.0079, 1e-4},
		{2, 3, 3, 2, 1.0, 0},
		{10, 0, 0, 10, 1.083e-5, 1e-8},
		{2, 8, 8, 2, 0.023, 1e-3},
		{0, 0, 3, 2, 1.0, 0}, // an empty margin
	} {
		if got := Fisher(c.a, c.b, c.c, c.d); math.Abs(got-c.want) > c.tol {
			t.Errorf("Fisher(%d,%d,%d,%d) = %.6g, want %.6g", c.a, c.b, c.c, c.d, got, c.want)
		}
	}
	for n := 1; n <= 6; n++ {
		if got := SmallestReachable(n, n) < 0.05; got != (n >= 4) {
			t.Errorf("SmallestReachable(%d, %d) = %.4f", n, n, SmallestReachable(n, n))
		}
	}
}

func stat(task string, passes, gaps int, extra ...qsrun.Classification) *qsrun.Stat {
	st := &qsrun.Stat{Task: task, Agent: "replay", Discarded: map[string]int{}, SuspectPages: map[string]int{}, ModelsReported: []string{}}
	add := func(cls qsrun.Classification) {
		st.Attempts++
		r := &qsrun.AttemptResult{Task: task, Attempt: st.Attempts, Agent: "replay", Classification: cls, StopReason: "completed", Passed: cls == qsrun.Passed, Evidential: qsrun.Evidential(cls)}
		switch cls {
		case qsrun.DocsGap:
			page := "https://a/" + task
			r.SuspectPage = &page
			r.DocsPagesRead = []string{page}
			r.SuccessCheck = &qsrun.SuccessCheckResult{ExitCode: 1, Output: "check failed: <b>no app.py</b>\n"}
			r.LastFailure = &qsrun.FailedCommand{Command: "node app.js", ExitCode: 1, Output: "Error: Cannot find package 'commander'\n```\n# forged heading\n"}
			st.SuspectPages[page]++
		case qsrun.Passed:
			r.SuccessCheck = &qsrun.SuccessCheckResult{}
		case qsrun.Skipped:
			st.Skipped++
		default:
			r.Detail = "API error 429: rate limit"
			st.Discarded[string(cls)]++
		}
		st.Runs = append(st.Runs, r)
	}
	for i := 0; i < passes; i++ {
		add(qsrun.Passed)
	}
	for i := 0; i < gaps; i++ {
		add(qsrun.DocsGap)
	}
	for _, cls := range extra {
		add(cls)
	}
	st.Passes, st.EvidentialRuns = passes, passes+gaps
	if st.EvidentialRuns > 0 {
		r := float64(passes) / float64(st.EvidentialRuns)
		st.PassRate = &r
	}
	return st
}

func suite(stats ...*qsrun.Stat) *qsrun.Suite {
	return &qsrun.Suite{SchemaVersion: "2.0", Repeat: 1, Tasks: stats, Environment: qsrun.Env{Backend: "local"}, GeneratedAt: "2026-01-01T00:00:00Z"}
}

func TestQSCompare(t *testing.T) {
	before := suite(stat("noise", 3, 2), stat("crash", 10, 0), stat("few", 1, 2), stat("gone", 1, 0), stat("models", 2, 0))
	after := suite(stat("noise", 4, 1), stat("crash", 0, 10), stat("few", 3, 0), stat("new", 1, 0), stat("models", 2, 0))
	before.Tasks[4].ModelsReported = []string{"m1"}
	after.Tasks[4].ModelsReported = []string{"m2"}
	d := Compare(before, after)
	by := map[string]*TaskDiff{}
	for _, td := range d.Tasks {
		by[td.Task] = td
	}
	if v := by["noise"]; v.Direction != "improved" || v.Significant || !strings.HasPrefix(v.Verdict, "inside the noise") {
		t.Errorf("noise: %+v", v)
	}
	if v := by["crash"]; !v.Significant || !strings.HasPrefix(v.Verdict, "regressed, p=0.000") {
		t.Errorf("crash: %+v", v)
	}
	if v := by["few"]; !v.Underpowered || !strings.Contains(v.Verdict, "could have cleared") {
		t.Errorf("few: %+v", v)
	}
	if v := by["models"]; v.Comparable || v.Significant || !strings.Contains(v.Verdict, "different model") {
		t.Errorf("models: %+v", v)
	}
	if strings.Join(d.Regressions, ",") != "crash" || strings.Join(d.Added, ",") != "new" || strings.Join(d.Removed, ",") != "gone" {
		t.Errorf("regressions %v added %v removed %v", d.Regressions, d.Added, d.Removed)
	}
	var out bytes.Buffer
	d.Print(&out)
	for _, want := range []string{"  noise\n      3/5 (60%)  ->  4/5 (80%)\n      inside the noise", "newly failing after: https://a/crash",
		"no longer failing after: https://a/few", "new: new, no earlier run to compare", "gone: gone, present only in the earlier run"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
}

func TestQSJUnit(t *testing.T) {
	s := suite(stat("t", 1, 1, qsrun.InfraError, qsrun.Skipped))
	b := JUnit(s)
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Type    string `xml:"type,attr"`
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 4 || doc.Failures != 1 || doc.Errors != 1 || doc.Skipped != 1 {
		t.Errorf("%+v\n%s", doc, b)
	}
	f := doc.Suites[0].Cases[1].Failure
	if f == nil || f.Type != "docs_gap" || f.Message != "success check exit 1" || !strings.Contains(f.Text, "last docs page read: https://a/t") || !strings.Contains(f.Text, "<b>no app.py</b>") {
		t.Errorf("failure: %+v", f)
	}
}

func TestQSReportPages(t *testing.T) {
	s := suite(stat("<script>alert(1)</script>", 1, 1), stat("all-good", 2, 0), stat("nothing", 0, 0, qsrun.BudgetExhausted))
	page := string(HTML(s, map[string]string{"all-good": "[   0.0s] all-good on local\n<img src=x>"}, ""))
	for _, bad := range []*regexp.Regexp{regexp.MustCompile(`<script`), regexp.MustCompile(`(?i)<link\b`), regexp.MustCompile(`(?i)<[^>]*\bsrc=`), regexp.MustCompile(`@import`)} {
		if bad.MatchString(page) {
			t.Errorf("the page must be self-contained and escaped: %s found", bad)
		}
	}
	for _, want := range []string{"<svg", "<style>", "&lt;script&gt;alert(1)&lt;/script&gt;", "50%", "100%", "no evidence", `class="bar-none"`,
		"&lt;b&gt;no app.py&lt;/b&gt;", "https://a/", "Transcripts", "&lt;img src=x&gt;", "budget_exhausted=1"} {
		if !strings.Contains(page, want) {
			t.Errorf("missing %q", want)
		}
	}
	md := Markdown(s, "")
	for _, want := range []string{"| all-good | replay | 100% | 2/2 | none |", "| nothing | replay | no evidence | 0/0 | budget_exhausted=1 |", "- Last docs page read: https://a/", "check failed: <b>no app.py</b>",
		"- The last command that failed exited 1:\n\n```\n$ node app.js\nError: Cannot find package 'commander'\n`\u200b``\n# forged heading\n```"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown missing %q:\n%s", want, md)
		}
	}
}

func TestQSLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, v any) string {
		p := filepath.Join(dir, name)
		b, _ := json.Marshal(v)
		os.WriteFile(p, b, 0o644)
		return p
	}
	if _, _, err := Load(filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("%v", err)
	}
	if _, _, err := Load(write("old.json", map[string]any{"schema_version": "1.0", "tasks": []any{}})); err == nil || !strings.Contains(err.Error(), "results schema 1.0 cannot be read") {
		t.Errorf("%v", err)
	}
	if _, _, err := Load(write("other.json", map[string]any{"name": "x"})); err == nil || !strings.Contains(err.Error(), "not a results document") {
		t.Errorf("%v", err)
	}
	os.WriteFile(filepath.Join(dir, "results.json"), []byte("{"), 0o644)
	if _, _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("%v", err)
	}
	s, _, err := Load(write("results.json", suite(stat("t", 1, 0))))
	if err != nil || s.Tasks[0].Passes != 1 {
		t.Errorf("%v", err)
	}
}

func TestQSReportTokensAndCost(t *testing.T) {
	s := suite(stat("priced", 1, 0))
	if strings.Contains(string(HTML(s, nil, "")), "Tokens and cost") || strings.Contains(Markdown(s, ""), "Tokens and cost") {
		t.Errorf("a replay-only suite has no tokens table")
	}
	c := 0.0123
	s.Tasks[0].Tokens = qsrun.Tokens{Input: 10, Output: 20, CacheWrite: 30, CacheRead: 40}
	s.Tasks[0].EstimatedCost, s.Tasks[0].ModelsReported = &c, []string{"m-1"}
	s.Totals.Tokens, s.Totals.EstimatedCost, s.Totals.UnpricedModels = s.Tasks[0].Tokens, &c, []string{"other-model"}
	page, md := string(HTML(s, nil, "")), Markdown(s, "")
	for _, want := range []string{"Tokens and cost", "10 in / 20 out, cache 30 written / 40 read", "$0.0123", "m-1", "No price for other-model"} {
		if !strings.Contains(page, want) || !strings.Contains(md, want) {
			t.Errorf("missing %q", want)
		}
	}
	if !strings.Contains(page, "estimated $0.0123") {
		t.Errorf("meta line lacks the cost")
	}
}
