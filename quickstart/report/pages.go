package report

import (
	"fmt"
	"path"
	"strings"

	qsrun "github.com/tabwright/tabwright/quickstart/run"
)

// A report links each docs page a run read to its copy in the results
// directory (qsrun.PagesDir). root is that directory as seen from where the
// report is written: "" when the report is written in it, "../" from a run
// directory.
// A page without its file (results from before pages were kept) has no
// link ("").
func pageHref(root, file string) string {
	if file == "" {
		return ""
	}
	return path.Join(root, file)
}

// pagesMarkdown is the numbered list of the pages r read, each linked to
// the copy of what read_docs returned; "None." when it read none.
func pagesMarkdown(r *qsrun.AttemptResult, root string) string {
	pages := r.PagesRead()
	if len(pages) == 0 {
		return "None.\n"
	}
	var b strings.Builder
	for i, p := range pages {
		if p.File == "" {
			fmt.Fprintf(&b, "%d. %s\n", i+1, mdText(p.URL))
			continue
		}
		fmt.Fprintf(&b, "%d. %s ([as read](%s))\n", i+1, mdText(p.URL), pageHref(root, p.File))
	}
	return b.String()
}

// suitePagesMarkdown is the suite's section of the pages each run read.
func suitePagesMarkdown(s *qsrun.Suite, root string) string {
	var b strings.Builder
	b.WriteString("\n## Docs pages read\n\nEach page as read_docs returned it to the agent, kept in `" + qsrun.PagesDir + "/` under its content hash.\n")
	for _, st := range s.Tasks {
		for _, r := range st.Runs {
			fmt.Fprintf(&b, "\n### %s, attempt %d (%s)\n\n%s", mdCell(r.Task), r.Attempt, mdCell(r.Agent), pagesMarkdown(r, root))
		}
	}
	return b.String()
}

// htmlPage is one page read, for the HTML report.
type htmlPage struct{ URL, Href string }

// htmlRunPages is the pages one run read.
type htmlRunPages struct {
	Task, Agent string
	Attempt     int
	Pages       []htmlPage
}

func htmlPagesRead(s *qsrun.Suite, root string) []htmlRunPages {
	var out []htmlRunPages
	for _, st := range s.Tasks {
		for _, r := range st.Runs {
			rp := htmlRunPages{Task: r.Task, Agent: r.Agent, Attempt: r.Attempt}
			for _, p := range r.PagesRead() {
				rp.Pages = append(rp.Pages, htmlPage{URL: p.URL, Href: pageHref(root, p.File)})
			}
			out = append(out, rp)
		}
	}
	return out
}
