package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/engine/timing"
	"github.com/tabwright/tabwright/internal/testtabs"
)

// env is the browser and fixture server of this test binary.
var env *testtabs.Env

func TestMain(m *testing.M) {
	var err error
	if env, err = testtabs.Start("../../testdata/batch", "../../testdata/shared"); err != nil {
		panic(err)
	}
	code := m.Run()
	env.Close()
	os.Exit(code)
}

// page opens a fresh claimed tab on a fixture page.
func page(t testing.TB, name string) *tabs.Tab { return env.Page(t, name) }

// request builds a batch for the tab from its steps and extra top-level
// fields (a JSON object's members without braces, or "").
func request(tab *tabs.Tab, steps string, extra string) json.RawMessage {
	s := fmt.Sprintf(`{"tab_handle":%q,"steps":%s`, tab.Handle(), steps)
	if extra != "" {
		s += "," + extra
	}
	return json.RawMessage(s + "}")
}

// runBatch prevalidates a batch (which must be valid) and runs it.
func runBatch(t testing.TB, raw json.RawMessage) *Result {
	t.Helper()
	req, v := Prevalidate(raw)
	if len(v) > 0 {
		t.Fatalf("batch refused: %v", v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return Run(ctx, req.tab(t), req)
}

// tab finds the claimed tab a request names.
func (r *Request) tab(t testing.TB) *tabs.Tab {
	t.Helper()
	tab, err := env.Manager.Get("test", r.TabHandle)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func mustOK(t testing.TB, r *Result) {
	t.Helper()
	if !r.OK {
		b, _ := json.MarshalIndent(r, "", "  ")
		t.Fatalf("batch failed:\n%s", b)
	}
}

func evalString(t testing.TB, tab *tabs.Tab, expr string) string {
	t.Helper()
	var s string
	if err := tab.Eval(context.Background(), expr, &s); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return s
}

func valueOf(t testing.TB, tab *tabs.Tab, sel string) string {
	t.Helper()
	return evalString(t, tab, fmt.Sprintf("document.querySelector(%q).value", sel))
}

// formSteps fill and submit the 12-field form of form.html, with every kind
// of locator, then wait for the server's answer.
const formSteps = `[
	{"action":"fill","selector":"Full name","selector_type":"label","text":"Ada Lovelace"},
	{"action":"fill","selector":"you@example.com","selector_type":"placeholder","text":"ada@example.com"},
	{"action":"fill","selector":"#phone","text":"+44 20 7946 0000"},
	{"action":"fill","selector":"//input[@name='company']","selector_type":"xpath","text":"Analytical Engines Ltd"},
	{"action":"fill","selector":"Street address","selector_type":"label","text":"12 St James's Square"},
	{"action":"fill","selector":"City","selector_type":"placeholder","text":"London"},
	{"action":"fill","selector":"textbox","selector_type":"role","name":"Postcode","text":"SW1Y 4JH"},
	{"action":"select_option","selector":"Country","selector_type":"label","label":"Netherlands"},
	{"action":"click","selector":"radio","selector_type":"role","name":"Pro"},
	{"action":"click","selector":"#news"},
	{"action":"click","selector":"I accept the terms","selector_type":"label"},
	{"action":"fill","selector":"//textarea[@id='notes']","selector_type":"xpath","text":"Call after 5pm"},
	{"action":"click","selector":"button","selector_type":"role","name":"Create account"},
	{"action":"wait","condition":"text","selector":"#result","expected":"Thanks, Ada Lovelace!"}
]`

const formObserve = `"observe":{"selector":"#result"}`

// The whole form in one batch: every field filled and verified, the result
// read by the final wait and the batch's observe.
func TestFormInOneBatch(t *testing.T) {
	t.Parallel()
	tab := page(t, "form.html")
	r := runBatch(t, request(tab, formSteps, formObserve))
	mustOK(t, r)
	if len(r.Steps) != 14 || r.FailedStep != nil || r.Error != nil || r.Skipped != 0 {
		t.Fatalf("result: %+v", r)
	}
	for i, st := range r.Steps {
		if st.Index != i || !st.OK || st.Result == nil || st.Error != nil || st.ElapsedMS < 0 {
			t.Fatalf("step %d: %+v", i, st)
		}
	}
	// What each step verified.
	if v := r.Steps[0].Value; v == nil || *v != "Ada Lovelace" {
		t.Errorf("fill by label read back %v", v)
	}
	if v := r.Steps[6].Value; v == nil || *v != "SW1Y 4JH" {
		t.Errorf("fill by role read back %v", v)
	}
	if r.Steps[7].Selected["value"] != "nl" {
		t.Errorf("select: %v", r.Steps[7].Selected)
	}
	if r.Steps[13].Action != "wait" || r.Steps[13].Wait == nil {
		t.Errorf("wait: %+v", r.Steps[13].Result)
	}
	// The batch's observe reads the result text once at the end.
	if r.ObserveError != nil || r.Observe == nil {
		t.Fatalf("observe: %v %v", r.Observe, r.ObserveError)
	}
	got := r.Observe.Text
	if got == "" {
		got = r.Observe.Name
	}
	for _, want := range []string{"Thanks, Ada Lovelace!", "email=ada@example.com", "phone=+44 20 7946 0000", "company=Analytical Engines Ltd",
		"street=12 St James's Square", "city=London", "zip=SW1Y 4JH", "country=nl", "plan=pro", "news=on", "terms=on", "notes=Call after 5pm"} {
		if !strings.Contains(got, want) {
			t.Errorf("result %q lacks %q", got, want)
		}
	}
	var sum int64
	for _, st := range r.Steps {
		sum += st.ElapsedMS
	}
	if r.ElapsedMS < sum {
		t.Errorf("batch elapsed %d ms < sum of its steps %d ms", r.ElapsedMS, sum)
	}
}

// A step's observe reads a combobox right after the step: the popup's
// options come back with it.
func TestComboboxOptionsInStepObserve(t *testing.T) {
	t.Parallel()
	tab := page(t, "combo.html")
	r := runBatch(t, request(tab, `[
		{"action":"click","selector":"Destination","selector_type":"label","observe":{}},
		{"action":"type","focused":true,"text":"b","observe":{"selector":"#city","max_options":1}},
		{"action":"click","selector":"option","selector_type":"role","name":"Brussels"},
		{"action":"wait","condition":"text","selector":"#picked","expected":"picked bru"}
	]`, `"observe":{"selector":"#city"}`))
	mustOK(t, r)
	c := r.Steps[0].Control
	if c == nil || c.Role != "combobox" || c.Expanded == nil || !*c.Expanded {
		t.Fatalf("combobox after click: %+v (error %v)", c, r.Steps[0].ObserveError)
	}
	var labels []string
	for _, o := range c.Options {
		labels = append(labels, fmt.Sprint(o["label"], "=", o["value"]))
	}
	if !slices.Equal(labels, []string{"Amsterdam=ams", "Berlin=ber", "Brussels=bru", "Lisbon=lis"}) {
		t.Fatalf("options: %v", labels)
	}
	// Typing filters the list (Berlin, Brussels, Lisbon); max_options cuts it
	// and says how many are left out. The typed value is stated once, in
	// the step's value, not again in its control read.
	c = r.Steps[1].Control
	if c == nil || len(c.Options) != 1 || c.Options[0]["label"] != "Berlin" || c.OptionsOmitted != 2 || c.Value != nil {
		t.Fatalf("combobox after typing: %+v", c)
	}
	if v := r.Steps[1].Value; v == nil || *v != "b" {
		t.Fatalf("typed value: %v", v)
	}
	if o := r.Observe; o == nil || o.Value == nil || *o.Value != "Brussels" || o.Expanded == nil || *o.Expanded {
		t.Fatalf("batch observe: %+v", o)
	}
}

// A form inside an iframe, located by frame path in every step.
func TestIframeFormByFramePath(t *testing.T) {
	t.Parallel()
	tab := page(t, "frame.html")
	r := runBatch(t, request(tab, `[
		{"action":"fill","selector":"Card holder","selector_type":"label","frame":{"path":["#payment"]},"text":"Ada Lovelace"},
		{"action":"fill","selector":"Card number","selector_type":"placeholder","frame":{"path":["#payment"]},"text":"4111 1111 1111 1111"},
		{"action":"select_option","selector":"#month","frame":{"path":["#payment"]},"value":"03"},
		{"action":"click","selector":"button","selector_type":"role","name":"Pay now","frame":{"path":["iframe#payment"]}},
		{"action":"wait","condition":"text","selector":"#paid","frame":{"path":["#payment"]},"expected":"Paid by Ada Lovelace"}
	]`, `"observe":{"selector":"#paid","frame":{"path":["#payment"]}}`))
	mustOK(t, r)
	if v := r.Steps[0].Value; v == nil || *v != "Ada Lovelace" {
		t.Fatalf("fill in frame read back %v", v)
	}
	if o := r.Observe; o == nil || !strings.Contains(o.Text+o.Name, "Paid by Ada Lovelace (4111 1111 1111 1111, month 03)") {
		t.Fatalf("observe: %+v %v", o, r.ObserveError)
	}
	// The top document was not touched.
	if got := evalString(t, tab, "document.getElementById('outside').textContent"); got != "outside" {
		t.Fatalf("top document: %q", got)
	}
}

// scroll until brings a far-down text into view; the next step clicks there.
func TestScrollUntil(t *testing.T) {
	t.Parallel()
	tab := page(t, "form.html")
	r := runBatch(t, request(tab, `[
		{"action":"scroll","until":{"text":"End of the terms"},"delta_y":400},
		{"action":"click","selector":"#agree"},
		{"action":"wait","condition":"text","selector":"#log","expected":"agreed"}
	]`, ""))
	mustOK(t, r)
	sc := r.Steps[0].Scroll
	if sc == nil || sc.Found == nil || !*sc.Found || sc.ScrollY <= 0 || sc.Steps < 2 {
		t.Fatalf("scroll: %+v", sc)
	}
}

// start_at skips a prefix already done: those steps are checked but do not
// run again (the counter button is clicked once in all).
func TestStartAtSkipsCompletedPrefix(t *testing.T) {
	t.Parallel()
	tab := page(t, "form.html")
	steps := `[
		{"action":"click","selector":"#count"},
		{"action":"fill","selector":"#fullname","text":"Ada"},
		{"action":"click","selector":"#missing","timeout_ms":300},
		{"action":"fill","selector":"#city","text":"London"}
	]`
	// The first try fails at step 2...
	r := runBatch(t, request(tab, steps, ""))
	if r.OK || r.FailedStep == nil || *r.FailedStep != 2 || len(r.Steps) != 3 {
		t.Fatalf("first run: %+v", r)
	}
	// ...the page is fixed, and the batch resumes there.
	tab.Eval(context.Background(), `document.body.insertAdjacentHTML('beforeend', '<button id="missing">Now here</button>')`, nil)
	r = runBatch(t, request(tab, steps, `"start_at":2`))
	mustOK(t, r)
	if r.Skipped != 2 || len(r.Steps) != 2 || r.Steps[0].Index != 2 || r.Steps[1].Index != 3 {
		t.Fatalf("resumed: skipped %d, steps %+v", r.Skipped, r.Steps)
	}
	if got := evalString(t, tab, "document.getElementById('count').textContent"); got != "Clicked 1" {
		t.Fatalf("counter %q: the skipped click ran again", got)
	}
	if valueOf(t, tab, "#city") != "London" {
		t.Fatal("step 3 did not run")
	}
	// Skipped steps are still checked: a bad one refuses the whole batch.
	_, v := Prevalidate(request(tab, `[{"action":"click"},{"action":"click","selector":"#count"}]`, `"start_at":1`))
	if len(v) != 1 || v[0].Path != "steps[0].selector" {
		t.Fatalf("skipped step not checked: %v", v)
	}
}

// The first failure stops the batch: failed_step, the error with its path,
// the results before it; later steps do not run (the page shows it).
func TestFailingMiddleStep(t *testing.T) {
	t.Parallel()
	tab := page(t, "form.html")
	r := runBatch(t, request(tab, `[
		{"action":"fill","selector":"#fullname","text":"Ada"},
		{"action":"fill","selector":"#email","text":"ada@example.com"},
		{"action":"click","selector":"button","selector_type":"role","name":"Delete account","timeout_ms":300},
		{"action":"fill","selector":"#city","text":"London"},
		{"action":"click","selector":"#count"}
	]`, formObserve))
	if r.OK || r.FailedStep == nil || *r.FailedStep != 2 {
		t.Fatalf("result: %+v", r)
	}
	if r.Error == nil || r.Error.Code != errs.NotFound || r.Error.Path != "steps[2]" || !strings.Contains(r.Error.Message, "Delete account") {
		t.Fatalf("error: %+v", r.Error)
	}
	if len(r.Steps) != 3 || !r.Steps[0].OK || !r.Steps[1].OK || r.Steps[2].OK || r.Steps[2].Error != r.Error {
		t.Fatalf("steps: %+v", r.Steps)
	}
	if v := r.Steps[1].Value; v == nil || *v != "ada@example.com" {
		t.Fatalf("prior result: %v", v)
	}
	// No batch observe after a failure.
	if r.Observe != nil || r.ObserveError != nil {
		t.Fatalf("observe after a failure: %+v %v", r.Observe, r.ObserveError)
	}
	// Page state: the steps before ran, the steps after did not, nothing was
	// rolled back.
	if valueOf(t, tab, "#fullname") != "Ada" || valueOf(t, tab, "#email") != "ada@example.com" {
		t.Fatal("prior steps rolled back")
	}
	if valueOf(t, tab, "#city") != "" || evalString(t, tab, "document.getElementById('count').textContent") != "Count" {
		t.Fatal("a step after the failure ran")
	}
	// A failed value check names its path under the step too.
	r = runBatch(t, request(tab, `[{"action":"fill","selector":"#phone","text":"123"},{"action":"fill","selector":"#zip","text":"abc","expected_value":"xyz"}]`, ""))
	if r.OK || *r.FailedStep != 1 || r.Error.Code != errs.ValueMismatch || !strings.HasPrefix(r.Error.Path, "steps[1]") {
		t.Fatalf("value mismatch: %+v", r.Error)
	}
}

// The batch's deadline is shared: the step running when it runs out fails
// with timeout, naming what was left of the budget when it started.
func TestDeadlineExhaustion(t *testing.T) {
	t.Parallel()
	tab := page(t, "form.html")
	start := time.Now()
	r := runBatch(t, request(tab, `[
		{"action":"fill","selector":"#fullname","text":"Ada"},
		{"action":"wait","condition":"text","selector":"#result","expected":"never shown"},
		{"action":"click","selector":"#count"}
	]`, `"timeout_ms":600`))
	took := time.Since(start)
	if r.OK || r.FailedStep == nil || *r.FailedStep != 1 {
		t.Fatalf("result: %+v", r)
	}
	e := r.Error
	if e.Code != errs.Timeout || !strings.Contains(e.Message, "the batch's timeout_ms (600 ms) ran out") || e.Path != "steps[1]" {
		t.Fatalf("error: %+v", e)
	}
	if !strings.Contains(e.Hint, "timeout_ms") {
		t.Fatalf("hint: %q", e.Hint)
	}
	// Generous, as a loaded 2-core machine is slow, and still far short of
	// what the step asked: the code and message say which budget ended it.
	if took > 10*time.Second {
		t.Fatalf("took %v: the deadline was not kept", took)
	}
	if !r.Steps[0].OK || evalString(t, tab, "document.getElementById('count').textContent") != "Count" {
		t.Fatal("steps around the timeout")
	}
	// A step's own timeout_ms is capped by what remains: 20 s asked, 400 ms given.
	start = time.Now()
	r = runBatch(t, request(tab, `[{"action":"wait","condition":"visible","selector":"#nowhere","timeout_ms":20000}]`, `"timeout_ms":400`))
	if r.OK || r.Error.Code != errs.Timeout || !strings.Contains(r.Error.Message, "the batch's timeout_ms (400 ms) ran out") || time.Since(start) > 10*time.Second { // generous: half the 20 s asked
		t.Fatalf("capped step: %+v after %v", r.Error, time.Since(start))
	}
	// A step that times out on its own shorter timeout_ms reports its own
	// timeout, not the batch's.
	r = runBatch(t, request(tab, `[{"action":"wait","condition":"visible","selector":"#nowhere","timeout_ms":200}]`, `"timeout_ms":5000`))
	if r.OK || r.Error.Code != errs.Timeout || strings.Contains(r.Error.Message, "batch's") || !strings.Contains(r.Error.Message, "step 0's timeout_ms (200 ms) ran out") {
		t.Fatalf("own timeout: %+v", r.Error)
	}
	// A click whose element never comes says which budget it searched
	// within: the batch's, or its own.
	r = runBatch(t, request(tab, `[{"action":"click","selector":"#nowhere"}]`, `"timeout_ms":300`))
	if r.OK || r.Error.Code != errs.NotFound || !strings.Contains(r.Error.Message, "within the batch's timeout_ms (300 ms)") {
		t.Fatalf("not found under the batch's budget: %+v", r.Error)
	}
	r = runBatch(t, request(tab, `[{"action":"click","selector":"#nowhere","timeout_ms":200}]`, ``))
	if r.OK || r.Error.Code != errs.NotFound || !strings.Contains(r.Error.Message, "within step 0's timeout_ms (200 ms)") {
		t.Fatalf("not found under the step's budget: %+v", r.Error)
	}
}

// Dialogs: ask stops the batch with dialog_pending; accept and dismiss
// answer them and report the message; a step's policy overrides the batch's.
func TestDialogs(t *testing.T) {
	t.Parallel()
	t.Run("ask", func(t *testing.T) {
		tab := page(t, "form.html")
		r := runBatch(t, request(tab, `[
			{"action":"fill","selector":"#fullname","text":"Ada"},
			{"action":"click","selector":"#confirm"},
			{"action":"fill","selector":"#city","text":"London"}
		]`, ""))
		if r.OK || r.FailedStep == nil || *r.FailedStep != 1 || r.Error.Code != errs.DialogPending || !strings.Contains(r.Error.Message, "Discard the draft?") {
			t.Fatalf("result: %+v", r.Error)
		}
		if d := tab.PendingDialog(); d == nil || d.Type != "confirm" {
			t.Fatalf("pending dialog: %+v", d)
		}
		if _, err := tab.AnswerDialog(context.Background(), true, ""); err != nil {
			t.Fatal(err)
		}
		if valueOf(t, tab, "#city") != "" {
			t.Fatal("the step after the dialog ran")
		}
	})
	t.Run("accept", func(t *testing.T) {
		tab := page(t, "form.html")
		r := runBatch(t, request(tab, `[
			{"action":"click","selector":"#confirm"},
			{"action":"click","selector":"#alert"},
			{"action":"wait","condition":"text","selector":"#log","expected":"after alert"}
		]`, `"dialog_policy":"accept"`))
		mustOK(t, r)
		if d := r.Steps[0].Dialogs; len(d) != 1 || d[0].Message != "Discard the draft?" || d[0].Action != "accepted" {
			t.Fatalf("dialogs: %+v", d)
		}
		if d := r.Steps[1].Dialogs; len(d) != 1 || d[0].Message != "Saved as draft" {
			t.Fatalf("dialogs: %+v", d)
		}
		if log := evalString(t, tab, "document.getElementById('log').textContent"); !strings.Contains(log, "confirm true") {
			t.Fatalf("log %q", log)
		}
	})
	t.Run("dismiss with a step override", func(t *testing.T) {
		tab := page(t, "form.html")
		r := runBatch(t, request(tab, `[
			{"action":"click","selector":"#confirm"},
			{"action":"click","selector":"#confirm","dialog_policy":"accept"},
			{"action":"wait","condition":"text","selector":"#log","expected":"confirm true"}
		]`, `"dialog_policy":"dismiss"`))
		mustOK(t, r)
		if d := r.Steps[0].Dialogs; len(d) != 1 || d[0].Action != "dismissed" {
			t.Fatalf("batch policy: %+v", d)
		}
		if d := r.Steps[1].Dialogs; len(d) != 1 || d[0].Action != "accepted" {
			t.Fatalf("step override: %+v", d)
		}
		if log := evalString(t, tab, "document.getElementById('log').textContent"); log != "confirm false\nconfirm true\n" {
			t.Fatalf("log %q", log)
		}
	})
	t.Run("step ask overrides batch accept", func(t *testing.T) {
		tab := page(t, "form.html")
		r := runBatch(t, request(tab, `[{"action":"click","selector":"#alert","dialog_policy":"ask"}]`, `"dialog_policy":"accept"`))
		if r.OK || r.Error.Code != errs.DialogPending {
			t.Fatalf("result: %+v", r.Error)
		}
		tab.AnswerDialog(context.Background(), true, "")
	})
}

// A failed batch observe is reported, not fatal.
func TestBatchObserveFailureIsReported(t *testing.T) {
	t.Parallel()
	tab := page(t, "form.html")
	r := runBatch(t, request(tab, `[{"action":"fill","selector":"#city","text":"Paris"}]`, `"observe":{"selector":"#gone","timeout_ms":200}`))
	mustOK(t, r)
	if r.Observe != nil || r.ObserveError == nil || r.ObserveError.Code != errs.NotFound {
		t.Fatalf("observe: %+v %+v", r.Observe, r.ObserveError)
	}
}

// violation is one expected problem: its exact path and a piece of its
// message.
type violation struct{ path, message string }

// Every rule of the contract and of the step descriptions, with the exact
// path of its violation. Each case lists every violation Prevalidate must
// return, in order.
func TestPrevalidate(t *testing.T) {
	t.Parallel()
	step := func(s string) string { return `{"tab_handle":"h","steps":[` + s + `]}` }
	click := `{"action":"click","selector":"#a"}`
	tests := []struct {
		name string
		raw  string
		want []violation
	}{
		// the batch itself
		{"not an object", `[]`, []violation{{"arguments", "must be a JSON object"}}},
		{"empty", `{}`, []violation{{"tab_handle", "is required"}, {"steps", "is required: a list of 1 to 30 steps"}}},
		{"null", `null`, []violation{{"tab_handle", "is required"}, {"steps", "is required"}}},
		{"steps minItems", `{"tab_handle":"h","steps":[]}`, []violation{{"steps", "must hold at least one step"}}},
		{"steps minItems without a handle", `{"steps":[]}`, []violation{{"tab_handle", "is required"}, {"steps", "must hold at least one step"}}},
		{"steps maxItems", `{"tab_handle":"h","steps":[` + strings.TrimSuffix(strings.Repeat(click+",", 31), ",") + `]}`, []violation{{"steps", "holds 31 steps; at most 30"}}},
		{"steps not a list", `{"tab_handle":"h","steps":{"action":"click"}}`, []violation{{"steps", "must be a list of 1 to 30 step objects"}}},
		{"empty tab_handle", `{"tab_handle":"","steps":[` + click + `]}`, []violation{{"tab_handle", "must not be empty"}}},
		{"tab_handle wrong type", `{"tab_handle":7,"steps":[` + click + `]}`, []violation{{"tab_handle", "must be a string"}}},
		{"unknown batch field", `{"tab_handle":"h","steps":[` + click + `],"retry":true}`, []violation{{"retry", "unknown field"}}},
		{"timeout_ms below", `{"tab_handle":"h","steps":[` + click + `],"timeout_ms":99}`, []violation{{"timeout_ms", "must be between 100 and 120000; got 99"}}},
		{"timeout_ms above", `{"tab_handle":"h","steps":[` + click + `],"timeout_ms":120001}`, []violation{{"timeout_ms", "must be between 100 and 120000; got 120001"}}},
		{"timeout_ms not an integer", `{"tab_handle":"h","steps":[` + click + `],"timeout_ms":1000.5}`, []violation{{"timeout_ms", "must be an integer"}}},
		{"dialog_policy enum", `{"tab_handle":"h","steps":[` + click + `],"dialog_policy":"ignore"}`, []violation{{"dialog_policy", `must be one of ask, accept, dismiss; got "ignore"`}}},
		{"start_at = number of steps", `{"tab_handle":"h","steps":[` + click + `,` + click + `],"start_at":2}`, []violation{{"start_at", "is 2 but the batch has 2 steps (indexes 0 to 1)"}}},
		{"start_at > number of steps", `{"tab_handle":"h","steps":[` + click + `],"start_at":5}`, []violation{{"start_at", "is 5 but the batch has 1 steps"}}},
		{"start_at maximum", `{"tab_handle":"h","steps":[` + click + `],"start_at":30}`, []violation{{"start_at", "must be between 0 and 29; got 30"}}},
		{"start_at minimum", `{"tab_handle":"h","steps":[` + click + `],"start_at":-1}`, []violation{{"start_at", "must be between 0 and 29; got -1"}}},

		// step shape
		{"step not an object", step(`"click #a"`), []violation{{"steps[0]", "must be a step object with an action"}}},
		{"step without action", step(`{"selector":"#a"}`), []violation{{"steps[0].action", "is required: one of click, fill, hover, press_key, scroll, select_option, type, wait"}}},
		{"unknown action", step(click + `,{"action":"navigate","url":"x"}`), []violation{{"steps[1].action", `must be one of click, fill, hover, press_key, scroll, select_option, type, wait; got "navigate"`}}},
		{"drag is not a batch step", step(`{"action":"drag","selector":"#a","dx":5}`), []violation{{"steps[0].action", `got "drag"`}}},
		{"unknown step field", step(`{"action":"click","selector":"#a","force":true}`), []violation{{"steps[0].force", `unknown field "force"`}}},
		{"another action's field", step(`{"action":"fill","selector":"#a","text":"x","button":"left"}`), []violation{{"steps[0].button", `unknown field "button"`}}},
		{"tab_handle in a step", step(`{"action":"click","selector":"#a","tab_handle":"h"}`), []violation{{"steps[0].tab_handle", "unknown field"}}},
		{"selector wrong type", step(`{"action":"click","selector":5}`), []violation{{"steps[0].selector", "must be a string"}}},
		{"nth wrong type", step(`{"action":"click","selector":"#a","nth":1.5}`), []violation{{"steps[0].nth", "must be an integer"}}},
		{"text wrong type", step(`{"action":"fill","selector":"#a","text":["x"]}`), []violation{{"steps[0].text", "must be a string"}}},
		{"nested unknown field", step(`{"action":"scroll","until":{"text":"x","where":"y"}}`), []violation{{"steps[0].until.where", "unknown field"}}},
		{"step enum", step(`{"action":"click","selector":"#a","button":"back"}`), []violation{{"steps[0].button", "must be one of left, middle, right"}}},
		{"step timeout_ms bounds", step(`{"action":"click","selector":"#a","timeout_ms":30001}`), []violation{{"steps[0].timeout_ms", "must be between 100 and 30000; got 30001"}}},
		{"step dialog_policy enum", step(`{"action":"click","selector":"#a","dialog_policy":"never"}`), []violation{{"steps[0].dialog_policy", `must be one of ask, accept, dismiss; got "never"`}}},
		{"click_count const", step(`{"action":"click","selector":"#a","click_count":3}`), []violation{{"steps[0].click_count", "must be 1 or 2; got 3"}}},

		// refs
		{"ref in a step", step(click + `,{"action":"click","ref":"e12"}`), []violation{{"steps[1].ref", "refs are refused in a batch"}}},
		{"ref in a step's observe", step(`{"action":"click","selector":"#a","observe":{"ref":"e3"}}`), []violation{{"steps[0].observe.ref", "is not a field of observe"}}},
		{"ref in the batch observe", `{"tab_handle":"h","steps":[` + click + `],"observe":{"ref":"e1"}}`, []violation{{"observe.ref", "refs are refused in a batch"}}},

		// the cross-field rules, seen through steps[i]
		{"element step needs a selector", step(`{"action":"click"},{"action":"fill","text":"x"},{"action":"hover"},{"action":"select_option","index":0}`),
			[]violation{{"steps[0].selector", "is required for click"}, {"steps[1].selector", "is required for fill"}, {"steps[2].selector", "is required for hover"}, {"steps[3].selector", "is required for select_option"}}},
		{"type: selector and focused", step(`{"action":"type","selector":"#q","focused":true,"text":"x"}`), []violation{{"steps[0].selector", "not both and not neither"}}},
		{"type: neither", step(`{"action":"type","text":"x"}`), []violation{{"steps[0].selector", "not both and not neither"}}},
		{"type: focused false", step(`{"action":"type","selector":"#q","focused":false,"text":"x"}`), []violation{{"steps[0].focused", "may only be true"}}},
		{"fill needs text", step(`{"action":"fill","selector":"#a"}`), []violation{{"steps[0].text", "is required"}}},
		{"locator options need a selector", step(`{"action":"scroll","delta_y":10,"nth":1},{"action":"press_key","key":"Enter","frame_id":"F"}`),
			[]violation{{"steps[0].selector", "selector_type, name, nth, frame and frame_id need a selector"}, {"steps[1].selector", "need a selector"}}},
		{"name only with role", step(`{"action":"click","selector":"Save","name":"Save"}`), []violation{{"steps[0].name", "is only for selector_type role"}}},
		{"frame xor frame_id", step(`{"action":"click","selector":"#a","frame":{"path":["#f"]},"frame_id":"F1"}`), []violation{{"steps[0].frame", "give frame or frame_id, not both"}}},
		{"frame needs url, title or path", step(`{"action":"click","selector":"#a","frame":{}}`), []violation{{"steps[0].frame", "needs at least one of url, title and path"}}},
		{"frame path step empty", step(`{"action":"click","selector":"#a","frame":{"path":["#f",""]}}`), []violation{{"steps[0].frame.path[1]", "must not be empty"}}},
		{"select_option: two of value/label/index", step(`{"action":"select_option","selector":"#s","value":"a","label":"A"}`), []violation{{"steps[0].value", "exactly one of value, label and index"}}},
		{"select_option: none", step(`{"action":"select_option","selector":"#s"}`), []violation{{"steps[0].value", "exactly one of value, label and index"}}},
		{"scroll needs delta_y unless until", step(`{"action":"scroll"}`), []violation{{"steps[0].delta_y", "is required unless until is given"}}},
		{"scroll x without y", step(`{"action":"scroll","delta_y":5,"x":10}`), []violation{{"steps[0].x", "give x and y together"}}},
		{"settle_ms min > max", step(click + `,` + click + `,` + click + `,` + click + `,{"action":"click","selector":"#a","settle_ms":[600,200]}`), []violation{{"steps[4].settle_ms", "min 600 is greater than max 200"}}},
		{"delay_ms min > max", step(`{"action":"type","focused":true,"text":"x","delay_ms":[90,10]}`), []violation{{"steps[0].delay_ms", "min 90 is greater than max 10"}}},
		{"delay_ms out of bounds", step(`{"action":"type","focused":true,"text":"x","delay_ms":1001}`), []violation{{"steps[0].delay_ms", "must be between 0 and 1000 ms"}}},
		{"wait url forbids a locator", step(`{"action":"wait","condition":"url","selector":"#a","expected":"/done"}`), []violation{{"steps[0].selector", "condition url reads the page, not an element"}}},
		{"wait network_idle forbids a locator", step(`{"action":"wait","condition":"network_idle","selector":"#a"}`), []violation{{"steps[0].selector", "condition network_idle reads the page"}}},
		{"wait element condition needs a selector", step(`{"action":"wait","condition":"visible"}`), []violation{{"steps[0].selector", "condition visible needs a selector"}}},
		{"wait needs a condition", step(`{"action":"wait","selector":"#a"}`), []violation{{"steps[0].condition", "is required"}}},
		{"wait expected required: url", step(`{"action":"wait","condition":"url"}`), []violation{{"steps[0].expected", "is required for condition url"}}},
		{"wait expected required: value", step(`{"action":"wait","condition":"value","selector":"#a"}`), []violation{{"steps[0].expected", "is required for condition value"}}},
		{"wait expected required: checked", step(`{"action":"wait","condition":"checked","selector":"#a"}`), []violation{{"steps[0].expected", "is required for condition checked"}}},
		{"wait expected required: selected", step(`{"action":"wait","condition":"selected","selector":"#a"}`), []violation{{"steps[0].expected", "is required for condition selected"}}},
		{"wait expected required: expanded", step(`{"action":"wait","condition":"expanded","selector":"#a"}`), []violation{{"steps[0].expected", "is required for condition expanded"}}},
		{"wait text: expected and previous", step(`{"action":"wait","condition":"text","selector":"#a","expected":"x","previous":"y"}`), []violation{{"steps[0].expected", "exactly one"}}},
		{"wait text: neither", step(`{"action":"wait","condition":"text","selector":"#a"}`), []violation{{"steps[0].expected", "exactly one"}}},
		{"wait previous only for text", step(`{"action":"wait","condition":"visible","selector":"#a","previous":"y"}`), []violation{{"steps[0].previous", "is only for condition text"}}},
		{"wait boolean expected", step(`{"action":"wait","condition":"checked","selector":"#a","expected":"yes"}`), []violation{{"steps[0].expected", "must be true or false for condition checked"}}},
		{"press_key needs a key", step(`{"action":"press_key"}`), []violation{{"steps[0].key", "is required"}}},
		{"press_key bad chord", step(`{"action":"press_key","key":"Control+Nope"}`), []violation{{"steps[0].key", ""}}},
		{"step observe bounds", step(`{"action":"click","selector":"#a","observe":{"max_options":0,"max_chars":1,"timeout_ms":5001}}`),
			[]violation{{"steps[0].observe.max_options", "must be between 1 and 100; got 0"}, {"steps[0].observe.max_chars", "must be between 1000 and 64000; got 1"}, {"steps[0].observe.timeout_ms", "must be between 100 and 5000; got 5001"}}},
		{"step observe locator rules", step(`{"action":"click","selector":"#a","observe":{"nth":1}}`), []violation{{"steps[0].observe.selector", "need a selector"}}},

		// the batch observe
		{"batch observe needs a selector", `{"tab_handle":"h","steps":[` + click + `],"observe":{}}`, []violation{{"observe.selector", "is required"}}},
		{"batch observe unknown field", `{"tab_handle":"h","steps":[` + click + `],"observe":{"selector":"#a","text":"x"}}`, []violation{{"observe.text", "unknown field"}}},
		{"batch observe bounds and locator", `{"tab_handle":"h","steps":[` + click + `],"observe":{"selector":"#a","name":"x","max_chars":64001,"frame":{"path":[]}}}`,
			[]violation{{"observe.frame.path", "must hold at least 1 item(s)"}, {"observe.max_chars", "must be between 1000 and 64000; got 64001"}, {"observe.name", "is only for selector_type role"}}},
		{"batch observe not an object", `{"tab_handle":"h","steps":[` + click + `],"observe":"#a"}`, []violation{{"observe", "must be an object"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, v := Prevalidate(json.RawMessage(tc.raw))
			checkViolations(t, tc.raw, v, tc.want)
		})
	}
}

func checkViolations(t *testing.T, raw string, got []*errs.Error, want []violation) {
	t.Helper()
	var lines []string
	for _, e := range got {
		lines = append(lines, e.Path+": "+e.Message)
	}
	if len(got) != len(want) {
		t.Fatalf("%s:\ngot %d violations:\n  %s\nwant %d: %v", raw, len(got), strings.Join(lines, "\n  "), len(want), want)
	}
	for i, w := range want {
		e := got[i]
		if e.Code != errs.InvalidInput || e.Path != w.path || !strings.Contains(e.Message, w.message) || e.Message == "" {
			t.Errorf("violation %d = %s %q, want %s containing %q (all: %v)", i, e.Code, e.Path+": "+e.Message, w.path, w.message, lines)
		}
		if strings.Contains(e.Message, "oneOf") || strings.Contains(e.Message, "did not validate") {
			t.Errorf("generic schema message: %v", e)
		}
	}
}

// One batch with many problems reports all of them, in step order, each
// with its own path — never only the first, never a generic oneOf message.
func TestPrevalidateReportsEverything(t *testing.T) {
	t.Parallel()
	raw := `{"tab_handle":"h","timeout_ms":50,"dialog_policy":"later","start_at":12,"steps":[
		{"action":"fill","selector":"#name","text":"Ada"},
		{"action":"click"},
		{"action":"type","selector":"#q","focused":true,"text":"x"},
		{"action":"click","ref":"e4"},
		{"action":"click","selector":"#go","settle_ms":[600,200]},
		{"action":"select_option","selector":"#s","value":"a","index":1},
		{"action":"scroll","nth":2},
		{"action":"wait","condition":"url","selector":"#x"},
		{"action":"wait","condition":"text","selector":"#log"},
		{"action":"click","selector":"Save","name":"Save","frame":{},"frame_id":"F"},
		{"action":"fill","selector":"#a","text":"x","bogus":1},
		{"action":"teleport"}
	],"observe":{"ref":"e9"}}`
	_, v := Prevalidate(json.RawMessage(raw))
	checkViolations(t, raw, v, []violation{
		{"timeout_ms", "must be between 100 and 120000; got 50"},
		{"dialog_policy", `got "later"`},
		{"steps[1].selector", "is required for click"},
		{"steps[2].selector", "not both and not neither"},
		{"steps[3].ref", "refs are refused in a batch"},
		{"steps[4].settle_ms", "min 600 is greater than max 200"},
		{"steps[5].value", "exactly one of value, label and index"},
		{"steps[6].selector", "need a selector"},
		{"steps[6].delta_y", "is required unless until is given"},
		{"steps[7].selector", "reads the page, not an element"},
		{"steps[7].expected", "is required for condition url"},
		{"steps[8].expected", "exactly one"},
		{"steps[9].frame", "give frame or frame_id, not both"},
		{"steps[9].frame", "needs at least one of url, title and path"},
		{"steps[9].name", "is only for selector_type role"},
		{"steps[10].bogus", "unknown field"},
		{"steps[11].action", `got "teleport"`},
		{"start_at", "is 12 but the batch has 12 steps"},
		{"observe.ref", "refs are refused in a batch"},
	})
}

// A valid batch decodes into the steps it will run, with the batch's own
// fields; skipped steps are decoded too.
func TestPrevalidateValid(t *testing.T) {
	t.Parallel()
	raw := `{"tab_handle":"th-1","timeout_ms":120000,"dialog_policy":"dismiss","start_at":29,"steps":[` +
		strings.TrimSuffix(strings.Repeat(`{"action":"press_key","key":"Tab"},`, 29), ",") +
		`,{"action":"wait","condition":"network_idle","idle_ms":100,"dialog_policy":"accept","observe":{"selector":"#a","popup_selector":"#p"}}],` +
		`"observe":{"selector":"button","selector_type":"role","name":"Go","nth":0,"frame":{"title":"F"},"max_options":100,"max_chars":64000,"timeout_ms":5000,"popup_selector":"#m"}}`
	req, v := Prevalidate(json.RawMessage(raw))
	if len(v) > 0 {
		t.Fatalf("refused: %v", v)
	}
	if req.TabHandle != "th-1" || *req.TimeoutMS != 120000 || req.DialogPolicy != "dismiss" || *req.StartAt != 29 || len(req.Steps) != 30 || len(req.RawSteps) != 30 {
		t.Fatalf("request: %+v", req)
	}
	last := req.Steps[29]
	if last.Action != "wait" || last.Condition != "network_idle" || *last.IdleMS != 100 || last.DialogPolicy != "accept" || last.Observe.PopupSelector != "#p" {
		t.Fatalf("last step: %+v", last)
	}
	if o := req.Observe; o == nil || o.Selector != "button" || o.SelectorType != "role" || *o.Name != "Go" || o.Frame.Title != "F" || *o.MaxChars != 64000 {
		t.Fatalf("observe: %+v", o)
	}
	// Defaults stay unset: Run applies them.
	req, v = Prevalidate(json.RawMessage(`{"tab_handle":"h","steps":[{"action":"scroll","until":{"text":"End"}}]}`))
	if len(v) > 0 || req.TimeoutMS != nil || req.StartAt != nil || req.DialogPolicy != "" || req.Observe != nil {
		t.Fatalf("defaults: %+v %v", req, v)
	}
}

// A step's last check (here a fill's read-back) rides the next step's
// first page call; when it fails, that step did nothing, and the batch
// fails at the step the check belongs to, as if it had run at once.
func TestCarriedCheckFailureStopsTheBatch(t *testing.T) {
	t.Parallel()
	tab := page(t, "form.html")
	r := runBatch(t, request(tab, `[
		{"action":"fill","selector":"#fullname","text":"Ada"},
		{"action":"fill","selector":"#zip","text":"abc","expected_value":"xyz"},
		{"action":"click","selector":"#count"}
	]`, ""))
	if r.OK || r.FailedStep == nil || *r.FailedStep != 1 || len(r.Steps) != 2 {
		t.Fatalf("result: %+v", r)
	}
	if e := r.Error; e.Code != errs.ValueMismatch || e.Path != "steps[1]" || r.Steps[1].Error != e || r.Steps[1].OK {
		t.Fatalf("error: %+v", e)
	}
	if v := r.Steps[1].Value; v == nil || *v != "abc" {
		t.Fatalf("read back: %v", v)
	}
	if v := r.Steps[0].Value; !r.Steps[0].OK || v == nil || *v != "Ada" || r.Steps[0].Verified == "" {
		t.Fatalf("step 0: %+v", r.Steps[0].Result)
	}
	if got := evalString(t, tab, "document.getElementById('count').textContent"); got != "Count" {
		t.Fatalf("the click after the failed check ran: %q", got)
	}
}

// The CDP commands of each step of the form batch, a figure machine load
// does not change (issue 24). A DOM-side action is one page call with its
// checks: fill finds, checks and selects the text in one, inserts it, reads
// it back; select_option and the batch observe are one call each. A native
// click is one check, three pipelined mouse events and one read of what the
// element received. A role locator adds the accessibility query and the
// node lookup, its release sent without waiting, and once per document the
// read of the document to query under.
func TestFormBatchRoundTrips(t *testing.T) {
	tab := page(t, "form.html")
	req, v := Prevalidate(request(tab, formSteps, formObserve))
	if len(v) > 0 {
		t.Fatal(v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// As after browser_navigate: a new document, the tab's world known.
	if _, err := tab.Navigate(ctx, tabs.Navigation{URL: env.Site.URL + "/form.html"}); err != nil {
		t.Fatal(err)
	}
	rec := &timing.Recorder{}
	r := Run(timing.With(ctx, rec), tab, req)
	mustOK(t, r)
	want := map[string]int{
		"steps[0] fill": 2, "steps[1] fill": 2, "steps[2] fill": 2, "steps[3] fill": 2, "steps[4] fill": 2,
		"steps[5] fill":          2,
		"steps[6] fill":          2, // role with a name: answered in the page; carries step 5's read-back
		"steps[7] select_option": 1,
		"steps[8] click":         4, // role too
		"steps[9] click":         4,
		"steps[10] click":        4,
		"steps[11] fill":         2,
		"steps[12] click":        5, // role, and what it reached read on its own: a wait follows
		"steps[13] wait":         1,
		"observe":                1,
	}
	spans := rec.Spans()
	if len(spans) != len(want) {
		t.Fatalf("%d spans, want %d:\n%s", len(spans), len(want), timing.Table(spans))
	}
	for _, s := range spans {
		if got := len(s.Commands); got != want[s.Name] {
			t.Errorf("%s: %d commands (%s), want %d", s.Name, got, timing.Of(s).MethodList(), want[s.Name])
		}
	}
	if rec.Unspanned() != 0 {
		t.Errorf("%d commands outside the steps", rec.Unspanned())
	}
}

// A password's read-back that rides the next step's page call keeps the
// secret out of the batch result as the immediate check does, and a
// carried mismatch fails its own step without echoing the value.
func TestCarriedSecretReadBackIsNotEchoed(t *testing.T) {
	t.Parallel()
	tab := page(t, "secret.html")
	r := runBatch(t, request(tab, `[
		{"action":"fill","selector":"#pw","text":"hunter2-secret"},
		{"action":"fill","selector":"#email","text":"ann@example.com"}
	]`, ""))
	mustOK(t, r)
	if raw, _ := json.Marshal(r); strings.Contains(string(raw), "hunter2") {
		t.Fatalf("the batch echoes the password: %s", raw)
	}
	r = runBatch(t, request(tab, `[
		{"action":"fill","selector":"#pin","text":"hunter2-secret"},
		{"action":"fill","selector":"#email","text":"bob@example.com"}
	]`, ""))
	if r.OK || r.FailedStep == nil || *r.FailedStep != 0 || r.Error == nil || r.Error.Code != errs.ValueMismatch {
		t.Fatalf("a truncated PIN must fail its own step: %+v", r)
	}
	if raw, _ := json.Marshal(r); strings.Contains(string(raw), "hunt") {
		t.Fatalf("the mismatch echoes the secret: %s", raw)
	}
}
