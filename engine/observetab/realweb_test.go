package observetab_test

// The real-web repro pages (testdata/real-web, shapes found on real apps:
// AG Grid's cells, flatpickr's days, TodoMVC's labels, jQuery UI's
// datepicker links, a script's click listener) read as a person sees
// them: each element one can use is in the observation with a ref, and
// the action on that ref does what it does for a person (issue 47).

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/observetab"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/internal/testtabs"
)

var realWeb = sync.OnceValues(func() (*testtabs.Env, error) {
	return testtabs.Start("../../testdata/real-web", "../../testdata/shared")
})

func realWebPage(t *testing.T, name string) *tabs.Tab {
	t.Helper()
	env, err := realWeb()
	if err != nil {
		t.Fatal(err)
	}
	return env.Page(t, name)
}

func observeTab(t *testing.T, tab *tabs.Tab, opt observe.Options) *observe.Observation {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var obs *observe.Observation
	err := tab.Do(ctx, func(ctx context.Context) (err error) {
		obs, err = observetab.Capture(ctx, tab, observetab.Part{}, opt)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

// listed finds the element labelled label, with role when role is set.
func listed(t *testing.T, obs *observe.Observation, role, label string) observe.Element {
	t.Helper()
	for _, e := range obs.Interactive {
		if e.Label == label && (role == "" || e.Role == role) {
			if e.Ref == "" || e.Selector == "" {
				t.Fatalf("%q is listed without a ref or selector: %+v", label, e)
			}
			return e
		}
	}
	t.Fatalf("%s %q is not in the observation:\n%s", role, label, observe.Render(obs))
	return observe.Element{}
}

func clickRef(t *testing.T, tab *tabs.Tab, ref string, count int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	step := &act.Step{Action: act.Click, Locator: locate.Locator{Ref: ref}, ClickCount: &count}
	if _, err := act.Run(ctx, tab, step); err != nil {
		t.Fatalf("click %s: %v", ref, err)
	}
}

func outText(t *testing.T, tab *tabs.Tab) string {
	t.Helper()
	var s string
	if err := tab.Eval(context.Background(), "document.getElementById('out').textContent", &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFocusableCellsDaysAndLabels(t *testing.T) {
	t.Parallel()
	tab := realWebPage(t, "focusable-cells.html")
	obs := observeTab(t, tab, observe.Options{})
	for _, c := range []struct {
		role, label string
		clicks      int
		out         string
	}{
		{"gridcell", "Panda #2", 2, "editing cell Panda #2"},
		{"", "March 21, 2024", 1, "picked March 21, 2024"},
		{"", "buy mlk", 2, "editing todo buy mlk"},
	} {
		e := listed(t, obs, c.role, c.label)
		clickRef(t, tab, e.Ref, c.clicks)
		if got := outText(t, tab); got != c.out {
			t.Errorf("after clicking %q %d times: #out says %q, want %q", c.label, c.clicks, got, c.out)
		}
	}
}

// Elements made usable by listeners added from script, which no page
// script can see: a div clicked, a list whose container takes its items'
// double-clicks. The body's listener (a framework's or analytics') makes
// nothing listed.
func TestScriptListenersMakeElementsUsable(t *testing.T) {
	t.Parallel()
	tab := realWebPage(t, "listeners.html")
	obs := observeTab(t, tab, observe.Options{})
	clickRef(t, tab, listed(t, obs, "generic", "Open settings").Ref, 1)
	if got := outText(t, tab); got != "settings" {
		t.Fatalf("#out %q after clicking the div", got)
	}
	clickRef(t, tab, listed(t, obs, "generic", "Beta").Ref, 2)
	if got := outText(t, tab); got != "edit Beta" {
		t.Fatalf("#out %q after double-clicking an item", got)
	}
	for _, e := range obs.Interactive {
		if strings.HasPrefix(e.Label, "A paragraph") {
			t.Fatalf("a paragraph under the body's listener is listed: %+v", e)
		}
	}
}

// Text under aria-hidden that is drawn (a code editor's lines) is read;
// text that is not drawn is not.
func TestDrawnAriaHiddenTextIsRead(t *testing.T) {
	t.Parallel()
	tab := realWebPage(t, "editor-lines.html")
	obs := observeTab(t, tab, observe.Options{})
	if !strings.Contains(obs.TextPreview, "return 42;") {
		t.Fatalf("the editor's lines are not in the text:\n%s", obs.TextPreview)
	}
	if strings.Contains(obs.TextPreview, "not drawn") {
		t.Fatalf("undrawn text is in the text:\n%s", obs.TextPreview)
	}
}

// A click on a code editor's input, drawn under its rendered lines, goes
// to the lines (the editor's surface) as a person's would, and says so;
// typed text reaches the editor's model.
func TestEditorUnderItsLinesTakesAClickAndKeys(t *testing.T) {
	t.Parallel()
	tab := realWebPage(t, "editor-lines.html")
	obs := observeTab(t, tab, observe.Options{})
	ref := listed(t, obs, "textbox", "Editor content").Ref
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := act.Run(ctx, tab, &act.Step{Action: act.Click, Locator: locate.Locator{Ref: ref}})
	if err != nil {
		t.Fatalf("click the editor: %v", err)
	}
	if !strings.Contains(r.Verified, "which its widget draws over it") {
		t.Fatalf("the click does not say it went to the editor's surface: %q", r.Verified)
	}
	text := "\n// typed"
	focused := true
	if _, err := act.Run(ctx, tab, &act.Step{Action: act.Type, Text: &text, Focused: &focused}); err != nil {
		t.Fatalf("type: %v", err)
	}
	var model string
	if err := tab.Eval(ctx, "document.body.dataset.model", &model); err != nil || !strings.HasSuffix(model, "}\n// typed") {
		t.Fatalf("the editor's model is %q (%v)", model, err)
	}
}

// A long value is cut, says so and how to read it whole; the observation
// scoped to the field reads it whole (issue 46).
func TestLongValueSaysItWasCut(t *testing.T) {
	t.Parallel()
	tab := realWebPage(t, "long-value.html")
	obs := observeTab(t, tab, observe.Options{})
	var whole string
	if err := tab.Eval(context.Background(), "document.getElementById('ta').value", &whole); err != nil {
		t.Fatal(err)
	}
	var ta *observe.Field
	for _, f := range obs.Forms {
		for i := range f.Fields {
			if f.Fields[i].Selector == "#ta" {
				ta = &f.Fields[i]
			}
		}
	}
	if ta == nil || ta.ValueLen != len(whole) || len(ta.Value) >= len(whole) {
		t.Fatalf("the textarea's field: %+v, want a cut value and valuelength %d", ta, len(whole))
	}
	if text := observe.Render(obs); !strings.Contains(text, `(cut: 229 chars; observe with scope "#ta" reads it whole)`) {
		t.Fatalf("the text does not say the value was cut:\n%s", text)
	}
	scoped := observeTab(t, tab, observe.Options{Scope: "#ta"})
	if len(scoped.Interactive) != 1 || scoped.Interactive[0].Value != whole {
		t.Fatalf("scoped to the field: %+v, want its whole value %q", scoped.Interactive, whole)
	}
}

// The listener marks follow the page: a listener added after one
// observation is seen by the next, and one removed is gone from it.
func TestListenerMarksFollowThePage(t *testing.T) {
	t.Parallel()
	tab := realWebPage(t, "late-listener.html")
	has := func(obs *observe.Observation) bool {
		for _, e := range obs.Interactive {
			if e.Label == "Refresh data" {
				return true
			}
		}
		return false
	}
	obs := observeTab(t, tab, observe.Options{})
	if has(obs) {
		t.Fatal("listed before it has a listener")
	}
	clickRef(t, tab, listed(t, obs, "button", "Hydrate").Ref, 1)
	if obs = observeTab(t, tab, observe.Options{}); !has(obs) {
		t.Fatalf("not listed once it has a listener:\n%s", observe.Render(obs))
	}
	clickRef(t, tab, listed(t, obs, "button", "Tear down").Ref, 1)
	if obs = observeTab(t, tab, observe.Options{}); has(obs) {
		t.Fatalf("still listed once its listener is gone:\n%s", observe.Render(obs))
	}
}
