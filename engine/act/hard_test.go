package act

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
)

func TestHardCases(t *testing.T) {
	t.Parallel()
	tab := page(t, "hard.html")

	// Detached by its own mousedown: the press was delivered, and the page
	// ended what it was doing; that is a success (issue 17), not a miss.
	r := must(t, tab, &Step{Action: Click, Locator: css("#vanish")})
	if !strings.Contains(r.Verified, "removed before the click") {
		t.Fatalf("verified %q", r.Verified)
	}

	// Never still: the stability check refuses it, the dom mode does not care.
	_, err := run(t, tab, &Step{Action: Click, Locator: css("#runaway"), TimeoutMS: ptr(500)})
	wantCode(t, err, errs.NotActionable, "not stable")
	must(t, tab, &Step{Action: Click, Locator: css("#runaway"), Mode: "dom"})

	// A combobox with a popup list: the control read lists its options.
	r = must(t, tab, &Step{Action: Click, Locator: locate.Locator{Selector: "combobox", SelectorType: locate.Role, Name: ptr("Country")},
		Observe: &ObserveSpec{MaxOptions: ptr(2)}})
	c := r.Control
	if c == nil || c.Role != "combobox" || c.Expanded == nil || !*c.Expanded || len(c.Options) != 2 || c.OptionsOmitted != 1 ||
		c.Options[1]["label"] != "Germany" || c.Options[1]["selected"] != true || c.Options[0]["value"] != "fr" {
		t.Fatalf("combobox read: %+v", c)
	}

	// Wait conditions on states.
	must(t, tab, &Step{Action: Wait, Condition: "checked", Locator: css("#mixed"), Expected: &Expected{Str: ptr("mixed")}})
	must(t, tab, &Step{Action: Wait, Condition: "expanded", Locator: css("#more"), Expected: &Expected{Bool: ptr(false)}})
	must(t, tab, &Step{Action: Click, Locator: locate.Locator{Selector: "//summary", SelectorType: locate.XPath}})
	must(t, tab, &Step{Action: Wait, Condition: "expanded", Locator: css("#more"), Expected: &Expected{Bool: ptr(true)}})
	must(t, tab, &Step{Action: Wait, Condition: "text", Locator: css("#status"), Previous: ptr("idle")})
	must(t, tab, &Step{Action: Wait, Condition: "selected", Locator: locate.Locator{Selector: "option", SelectorType: locate.Role, Name: ptr("Germany")}, Expected: &Expected{Bool: ptr(true)}})
	_, err = run(t, tab, &Step{Action: Wait, Condition: "absent", Locator: css("#status"), TimeoutMS: ptr(1000)})
	wantCode(t, err, errs.Timeout, `"count":1`)

	// An infinite list: scroll the container until item 35 shows.
	r = must(t, tab, &Step{Action: Scroll, Locator: css("#feed"), Until: &Until{Text: "Item 35"}, DeltaY: ptr(150.0), MaxSteps: ptr(60)})
	if r.Scroll.Found == nil || !*r.Scroll.Found || r.Scroll.Steps < 3 {
		t.Fatalf("infinite scroll: %+v", r.Scroll)
	}
	r = must(t, tab, &Step{Action: Scroll, Mode: "wheel", Locator: css("#feed"), DeltaY: ptr(-100.0)})
	if r.Scroll.Steps != 1 {
		t.Fatalf("wheel scroll: %+v", r.Scroll)
	}

	// Upload two real files.
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"a.txt", "b.txt"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(name), 0o644)
		files = append(files, p)
	}
	r = must(t, tab, &Step{Action: Upload, Locator: css("#upload"), Files: files})
	if !strings.Contains(r.Verified, "2 file") {
		t.Fatalf("upload: %q", r.Verified)
	}
	_, err = run(t, tab, &Step{Action: Upload, Locator: css("#status"), Files: files})
	wantCode(t, err, errs.NotActionable, "not an <input type=file>")
}
