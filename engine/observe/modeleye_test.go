package observe

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A model reads one of the two forms of an observation: the text content
// (most clients) or the JSON (Claude Code forwards only structuredContent).
// These tests play that model: for every control a task on a fixture page
// needs, they look in one form alone for a line or an entry that names the
// control, take the locator it gives (a ref or a selector), and check in the
// browser that the locator names exactly that control.

// need is a control a task needs: the words a model would look for, and a
// CSS selector of the control itself, used only to check the answer.
type need struct {
	// words: what a model looks for; is: a CSS selector of the control, to check the answer.
	words, is string
	// also, when set, tells apart lines naming the same words: the
	// selector a model would read there (30 "Add to cart" buttons).
	also string
}

var modelEyePages = map[string][]need{
	"/signup.html": {
		{words: "Full name", is: "[name=name]"}, {words: "Email address", is: "[name=email]"}, {words: "Password", is: "[name=password]"},
		{words: "Repeat password", is: "[name=password2]"}, {words: "Date of birth", is: "[name=birth]"}, {words: "Country", is: "[name=country]"},
		{words: "Pro", is: "input[value=pro]"}, {words: "About you", is: "[name=bio]"}, {words: "I accept the terms", is: "[name=terms]"},
		{words: "Create account", is: "button"}, {words: "Sign in", is: "a[href='/signin']"},
	},
	// nil: every labelled control the JSON lists, found again the same way
	"/login.html": nil, "/article.html": nil, "/products.html": nil, "/table.html": nil, "/iframe.html": nil, "/async.html": nil,
	"/clickable.html": {
		{words: "Open the blue card", is: "#open-card"}, {words: "Run the handler", is: "#handler"}, {words: "City", is: "#city"},
		{words: "Berlin", is: "#suggestions li:nth-child(1)"}, {words: "Bergen", is: "#suggestions li:nth-child(3)"},
		{words: "Duplicate", is: "#actions li:nth-child(2)"}, {words: "Delete", is: "#actions li:nth-child(3)"},
	},
}

// refPattern finds the ref a text line starts with, or a radio option's.
var refPattern = regexp.MustCompile(`\b[a-z]{1,3}\d+\b`)

func TestModelEyeText(t *testing.T) {
	ctx := testCtx(t)
	for path, needs := range modelEyePages {
		p := eyePage(t, ctx, path)
		o, _ := observeOK(t, ctx, p, Options{})
		text := Render(o)
		if needs == nil {
			needs = everyListed(o)
		}
		for _, n := range needs {
			line := lineNaming(text, n.words, n.also)
			if line == "" {
				t.Errorf("%s: no line of the text names %q:\n%s", path, n.words, text)
				continue
			}
			ref := refOn(line, n.words)
			if ref == "" {
				t.Errorf("%s: the line naming %q gives no ref: %q", path, n.words, line)
				continue
			}
			in, local := where(t, p, o, ref)
			checkNames(t, in, path, "ref "+ref, `globalThis.__tabwright.element(`+jsString(local)+`)`, n.is)
		}
		for _, word := range []string{"Just text, not clickable", "Founded 1999"} {
			if l := lineNaming(text, word, ""); l != "" && refPattern.MatchString(l) {
				t.Errorf("%s: %q is listed as actionable: %q", path, word, l)
			}
		}
	}
}

func TestModelEyeJSON(t *testing.T) {
	ctx := testCtx(t)
	for path, needs := range modelEyePages {
		p := eyePage(t, ctx, path)
		o, raw := observeOK(t, ctx, p, Options{})
		if needs == nil {
			needs = everyListed(o)
		}
		var payload struct {
			Interactive []map[string]any `json:"interactive"`
		}
		if err := json.Unmarshal(raw, &payload); err != nil {
			t.Fatal(err)
		}
		for _, n := range needs {
			var found map[string]any
			for _, e := range payload.Interactive {
				if e["label"] == n.words && (n.also == "" || e["selector"] == n.also) {
					found = e
					break
				}
			}
			if found == nil {
				t.Errorf("%s: no interactive entry labelled %q: %s", path, n.words, raw)
				continue
			}
			ref, _ := found["ref"].(string)
			sel, _ := found["selector"].(string)
			role, _ := found["role"].(string)
			if ref == "" || sel == "" || role == "" {
				t.Errorf("%s: entry %v lacks ref, selector or role", path, found)
				continue
			}
			in, local := where(t, p, o, ref)
			if fr, ok := found["frame"].(map[string]any); ok {
				if path0 := fr["path"].([]any)[0].(string); refTag(t, ref) == refTag(t, o.Interactive[0].Ref) || path0 == "" {
					t.Errorf("%s: framed entry %v", path, found)
				}
			}
			checkNames(t, in, path, "selector "+sel, `document.querySelector(`+jsString(sel)+`)`, n.is)
			checkNames(t, in, path, "ref "+ref, `globalThis.__tabwright.element(`+jsString(local)+`)`, n.is)
		}
		for _, e := range payload.Interactive {
			for _, k := range []string{"ref", "selector", "role", "label"} {
				if _, ok := e[k].(string); !ok {
					t.Errorf("%s: entry without %s: %v", path, k, e)
				}
			}
			if l, _ := e["label"].(string); l == "Just text, not clickable" || l == "Founded 1999" {
				t.Errorf("%s: %v is listed as actionable", path, e)
			}
		}
	}
}

// eyePage opens a fixture as the server would observe it, frames inline.
func eyePage(t *testing.T, ctx context.Context, path string) framedPage {
	switch path {
	case "/iframe.html":
		return openFramed(t, ctx, path)
	case "/async.html":
		p := openTracked(t, ctx, path, nil)
		waitFor(t, ctx, p.tab, `document.body.dataset.ready === '1'`)
		return framedPage{p}
	}
	return framedPage{openTracked(t, ctx, path, nil)}
}

// everyListed is every labelled control of an observation, to be found
// again in either form.
func everyListed(o *Observation) []need {
	var out []need
	for _, e := range o.Interactive {
		if e.Label != "" {
			out = append(out, need{words: e.Label, is: e.Selector, also: e.Selector})
		}
	}
	return out
}

// lineNaming is the first line that names words as a label ("words" in
// quotes, or a radio option words=value / words eN).
func lineNaming(text, words, also string) string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, strconv.Quote(words)) || strings.Contains(l, "|"+words) || strings.Contains(l, ": "+words) {
			lines = append(lines, l)
		}
	}
	if len(lines) > 1 && also != "" {
		for _, l := range lines {
			if strings.Contains(l, " "+also) {
				return l
			}
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return lines[0]
}

// refOn is the ref the line gives for words: the option's own ref for a
// radio option, else the line's first ref.
func refOn(line, words string) string {
	for _, part := range strings.FieldsFunc(line, func(r rune) bool { return r == '|' || r == '[' || r == ']' }) {
		part = strings.TrimPrefix(strings.TrimSpace(part), "radio: ")
		if strings.HasPrefix(part, words+" ") || strings.HasPrefix(part, words+"=") {
			if m := refPattern.FindString(part); m != "" {
				return m
			}
		}
	}
	return refPattern.FindString(line)
}

// where is the page a ref's element lives in (a child frame for an
// element listed with its frame) and the element's page-side ref there.
func where(t *testing.T, p framedPage, o *Observation, ref string) (Page, string) {
	local := "e" + strconv.Itoa(refNumber(t, ref))
	for _, e := range o.Interactive {
		if e.Ref != ref || e.Frame == nil {
			continue
		}
		child, err := p.ChildFrame(testCtx(t), e.Frame.Path)
		if err != nil {
			t.Fatal(err)
		}
		return child, local
	}
	return p, local
}

// checkNames checks that expr (a locator's element) is the one element the
// check selector is names.
func checkNames(t *testing.T, p Page, page, what, expr, is string) {
	t.Helper()
	var same bool
	check := `(() => { const a = ` + expr + `; const b = document.querySelectorAll(` + jsString(is) + `); return !!a && b.length === 1 && a === b[0]; })()`
	if err := p.Eval(testCtx(t), check, &same); err != nil || !same {
		t.Errorf("%s: %s does not name the control %s (%v)", page, what, is, err)
	}
}
