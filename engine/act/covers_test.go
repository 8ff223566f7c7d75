package act

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// A cover that is there now may leave: a click waits for it until its
// deadline, as Playwright does (issue 46). The flyover is the shape of
// Playwright's "should wait for becoming hit target" page: a bar jumps over
// the button at 300 ms and moves away at 900 ms. The click is sent right
// after load, and again once the page says the bar is over the button (the
// click then meets the cover, whatever the machine's load).
const flyoverPage = `<style>body { margin: 0; position: relative; } #fly { position: absolute; width: 400px; height: 40px; left: -400px; top: 0; background: #c00; }</style>
<button style="border:0;width:200px;height:40px" onclick="note('pressed')">Press</button><div id="fly" class="flyover"></div>
<script>setTimeout(() => { fly.style.left = '0'; document.body.dataset.state = 'over'; }, 300);
setTimeout(() => { fly.style.left = '400px'; document.body.dataset.state = 'away'; }, 900);</script>`

func TestCoverThatLeavesIsWaitedFor(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	suitePages.Store("/issue46/flyover.html", flyoverPage)
	overFirst := &Step{Action: Wait, Condition: "attached", Locator: css("body[data-state=over]")}
	click := &Step{Action: Click, Locator: css("button"), TimeoutMS: ptr(5000)}
	for i := range 3 {
		t.Run(fmt.Sprintf("at load %d", i), func(t *testing.T) {
			runCase(t, tab, suiteSite().URL+"/issue46/flyover.html", suiteCase{steps: steps(click), log: "pressed;"})
		})
		t.Run(fmt.Sprintf("under the bar %d", i), func(t *testing.T) {
			runCase(t, tab, suiteSite().URL+"/issue46/flyover.html", suiteCase{steps: steps(overFirst, click), log: "pressed;"})
		})
	}
}

// A veil faded out by a script (opacity stepped in animation frames, then
// display:none, as jQuery's fadeOut does) covers the button for 1.5 s: the
// click waits it out. The page is the real-web reference repro.
func TestFadingVeilIsWaitedFor(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	body, err := os.ReadFile("../../testdata/real-web/fade-cover.html")
	if err != nil {
		t.Fatal(err)
	}
	suitePages.Store("/issue46/fade.html", string(body)+`<script>go.addEventListener('click', () => note(out.textContent));</script>`)
	runCase(t, tab, suiteSite().URL+"/issue46/fade.html", suiteCase{
		steps: steps(clickS("#fade"), &Step{Action: Click, Locator: css("#go"), TimeoutMS: ptr(8000)}),
		log:   "clicked at "})
}

// A cover that never leaves fails at the deadline, named, and said to have
// stayed the whole time.
func TestPermanentCoverFailsAtTheDeadline(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	suitePages.Store("/issue46/permanent.html", `<button onclick="note('b')">B</button>
<div id="veil" style="position:fixed;inset:0;background:rgba(0,0,0,.5)"></div>`)
	c := suiteCase{steps: steps(&Step{Action: Click, Locator: css("button"), TimeoutMS: ptr(failWait)}),
		code: notActionable, has: "covered by <div#veil> (it stayed there the whole time", not: "b;"}
	runCase(t, tab, suiteSite().URL+"/issue46/permanent.html", c)
	if strings.Contains(c.has, "checks in turn") {
		t.Fatal("unreachable")
	}
}
