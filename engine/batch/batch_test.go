package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

var (
	manager *tabs.Manager
	site    *httptest.Server
)

func TestMain(m *testing.M) {
	site = httptest.NewServer(http.FileServer(http.Dir("../../testdata/batch")))
	var err error
	manager, err = tabs.New(tabs.Options{})
	if err != nil {
		panic(err)
	}
	code := m.Run()
	manager.Close()
	site.Close()
	os.Exit(code)
}

// page opens a fresh claimed tab on a fixture page.
func page(t testing.TB, name string) *tabs.Tab {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opened, err := manager.Open(ctx, "test", "", "about:blank", true, true)
	if err != nil {
		t.Fatal(err)
	}
	tab := opened.Tab
	t.Cleanup(func() { manager.CloseTab(context.Background(), "test", tab.Handle()) })
	if _, err := tab.Navigate(ctx, tabs.Navigation{URL: site.URL + "/" + name}); err != nil {
		t.Fatal(err)
	}
	return tab
}

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
	tab, err := manager.Get("test", r.TabHandle)
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
	// and says how many are left out.
	c = r.Steps[1].Control
	if c == nil || len(c.Options) != 1 || c.Options[0]["label"] != "Berlin" || c.OptionsOmitted != 2 || c.Value == nil || *c.Value != "b" {
		t.Fatalf("combobox after typing: %+v", c)
	}
	if o := r.Observe; o == nil || o.Value == nil || *o.Value != "Brussels" || o.Expanded == nil || *o.Expanded {
		t.Fatalf("batch observe: %+v", o)
	}
}

// A form inside an iframe, located by frame path in every step.
func TestIframeFormByFramePath(t *testing.T) {
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
	if e.Code != errs.Timeout || !strings.Contains(e.Message, "step 1 (wait) ran out of the batch's deadline") || !strings.Contains(e.Message, "ms were left when it started") || e.Path != "steps[1]" {
		t.Fatalf("error: %+v", e)
	}
	var left int
	if _, err := fmt.Sscanf(e.Message[strings.Index(e.Message, "deadline: ")+len("deadline: "):], "%d ms were left", &left); err != nil || left <= 0 || left >= 600 {
		t.Fatalf("remaining budget %d in %q (%v)", left, e.Message, err)
	}
	if !strings.Contains(e.Hint, "timeout_ms") {
		t.Fatalf("hint: %q", e.Hint)
	}
	if took > 3*time.Second {
		t.Fatalf("took %v: the deadline was not kept", took)
	}
	if !r.Steps[0].OK || evalString(t, tab, "document.getElementById('count').textContent") != "Count" {
		t.Fatal("steps around the timeout")
	}
	// A step's own timeout_ms is capped by what remains: 20 s asked, 400 ms given.
	start = time.Now()
	r = runBatch(t, request(tab, `[{"action":"wait","condition":"visible","selector":"#nowhere","timeout_ms":20000}]`, `"timeout_ms":400`))
	if r.OK || r.Error.Code != errs.Timeout || !strings.Contains(r.Error.Message, "ran out of the batch's deadline") || time.Since(start) > 3*time.Second {
		t.Fatalf("capped step: %+v after %v", r.Error, time.Since(start))
	}
	// A step that times out on its own shorter timeout_ms reports its own
	// timeout, not the batch's.
	r = runBatch(t, request(tab, `[{"action":"wait","condition":"visible","selector":"#nowhere","timeout_ms":200}]`, `"timeout_ms":5000`))
	if r.OK || r.Error.Code != errs.Timeout || strings.Contains(r.Error.Message, "batch's deadline") || !strings.Contains(r.Error.Message, "did not hold in time") {
		t.Fatalf("own timeout: %+v", r.Error)
	}
}

// Dialogs: ask stops the batch with dialog_pending; accept and dismiss
// answer them and report the message; a step's policy overrides the batch's.
func TestDialogs(t *testing.T) {
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
	tab := page(t, "form.html")
	r := runBatch(t, request(tab, `[{"action":"fill","selector":"#city","text":"Paris"}]`, `"observe":{"selector":"#gone","timeout_ms":200}`))
	mustOK(t, r)
	if r.Observe != nil || r.ObserveError == nil || r.ObserveError.Code != errs.NotFound {
		t.Fatalf("observe: %+v %+v", r.Observe, r.ObserveError)
	}
}
