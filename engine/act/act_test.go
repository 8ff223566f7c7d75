package act

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/internal/testtabs"
)

// env is the browser and fixture server of this test binary.
var env *testtabs.Env

func TestMain(m *testing.M) {
	var err error
	if env, err = testtabs.Start("../../testdata/act", "../../testdata/shared"); err != nil {
		panic(err)
	}
	code := m.Run()
	env.Close()
	os.Exit(code)
}

// page opens a fresh claimed tab on a fixture page.
func page(t testing.TB, name string) *tabs.Tab { return env.Page(t, name) }

func run(t testing.TB, tab *tabs.Tab, s *Step) (*Result, error) {
	t.Helper()
	if v := s.Validate(""); len(v) > 0 {
		t.Fatalf("invalid step %+v: %v", s, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return Run(ctx, tab, s)
}

func must(t testing.TB, tab *tabs.Tab, s *Step) *Result {
	t.Helper()
	r, err := run(t, tab, s)
	if err != nil {
		t.Fatalf("%s %s: %v", s.Action, s.Locator, err)
	}
	return r
}

func logText(t testing.TB, tab *tabs.Tab) string {
	t.Helper()
	var s string
	if err := tab.Eval(context.Background(), "document.getElementById('log').textContent", &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func css(sel string) locate.Locator { return locate.Locator{Selector: sel} }
func ptr[T any](v T) *T             { return &v }

func wantCode(t testing.TB, err error, code string, contains string) {
	t.Helper()
	if errs.Code(err) != code || !strings.Contains(err.Error(), contains) {
		t.Fatalf("got %v, want %s containing %q", err, code, contains)
	}
}

func TestClickNativeDomDoubleModifiers(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	r := must(t, tab, &Step{Action: Click, Locator: css("#plain")})
	if !strings.Contains(r.Verified, "trusted click received") {
		t.Fatalf("verified: %q", r.Verified)
	}
	must(t, tab, &Step{Action: Click, Locator: css("#dbl"), ClickCount: ptr(2)})
	must(t, tab, &Step{Action: Click, Locator: css("#mods"), Modifiers: []string{"Control", "Shift"}})
	must(t, tab, &Step{Action: Click, Locator: css("#plain"), Mode: "dom"})
	must(t, tab, &Step{Action: Click, Locator: css("#bottom")}) // scrolled into view first
	must(t, tab, &Step{Action: Click, Locator: css("#inner")})  // inside an open shadow root
	log := logText(t, tab)
	for _, want := range []string{"plain click", "double click", "mods true,true,false,false", "bottom", "shadow click"} {
		if !strings.Contains(log, want) {
			t.Fatalf("log %q lacks %q", log, want)
		}
	}
	if strings.Count(log, "plain click") != 2 {
		t.Fatalf("log %q: want two plain clicks (native and dom)", log)
	}
}

func TestLocatorKinds(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	must(t, tab, &Step{Action: Fill, Locator: locate.Locator{Selector: "Email address", SelectorType: locate.Label}, Text: ptr("a@b.c")})
	must(t, tab, &Step{Action: Fill, Locator: locate.Locator{Selector: "Notes", SelectorType: locate.Label}, Text: ptr("n")})
	must(t, tab, &Step{Action: Fill, Locator: locate.Locator{Selector: "you@example.com", SelectorType: locate.Placeholder}, Text: ptr("x@y.z")})
	must(t, tab, &Step{Action: Click, Locator: locate.Locator{Selector: "//button[text()='Plain']", SelectorType: locate.XPath}})
	must(t, tab, &Step{Action: Click, Locator: locate.Locator{Selector: "button", SelectorType: locate.Role, Name: ptr("Fancy")}})
	must(t, tab, &Step{Action: Click, Locator: locate.Locator{Selector: ".dup", Nth: ptr(1)}})
	_, err := run(t, tab, &Step{Action: Click, Locator: css(".dup")})
	wantCode(t, err, errs.Ambiguous, "2 elements")
	_, err = run(t, tab, &Step{Action: Click, Locator: locate.Locator{Selector: "button", SelectorType: locate.Role}})
	wantCode(t, err, errs.Ambiguous, "matches")
	_, err = run(t, tab, &Step{Action: Click, Locator: css("#nothing"), TimeoutMS: ptr(1000)})
	wantCode(t, err, errs.NotFound, `css "#nothing"`)
	_, err = run(t, tab, &Step{Action: Click, Locator: locate.Locator{Selector: ".dup", Nth: ptr(5)}, TimeoutMS: ptr(1000)})
	wantCode(t, err, errs.NotFound, "only 2")
}

func TestActionability(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	_, err := run(t, tab, &Step{Action: Click, Locator: css("#off"), TimeoutMS: ptr(1500)})
	wantCode(t, err, errs.NotActionable, "disabled")
	_, err = run(t, tab, &Step{Action: Fill, Locator: css("#ro"), Text: ptr("x"), TimeoutMS: ptr(1500)})
	wantCode(t, err, errs.NotActionable, "read-only")
	// A banner over the button.
	tab.Eval(context.Background(), `document.body.insertAdjacentHTML('beforeend', '<div id="banner">Cookies!</div>'); window.scrollTo(0, 0)`, nil)
	_, err = run(t, tab, &Step{Action: Click, Locator: css("#plain"), TimeoutMS: ptr(1500)})
	wantCode(t, err, errs.NotActionable, "covered by <div#banner>")
	tab.Eval(context.Background(), `document.getElementById('banner').remove()`, nil)
	// An element that appears after 300 ms is waited for.
	must(t, tab, &Step{Action: Click, Locator: css("#later-trigger")})
	must(t, tab, &Step{Action: Click, Locator: css("#late")})
	if !strings.Contains(logText(t, tab), "late") {
		t.Fatal("late button not clicked")
	}
}

func TestFillTypeSelectPress(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	r := must(t, tab, &Step{Action: Fill, Locator: css("#email"), Text: ptr("first@example.com")})
	if r.Value == nil || *r.Value != "first@example.com" {
		t.Fatalf("fill read back %v", r.Value)
	}
	must(t, tab, &Step{Action: Fill, Locator: css("#email"), Text: ptr("")})
	must(t, tab, &Step{Action: Fill, Locator: css("#notes"), Text: ptr("line one\nline two"), Mode: "dom"})
	r = must(t, tab, &Step{Action: Fill, Locator: css("#editor"), Text: ptr("rich\ntext")})
	if *r.Value != "rich\ntext" {
		t.Fatalf("contenteditable holds %q", *r.Value)
	}
	_, err := run(t, tab, &Step{Action: Fill, Locator: css("#email"), Text: ptr("abc"), ExpectedValue: ptr("xyz")})
	wantCode(t, err, errs.ValueMismatch, `"abc"`)

	r = must(t, tab, &Step{Action: Type, Locator: css("#keys"), Text: ptr("Hi!")})
	if *r.Value != "Hi!" {
		t.Fatalf("typed value %q", *r.Value)
	}
	must(t, tab, &Step{Action: Type, Focused: ptr(true), Text: ptr(" é")})
	must(t, tab, &Step{Action: PressKey, Key: "Control+A", Locator: css("#keys")})
	if log := logText(t, tab); !strings.Contains(log, "key H") || !strings.Contains(log, "key a ctrl") {
		t.Fatalf("key log %q", log)
	}
	_, err = run(t, tab, &Step{Action: PressKey, Key: "Enter", Locator: css("#email")})
	wantCode(t, err, errs.NotActionable, "focus is not on")

	r = must(t, tab, &Step{Action: SelectOption, Locator: css("#fruit"), Label: ptr("Banana")})
	if r.Selected["value"] != "b" {
		t.Fatalf("selected %v", r.Selected)
	}
	// A missing or disabled option is waited for until the timeout (issue 17).
	_, err = run(t, tab, &Step{Action: SelectOption, Locator: css("#fruit"), Value: ptr("zzz"), TimeoutMS: ptr(500)})
	wantCode(t, err, errs.NotFound, "no such option")
	if !strings.Contains(errs.As(err).Hint, `"Banana" (value "b")`) {
		t.Fatalf("hint %q lacks the options on offer", errs.As(err).Hint)
	}
	_, err = run(t, tab, &Step{Action: SelectOption, Locator: css("#fruit"), Index: ptr(2), TimeoutMS: ptr(500)})
	wantCode(t, err, errs.NotActionable, "the option is disabled")
}

func TestDialogPolicies(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	r := must(t, tab, &Step{Action: Click, Locator: css("#alert"), DialogPolicy: "accept"})
	if len(r.Dialogs) != 1 || r.Dialogs[0].Message != "Hello there" || r.Dialogs[0].Action != "accepted" {
		t.Fatalf("dialogs %+v", r.Dialogs)
	}
	must(t, tab, &Step{Action: Click, Locator: css("#confirm"), DialogPolicy: "dismiss"})
	if log := logText(t, tab); !strings.Contains(log, "after alert") || !strings.Contains(log, "confirm false") {
		t.Fatalf("log %q", log)
	}
	_, err := run(t, tab, &Step{Action: Click, Locator: css("#confirm")})
	wantCode(t, err, errs.DialogPending, "Sure?")
	if d := tab.PendingDialog(); d == nil || d.Type != "confirm" {
		t.Fatalf("pending dialog %+v", d)
	}
	// Nothing hangs while it is open: calls are refused with the dialog.
	_, err = run(t, tab, &Step{Action: Click, Locator: css("#plain")})
	wantCode(t, err, errs.DialogPending, "Sure?")
	if _, err := tab.AnswerDialog(context.Background(), true, ""); err != nil {
		t.Fatal(err)
	}
	must(t, tab, &Step{Action: Wait, Condition: "text", Locator: css("#log"), Expected: &Expected{Str: ptr("confirm true")}})
}

func TestWaitConditions(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	must(t, tab, &Step{Action: Wait, Condition: "visible", Locator: css("#plain")})
	must(t, tab, &Step{Action: Wait, Condition: "absent", Locator: css("#late")})
	must(t, tab, &Step{Action: Click, Locator: css("#later-trigger")})
	must(t, tab, &Step{Action: Wait, Condition: "attached", Locator: css("#late")})
	must(t, tab, &Step{Action: Wait, Condition: "url", Expected: &Expected{Str: ptr("basics")}})
	must(t, tab, &Step{Action: Wait, Condition: "network_idle", IdleMS: ptr(100)})
	must(t, tab, &Step{Action: Wait, Condition: "value", Locator: css("#ro"), Expected: &Expected{Str: ptr("fixed")}})
	_, err := run(t, tab, &Step{Action: Wait, Condition: "value", Locator: css("#ro"), Expected: &Expected{Str: ptr("other")}, TimeoutMS: ptr(1000)})
	wantCode(t, err, errs.Timeout, `"value":"fixed"`)
	_, err = run(t, tab, &Step{Action: Wait, Condition: "actionable", Locator: css("#off"), TimeoutMS: ptr(1000)})
	wantCode(t, err, errs.Timeout, "disabled")
}

func TestScrollAndHover(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	r := must(t, tab, &Step{Action: Scroll, DeltaY: ptr(400.0)})
	if r.Scroll.ScrollY != 400 {
		t.Fatalf("scrolled to %v", r.Scroll.ScrollY)
	}
	r = must(t, tab, &Step{Action: Scroll, Until: &Until{Text: "Bottom"}, DeltaY: ptr(300.0)})
	if r.Scroll.Found == nil || !*r.Scroll.Found {
		t.Fatalf("until: %+v", r.Scroll)
	}
	must(t, tab, &Step{Action: Hover, Locator: css("#plain")})
}

func TestControlRead(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	r := must(t, tab, &Step{Action: SelectOption, Locator: css("#fruit"), Value: ptr("a"), Observe: &ObserveSpec{}})
	if r.Control == nil || r.Control.Role != "combobox" || len(r.Control.Options) != 3 || r.Control.Value == nil || *r.Control.Value != "a" {
		t.Fatalf("control %+v", r.Control)
	}
}
