package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/tabwright/tabwright/engine/errs"
)

// tracked is a test Page that keeps state like a tabs.Tab: the observer's
// per-tab values, the current document's loader id, and screenshots.
type tracked struct {
	*tab
	mu     sync.Mutex
	state  map[string]any
	loader string
}

func (p *tracked) State(key string, init func() any) any {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == nil {
		p.state = map[string]any{}
	}
	v, ok := p.state[key]
	if !ok {
		v = init()
		p.state[key] = v
	}
	return v
}

func (p *tracked) Loader() string { return p.loader }

func (p *tracked) Screenshot(ctx context.Context) ([]byte, error) {
	res, err := cdproto.Call(ctx, p.sess, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	if err != nil {
		return nil, err
	}
	return res.Data, nil
}

// openTracked loads a fixture into a tracked page; passing the previous
// tracked page keeps its state, as one tab across navigations.
func openTracked(t testing.TB, ctx context.Context, path string, prev *tracked) *tracked {
	t.Helper()
	p := open(t, ctx, path)
	tree, err := cdproto.Call(ctx, p.sess, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	out := &tracked{tab: p, loader: string(tree.FrameTree.Frame.LoaderID)}
	if prev != nil {
		out.state = prev.state
	}
	return out
}

// observeOK captures, validates the payload against the schema and returns
// it with its JSON.
func observeOK(t testing.TB, ctx context.Context, p Page, opt Options) (*Observation, []byte) {
	t.Helper()
	o, err := Capture(ctx, p, opt)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if tt, ok := t.(*testing.T); ok {
		validate(tt, raw)
	}
	return o, raw
}

func TestReaderReturnsTheArticleNotTheNoise(t *testing.T) {
	ctx := testCtx(t)
	p := openTracked(t, ctx, "/article.html", nil)
	o, raw := observeOK(t, ctx, p, Options{Include: []string{"reader"}})
	r := o.Reader
	if r == nil || !r.Found {
		t.Fatalf("no article: %s", raw)
	}
	for _, want := range []string{"## Part 1: on growing tomatoes", "## Part 6: on growing tomatoes", "[note 0.1](" + server.URL + "/notes/0-1)"} {
		if !strings.Contains(r.Markdown, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	for _, noise := range []string{"Popular story", "Advertisement", "newsletter", "Section 3", "Privacy", "Search the site"} {
		if strings.Contains(r.Markdown, noise) {
			t.Errorf("markdown carries page noise %q", noise)
		}
	}
	if r.Byline != "Ada Gardener" || r.SiteName != "Green Balcony" || r.Lang != "en" || r.Length < 3000 || !strings.Contains(r.Title, "tomatoes") {
		t.Errorf("reader metadata: title %q byline %q site %q lang %q length %d", r.Title, r.Byline, r.SiteName, r.Lang, r.Length)
	}
	if r.Excerpt == "" {
		t.Error("no excerpt")
	}
	// Only the reader was asked for: the required fields are empty and say so.
	if o.TextPreview != "" || len(o.Forms) != 0 || len(o.Interactive) != 0 || o.A11y != nil || o.ListPattern != nil {
		t.Errorf("sections not asked for came back: %s", raw)
	}
	if !o.notIncluded(SectionText) || o.Digest == "" {
		t.Errorf("reserved.notincluded / digest missing: %s", raw)
	}

	// A small bound cuts the markdown and says so.
	o, _ = observeOK(t, ctx, p, Options{Include: []string{"reader"}, MaxChars: 500})
	if !o.Reader.Truncated || len([]rune(o.Reader.Markdown)) > 500 || !o.Truncated().Reader {
		t.Errorf("reader bound: truncated=%v len=%d", o.Reader.Truncated, len([]rune(o.Reader.Markdown)))
	}

	// The default observation of the article stays without the reader.
	o, raw = observeOK(t, ctx, p, Options{})
	if o.Reader != nil {
		t.Error("reader in the default observation")
	}
	t.Logf("article: default %d chars", len(raw))
}

func TestTableShapeSkipsLayoutTables(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/table.html")
	o, raw := observeOK(t, ctx, p, Options{Include: []string{"tableshape"}})
	if len(o.TableShape) != 1 {
		t.Fatalf("want exactly one table shape, got %d: %s", len(o.TableShape), raw)
	}
	ts := o.TableShape[0]
	want := []string{"SKU", "Item", "Colour", "Qty", "Price", "Restocked"}
	if ts.Selector != "#stock" || ts.Caption != "Stock on hand" || ts.Rows != 50 || ts.Cols != 6 || strings.Join(ts.Headers, ",") != strings.Join(want, ",") {
		t.Errorf("shape: %+v", ts)
	}
	if len(ts.Samples) != 3 || strings.Join(ts.Samples[0], ",") != "1000,Widget A0,red,3,$5.00,2025-01-01" {
		t.Errorf("samples: %q", ts.Samples)
	}
}

func TestListPatternFindsTheCards(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/products.html")
	o, raw := observeOK(t, ctx, p, Options{Include: []string{"listpattern"}})
	if len(o.ListPattern) != 1 {
		t.Fatalf("want exactly one list pattern, got %d: %s", len(o.ListPattern), raw)
	}
	l := o.ListPattern[0]
	if l.Container != "#results" || l.Item != "#results > div.card" || l.Count != 30 {
		t.Errorf("pattern: %+v", l)
	}
	for _, f := range []string{"title", "link", "image", "price"} {
		if !strings.Contains(","+strings.Join(l.Fields, ",")+",", ","+f+",") {
			t.Errorf("fields %v lack %q", l.Fields, f)
		}
	}
	if len(l.Samples) != 3 || l.Samples[1]["title"] != "Toaster model 1" || l.Samples[1]["price"] != "$22.99" || l.Samples[1]["link"] != server.URL+"/p/1" {
		t.Errorf("samples: %v", l.Samples)
	}
	var n int
	if err := p.mainEval(ctx, `document.querySelectorAll(`+jsString(l.Item)+`).length`, &n); err != nil || n != 30 {
		t.Errorf("item selector matches %d (%v)", n, err)
	}
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestSignupFormLabels(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/signup.html")
	o, raw := observeOK(t, ctx, p, Options{})
	f := findForm(t, o, "#signup")
	want := map[string]string{
		"name": "Full name", "email": "Email address", "password": "Password", "password2": "Repeat password",
		"birth": "Date of birth", "country": "Country", "plan": "Plan", "bio": "About you", "terms": "I accept the terms",
	}
	for name, label := range want {
		if got := fieldNamed(t, f, name).Label; got != label {
			t.Errorf("field %s: label %q, want %q", name, got, label)
		}
	}
	if bytes.Contains(raw, []byte("hunter2")) {
		t.Error("a password value leaked")
	}
	if c := fieldNamed(t, f, "country"); len(c.Options) != 4 || c.Options[1].Label != "Germany" {
		t.Errorf("country options: %+v", c.Options)
	}
	if r := Render(o); !strings.Contains(r, `"Full name" [text]* [name=name]`) {
		t.Errorf("render names a text field's type, left out of the JSON:\n%s", r)
	}
	t.Logf("signup: default %d chars", len(raw))
}

func TestLinksPageIsBounded(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/links.html")
	o, raw := observeOK(t, ctx, p, Options{Include: []string{"all"}})
	tr := o.Truncated()
	if tr == nil || tr.Interactive == nil || *tr.Interactive != (Cut{Shown: DefaultMaxInteractive, Omitted: 2000 - DefaultMaxInteractive}) {
		t.Errorf("interactive cut: %+v", tr)
	}
	if !tr.TextPreview || o.TextLength <= DefaultMaxChars {
		t.Errorf("text cut: %v, length %d", tr.TextPreview, o.TextLength)
	}
	if o.A11y == nil || !o.A11y.Truncated || tr.A11y == nil || tr.A11y.Omitted == 0 {
		t.Errorf("a11y not bounded: %+v", o.A11y)
	}
	if len(o.ListPattern) != 1 || o.ListPattern[0].Count != 2000 {
		t.Errorf("list pattern: %+v", o.ListPattern)
	}
	if len(raw) > 64000 {
		t.Errorf("full observation of 2,000 links is %d chars", len(raw))
	}
	_, def := observeOK(t, ctx, p, Options{})
	t.Logf("links: default %d chars, full %d", len(def), len(raw))
}

func TestA11yOutline(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/signup.html")
	o, _ := observeOK(t, ctx, p, Options{Include: []string{"a11y"}})
	for _, line := range []string{
		`heading "Create your account" [level=1]`,
		`form`,
		`  textbox "Full name" [required]`,
		`  combobox "Country"`,
		`  group "Plan"`,
		`    radio "Free" [checked]`,
		`  button "Create account"`,
		`link "Sign in"`,
	} {
		if !strings.Contains("\n"+o.A11y.Outline+"\n", "\n"+line+"\n") {
			t.Errorf("outline lacks line %q:\n%s", line, o.A11y.Outline)
		}
	}
	if strings.Contains(o.A11y.Outline, "hunter2") {
		t.Error("password value in the outline")
	}
}

func TestDigestRefsAndScope(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/products.html")
	a, _ := observeOK(t, ctx, p, Options{Include: []string{"all"}})
	b, _ := observeOK(t, ctx, p, Options{Include: []string{"all"}})
	if a.Digest == "" || a.Digest != b.Digest {
		t.Errorf("digest of an unchanged page: %q then %q", a.Digest, b.Digest)
	}
	for i := range a.Interactive {
		if a.Interactive[i].Ref != b.Interactive[i].Ref || a.Interactive[i].Selector != b.Interactive[i].Selector {
			t.Fatalf("ref %d moved: %+v then %+v", i, a.Interactive[i], b.Interactive[i])
		}
	}
	def, _ := observeOK(t, ctx, p, Options{})
	if def.Digest == a.Digest {
		t.Error("different sections, same digest")
	}

	// A scope reads only under its element (the first card, listed in
	// full; its image link goes where its title does: one entry; the
	// preview leaves out a line the title link's label says).
	s, raw := observeOK(t, ctx, p, Options{Scope: "#results > div.card:nth-of-type(1)"})
	if len(s.Interactive) != 2 || s.TextPreview != "$19.99 3 stars Add to cart" || strings.Contains(s.TextPreview, "Kitchen") {
		t.Errorf("scoped observation: %s", raw)
	}
	// Refs are the same inside and outside a scope.
	for _, e := range s.Interactive {
		found := false
		for _, f := range a.Interactive {
			found = found || f.Ref == e.Ref && f.Selector == e.Selector
		}
		if !found {
			t.Errorf("scoped element %+v is not in the whole-page observation", e)
		}
	}
	for _, tc := range []struct{ scope, msg string }{{"#nothing-here", "matches no element"}, {"div[", "not a valid CSS selector"}} {
		_, err := Capture(ctx, p, Options{Scope: tc.scope})
		if e := errs.As(err); err == nil || e.Code != errs.InvalidInput || e.Path != "scope" || !strings.Contains(e.Message, tc.msg) {
			t.Errorf("scope %q: %v", tc.scope, err)
		}
	}
}

func TestOptionErrorsNameTheField(t *testing.T) {
	ctx := testCtx(t)
	p := openTracked(t, ctx, "/mutate.html", nil)
	for _, tc := range []struct {
		opt  Options
		path string
	}{
		{Options{Include: []string{"text", "pictures"}}, "include[1]"},
		{Options{Mode: "sometimes"}, "mode"},
		{Options{Mode: ModeDiffing}, "since"},
		{Options{Since: "abc"}, "since"},
		{Options{Mode: ModeDiffing, Since: "0123456789abcdef"}, "since"},
	} {
		_, err := Capture(ctx, p, tc.opt)
		if e := errs.As(err); err == nil || e.Code != errs.InvalidInput || e.Path != tc.path {
			t.Errorf("%+v: %v, want invalid_input at %s", tc.opt, err, tc.path)
		}
	}
	if _, err := Capture(ctx, p.tab, Options{Mode: ModeWatching}); errs.Code(err) != errs.InvalidInput {
		t.Errorf("watching an untracked page: %v", err)
	}
}

func click(t *testing.T, ctx context.Context, p *tracked, selector string) {
	t.Helper()
	var ok bool
	if err := p.mainEval(ctx, `(() => { document.querySelector(`+jsString(selector)+`).click(); return true })()`, &ok); err != nil || !ok {
		t.Fatalf("click %s: %v", selector, err)
	}
}

func TestDiffingReportsExactlyTheChange(t *testing.T) {
	ctx := testCtx(t)
	p := openTracked(t, ctx, "/mutate.html", nil)
	before, _ := observeOK(t, ctx, p, Options{})
	click(t, ctx, p, "#add")
	after, raw := observeOK(t, ctx, p, Options{Mode: ModeDiffing, Since: before.Digest})
	if after.Digest == before.Digest {
		t.Fatal("digest did not change with the page")
	}
	d := after.Diff
	if after.Mode != ModeDiffing || d == nil || d.Base != before.Digest {
		t.Fatalf("diff header: %s", raw)
	}
	// The new checkbox is a form field and, drawn, an interactive element.
	if got := d.Sections(); strings.Join(got, ",") != "forms,interactive,text" {
		t.Errorf("changed sections %v: %s", got, raw)
	}
	// The new task's line is its checkbox's label, said by forms and
	// interactive, not again by the text.
	if len(d.Added["text"]) != 1 || d.Added["text"][0] != "3 open tasks" {
		t.Errorf("text added: %v", d.Added["text"])
	}
	if len(d.Removed["text"]) != 1 || d.Removed["text"][0] != "2 open tasks" {
		t.Errorf("text removed: %v", d.Removed["text"])
	}
	if len(d.Added["interactive"]) != 1 || len(d.Changed["interactive"]) != 0 || len(d.Removed["interactive"]) != 0 {
		t.Errorf("interactive: %v / %v / %v", d.Added["interactive"], d.Changed["interactive"], d.Removed["interactive"])
	}
	if fields := after.Forms[0].Fields; len(fields) != 3 || fields[2].Label != "Task number 3" || fields[2].Selector == "" || fields[2].Ref == "" {
		t.Errorf("the new field and its ref: %+v", after.Forms)
	}
	if len(d.Changed["forms"]) != 1 || len(d.Added["forms"]) != 0 {
		t.Errorf("forms: %v", d.Changed["forms"])
	}

	// Against itself: nothing.
	same, _ := observeOK(t, ctx, p, Options{Mode: ModeDiffing, Since: after.Digest})
	if !same.Diff.Empty() {
		t.Errorf("unchanged page, diff %+v", same.Diff)
	}
	// Only the last HistorySize observations are kept.
	for i := 0; i < HistorySize; i++ {
		click(t, ctx, p, "#add")
		observeOK(t, ctx, p, Options{})
	}
	if _, err := Capture(ctx, p, Options{Mode: ModeDiffing, Since: before.Digest}); errs.As(err).Path != "since" {
		t.Errorf("a digest older than the history: %v", err)
	}
}

func TestWatchingReturnsDeltas(t *testing.T) {
	ctx := testCtx(t)
	p := openTracked(t, ctx, "/mutate.html", nil)
	// Without forms, the task checkboxes are listed in interactive.
	w := Options{Mode: ModeWatching, Include: []string{"text", "interactive", "a11y"}}
	first, _ := observeOK(t, ctx, p, w)
	if first.Delta || first.Mode != ModeWatching || len(first.Interactive) != 3 {
		t.Fatalf("first watching observation is not full: %+v", first)
	}
	quiet, raw := observeOK(t, ctx, p, w)
	if !quiet.Delta || !quiet.Diff.Empty() || len(quiet.Interactive) != 0 || len(quiet.Forms) != 0 || quiet.TextPreview != "" || quiet.A11y != nil || quiet.Digest != first.Digest {
		t.Errorf("no change, yet: %s", raw)
	}
	if !bytes.Contains(raw, []byte(`"forms":[]`)) || !bytes.Contains(raw, []byte(`"interactive":[]`)) {
		t.Errorf("required fields must stay present: %s", raw)
	}

	click(t, ctx, p, "#add")
	d, raw := observeOK(t, ctx, p, w)
	if !d.Delta || d.Diff.Base != first.Digest || d.Digest == first.Digest {
		t.Fatalf("delta header: %s", raw)
	}
	if len(d.Interactive) != 1 || d.Interactive[0].Label != "Task number 3" {
		t.Errorf("delta interactive: %+v", d.Interactive)
	}
	if d.TextPreview != "3 open tasks" || d.TextLength <= first.TextLength {
		t.Errorf("delta text %q (%d)", d.TextPreview, d.TextLength)
	}
	if len(d.Diff.Removed["text"]) != 1 || len(d.Diff.Added["interactive"]) != 1 || d.Diff.Added["interactive"][0] != d.Interactive[0].Ref {
		t.Errorf("delta diff: %+v", d.Diff)
	}
	if d.A11y == nil || !strings.Contains(d.A11y.Outline, `checkbox "Task number 3"`) {
		t.Errorf("delta a11y: %+v", d.A11y)
	}
	// The delta's digest names the full observation, so diffing can use it.
	if _, err := Capture(ctx, p, Options{Mode: ModeDiffing, Since: d.Digest}); err != nil {
		t.Errorf("diffing against a delta's digest: %v", err)
	}

	// A typed value is a change too, though the DOM does not record it.
	if err := p.mainEval(ctx, `(() => { const i = document.querySelector('input[name=t1]'); i.click(); return true })()`, new(bool)); err != nil {
		t.Fatal(err)
	}
	typed, raw := observeOK(t, ctx, p, w)
	if len(typed.Interactive) != 1 || !typed.Interactive[0].Checked || len(typed.Diff.Changed["interactive"]) != 1 {
		t.Errorf("checkbox change: %s", raw)
	}

	// After a navigation the next one is full again.
	p = openTracked(t, ctx, "/mutate.html", p)
	full, raw := observeOK(t, ctx, p, w)
	if full.Delta || len(full.Interactive) != 3 || full.Reserved["watch"] == nil {
		t.Errorf("after navigation: %s", raw)
	}
}

func TestVision(t *testing.T) {
	ctx := testCtx(t)
	p := openTracked(t, ctx, "/signup.html", nil)
	dir := t.TempDir()
	o, raw := observeOK(t, ctx, p, Options{Include: []string{"vision"}, ScreenshotDir: dir})
	v := o.Vision
	if v == nil || v.Screenshot == "" {
		t.Fatalf("no vision: %s", raw)
	}
	png, err := os.ReadFile(v.Screenshot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("screenshot %s: %v", v.Screenshot, err)
	}
	if v.Viewport[0] <= 0 || len(v.Groundings) == 0 || len(o.Interactive) != 0 {
		t.Errorf("groundings: %s", raw)
	}
	listed, _ := observeOK(t, ctx, p, Options{})
	for ref, box := range v.Groundings { // the refs an observation lists
		if box[2] <= 0 || box[3] <= 0 || refTag(t, ref) != refTag(t, listed.Interactive[0].Ref) {
			t.Errorf("box %s %v", ref, box)
		}
	}
	if v.OCR == "" && v.OCRNote == "" {
		t.Error("no OCR text and no word why")
	}
	if v.OCR != "" && !strings.Contains(v.OCR, "Create") {
		t.Errorf("OCR text: %q", v.OCR)
	}
}
