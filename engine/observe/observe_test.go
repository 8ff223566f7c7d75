package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/launch"
)

// One browser and one fixture server for the whole test binary.
var (
	browser *launch.Browser
	server  *httptest.Server
)

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	b, err := launch.Start(ctx, launch.Options{})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "observe tests need Chromium:", err)
		os.Exit(1)
	}
	browser = b
	server = httptest.NewServer(http.FileServer(http.Dir("../../testdata/pages")))
	code := m.Run()
	server.Close()
	b.Close()
	os.Exit(code)
}

// tab is a test Page: one target, its session, and the isolated world of its
// main frame, created once per document so refs persist between captures.
type tab struct {
	sess  *cdp.Session
	world runtime.ExecutionContextID
}

// Refs gives each document a one-letter tag of its own, as a tab's first
// scopes get (tabs.Tab.ScopeRefs), so refs read as the server's do.
func (p *tab) Refs(doc string) func(string) string {
	testTags.mu.Lock()
	defer testTags.mu.Unlock()
	tag, ok := testTags.byDoc[doc]
	if !ok {
		tag = string(rune('a' + len(testTags.byDoc)%26))
		testTags.byDoc[doc] = tag
	}
	return func(ref string) string {
		if num, ok := strings.CutPrefix(ref, "e"); ok {
			return tag + num
		}
		return ref
	}
}

var testTags = struct {
	mu    sync.Mutex
	byDoc map[string]string
}{byDoc: map[string]string{}}

func (p *tab) Eval(ctx context.Context, expression string, out any) error {
	return p.eval(ctx, p.world, expression, out)
}

// mainEval evaluates in the page's own world, as the page's scripts see it.
func (p *tab) mainEval(ctx context.Context, expression string, out any) error {
	return p.eval(ctx, 0, expression, out)
}

func (p *tab) eval(ctx context.Context, world runtime.ExecutionContextID, expression string, out any) error {
	res, err := cdproto.Call(ctx, p.sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression:    expression,
		ContextID:     world,
		ReturnByValue: ptr(true),
	})
	if err != nil {
		return err
	}
	if d := res.ExceptionDetails; d != nil {
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg = d.Exception.Description
		}
		return fmt.Errorf("page exception at %d:%d: %s", d.LineNumber, d.ColumnNumber, msg)
	}
	raw := []byte(res.Result.Value)
	if len(raw) == 0 {
		raw = []byte("null")
	}
	return json.Unmarshal(raw, out)
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// sharedTab is the one tab the tests navigate: creating a target costs
// Chromium far more than navigating one. Tests run one at a time.
var sharedTab *cdp.Session

// open loads a fixture page, waits for its load event and creates the
// isolated world of the new document.
func open(t testing.TB, ctx context.Context, path string) *tab {
	t.Helper()
	if sharedTab == nil {
		created, err := cdproto.Call(ctx, browser.Conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
		if err != nil {
			t.Fatal(err)
		}
		if sharedTab, err = browser.Conn.Attach(ctx, created.TargetID); err != nil {
			t.Fatal(err)
		}
		if _, err := cdproto.Call(ctx, sharedTab, page.Enable, page.EnableParams{}); err != nil {
			t.Fatal(err)
		}
		if _, err := cdproto.Call(ctx, sharedTab, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true}); err != nil {
			t.Fatal(err)
		}
		// As a claimed tab does: each new document's world holds the scripts.
		if _, err := cdproto.Call(ctx, sharedTab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: injected.NewDocument(), WorldName: "tabwright"}); err != nil {
			t.Fatal(err)
		}
	}
	sess := sharedTab
	events := cdproto.Events(ctx, sess, page.LifecycleEvent) // subscribed before navigating
	nav, err := cdproto.Call(ctx, sess, page.Navigate, page.NavigateParams{URL: server.URL + path})
	if err != nil || nav.ErrorText != "" {
		t.Fatalf("navigate %s: %v %s", path, err, nav.ErrorText)
	}
	for ev, err := range events {
		if err != nil {
			t.Fatalf("waiting for the load of %s: %v", path, err)
		}
		if ev.Name == "load" && ev.LoaderID == nav.LoaderID {
			break
		}
	}
	tree, err := cdproto.Call(ctx, sess, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	world, err := cdproto.Call(ctx, sess, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: tree.FrameTree.Frame.ID, WorldName: "tabwright"})
	if err != nil {
		t.Fatal(err)
	}
	return &tab{sess: sess, world: world.ExecutionContextID}
}

func capture(t testing.TB, ctx context.Context, p *tab, opt Options) (*Observation, []byte) {
	t.Helper()
	o, err := Capture(ctx, p, opt)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return o, raw
}

func findForm(t *testing.T, o *Observation, selector string) *Form {
	t.Helper()
	for i := range o.Forms {
		if o.Forms[i].Selector == selector {
			return &o.Forms[i]
		}
	}
	t.Fatalf("no form %s in %+v", selector, o.Forms)
	return nil
}

func fieldNamed(t *testing.T, f *Form, name string) *Field {
	t.Helper()
	for i := range f.Fields {
		if f.Fields[i].Name == name {
			return &f.Fields[i]
		}
	}
	t.Fatalf("no field %q in form %s", name, f.Selector)
	return nil
}

func TestForms(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/login.html")
	o, raw := capture(t, ctx, p, Options{})

	for _, secret := range []string{"hunter2", "s3cret", "4111111111111111"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the observation carries the secret %q", secret)
		}
	}
	if o.Title != "Account · Fixture" || o.URL != server.URL+"/login.html" {
		t.Errorf("title %q url %q", o.Title, o.URL)
	}
	if len(o.Forms) != 3 {
		t.Fatalf("want 2 forms and 1 group of loose fields, got %d: %s", len(o.Forms), raw)
	}

	signin := findForm(t, o, "#signin")
	if signin.Name != "signin" || signin.Action != "/session" || signin.Method != "post" {
		t.Errorf("signin form: %+v", signin)
	}
	if len(signin.Fields) != 4 {
		t.Errorf("signin: want email, password, remember, submit (hidden inputs left out), got %+v", signin.Fields)
	}
	email := fieldNamed(t, signin, "email")
	if email.Label != "Email address" || email.Type != "email" || !email.Required || email.Value != "ada@example.test" || email.Selector != "[name=email]" || email.Name != "email" {
		t.Errorf("email: %+v", email)
	}
	pw := fieldNamed(t, signin, "password")
	if pw.Label != "Password" || pw.Type != "password" || pw.Value != "" || !pw.Required {
		t.Errorf("password (label from a wrapping <label>): %+v", pw)
	}
	remember := fieldNamed(t, signin, "remember")
	if remember.Label != "Remember me" || remember.Type != "checkbox" || !remember.Checked {
		t.Errorf("remember: %+v", remember)
	}
	if sub := signin.Fields[3]; sub.Type != "submit" || sub.Label != "Sign in" {
		t.Errorf("submit button: %+v", sub)
	}

	// The signup form has no id, a relative action, no method, and controls
	// named "id" that would clobber form.id.
	var signup *Form
	for i := range o.Forms {
		if strings.HasSuffix(o.Forms[i].Action, "/signup") {
			signup = &o.Forms[i]
		}
	}
	if signup == nil {
		t.Fatalf("no signup form: %s", raw)
	}
	if signup.Action != "/signup" || signup.Method != "" || strings.Contains(signup.Selector, "object") {
		t.Errorf("signup form: %+v", signup)
	}
	labels := map[string]string{
		"first": "First name", // aria-labelledby, ahead of aria-label
		"last":  "Last name",  // aria-label
		"nick":  "Nickname",   // placeholder
		"phone": "Phone number",
		"bio":   "Bio",
		"code":  "Invite code",
	}
	for name, want := range labels {
		if f := fieldNamed(t, signup, name); f.Label != want {
			t.Errorf("%s: label %q, want %q", name, f.Label, want)
		}
	}
	if f := fieldNamed(t, signup, "phone"); f.Type != "tel" {
		t.Errorf("phone type %q", f.Type)
	}
	country := fieldNamed(t, signup, "country")
	if country.Type != "select" || country.Value != "jp" || !country.Required || len(country.Options) != 3 ||
		country.Options[2] != (Option{Value: "jp", Label: "Japan"}) {
		t.Errorf("country: %+v", country)
	}
	langs := fieldNamed(t, signup, "langs")
	if langs.Type != "select-multiple" || langs.Label != "Languages" || len(langs.Options) != 2 || !langs.Options[0].Selected {
		t.Errorf("langs: %+v", langs)
	}
	plan := fieldNamed(t, signup, "plan")
	if plan.Type != "radio" || plan.Label != "Plan" || plan.Value != "free" || !plan.Required || len(plan.Options) != 3 {
		t.Errorf("plan radio group: %+v", plan)
	} else {
		// The group's value says which radio is checked; each radio's
		// selector is input[name=plan][value=V], so it is not written.
		want := []struct {
			value, label string
			disable      bool
		}{{"free", "Free", false}, {"pro", "Pro", false}, {"team", "Team", true}}
		for i, w := range want {
			got := plan.Options[i]
			if got.Value != w.value || got.Label != w.label || got.Selected || got.Disabled != w.disable || got.Selector != "" {
				t.Errorf("plan option %d: %+v, want %+v", i, got, w)
			}
		}
	}
	colour := fieldNamed(t, signup, "colour")
	if colour.Label != "Favourite colour" || len(colour.Options) != 2 || colour.Options[1].Label != "Sky blue" {
		t.Errorf("colour with datalist: %+v", colour)
	}
	if bio := fieldNamed(t, signup, "bio"); bio.Type != "textarea" || bio.Value != "Hello there" {
		t.Errorf("bio: %+v", bio)
	}
	if code := fieldNamed(t, signup, "code"); !code.Disabled || code.Value != "ABC" {
		t.Errorf("code: %+v", code)
	}
	if hp := fieldNamed(t, signup, "honeypot"); !hp.Hidden {
		t.Errorf("honeypot (display:none) should be marked hidden: %+v", hp)
	}
	for _, secret := range []string{"newpw", "card"} {
		if f := fieldNamed(t, signup, secret); f.Value != "" {
			t.Errorf("%s carries its value", secret)
		}
	}
	for _, f := range signup.Fields {
		if f.Name == "id" {
			t.Errorf("hidden input reported: %+v", f)
		}
	}

	// The loose newsletter field makes a synthetic group.
	var loose *Form
	for i := range o.Forms {
		if o.Forms[i].Synthetic {
			loose = &o.Forms[i]
		}
	}
	if loose == nil || len(loose.Fields) != 1 || loose.Fields[0].Label != "Newsletter email" || loose.Action != "" {
		t.Fatalf("synthetic group: %+v", loose)
	}
	var n int
	if err := p.mainEval(ctx, fmt.Sprintf("document.querySelectorAll(%q).length", loose.Selector), &n); err != nil || n != 1 {
		t.Errorf("group selector %q matches %d elements (%v)", loose.Selector, n, err)
	}

	// Our namespace lives in the isolated world only; the page's
	// window.__tabwright is still its own element.
	var pageSees string
	if err := p.mainEval(ctx, "String(window.__tabwright && window.__tabwright.tagName)", &pageSees); err != nil || pageSees != "DIV" {
		t.Errorf("page sees window.__tabwright as %q (%v)", pageSees, err)
	}
	validate(t, raw)
}

func TestHiddenTextAndInteractive(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/hidden.html")
	o, raw := capture(t, ctx, p, Options{})

	if strings.Contains(o.TextPreview, "NOPE") {
		t.Errorf("hidden text leaked:\n%s", o.TextPreview)
	}
	for _, want := range []string{
		// aria-hidden content is drawn: a person reads it (issue 47).
		"Visible heading\nShown paragraph with lots of white space.\nVisible child of hidden\nDrawn under aria-hidden\n",
		"\nInline bold and italic stay on one line.\n",
		"\nFirst item\nSecond item\n",
		"Cell A Cell B\nCell C Cell D",
		"line one\nline two",
		"Slotted title\nShadow text",
	} {
		if !strings.Contains(o.TextPreview, want) {
			t.Errorf("text lacks %q:\n%s", want, o.TextPreview)
		}
	}
	// textlength counts all the visible text, the lines the preview leaves
	// out because a listed element's label says them ("More info") too.
	if o.TextLength <= len([]rune(o.TextPreview)) || strings.Contains(o.TextPreview, "More info") || o.Truncated() != nil {
		t.Errorf("short page: textlength %d, preview %d, truncated %+v", o.TextLength, len(o.TextPreview), o.Truncated())
	}

	byLabel := map[string]Element{}
	for _, e := range o.Interactive {
		if strings.Contains(e.Label, "NOPE") {
			t.Errorf("hidden element listed: %+v", e)
		}
		byLabel[e.Label] = e
	}
	check := func(label, role string, ok func(Element) bool) {
		t.Helper()
		e, found := byLabel[label]
		if !found {
			t.Errorf("no interactive %q in %s", label, raw)
			return
		}
		if e.Role != role || (ok != nil && !ok(e)) {
			t.Errorf("%q: %+v", label, e)
		}
	}
	check("Visible button", "button", nil)
	check("More info", "button", func(e Element) bool { return e.Expanded != nil && !*e.Expanded })
	check("Tab one", "tab", func(e Element) bool { return e.Selected })
	check("Custom control", "generic", nil)
	check("Clickable span", "generic", nil)
	check("Open menu", "button", func(e Element) bool { return e.Expanded != nil && !*e.Expanded })
	check("Shadow button", "button", func(e Element) bool { return strings.Contains(e.Selector, " >>> ") })
	// The selector spells the target, so href is left out.
	check("SVG link", "link", func(e Element) bool { return e.Href == "" && e.Selector == `a[href='/svg-link']` })
	if _, ok := byLabel["Not a link without href"]; ok {
		t.Errorf("an <a> without href is not a link")
	}
	editable := false
	for _, e := range o.Interactive {
		editable = editable || (e.Role == "textbox" && e.Value == "Editable area")
	}
	if !editable {
		t.Errorf("contenteditable not listed: %s", raw)
	}
	if _, ok := byLabel["Scrollable region text"]; ok {
		t.Errorf("a focusable region is not a control")
	}
	assertUniqueSelectors(t, ctx, p, o)
	validate(t, raw)
}

// assertUniqueSelectors checks, in the page's own world, that every selector
// matches exactly its element. "host >>> inner" is resolved through the open
// shadow root.
func assertUniqueSelectors(t *testing.T, ctx context.Context, p *tab, o *Observation) {
	t.Helper()
	var sels []string
	for _, e := range o.Interactive {
		sels = append(sels, e.Selector)
	}
	list, _ := json.Marshal(sels)
	var counts []int
	err := p.mainEval(ctx, `(() => {
		const count = (sel) => {
			const parts = sel.split(' >>> ');
			let roots = [document];
			for (let i = 0; i < parts.length; i++) {
				const found = roots.flatMap((r) => [...r.querySelectorAll(parts[i])]);
				if (i === parts.length - 1) return found.length;
				roots = found.map((h) => h.shadowRoot).filter(Boolean);
			}
		};
		return `+string(list)+`.map(count);
	})()`, &counts)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range counts {
		if n != 1 {
			t.Errorf("selector %q of %s matches %d elements", sels[i], o.Interactive[i].Ref, n)
		}
	}
}

func TestBoundsAndTruncation(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/many.html")

	o, raw := capture(t, ctx, p, Options{MaxChars: 1000, MaxInteractive: 50})
	if n := len([]rune(o.TextPreview)); n > 1000 || n < 990 || !strings.HasSuffix(o.TextPreview, "…") {
		t.Errorf("preview of %d chars, want at most 1000 ending in an ellipsis", n)
	}
	if o.TextLength < 30000 || !strings.HasPrefix(o.TextPreview, "Paragraph 0: lorem ipsum") {
		t.Errorf("textlength %d should be the full length", o.TextLength)
	}
	tr := o.Truncated()
	if tr == nil || !tr.TextPreview || tr.Interactive == nil || *tr.Interactive != (Cut{Shown: 50, Omitted: 150}) {
		t.Fatalf("truncation: %+v (%s)", tr, raw[len(raw)-200:])
	}
	if len(o.Interactive) != 50 || o.Interactive[49].Label != "Button 49" {
		t.Errorf("interactive: %d, last %+v", len(o.Interactive), o.Interactive[len(o.Interactive)-1])
	}
	if !bytes.Contains(raw, []byte(`"reserved":{"truncated":{"textpreview":true,"interactive":{"shown":50,"omitted":150}}}`)) {
		t.Errorf("reserved map: %s", raw[len(raw)-200:])
	}
	validate(t, raw)

	// The defaults. Runs of cards are folded (fold), and count as shown.
	o, _ = capture(t, ctx, p, Options{})
	listed := len(o.Interactive)
	for _, r := range o.Repeated() {
		listed += r.Count()
	}
	if listed != DefaultMaxInteractive || o.Truncated().Interactive.Omitted != 200-DefaultMaxInteractive {
		t.Errorf("default bound: %d listed or folded, %+v", listed, o.Truncated().Interactive)
	}
	if n := len([]rune(o.TextPreview)); n > DefaultMaxChars {
		t.Errorf("default preview %d chars", n)
	}
	assertUniqueSelectors(t, ctx, p, o)

	// Bad options are refused before touching the page.
	for _, opt := range []Options{{MaxChars: -1}, {MaxChars: MinMaxChars - 1}, {MaxInteractive: -5}, {MaxChars: LimitMaxChars + 1},
		{Mode: ModeDiffing, Since: strings.Repeat("a", LimitSince+1)}, {Since: "abc"}} {
		_, err := Capture(ctx, p, opt)
		if errs.Code(err) != errs.InvalidInput {
			t.Errorf("%+v: %v, want invalid_input", opt, err)
		}
	}
	var e *errs.Error
	if _, err := Capture(ctx, p, Options{MaxChars: -1}); !errors.As(err, &e) || e.Path != "max_chars" {
		t.Errorf("error path: %v", err)
	}
}

func TestRefsStableAcrossObservations(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/login.html")

	before := browser.Conn.RoundTrips()
	all := Options{Include: []string{"text", "interactive"}} // form fields listed in interactive too
	first, _ := capture(t, ctx, p, all)
	if n := browser.Conn.RoundTrips() - before; n != 1 {
		t.Errorf("a capture took %d round trips, want 1", n)
	}
	refs := map[string]string{} // selector -> ref
	maxRef := 0
	for _, e := range first.Interactive {
		refs[e.Selector] = e.Ref
		maxRef = max(maxRef, refNumber(t, e.Ref))
	}
	if len(refs) < 10 {
		t.Fatalf("only %d interactive elements", len(refs))
	}

	// The page adds a button before everything else and removes a link.
	if err := p.mainEval(ctx, `(() => {
		const b = document.createElement('button');
		b.id = 'late';
		b.textContent = 'Arrived late';
		document.body.prepend(b);
		document.querySelector('a[href="/help"]').remove();
		return true;
	})()`, new(bool)); err != nil {
		t.Fatal(err)
	}
	second, _ := capture(t, ctx, p, all)
	if second.Interactive[0].Selector != "#late" || refNumber(t, second.Interactive[0].Ref) <= maxRef {
		t.Errorf("new element %+v should get a new ref above e%d", second.Interactive[0], maxRef)
	}
	kept := 0
	for _, e := range second.Interactive[1:] {
		if ref, ok := refs[e.Selector]; ok {
			kept++
			if ref != e.Ref {
				t.Errorf("%s was %s, now %s", e.Selector, ref, e.Ref)
			}
		} else {
			t.Errorf("unexpected element %+v", e)
		}
	}
	if kept != len(refs)-1 {
		t.Errorf("%d of %d surviving elements kept their refs", kept, len(refs)-1)
	}

	// A new document starts over in a new world, under a tag of its own:
	// no ref of the old document names one of the new.
	fresh := open(t, ctx, "/login.html")
	o, _ := capture(t, ctx, fresh, all)
	if tag, n := refParts(t, o.Interactive[0].Ref); n != 1 || tag == refTag(t, first.Interactive[0].Ref) {
		t.Errorf("a fresh document's first ref is %s (the old one's was %s)", o.Interactive[0].Ref, first.Interactive[0].Ref)
	}
}

// refParts splits a ref into its scope's tag and the element's number.
func refParts(t *testing.T, ref string) (string, int) {
	t.Helper()
	i := strings.IndexAny(ref, "0123456789")
	n, err := strconv.Atoi(ref[max(i, 0):])
	if i <= 0 || err != nil {
		t.Fatalf("ref %q", ref)
	}
	return ref[:i], n
}

func refNumber(t *testing.T, ref string) int {
	t.Helper()
	_, n := refParts(t, ref)
	return n
}

func refTag(t *testing.T, ref string) string {
	t.Helper()
	tag, _ := refParts(t, ref)
	return tag
}

func TestSigninPageAndRender(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/signin.html")
	o, raw := capture(t, ctx, p, Options{})
	o.Environment = "test"
	raw, _ = json.Marshal(o)
	validate(t, raw)
	if o.Mode != "" || o.SchemaVersion != 1 || time.Since(time.UnixMilli(o.CapturedAt)) > time.Minute {
		t.Errorf("header: %+v", o)
	}
	text := Render(o)
	for _, want := range []string{
		`"Sign in · Northwind Notes" ` + server.URL + "/signin.html",
		"text ", "1 form", "Welcome back",
		"form #signin post /session:\n", `"Email" [email]* `, `"Password" [password]* `, `"Remember me" [checkbox] `, `"Sign in" [submit] `,
		`link "Pricing" a[href='/pricing']`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("render lacks %q:\n%s", want, text)
		}
	}
	if len(text) > len(raw) {
		t.Errorf("the rendering (%d bytes) is longer than the JSON (%d)", len(text), len(raw))
	}
	if testing.Verbose() {
		t.Logf("render:\n%s\njson (%d bytes):\n%s", text, len(raw), raw)
	}
}

func TestCaptureReportsPageErrors(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/signin.html")
	bad := &tab{sess: p.sess, world: 987654} // a world that does not exist
	if _, err := Capture(ctx, bad, Options{}); err == nil {
		t.Fatal("capture in a missing world succeeded")
	}
}

var schema *jsonschema.Schema

func validate(t *testing.T, raw []byte) {
	t.Helper()
	if schema == nil {
		var err error
		schema, err = jsonschema.NewCompiler().Compile("../../schemas/observation.schema.json")
		if err != nil {
			t.Fatal(err)
		}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Errorf("observation does not validate: %v", err)
	}
	// Only the schema's own names at the top level; additions go in reserved.
	var top map[string]json.RawMessage
	json.Unmarshal(raw, &top)
	allowed := regexp.MustCompile(`^(schemaversion|url|title|textpreview|textlength|forms|interactive|capturedat|environment|mode|a11y|reader|listpattern|tableshape|diff|delta|digest|vision|reserved)$`)
	for k := range top {
		if !allowed.MatchString(k) {
			t.Errorf("top-level field %q is not in the schema", k)
		}
	}
	for _, k := range []string{"forms", "interactive"} {
		if string(top[k]) == "null" {
			t.Errorf("%s is null", k)
		}
	}
}

func BenchmarkCapture(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p := openTracked(b, ctx, "/signin.html", nil)         // a tab, as the server observes it
	if _, err := Capture(ctx, p, Options{}); err != nil { // warm: install the extractor
		b.Fatal(err)
	}
	var size int
	for b.Loop() {
		o, err := Capture(ctx, p, Options{})
		if err != nil {
			b.Fatal(err)
		}
		raw, _ := json.Marshal(o)
		size = len(raw)
	}
	b.ReportMetric(float64(size), "bytes/obs")
}

func ptr[T any](v T) *T { return &v }

// TestFormFieldsSayTheirOwnFacts reads the JSON as a consumer of forms
// alone would: every field carries its label, type, name and selector (and
// its ref when drawn), whatever interactive also lists.
func TestFormFieldsSayTheirOwnFacts(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/signup.html")
	_, raw := capture(t, ctx, p, Options{})
	var payload struct {
		Forms []struct {
			Fields []map[string]any `json:"fields"`
		} `json:"forms"`
		Interactive []map[string]any `json:"interactive"`
	}
	if err := json.Unmarshal(raw, &payload); err != nil || len(payload.Forms) != 1 {
		t.Fatalf("forms: %v %s", err, raw)
	}
	fields := payload.Forms[0].Fields
	if len(fields) != 10 {
		t.Fatalf("%d fields: %s", len(fields), raw)
	}
	for i, f := range fields {
		keys := []string{"type", "selector", "ref"}
		if f["type"] == "radio" { // a group: its radios carry the refs
			keys = keys[:2]
		}
		if f["type"] != "submit" {
			keys = append(keys, "label", "name")
		}
		for _, k := range keys {
			if s, _ := f[k].(string); s == "" {
				t.Errorf("forms[0].fields[%d] has no %s: %v", i, k, f)
			}
		}
	}
	if fields[0]["type"] != "text" || fields[0]["label"] != "Full name" || fields[0]["name"] != "name" {
		t.Errorf("first field: %v", fields[0])
	}
	if country := fields[5]; country["label"] != "Country" || len(country["options"].([]any)) != 4 {
		t.Errorf("country: %v", country)
	}
	for i, e := range payload.Interactive {
		for _, k := range []string{"ref", "selector", "role"} {
			if s, _ := e[k].(string); s == "" {
				t.Errorf("interactive[%d] has no %s: %v", i, k, e)
			}
		}
	}
}

// A tab's <li> and its link, and a one-item menu and its item, are one
// entry each (the outer one, with its state; a menu is not listed itself,
// so its item is the one), also when the tab adds a counter after its
// link's text or names its icon link itself. An element holding two
// controls keeps them.
func TestNestedSameNameIsOneEntry(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/tabs.html")
	o, raw := capture(t, ctx, p, Options{})
	var got []string
	for _, e := range o.Interactive {
		got = append(got, e.Role+" "+e.Label)
	}
	want := "tab Code|tab Issues|tab Wiki|tab Pull requests 7|tab Settings|menuitem Share|generic |button Save|button Close"
	if strings.Join(got, "|") != want {
		t.Errorf("entries %q, want %q\n%s", strings.Join(got, "|"), want, raw)
	}
	if !o.Interactive[0].Selected {
		t.Errorf("the selected tab lost its state: %+v", o.Interactive[0])
	}
}
