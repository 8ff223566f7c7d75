package tabs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"

	"github.com/tabwright/tabwright/engine/errs"
)

func TestEvaluate(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/inner" {
			fmt.Fprint(w, `<title>Inner</title><script>var where = "inner";</script>`)
			return
		}
		fmt.Fprint(w, `<title>Eval</title><script>var where = "top"; window.big = Array.from({length: 5000}, (_, i) => ({i, s: "x".repeat(20)}));</script>
<button id="b">Go</button><iframe id="f" src="/inner"></iframe>`)
	}))
	t.Cleanup(srv.Close)
	m := newManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opened, err := m.Open(ctx, OpenOptions{Owner: "s", URL: srv.URL, Active: true, Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	tab := opened.Tab
	if _, err := tab.Navigate(ctx, Navigation{URL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	eval := func(e Evaluation) (*Evaluated, error) {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		var out *Evaluated
		err := tab.Do(ctx, func(ctx context.Context) (err error) { out, err = tab.Evaluate(ctx, e); return err })
		return out, err
	}
	for _, c := range []struct{ expr, json, typ string }{
		{"where", `"top"`, "string"},
		{"1 + 1", `2`, "number"},
		{"async () => { await new Promise(r => setTimeout(r, 10)); return {a: [1, NaN, undefined], d: document.body}; }", `{"a":[1,"NaN",null],"d":"[element body]"}`, "object"},
		{"(() => { const o = {}; o.self = o; return o; })()", `{"self":"[circular]"}`, "object"},
		{"undefined", `null`, "undefined"},
		{"10n ** 30n", `"1000000000000000000000000000000n"`, "bigint"},
	} {
		got, err := eval(Evaluation{Expression: c.expr})
		if err != nil || got == nil || got.JSON != c.json || got.Type != c.typ {
			t.Errorf("%s: %+v %v, want %s %s", c.expr, got, err, c.json, c.typ)
		}
	}
	big, err := eval(Evaluation{Expression: "big", MaxCapture: 1000})
	if err != nil || len(big.JSON) != 1000 || !big.Truncated || big.Type != "array" {
		t.Errorf("big: %d chars, %+v %v", len(big.JSON), big.Truncated, err)
	}
	if _, err := eval(Evaluation{Expression: "null.x"}); errs.Code(err) != errs.ScriptError || !strings.Contains(err.Error(), "TypeError") {
		t.Errorf("a throw: %v", err)
	}
	el, err := eval(Evaluation{Expression: "document.getElementById('b')", Element: true})
	if err != nil || el.Element["tag"] != "button" || el.Element["name"] != "Go" {
		t.Fatalf("element: %+v %v", el, err)
	}
	if scope, local, err := tab.LookupRef(el.Ref); err != nil || !scope.Main || scope.Doc == "" || !strings.HasPrefix(local, "e") {
		t.Errorf("the element's ref %s is not one of the tab's main document: %+v %s %v", el.Ref, scope, local, err)
	}
	if _, err := eval(Evaluation{Expression: "42", Element: true}); errs.Code(err) != errs.ScriptError {
		t.Errorf("element of a number: %v", err)
	}
	inner, err := tab.ChildFrame(ctx, nil, mustObject(t, ctx, tab, "document.getElementById('f')"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := eval(Evaluation{Expression: "where", Frame: inner}); err != nil || got.JSON != `"inner"` {
		t.Errorf("in the frame: %+v %v", got, err)
	}

	// A busy loop ends at the deadline and the tab works afterwards.
	start := time.Now()
	_, err = eval(Evaluation{Expression: "while (true) {}"})
	if errs.Code(err) != errs.Timeout || !strings.Contains(err.Error(), "terminated") || time.Since(start) > 15*time.Second { // generous, short of the test's 30 s
		t.Fatalf("busy loop: %v after %v", err, time.Since(start))
	}
	if got, err := eval(Evaluation{Expression: "document.title"}); err != nil || got.JSON != `"Eval"` {
		t.Fatalf("after the loop: %+v %v", got, err)
	}

	// A value whose getter or Proxy trap loops: turning it into JSON runs
	// the page's code, ended at the deadline like the script itself, and
	// the tab works afterwards (issue 44, item 8). A getter that throws is
	// the script's error.
	for _, expr := range []string{
		"({ get x() { for (;;) {} } })",
		"new Proxy({}, { ownKeys() { for (;;) {} } })",
	} {
		start := time.Now()
		if _, err := eval(Evaluation{Expression: expr}); errs.Code(err) != errs.Timeout || time.Since(start) > 15*time.Second {
			t.Fatalf("%s: %v after %v, want a timeout at the deadline", expr, err, time.Since(start))
		}
		if got, err := eval(Evaluation{Expression: "document.title"}); err != nil || got.JSON != `"Eval"` {
			t.Fatalf("after %s: %+v %v", expr, got, err)
		}
		var title string
		if err := tab.Eval(ctx, "document.title", &title); err != nil || title != "Eval" {
			t.Fatalf("isolated world after %s: %q %v", expr, title, err)
		}
	}
	if _, err := eval(Evaluation{Expression: "({ get x() { throw new RangeError('no x') } })"}); errs.Code(err) != errs.ScriptError || !strings.Contains(err.Error(), "no x") {
		t.Fatalf("a getter that throws: %v, want script_error", err)
	}
	var title string
	if err := tab.Eval(ctx, "document.title", &title); err != nil || title != "Eval" {
		t.Fatalf("isolated world after the loop: %q %v", title, err)
	}
}

func mustObject(t *testing.T, ctx context.Context, tab *Tab, expr string) runtime.RemoteObjectID {
	t.Helper()
	id, err := tab.EvalObjectIn(ctx, nil, expr)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
