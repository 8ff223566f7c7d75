package observe

import (
	"encoding/json"
	"strings"
	"testing"
)

// A reader who saw the page a moment ago is told what changed, not the
// page again: the same digest gives one line (text) and an empty delta with
// reserved.unchanged (JSON); a changed page with the same title and URL
// leaves the title line out of the text; a reader who saw nothing gets all.
func TestSinceLeavesOutWhatTheReaderSaw(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/signup.html")
	first, _ := observeOK(t, ctx, p, Options{})
	if got := first.Since(Seen{}); got != first || !strings.HasPrefix(Render(got), `"`) {
		t.Fatalf("a reader who saw nothing gets less than all:\n%s", Render(got))
	}
	second, _ := observeOK(t, ctx, p, Options{})
	brief := second.Since(SeenIn(first))
	text := Render(brief)
	if !brief.Unchanged() || strings.Count(text, "\n") != 1 || !strings.Contains(text, first.Digest) {
		t.Fatalf("unchanged page, text:\n%s", text)
	}
	raw, _ := json.Marshal(brief)
	if len(raw) > 400 || !brief.Delta || len(brief.Interactive) != 0 || brief.URL != first.URL {
		t.Fatalf("unchanged page, JSON (%d chars): %s", len(raw), raw)
	}
	// The page changes; its title and URL do not.
	if err := p.Eval(ctx, `(document.querySelector("h1").textContent = "Join us today", true)`, new(bool)); err != nil {
		t.Fatal(err)
	}
	third, _ := observeOK(t, ctx, p, Options{})
	text = Render(third.Since(SeenIn(second)))
	if strings.Contains(text, first.URL) || !strings.Contains(text, "Join us today") {
		t.Fatalf("changed page, same title and URL:\n%s", text)
	}
	if !strings.Contains(Render(third), first.URL) {
		t.Fatal("the full text lost its title line")
	}
	if third.Since(SeenIn(second)).Digest != third.Digest {
		t.Fatal("leaving out the title line changed the digest")
	}
}
