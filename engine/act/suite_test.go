package act

// The Playwright suite, ported (issue 17). Playwright's tests/page specs
// (locator-query, selectors-get-by, selectors-role, page-click*,
// elementhandle-click, page-fill, page-select-option, page-dialog) define
// what users expect of locators and actions. Every case whose meaning maps
// onto our contract is here, on fixture pages of our own written for the
// same facts: each case names the Playwright test it comes from. Where our
// contract means something else on purpose, the case says so in ours and
// pins our meaning; docs/playwright-suite.md is the table of all of them,
// and README sums it up.
//
// The suite_*_test.go files hold the cases by spec; this one the runner.

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// suiteCase is one ported test: a page, the steps run on it, and what must
// follow. By default every step succeeds; code makes the last one fail.
type suiteCase struct {
	name  string // the Playwright spec and test title ("issue 17: …" for the issue's own)
	page  string // the body of our fixture page; note(s) appends s to the page's log
	steps []*Step
	find  *locate.Locator // instead of steps: resolve this (attached only)…
	id    string          // …and it must be the element with this id

	code, has string // the last step's error code and a part of its message
	log       string // a part of the page's log after the steps
	not       string // what the log must not hold
	verified  string // a part of the last step's verified text
	value     string // the last step's value read back
	dialogs   int    // dialogs the steps met, in all

	ours string // where our contract means something else on purpose
}

// prelude gives every fixture note(), which writes to a data attribute of
// the document: the DOM is what our isolated world and the page share.
const prelude = `<!doctype html><html><head><meta charset="utf-8"><title>suite</title>
<script>function note(s) { const d = document.documentElement.dataset; d.log = (d.log || '') + s + ';'; }</script>
</head><body>`

var (
	suitePages sync.Map // path -> page body
	suiteSite  = sync.OnceValue(func() *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, ok := suitePages.Load(r.URL.Path)
			if !ok && r.URL.Path != "/suite/empty.html" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, prelude, body, "</body></html>")
		}))
	})
)

// failWait is the timeout of a step that must fail: long enough for the
// page-side loop to try a few times, short enough to keep the suite quick.
const failWait = 1000

// runSuite runs a spec's cases, each on a fresh load of its page. The
// cases run in parallel (most of a case is waiting: for the page, or for a
// failing step's deadline), each on a tab of a pool as large as
// -test.parallel lets run at once: a tab per case would add a renderer
// start to each, a navigation is enough to give a case a fresh page.
func runSuite(t *testing.T, spec string, cases []suiteCase) {
	t.Parallel()
	pool := make(chan *tabs.Tab, min(parallelism(), len(cases)))
	for range cap(pool) {
		pool <- page(t, "basics.html")
	}
	for i, c := range cases {
		path := fmt.Sprintf("/suite/%s/%d.html", spec, i)
		suitePages.Store(path, c.page)
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tab := <-pool
			defer func() { pool <- tab }()
			runCase(t, tab, suiteSite().URL+path, c)
		})
	}
}

// parallelism is how many parallel tests may run at once (-test.parallel,
// GOMAXPROCS by default).
func parallelism() int {
	if f := flag.Lookup("test.parallel"); f != nil {
		if n, err := strconv.Atoi(f.Value.String()); err == nil && n > 0 {
			return n
		}
	}
	return runtime.GOMAXPROCS(0)
}

func runCase(t *testing.T, tab *tabs.Tab, url string, c suiteCase) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := tab.Navigate(ctx, tabs.Navigation{URL: url}); err != nil {
		t.Fatal(err)
	}
	if c.find != nil {
		fctx := ctx
		if c.code != "" { // a failing search waits as long as a failing step
			var cancel context.CancelFunc
			fctx, cancel = context.WithTimeout(ctx, failWait*time.Millisecond)
			defer cancel()
		}
		target, err := locate.Resolve(fctx, tab, *c.find, locate.Attached)
		switch {
		case c.code != "":
			wantCode(t, err, c.code, c.has)
		case err != nil:
			t.Fatal(err)
		case target.Desc["id"] != c.id:
			t.Fatalf("found %v, want #%s", target.Desc, c.id)
		}
		return
	}
	dialogs := 0
	var last *Result
	for i, s := range c.steps {
		step := *s
		failing := c.code != "" && i == len(c.steps)-1
		if step.TimeoutMS == nil {
			step.TimeoutMS = ptr(4000)
			// invalid_input is decided at once, so its step keeps the long
			// timeout: a loaded machine must not turn it into a timeout.
			if failing && c.code != badInput {
				step.TimeoutMS = ptr(failWait)
			}
		}
		r, err := run(t, tab, &step)
		if r != nil {
			dialogs += len(r.Dialogs)
		}
		if failing {
			wantCode(t, err, c.code, c.has)
			break
		}
		if err != nil {
			t.Fatalf("step %d (%s %s): %v", i, s.Action, s.Locator, err)
		}
		last = r
	}
	if c.verified != "" && (last == nil || !strings.Contains(last.Verified, c.verified)) {
		t.Fatalf("verified %+v, want %q", last, c.verified)
	}
	if c.value != "" && (last == nil || last.Value == nil || *last.Value != c.value) {
		t.Fatalf("value read back %+v, want %q", last, c.value)
	}
	if dialogs != c.dialogs {
		t.Fatalf("%d dialogs met, want %d", dialogs, c.dialogs)
	}
	if c.log == "" && c.not == "" {
		return
	}
	var log string
	if err := tab.Eval(ctx, "document.documentElement.dataset.log || ''", &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log, c.log) || (c.not != "" && strings.Contains(log, c.not)) {
		t.Fatalf("page log %q: want %q, not %q", log, c.log, c.not)
	}
}

// TestSuiteTable keeps docs/playwright-suite.md in step with the cases:
// every case is listed there by its name.
func TestSuiteTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/playwright-suite.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, group := range [][]suiteCase{locateCases, clickCases, fillCases, selectCases, dialogCases} {
		for _, c := range group {
			if !strings.Contains(string(doc), "| "+c.name+" |") {
				t.Errorf("docs/playwright-suite.md does not list %q", c.name)
			}
		}
	}
}

func TestSuiteLocators(t *testing.T) { runSuite(t, "locate", locateCases) }
func TestSuiteClick(t *testing.T)    { runSuite(t, "click", clickCases) }
func TestSuiteFill(t *testing.T)     { runSuite(t, "fill", fillCases) }
func TestSuiteSelect(t *testing.T)   { runSuite(t, "select", selectCases) }
func TestSuiteDialog(t *testing.T)   { runSuite(t, "dialog", dialogCases) }

// TestSuiteSummary keeps the counts docs/playwright-suite.md and README
// state true to the case tables: how many cases are ported, how many come
// from Playwright and how many are an issue's own ("issue N: …"), and how
// many pin a meaning of our own. That each case passes is the cases' own
// tests.
func TestSuiteSummary(t *testing.T) {
	t.Parallel()
	var all, ours, fromPlaywright int
	perIssue := map[string]int{} // "17" -> cases of issue 17's own
	for _, group := range [][]suiteCase{locateCases, clickCases, fillCases, selectCases, dialogCases} {
		for _, c := range group {
			all++
			if c.ours != "" {
				ours++
			}
			if issue, ok := issueOf(c.name); ok {
				perIssue[issue]++
			} else {
				fromPlaywright++
			}
		}
	}
	doc := readFile(t, "../../docs/playwright-suite.md")
	readme := readFile(t, "../../README.md")
	claims := []struct{ file, text string }{
		{"docs/playwright-suite.md", fmt.Sprintf("**%d cases ported (%d from Playwright's specs, ", all, fromPlaywright)},
		{"docs/playwright-suite.md", fmt.Sprintf("), %d passing.**", all)},
		{"docs/playwright-suite.md", fmt.Sprintf("%d cases pin a place where our contract means something else", ours)},
		{"README.md", fmt.Sprintf("%d of its cases whose meaning maps onto our contract", fromPlaywright)},
		{"README.md", fmt.Sprintf("All %d pass", all)},
		{"README.md", fmt.Sprintf("%d of them pin a\nplace where our contract means something else", ours)},
	}
	for issue, n := range perIssue {
		claims = append(claims,
			struct{ file, text string }{"docs/playwright-suite.md", fmt.Sprintf("%d of issue %s's", n, issue)},
			struct{ file, text string }{"README.md", fmt.Sprintf("%d of issue %s's", n, issue)})
	}
	for _, c := range claims {
		text := doc
		if c.file == "README.md" {
			text = readme
		}
		if !strings.Contains(text, c.text) {
			t.Errorf("%s does not say %q (the tables hold %d cases: %d from Playwright, by issue %v; %d of our meaning)", c.file, c.text, all, fromPlaywright, perIssue, ours)
		}
	}
}

// issueOf returns N for a case named "issue N: …", one an issue added.
func issueOf(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "issue ")
	if !ok {
		return "", false
	}
	n, _, ok := strings.Cut(rest, ":")
	return n, ok && n != ""
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Step builders for the case tables.
func clickS(sel string) *Step          { return &Step{Action: Click, Locator: css(sel)} }
func clickOn(loc locate.Locator) *Step { return &Step{Action: Click, Locator: loc} }
func fillS(sel, text string) *Step     { return &Step{Action: Fill, Locator: css(sel), Text: ptr(text)} }
func fillOn(loc locate.Locator, text string) *Step {
	return &Step{Action: Fill, Locator: loc, Text: ptr(text)}
}
func label(s string) locate.Locator { return locate.Locator{Selector: s, SelectorType: locate.Label} }
func placeholder(s string) locate.Locator {
	return locate.Locator{Selector: s, SelectorType: locate.Placeholder}
}
func role(r string, name ...string) locate.Locator {
	l := locate.Locator{Selector: r, SelectorType: locate.Role}
	if len(name) > 0 {
		l.Name = ptr(name[0])
	}
	return l
}
func inFrame(loc locate.Locator, path ...string) locate.Locator {
	loc.Frame = &locate.FrameSpec{Path: path}
	return loc
}
func steps(s ...*Step) []*Step { return s }

// errs codes, short.
const (
	notFound      = errs.NotFound
	notActionable = errs.NotActionable
	ambiguous     = errs.Ambiguous
	badInput      = errs.InvalidInput
	mismatch      = errs.ValueMismatch
)
