package observetab_test

import (
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/observe"
)

// Text no person sees (off-screen, zero-size, transparent, the colour of
// its background, clipped, font-size 0) is where a hostile page hides
// instructions for a model: the observation's text and its reader view
// leave it out, and keep what is drawn: white on a dark section, gradient
// text, drawn content under aria-hidden (issue 44, item 4).
func TestUnseenTextIsLeftOut(t *testing.T) {
	t.Parallel()
	env, err := realWeb()
	if err != nil {
		t.Fatal(err)
	}
	tab := env.Page(t, "unseen.html")
	obs := observeTab(t, tab, observe.Options{Include: []string{"text", "reader"}})
	for name, text := range map[string]string{"textpreview": obs.TextPreview, "reader": obs.Reader.Markdown} {
		if i := strings.Index(text, "HIDDEN-"); i >= 0 {
			t.Errorf("%s holds text no person sees (%q):\n%s", name, text[i:min(len(text), i+30)], text)
		}
		for _, want := range []string{"Install the widget", "widget install --now", "restart after installing", "Gradient text people can read", "decorative but drawn", "check the version"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q, which a person sees:\n%s", name, want, text)
			}
		}
	}
}
