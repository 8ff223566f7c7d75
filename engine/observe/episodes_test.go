package observe

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// An episode in the shape of a MiniWoB task: open the page, observe, act,
// observe to read the result. What a model reads per episode is every
// observation it is given, in one form: the text (most clients) or the
// JSON (structuredContent). Actions run as page scripts here: their small
// results are the same before and after and are not counted.
type episode struct {
	page  string
	steps []string // page scripts, one per act; an observation follows each
	done  string   // what the last observation must show
}

var episodes = []episode{
	{"miniwob-click-button", []string{`document.getElementById('target').click()`}, "reward 1"},
	{"miniwob-enter-text", []string{
		`(() => { const t = document.getElementById('tt'); t.value = 'Kanesha'; t.dispatchEvent(new Event('input', {bubbles: true})); })()`,
		`document.getElementById('subbtn').click()`,
	}, "reward 1"},
	{"miniwob-click-checkboxes", []string{
		`document.getElementById('ch0').click()`,
		`document.getElementById('ch2').click()`,
		`document.getElementById('subbtn').click()`,
	}, "reward 1"},
}

// readEpisode runs e and counts the characters of each observation a
// model reads, as text and as JSON; with brief, each is what the server
// sends a claim that saw the one before (Since).
func readEpisode(t testing.TB, ctx context.Context, e episode, brief bool) (text, js int) {
	t.Helper()
	p := openTracked(t, ctx, "/"+e.page+".html", nil)
	var seen Seen
	read := func() *Observation {
		o, _ := observeOK(t, ctx, p, Options{})
		shown := o
		if brief {
			shown = o.Since(seen)
			seen = SeenIn(o)
		}
		raw, _ := json.Marshal(shown)
		text += len([]rune(Render(shown)))
		js += len([]rune(string(raw)))
		return o
	}
	read()
	var last *Observation
	for _, s := range e.steps {
		if err := p.Eval(ctx, `(`+s+`, true)`, new(bool)); err != nil {
			t.Fatal(err)
		}
		last = read()
	}
	if !strings.Contains(last.TextPreview, e.done) {
		t.Fatalf("%s: the last observation does not show %q:\n%s", e.page, e.done, Render(last))
	}
	return text, js
}

// TestEpisodeCharacters: a MiniWoB-style episode reads fewer characters
// told briefly (unchanged parts left out) than observed in full each time,
// and stays under its ceiling. go test -v logs both, per episode.
func TestEpisodeCharacters(t *testing.T) {
	ctx := testCtx(t)
	var fullText, fullJSON, briefText, briefJSON int
	for _, e := range episodes {
		ft, fj := readEpisode(t, ctx, e, false)
		bt, bj := readEpisode(t, ctx, e, true)
		t.Logf("%-25s full: text %5d json %5d   brief: text %5d json %5d", e.page, ft, fj, bt, bj)
		fullText, fullJSON, briefText, briefJSON = fullText+ft, fullJSON+fj, briefText+bt, briefJSON+bj
	}
	t.Logf("%-25s full: text %5d json %5d   brief: text %5d json %5d", "all", fullText, fullJSON, briefText, briefJSON)
	if briefText >= fullText || briefJSON > fullJSON {
		t.Errorf("told briefly, the episodes read more: text %d (full %d), json %d (full %d)", briefText, fullText, briefJSON, fullJSON)
	}
}
