package act

import "testing"

// A failed resolve says what its checks found in turn, not only the last
// answer: here the button was hidden first, then shown under a veil that
// stays until the deadline (issue 21: the call log; issue 46: a cover is
// waited for, and the error says it never moved).
func TestResolveErrorHasTheCallLog(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	const path = "/issue21/call-log.html"
	suitePages.Store(path, `<button id="b" style="display:none" onclick="note('b')">B</button>
<div id="veil" style="display:none;position:absolute;left:0;top:0;width:400px;height:300px"></div>
<script>setTimeout(() => { b.style.display = ''; veil.style.display = 'block'; }, 100)</script>`)
	runCase(t, tab, suiteSite().URL+path, suiteCase{
		steps: steps(&Step{Action: Click, Locator: css("#b"), TimeoutMS: ptr(failWait)}),
		code:  notActionable, has: "covered by <div#veil> (it stayed there the whole time", not: "b;"})
	runCase(t, tab, suiteSite().URL+path, suiteCase{
		steps: steps(&Step{Action: Click, Locator: css("#b"), TimeoutMS: ptr(failWait)}),
		code:  notActionable, has: "; checks in turn: not visible ("})
}
