package act

import (
	"os"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/locate"
)

// realWebPage serves a repro page of testdata/real-web (shapes found on
// real apps) under /real-web/, with the suite's note() and a line that
// notes #out's text whenever it changes.
func realWebPage(t *testing.T, name string) string {
	t.Helper()
	body, err := os.ReadFile("../../testdata/real-web/" + name)
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(string(body), "<!doctype html>", "", 1) + `<script>
const outEl = document.getElementById('out');
if (outEl) new MutationObserver(() => note(outEl.textContent)).observe(outEl, { childList: true, characterData: true, subtree: true });
</script>`
	suitePages.Store("/real-web/"+name, page)
	return suiteSite().URL + "/real-web/" + name
}

// Shoelace's sl-button shape: the <button> is in a shadow root and its
// label is light-DOM text slotted into it. The hit test follows the slot,
// so the button is not "covered by its own host" (issue 47).
func TestSlottedButtonClicks(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	url := realWebPage(t, "slotted-button.html")
	byRole := locate.Locator{Selector: "button", SelectorType: "role", Name: ptr("Save profile")}
	runCase(t, tab, url, suiteCase{steps: steps(&Step{Action: Click, Locator: byRole, TimeoutMS: ptr(3000)}), log: "clicked;"})
	runCase(t, tab, url, suiteCase{steps: steps(clickS("#save")), log: "clicked;"})
}

// The same button in a closed shadow root: found by its role through the
// accessibility tree, clicked though no hit test can enter the host.
func TestButtonInClosedShadowRootClicks(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	const path = "/real-web/closed-button.html"
	suitePages.Store(path, `<x-closed id="save">Save profile</x-closed>
<script>customElements.define('x-closed', class extends HTMLElement {
  constructor() { super(); const r = this.attachShadow({ mode: 'closed' });
    r.innerHTML = '<button part="base" style="padding:8px 16px"><slot></slot></button>';
    r.querySelector('button').addEventListener('click', () => note('clicked')); }
});</script>`)
	byRole := locate.Locator{Selector: "button", SelectorType: "role", Name: ptr("Save profile")}
	runCase(t, tab, suiteSite().URL+path, suiteCase{steps: steps(&Step{Action: Click, Locator: byRole, TimeoutMS: ptr(3000)}), log: "clicked;"})
}

// Nested shadow roots, the label slotted through two slots (a design
// system's dialog holding its button): the hit test walks both.
func TestButtonSlottedThroughNestedShadowRootsClicks(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	const path = "/real-web/nested-button.html"
	suitePages.Store(path, `<x-dialog id="dlg">Send</x-dialog>
<script>
customElements.define('x-btn', class extends HTMLElement {
  constructor() { super(); const r = this.attachShadow({ mode: 'open' });
    r.innerHTML = '<button style="padding:8px 16px"><slot></slot></button>';
    r.querySelector('button').addEventListener('click', () => note('sent')); }
});
customElements.define('x-dialog', class extends HTMLElement {
  constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = '<div class="actions"><x-btn><slot></slot></x-btn></div>'; }
});</script>`)
	byRole := locate.Locator{Selector: "button", SelectorType: "role", Name: ptr("Send")}
	runCase(t, tab, suiteSite().URL+path, suiteCase{steps: steps(&Step{Action: Click, Locator: byRole, TimeoutMS: ptr(3000)}), log: "sent;"})
}
