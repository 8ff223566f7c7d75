package report

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"sort"
	"strings"

	qsrun "github.com/tabwright/tabwright/quickstart/run"
)

// rateText is a pass rate as a percentage, "no evidence", or "skipped".
func rateText(st *qsrun.Stat) string {
	switch {
	case st.PassRate != nil:
		return fmt.Sprintf("%.0f%%", *st.PassRate*100)
	case st.Skipped == st.Attempts && st.Attempts > 0:
		return "skipped"
	}
	return "no evidence"
}

func discardedText(m map[string]int, none string) string {
	if len(m) == 0 {
		return none
	}
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// mdText makes text from a task, a command, a page or a model inert in
// Markdown: a failing command's output in a GitHub job summary could
// otherwise show a live image (a tracking pixel), raw HTML, or forge report
// lines. Brackets are escaped (no link or image can open), < becomes an
// entity (no tag, no autolink), | is escaped (no table cell ends), a
// backslash is doubled (none can undo those) and a line break becomes a
// space (no line of its own).
var mdEscaper = strings.NewReplacer("\\", "\\\\", "[", "\\[", "]", "\\]", "<", "&lt;", "|", "\\|",
	"\r\n", " ", "\n", " ", "\r", " ")

func mdText(s string) string { return mdEscaper.Replace(s) }

// mdCell is mdText for a table cell.
func mdCell(s string) string { return mdText(s) }

// Markdown renders the suite as Markdown: the facts, the pass-rate table,
// where each documentation gap happened, and the pages each run read,
// linked to their copies under root (see pageHref).
func Markdown(s *qsrun.Suite, root string) string {
	var b strings.Builder
	b.WriteString("# tabwright qs results\n\n")
	fmt.Fprintf(&b, "- Tasks: %d\n- Attempts per task: %d\n- Backend: %s (%s)\n- Duration: %.1fs\n- Generated: %s\n",
		len(s.Tasks), s.Repeat, s.Environment.Backend, enforcedText(s.Environment.Enforced), s.DurationSeconds, s.GeneratedAt)
	if s.Interrupted {
		b.WriteString("\n**Interrupted.** These are the runs that finished; attempts that never started are absent, not failed.\n")
	}
	b.WriteString("\n| Task | Agent | Pass rate | Evidential | Discarded |\n|---|---|---|---|---|\n")
	for _, st := range s.Tasks {
		fmt.Fprintf(&b, "| %s | %s | %s | %d/%d | %s |\n", mdCell(st.Task), mdCell(st.Agent), rateText(st), st.Passes, st.EvidentialRuns, mdCell(discardedText(st.Discarded, "none")))
	}
	b.WriteString(costMarkdown(s))
	gaps := gapRuns(s)
	b.WriteString("\n## Where it failed\n\n")
	if len(gaps) == 0 {
		b.WriteString("No documentation gaps in these runs.\n")
	}
	for _, r := range gaps {
		fmt.Fprintf(&b, "### %s, attempt %d\n\n", mdText(r.Task), r.Attempt)
		if r.SuspectPage != nil {
			fmt.Fprintf(&b, "- Last docs page read: %s\n", mdText(*r.SuspectPage))
		}
		fmt.Fprintf(&b, "- Stop reason: %s\n", mdText(stopText(r)))
		if r.SuccessCheck != nil {
			out := strings.TrimRight(lastChars(r.SuccessCheck.Output, 1200), "\n")
			if out == "" {
				out = "(the check printed nothing)"
			}
			fmt.Fprintf(&b, "- Success check exited %d:\n\n```\n%s\n```\n", r.SuccessCheck.ExitCode, fenced(out))
		}
		if f := r.LastFailure; f != nil {
			out := strings.TrimRight(f.Output, "\n")
			if out == "" {
				out = "(it printed nothing)"
			}
			fmt.Fprintf(&b, "- The last command that failed exited %d:\n\n```\n$ %s\n%s\n```\n", f.ExitCode, fenced(f.Command), fenced(out))
		}
		b.WriteString("\n")
	}
	if warned := warnedRuns(s); len(warned) > 0 {
		b.WriteString("## Commands that timed out or failed\n\n")
		for _, r := range warned {
			for _, w := range r.Warnings {
				fmt.Fprintf(&b, "- %s, attempt %d (`%s`): %s\n", mdCell(r.Task), r.Attempt, r.Classification, mdCell(w))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString(suitePagesMarkdown(s, root))
	return b.String()
}

// fenced is text safe inside a ``` block: a run of three backticks in it
// would end the block, and what follows would be read as Markdown.
func fenced(s string) string { return strings.ReplaceAll(s, "```", "`\u200b``") }

// warnedRuns are the runs with warnings, in suite order.
func warnedRuns(s *qsrun.Suite) []*qsrun.AttemptResult {
	var out []*qsrun.AttemptResult
	for _, st := range s.Tasks {
		for _, r := range st.Runs {
			if len(r.Warnings) > 0 {
				out = append(out, r)
			}
		}
	}
	return out
}

func enforcedText(e bool) string {
	if e {
		return "enforced"
	}
	return "unenforced"
}

func gapRuns(s *qsrun.Suite) []*qsrun.AttemptResult {
	var out []*qsrun.AttemptResult
	for _, st := range s.Tasks {
		for _, r := range st.Runs {
			if r.Classification == qsrun.DocsGap {
				out = append(out, r)
			}
		}
	}
	return out
}

// Transcripts reads the transcripts written beside a results.json
// (DIR/<task>/transcript.txt and DIR/<task>/attempt-N/transcript.txt),
// keyed by their directory relative to DIR. Unreadable ones are skipped.
func Transcripts(resultsPath string) map[string]string {
	dir := filepath.Dir(resultsPath)
	out := map[string]string{}
	for _, pat := range []string{"*/transcript.txt", "*/*/transcript.txt"} {
		matches, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, m := range matches {
			if b, err := os.ReadFile(m); err == nil {
				rel, _ := filepath.Rel(dir, filepath.Dir(m))
				out[rel] = string(b)
			}
		}
	}
	return out
}

type chartBar struct {
	Y, W, TextY   int
	Label, Value  string
	Class         string
	Tip           string
	Evidence      bool
	LabelX, ValX  int
	BarX, BarFull int
}

type htmlData struct {
	S           *qsrun.Suite
	Meta        string
	Rows        []htmlRow
	Chart       []chartBar
	ChartH      int
	Gaps        []htmlGap
	Warned      []*qsrun.AttemptResult // runs with a command that timed out or failed
	Transcripts []htmlTranscript
	PagesRead   []htmlRunPages
	Cost        []costRow
	Unpriced    string
}

type htmlRow struct {
	Task, Agent, Rate, Class, Evidential, Discarded string
}

type htmlGap struct {
	Task    string
	Attempt int
	Page    string
	Stop    string
	Output  string
	Failed  *qsrun.FailedCommand // the last command that failed: often the real error
	Pages   []htmlPage
}

type htmlTranscript struct{ Name, Text string }

const (
	chartLabelW = 260
	chartBarW   = 360
	chartRowH   = 28
)

// HTML renders the suite as one self-contained page: inline CSS, an inline
// SVG pass-rate chart, no script and nothing fetched. transcripts may be
// nil; the pages each run read link to their copies under root (see
// pageHref).
func HTML(s *qsrun.Suite, transcripts map[string]string, root string) []byte {
	d := htmlData{S: s, PagesRead: htmlPagesRead(s, root)}
	meta := []string{fmt.Sprintf("%d task(s)", len(s.Tasks)), fmt.Sprintf("repeat %d", s.Repeat),
		"backend " + s.Environment.Backend + " (" + enforcedText(s.Environment.Enforced) + ")"}
	if s.ToolVersion != "" {
		meta = append(meta, "tabwright "+s.ToolVersion)
	}
	if c := s.Totals.EstimatedCost; c != nil {
		meta = append(meta, fmt.Sprintf("estimated $%.4f", *c))
	}
	meta = append(meta, s.GeneratedAt)
	d.Meta = strings.Join(meta, " · ")
	d.Cost, d.Unpriced = costRows(s), unpricedNote(s)
	for i, st := range s.Tasks {
		class := "none"
		if st.PassRate != nil {
			class = "fail"
			if *st.PassRate == 1 {
				class = "pass"
			}
		}
		d.Rows = append(d.Rows, htmlRow{st.Task, st.Agent, rateText(st), class, fmt.Sprintf("%d/%d", st.Passes, st.EvidentialRuns), discardedText(st.Discarded, "-")})
		bar := chartBar{Y: i*chartRowH + 6, TextY: i*chartRowH + 20, Label: st.Task, Value: rateText(st), Class: class,
			LabelX: chartLabelW - 8, BarX: chartLabelW, BarFull: chartBarW, ValX: chartLabelW + chartBarW + 8}
		if st.Agent != "replay" {
			bar.Label += " (" + st.Agent + ")"
		}
		if st.PassRate != nil {
			bar.Evidence = true
			bar.W = int(*st.PassRate*chartBarW + 0.5)
			bar.Tip = fmt.Sprintf("%s: %d of %d evidential run(s) passed", st.Task, st.Passes, st.EvidentialRuns)
		} else {
			bar.Tip = fmt.Sprintf("%s: no run gave evidence about the docs", st.Task)
		}
		if len(bar.Label) > 34 {
			bar.Label = bar.Label[:33] + "…"
		}
		d.Chart = append(d.Chart, bar)
	}
	d.ChartH = len(s.Tasks)*chartRowH + 8
	for _, r := range gapRuns(s) {
		g := htmlGap{Task: r.Task, Attempt: r.Attempt, Stop: stopText(r), Failed: r.LastFailure}
		for _, p := range r.PagesRead() {
			g.Pages = append(g.Pages, htmlPage{URL: p.URL, Href: pageHref(root, p.File)})
		}
		if r.SuspectPage != nil {
			g.Page = *r.SuspectPage
		}
		if r.SuccessCheck != nil {
			g.Output = strings.TrimRight(lastChars(r.SuccessCheck.Output, 1200), "\n")
		}
		if g.Output == "" {
			g.Output = "(the check printed nothing)"
		}
		d.Gaps = append(d.Gaps, g)
	}
	d.Warned = warnedRuns(s)
	names := make([]string, 0, len(transcripts))
	for k := range transcripts {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, n := range names {
		d.Transcripts = append(d.Transcripts, htmlTranscript{n, transcripts[n]})
	}
	var b bytes.Buffer
	if err := page.Execute(&b, d); err != nil {
		return []byte("<!doctype html><p>cannot render: " + template.HTMLEscapeString(err.Error()))
	}
	return b.Bytes()
}

var page = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>tabwright qs results</title>
<style>
:root { color-scheme: light dark; --fg: #1d1f21; --bg: #fff; --muted: #666; --line: #ddd; --pass: #2e7d32; --fail: #c62828; --none: #9e9e9e; --code: #f5f5f5; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e6e6; --bg: #17191c; --muted: #a0a0a0; --line: #333; --pass: #66bb6a; --fail: #ef5350; --none: #777; --code: #22252a; } }
body { font: 15px/1.5 system-ui, -apple-system, sans-serif; color: var(--fg); background: var(--bg); max-width: 60em; margin: 2em auto; padding: 0 1em; }
h1 { margin-bottom: 0; } .meta { color: var(--muted); margin-top: .25em; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .35em .6em; border-bottom: 1px solid var(--line); }
.pass { color: var(--pass); font-weight: 600; } .fail { color: var(--fail); font-weight: 600; } .none { color: var(--muted); }
svg text { fill: var(--fg); font: 13px system-ui, sans-serif; } svg .track { fill: var(--line); }
svg .bar-pass { fill: var(--pass); } svg .bar-fail { fill: var(--fail); } svg .bar-none { fill: none; stroke: var(--none); stroke-dasharray: 4 3; }
pre { background: var(--code); padding: .75em; overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
.gap { border-left: 3px solid var(--fail); padding-left: 1em; margin: 1em 0; } .note { color: var(--muted); }
</style></head><body>
<h1>tabwright qs</h1>
<p class="meta">{{.Meta}}</p>
{{if .S.Interrupted}}<p><strong>Interrupted.</strong> These are the runs that finished; attempts that never started are absent, not failed.</p>{{end}}
{{if not .S.Environment.Enforced}}<p class="note">Unenforced backend: the docs allowlist and the page-read record were advisory in these runs.</p>{{end}}
<h2>Pass rates</h2>
<svg role="img" aria-label="pass rate per task" width="720" height="{{.ChartH}}" viewBox="0 0 720 {{.ChartH}}">
{{range .Chart}}<g><title>{{.Tip}}</title>
<text x="{{.LabelX}}" y="{{.TextY}}" text-anchor="end">{{.Label}}</text>
{{if .Evidence}}<rect class="track" x="{{.BarX}}" y="{{.Y}}" width="{{.BarFull}}" height="18" rx="2"/><rect class="bar-{{.Class}}" x="{{.BarX}}" y="{{.Y}}" width="{{.W}}" height="18" rx="2"/>{{else}}<rect class="bar-none" x="{{.BarX}}" y="{{.Y}}" width="{{.BarFull}}" height="18" rx="2"/>{{end}}
<text x="{{.ValX}}" y="{{.TextY}}">{{.Value}}</text></g>
{{end}}</svg>
<table><thead><tr><th>Task</th><th>Agent</th><th>Pass rate</th><th>Evidential</th><th>Discarded</th></tr></thead><tbody>
{{range .Rows}}<tr><td>{{.Task}}</td><td>{{.Agent}}</td><td class="{{.Class}}">{{.Rate}}</td><td>{{.Evidential}}</td><td>{{.Discarded}}</td></tr>
{{end}}</tbody></table>
<p class="note">Pass rate = passed / (passed + docs_gap). Runs that say nothing about the docs (budgets, harness or infrastructure errors) are discarded, not failed.</p>
{{if .Cost}}<h2>Tokens and cost</h2>
<table><thead><tr><th>Task</th><th>Agent</th><th>Tokens</th><th>Models served</th><th>Estimated cost</th></tr></thead><tbody>
{{range .Cost}}<tr><td>{{.Task}}</td><td>{{.Agent}}</td><td>{{.Tokens}}</td><td>{{.Models}}</td><td>{{.Cost}}</td></tr>
{{end}}</tbody></table>{{if .Unpriced}}<p class="note">{{.Unpriced}}</p>{{end}}{{end}}
{{if .S.StoppedAtCost}}<p><strong>Stopped at the cost cap</strong> (${{printf "%.2f" .S.MaxCostUSD}}): attempts that never started are absent, not failed.</p>{{end}}
<h2>Where it failed</h2>
{{range .Gaps}}<div class="gap"><h3>{{.Task}}, attempt {{.Attempt}}</h3>
{{if .Page}}<p>Last docs page read: <a href="{{.Page}}">{{.Page}}</a></p>{{end}}
<p>Stop reason: {{.Stop}}</p><p>The check said:</p><pre>{{.Output}}</pre>
{{with .Failed}}<p>The last command that failed (exit {{.ExitCode}}): <code>{{.Command}}</code></p><pre>{{if .Output}}{{.Output}}{{else}}(it printed nothing){{end}}</pre>{{end}}
{{if .Pages}}<details><summary>Pages read ({{len .Pages}})</summary><ol>{{range .Pages}}<li>{{.URL}}{{if .Href}} (<a href="{{.Href}}">as read</a>){{end}}</li>{{end}}</ol></details>{{end}}</div>
{{else}}<p>No documentation gaps in these runs.</p>
{{end}}
{{if .Warned}}<h2>Commands that timed out or failed</h2>
<p class="note">Whatever the verdict: a run that passed may still have hit these.</p>
{{range .Warned}}<h3>{{.Task}}, attempt {{.Attempt}} ({{.Classification}})</h3><ul>{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{end}}
{{if .PagesRead}}<h2>Docs pages read</h2>
<p class="note">Each page as read_docs returned it to the agent, kept in the results directory under its content hash.</p>
{{range .PagesRead}}<h3>{{.Task}}, attempt {{.Attempt}} ({{.Agent}})</h3>
{{if .Pages}}<ol>{{range .Pages}}<li>{{.URL}}{{if .Href}} (<a href="{{.Href}}">as read</a>){{end}}</li>{{end}}</ol>{{else}}<p>None.</p>{{end}}
{{end}}{{end}}
{{if .Transcripts}}<h2>Transcripts</h2>
{{range .Transcripts}}<details><summary>{{.Name}}</summary><pre>{{.Text}}</pre></details>
{{end}}{{end}}
</body></html>
`))
