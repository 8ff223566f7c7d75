package observe

import (
	"encoding/json"
	"regexp"
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
type need struct{ words, is string }

var modelEyePages = map[string][]need{
	"/signup.html": {
		{"Full name", "[name=name]"}, {"Email address", "[name=email]"}, {"Password", "[name=password]"},
		{"Repeat password", "[name=password2]"}, {"Date of birth", "[name=birth]"}, {"Country", "[name=country]"},
		{"Pro", "input[value=pro]"}, {"About you", "[name=bio]"}, {"I accept the terms", "[name=terms]"},
		{"Create account", "button"}, {"Sign in", "a[href='/signin']"},
	},
	"/login.html": nil, // every control the JSON lists, checked the same way
	"/clickable.html": {
		{"Open the blue card", "#open-card"}, {"Run the handler", "#handler"}, {"City", "#city"},
		{"Berlin", "#suggestions li:nth-child(1)"}, {"Bergen", "#suggestions li:nth-child(3)"},
		{"Duplicate", "#actions li:nth-child(2)"}, {"Delete", "#actions li:nth-child(3)"},
	},
}

// refPattern finds the ref a text line starts with, or a radio option's.
var refPattern = regexp.MustCompile(`\be\d+\b`)

func TestModelEyeText(t *testing.T) {
	ctx := testCtx(t)
	for path, needs := range modelEyePages {
		p := open(t, ctx, path)
		o, _ := capture(t, ctx, p, Options{})
		text := Render(o)
		if needs == nil {
			needs = everyListed(o)
		}
		for _, n := range needs {
			line := lineNaming(text, n.words)
			if line == "" {
				t.Errorf("%s: no line of the text names %q:\n%s", path, n.words, text)
				continue
			}
			ref := refOn(line, n.words)
			if ref == "" {
				t.Errorf("%s: the line naming %q gives no ref: %q", path, n.words, line)
				continue
			}
			checkNames(t, p, path, "ref "+ref, `globalThis.__tabwright.element(`+jsString(ref)+`)`, n.is)
		}
		for _, word := range []string{"Just text, not clickable", "Founded 1999"} {
			if l := lineNaming(text, word); l != "" && refPattern.MatchString(l) {
				t.Errorf("%s: %q is listed as actionable: %q", path, word, l)
			}
		}
	}
}

func TestModelEyeJSON(t *testing.T) {
	ctx := testCtx(t)
	for path, needs := range modelEyePages {
		p := open(t, ctx, path)
		o, raw := capture(t, ctx, p, Options{})
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
				if e["label"] == n.words {
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
			checkNames(t, p, path, "selector "+sel, `document.querySelector(`+jsString(sel)+`)`, n.is)
			checkNames(t, p, path, "ref "+ref, `globalThis.__tabwright.element(`+jsString(ref)+`)`, n.is)
		}
		for _, e := range payload.Interactive {
			if l, _ := e["label"].(string); l == "Just text, not clickable" || l == "Founded 1999" {
				t.Errorf("%s: %v is listed as actionable", path, e)
			}
		}
	}
}

// everyListed is every labelled control of an observation, to be found
// again in either form.
func everyListed(o *Observation) []need {
	var out []need
	for _, e := range o.Interactive {
		if e.Label != "" {
			out = append(out, need{e.Label, e.Selector})
		}
	}
	return out
}

// lineNaming is the first line that names words as a label ("words" in
// quotes, or a radio option words=value / words eN).
func lineNaming(text, words string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, `"`+words+`"`) || strings.Contains(l, "|"+words) || strings.Contains(l, ": "+words) {
			return l
		}
	}
	return ""
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

// checkNames checks that expr (a locator's element) is the one element the
// check selector is names.
func checkNames(t *testing.T, p *tab, page, what, expr, is string) {
	t.Helper()
	var same bool
	check := `(() => { const a = ` + expr + `; const b = document.querySelectorAll(` + jsString(is) + `); return !!a && b.length === 1 && a === b[0]; })()`
	if err := p.Eval(testCtx(t), check, &same); err != nil || !same {
		t.Errorf("%s: %s does not name the control %s (%v)", page, what, is, err)
	}
}
