package act

import (
	"fmt"
	"html"
	"strings"

	"github.com/tabwright/tabwright/engine/locate"
)

// tinyDiv is a 1×1 px target placed at a fractional offset.
func tinyDiv(left, top string) string {
	return fmt.Sprintf(`<div style="margin-left:%s;margin-top:%s;width:1px;height:1px" onclick="note('tiny')"></div>`, left, top)
}

// manyButtons is a long page of buttons, each marking itself clicked.
func manyButtons(style string) string {
	var b strings.Builder
	b.WriteString(style)
	for i := range 100 {
		fmt.Fprintf(&b, `<div style="height:60px"><button id="b%d" onclick="note('b%d')">Button %d</button></div>`, i, i, i)
	}
	return b.String()
}

// offscreen places eleven buttons further and further off the first screen.
func offscreen() string {
	var b strings.Builder
	for i := range 11 {
		fmt.Fprintf(&b, `<button id="o%d" style="position:absolute;left:%dpx;top:%dpx" onclick="note('o%d')">%d</button>`, i, i*170, i*130, i, i)
	}
	return b.String()
}

// frameTarget is a page with a 2×2 px target that notes in the top page.
const frameTarget = `<style>html, body { margin: 0; padding: 0; } div { margin-left: 12px; margin-top: 18px; width: 2px; height: 2px; }</style><div onclick="top.note('inner')">x</div>`

// srcdoc writes a page into an iframe's srcdoc attribute.
func srcdoc(page string) string { return `<iframe srcdoc="` + html.EscapeString(page) + `"></iframe>` }

func frameCase(style string) string {
	return `<style>body, html, iframe { margin: 0; padding: 0; border: none; }` + style + `</style>` + srcdoc(frameTarget)
}

func right(sel string) *Step  { return &Step{Action: Click, Locator: css(sel), Button: "right"} }
func double(sel string) *Step { return &Step{Action: Click, Locator: css(sel), ClickCount: ptr(2)} }

var clickCases = []suiteCase{
	// page-click.spec.ts
	{name: "page-click: should click the button",
		page: `<button onclick="note('pressed')">Press</button>`, steps: steps(clickS("button")), log: "pressed;", verified: "trusted click received"},
	{name: "page-click: should click svg",
		page:  `<svg width="120" height="120"><circle cx="60" cy="60" r="45" fill="teal" onclick="note('circle')"/></svg>`,
		steps: steps(clickS("circle")), log: "circle;"},
	{name: "page-click: should click on a span with an inline element inside",
		page:  `<style>span::before { content: 'w'; }</style><span onclick="note('span')"></span>`,
		steps: steps(clickS("span")), log: "span;"},
	{name: "page-click: should click the aligned 1x1 div", page: tinyDiv("0", "0"), steps: steps(clickS("body > div")), log: "tiny;"},
	{name: "page-click: should click the half-aligned 1x1 div", page: tinyDiv("20.5px", "11.5px"), steps: steps(clickS("body > div")), log: "tiny;"},
	{name: "page-click: should click the unaligned 1x1 div v1", page: tinyDiv("20.23px", "11.65px"), steps: steps(clickS("body > div")), log: "tiny;"},
	{name: "page-click: should click the unaligned 1x1 div v2", page: tinyDiv("20.68px", "11.13px"), steps: steps(clickS("body > div")), log: "tiny;"},
	{name: "page-click: should click the unaligned 1x1 div v3", page: tinyDiv("20.68px", "11.52px"), steps: steps(clickS("body > div")), log: "tiny;"},
	{name: "page-click: should click the unaligned 1x1 div v4", page: tinyDiv("20.15px", "11.24px"), steps: steps(clickS("body > div")), log: "tiny;"},
	{name: "page-click: should click when one of inline box children is outside of viewport",
		page:  `<style>i { position: absolute; top: -900px; }</style><span onclick="note('span')"><i>far</i><b>near</b></span>`,
		steps: steps(clickS("span")), log: "span;"},
	{name: "page-click: should click offscreen buttons", page: offscreen(),
		steps: steps(clickS("#o0"), clickS("#o1"), clickS("#o2"), clickS("#o3"), clickS("#o4"), clickS("#o5"), clickS("#o6"), clickS("#o7"), clickS("#o8"), clickS("#o9"), clickS("#o10")),
		log:   "o0;o1;o2;o3;o4;o5;o6;o7;o8;o9;o10;"},
	{name: "page-click: should waitFor display:none to be gone",
		page:  `<button id="b" style="display:none" onclick="note('pressed')">Press</button><script>setTimeout(() => { note('shown'); b.style.display = 'block'; }, 300)</script>`,
		steps: steps(clickS("#b")), log: "shown;pressed;"},
	{name: "page-click: should waitFor visibility:hidden to be gone",
		page:  `<button id="b" style="visibility:hidden" onclick="note('pressed')">Press</button><script>setTimeout(() => { note('shown'); b.style.visibility = 'visible'; }, 300)</script>`,
		steps: steps(clickS("#b")), log: "shown;pressed;"},
	{name: "page-click: should waitFor visible when parent is hidden",
		page:  `<div id="p" style="display:none"><button onclick="note('pressed')">Press</button></div><script>setTimeout(() => { note('shown'); p.style.display = 'block'; }, 300)</script>`,
		steps: steps(clickS("button")), log: "shown;pressed;"},
	{name: "page-click: should click wrapped links",
		page: `<style>body { display: flex; justify-content: center; font-family: monospace; }
div { width: 9ch; word-wrap: break-word; border: 1px solid; transform: rotate(30deg); line-height: 7ch; padding: 2ch; } a { margin-left: 6ch; }</style>
<div><a href="#x" onclick="note('link')">456654</a></div>`,
		steps: steps(clickS("a")), log: "link;"},
	{name: "page-click: should click on checkbox input and toggle",
		page:  `<input type="checkbox" id="agree" onchange="note('checked ' + this.checked)"><label for="agree">I agree</label>`,
		steps: steps(clickS("#agree"), clickS("#agree")), log: "checked true;checked false;"},
	{name: "page-click: should click on checkbox label and toggle",
		page:  `<input type="checkbox" id="agree" onchange="note('checked ' + this.checked)"><label for="agree">I agree</label>`,
		steps: steps(clickS("label[for=agree]"), clickS("label[for=agree]")), log: "checked true;checked false;"},
	{name: "page-click: should scroll and click the button", page: manyButtons(""),
		steps: steps(clickS("#b5"), clickS("#b80")), log: "b5;b80;"},
	{name: "page-click: should scroll and click the button with smooth scroll behavior", page: manyButtons(`<style>html { scroll-behavior: smooth; }</style>`),
		steps: steps(clickS("#b80"), clickS("#b20"), clickS("#b80")), log: "b80;b20;b80;"},
	{name: "page-click: should double click the button",
		page:  `<button ondblclick="note('double')" onclick="note('single')">Twice</button>`,
		steps: steps(double("button")), log: "single;single;double;"},
	{name: "page-click: should click a partially obscured button",
		page:  `<button style="position:absolute;left:368px" onclick="note('pressed')">A label long enough to run well past the right edge of the viewport, and on, and on, and on</button>`,
		steps: steps(clickS("button")), log: "pressed;"},
	{name: "page-click: should click a rotated button",
		page:  `<button style="transform:rotate(180deg);width:120px;height:40px" onclick="note('pressed')">Press</button>`,
		steps: steps(clickS("button")), log: "pressed;"},
	{name: "page-click: should fire contextmenu event on right click",
		page:  `<button oncontextmenu="note('menu'); return false">Menu</button>`,
		steps: steps(right("button")), log: "menu;"},
	// The read back races the navigation: "received" and "navigated" are both right.
	{name: "page-click: should click links which cause navigation",
		page:  `<a href="/suite/empty.html">away</a>`,
		steps: steps(clickS("a")), verified: "click"},
	{name: "page-click: should click the button inside an iframe",
		page:  `<div style="width:100px;height:100px">spacer</div>` + srcdoc(`<button onclick="top.note('framed')">In</button>`),
		steps: steps(clickOn(inFrame(css("button"), "iframe"))), log: "framed;"},
	{name: "page-click: should click the button behind sticky header",
		page: `<style>* { margin: 0; padding: 0; } li { height: 10vh; border: 1px solid; } ol { padding-top: 70vh; }
.bar { position: fixed; z-index: 5; width: 100%; height: 70vh; background: #c00; }</style><div class="bar"></div>
<ol>` + strings.Repeat("<li>row</li>", 8) + `<li id="target" onclick="note('row 9')">row 9</li>` + strings.Repeat("<li>row</li>", 5) + `</ol>
<script>document.querySelector('li:last-child').scrollIntoView()</script>`,
		steps: steps(clickS("#target")), log: "row 9;"},
	{name: "page-click: should click the button behind position:absolute header",
		page: `<style>* { margin: 0; padding: 0; } li { height: 10vh; border: 1px solid; } ol { height: 100vh; overflow: scroll; padding-top: 70vh; }
body { position: relative; } .bar { position: absolute; top: 0; z-index: 5; width: 100%; height: 70vh; background: #c00; }</style>
<ol>` + strings.Repeat("<li>row</li>", 8) + `<li id="target" onclick="note('row 9')">row 9</li>` + strings.Repeat("<li>row</li>", 5) + `</ol><div class="bar">Over</div>
<script>const ol = document.querySelector('ol'); ol.scrollTo({ top: document.getElementById('target').offsetTop, behavior: 'instant' });</script>`,
		steps: steps(clickS("#target")), log: "row 9;"},
	{name: "page-click: should click the button with px border with offset",
		ours:  "offset is a ratio of the content box (x_ratio, y_ratio), not pixels from the border box",
		page:  `<button style="border:8px solid;padding:0;width:216px;height:116px;box-sizing:border-box" onclick="note(event.offsetX + ',' + event.offsetY)">Press</button>`,
		steps: steps(&Step{Action: Click, Locator: css("button"), Offset: &locate.Offset{XRatio: 0.1, YRatio: 0.1}}), log: "20,10;"},
	{name: "page-click: should wait for stable position",
		page: `<style>body { margin: 0; }</style><button id="b" style="transition:margin 500ms linear;display:block;width:200px;height:20px;border:0" onclick="note('at ' + event.pageX)">Press</button>
<script>// Shown two frames after the move began, so the click meets it moving.
b.style.visibility = 'hidden'; b.offsetWidth; b.style.marginLeft = '200px';
requestAnimationFrame(() => requestAnimationFrame(() => { b.style.visibility = 'visible'; }));</script>`,
		steps: steps(clickS("#b")), log: "at 300;"},
	{name: "page-click: should wait for becoming hit target",
		page: `<style>body { margin: 0; position: relative; } #fly { position: absolute; width: 400px; height: 20px; left: -200px; top: 0; background: #c00; }
@keyframes blink { to { background: #fcc; } } .on { animation: blink 100ms infinite alternate; }</style>
<button style="border:0;width:200px;height:20px" onclick="note('pressed')">Press</button><div id="fly"></div>
<script>setTimeout(() => { fly.style.left = '0'; fly.className = 'on'; }, 50); setTimeout(() => { note('moved'); fly.style.left = '200px'; }, 400)</script>`,
		steps: steps(clickS("button")), log: "moved;pressed;",
	},
	{name: "page-click: should wait for button to be enabled",
		page:  `<button disabled onclick="note('pressed')"><span>Press</span></button><script>setTimeout(() => { note('enabled'); document.querySelector('button').disabled = false; }, 300)</script>`,
		steps: steps(clickS("button span")), log: "enabled;pressed;"},
	{name: "page-click: should wait for input to be enabled",
		page:  `<input disabled onclick="note('pressed')"><script>setTimeout(() => { note('enabled'); document.querySelector('input').disabled = false; }, 300)</script>`,
		steps: steps(clickS("input")), log: "enabled;pressed;"},
	{name: "page-click: should wait for select to be enabled",
		page:  `<select disabled onmousedown="note('pressed'); event.preventDefault()"><option>Only</option></select><script>setTimeout(() => { note('enabled'); document.querySelector('select').disabled = false; }, 300)</script>`,
		steps: steps(clickS("select")), log: "enabled;pressed;"},
	{name: "page-click: should click disabled div",
		page:  `<div disabled onclick="note('div')">Press</div>`,
		steps: steps(clickS("div")), log: "div;"},
	{name: "page-click: should wait for BUTTON to be clickable when it has pointer-events:none",
		page:  `<button style="pointer-events:none" onclick="note('pressed')"><span>Press</span></button><script>setTimeout(() => { note('ready'); document.querySelector('button').style.removeProperty('pointer-events'); }, 300)</script>`,
		steps: steps(clickS("button span")), log: "ready;pressed;"},
	{name: "page-click: should wait for LABEL to be clickable when it has pointer-events:none",
		page:  `<label style="pointer-events:none" onclick="note('pressed')"><span>Press</span></label><script>setTimeout(() => { note('ready'); document.querySelector('label').style.removeProperty('pointer-events'); }, 300)</script>`,
		steps: steps(clickS("label span")), log: "ready;pressed;"},
	{name: "page-click: should update modifiers correctly",
		page:  `<button onclick="note('shift ' + event.shiftKey)">Press</button>`,
		steps: steps(&Step{Action: Click, Locator: css("button"), Modifiers: []string{"Shift"}}, clickS("button")), log: "shift true;shift false;"},
	{name: "page-click: should click an offscreen element when scroll-behavior is smooth",
		page:  `<div style="border:1px solid;height:300px;overflow:auto;width:300px;scroll-behavior:smooth"><button style="margin-top:2000px" onclick="note('pressed')">Deep</button></div>`,
		steps: steps(clickS("button")), log: "pressed;"},
	{name: "page-click: should retry when element detaches after animation",
		page: `<style>@keyframes jig { from { margin-left: 0 } to { margin-left: 60px } } .jig { animation: jig 200ms infinite alternate; }</style><div id="box"></div>
<script>const put = (cls, name) => { box.innerHTML = ''; const b = document.createElement('button'); b.className = cls; b.textContent = name; b.onclick = () => note(name); box.append(b); };
put('jig', 'first'); setTimeout(() => put('jig', 'second'), 200); setTimeout(() => put('', 'still'), 450);</script>`,
		steps: steps(clickS("button")), log: "still;", not: "first"},
	{name: "page-click: should retry when element is animating from outside the viewport",
		page: `<style>@keyframes enter { from { left: -300px; } to { left: 0; } } button { position: absolute; left: -300px; top: 0; bottom: 0; width: 200px; }
button.go { animation: 300ms linear 200ms enter forwards; }</style><div style="position:relative;width:300px;height:300px"><button class="go" onclick="note('pressed')"></button></div>`,
		steps: steps(clickS("button")), log: "pressed;"},
	{name: "page-click: should dispatch microtasks in order",
		page: `<button id="b">Press</button><script>let n = 0; new MutationObserver((m) => { n += m.length; }).observe(document.body, { childList: true, subtree: true });
b.addEventListener('mousedown', () => { n = 0; document.body.append(document.createElement('div')); }); b.addEventListener('mouseup', () => note('mutations ' + n));</script>`,
		steps: steps(clickS("#b")), log: "mutations 1;"},
	{name: "page-click: should click the button when window.innerWidth is corrupted",
		page:  `<button onclick="note('pressed')">Press</button><script>Object.defineProperty(window, 'innerWidth', { value: 0 })</script>`,
		steps: steps(clickS("button")), log: "pressed;"},
	{name: "page-click: should click zero-sized input by label",
		page:  `<label>Tick here <input onclick="note('input')" style="width:0;height:0;padding:0;margin:0;border:0"></label>`,
		steps: steps(clickS("input")), log: "input;"},
	{name: "page-click: should climb dom for inner label with pointer-events:none",
		page:  `<button onclick="note('pressed')"><label style="pointer-events:none">Press</label></button>`,
		steps: steps(clickS("button label")), log: "pressed;"},
	{name: "page-click: should climb up to [role=button]",
		page:  `<div role="button" onclick="note('pressed')"><div style="pointer-events:none"><span><div id="deep">Press</div></span></div></div>`,
		steps: steps(clickS("#deep")), log: "pressed;"},
	{name: "page-click: should climb up to a anchor",
		page:  `<a href="#" onclick="note('pressed')"><div><div id="inner" style="pointer-events:none">Inner</div></div></a>`,
		steps: steps(clickS("#inner")), log: "pressed;"},
	{name: "page-click: should climb up to a [role=link]",
		page:  `<div role="link" onclick="note('pressed')"><div id="inner" style="pointer-events:none">Inner</div></div>`,
		steps: steps(clickS("#inner")), log: "pressed;"},
	{name: "page-click: should click in an iframe with border",
		page:  frameCase(`iframe { box-sizing: border-box; border: 5px solid black; margin-left: 31px; margin-top: 23px; width: 400px; height: 400px; }`),
		steps: steps(clickOn(inFrame(css("div"), "iframe"))), log: "inner;"},
	{name: "page-click: should click in an iframe with border 2",
		page:  frameCase(`iframe { border: 5px solid black; margin-left: 31px; margin-top: 23px; width: 400px; height: 400px; }`),
		steps: steps(clickOn(inFrame(css("div"), "iframe"))), log: "inner;"},
	{name: "page-click: should click in a transformed iframe",
		page:  frameCase(`iframe { border: 4px solid black; margin-left: 31px; margin-top: 23px; width: 400px; height: 400px; transform: translate(90px, 90px) scale(1.2) rotate3d(1, 1, 1, 25deg); }`),
		steps: steps(clickOn(inFrame(css("div"), "iframe"))), log: "inner;"},
	{name: "page-click: should click in a nested transformed iframe",
		page: `<style>body, html, iframe { margin: 0; padding: 0; box-sizing: border-box; } iframe { border: 1px solid black; margin-left: 31px; margin-top: 23px; width: 400px; height: 400px; transform: scale(0.8); }</style>
` + srcdoc(`<style>body, html, iframe { margin: 0; padding: 0; box-sizing: border-box; } iframe { border: 3px solid black; margin-left: 17px; margin-top: 13px; width: 200px; height: 200px; transform: scale(0.7); }</style>`+srcdoc(frameTarget)),
		steps: steps(clickOn(inFrame(css("div"), "iframe", "iframe"))), log: "inner;"},
	{name: "page-click: should click if opened select covers the button",
		page:  `<div><select><option>a rather long option 1</option><option>a rather long option 2</option><option>a rather long option 3</option><option>a rather long option 4</option></select></div><div><button onclick="note('pressed')">Press</button></div>`,
		steps: steps(clickS("select"), clickS("button")), log: "pressed;"},
	{name: "page-click: should fire contextmenu event on right click in correct order",
		page:  `<button>Menu</button><script>for (const t of ['mousedown', 'mouseup', 'contextmenu']) document.addEventListener(t, (e) => note(e.type));</script>`,
		steps: steps(&Step{Action: Click, Locator: role("button", "Menu"), Button: "right"}), log: "mousedown;contextmenu;mouseup;"},
	{name: "page-click: should click after a right click",
		page:  `<button onclick="note('pressed')">Press</button>`,
		steps: steps(&Step{Action: Click, Locator: role("button"), Button: "right"}, clickOn(role("button"))), log: "pressed;"},
	{name: "page-click: should click into shadow root with slotted div",
		page:  `<fancy-button onclick="note('host')"><template shadowrootmode="open"><button><slot></slot></button></template><div>Go</div></fancy-button>`,
		steps: steps(clickOn(role("button", "Go"))), log: "host;"},
	{name: "page-click: should click shadow root button",
		page:  `<fancy-button onclick="note('host')"><template shadowrootmode="open"><button><slot></slot></button></template><div>Go</div></fancy-button>`,
		steps: steps(clickS("fancy-button")), log: "host;"},

	// elementhandle-click.spec.ts
	{name: "elementhandle-click: should work for Shadow DOM v1",
		page:  `<div id="host"></div><script>const b = document.createElement('button'); b.textContent = 'Deep'; b.onclick = () => note('shadow'); host.attachShadow({ mode: 'open' }).append(b);</script>`,
		steps: steps(clickS("button")), log: "shadow;"},
	{name: "elementhandle-click: should throw for hidden nodes",
		page: `<button style="display:none">Gone</button>`, steps: steps(clickS("button")), code: notActionable, has: "not visible"},
	{name: "elementhandle-click: should throw for recursively hidden nodes",
		page: `<div style="display:none"><button>Gone</button></div>`, steps: steps(clickS("button")), code: notActionable, has: "not visible"},
	{name: "elementhandle-click: should throw for <br> elements",
		ours: "a <br> has no box, so it is not visible; Playwright, forced, calls it outside the viewport",
		page: `hello<br>world`, steps: steps(clickS("br")), code: notActionable, has: "not visible"},
	{name: "elementhandle-click: should double click the button",
		page: `<button ondblclick="note('double')">Twice</button>`, steps: steps(double("button")), log: "double;"},

	// page-click-scroll.spec.ts
	{name: "page-click-scroll: should not hit scroll bar",
		page: `<style>.row { width: 180px; display: flex; overflow-x: scroll; } button { flex: none; height: 28px; }</style>
<div class="row"><button>One</button><button>Two</button><button>Three</button><button id="s" onclick="note('story')">Story</button><button>More</button><button>Items</button></div>`,
		steps: steps(clickS("#s")), log: "story;"},
	{name: "page-click-scroll: should scroll into view display:contents",
		page:  `<div style="height:2000px">filler</div><div>Text, and a button: <button style="display:contents" onclick="note('contents')">press me</button></div>`,
		steps: steps(clickS("button")), log: "contents;"},
	{name: "page-click-scroll: should scroll into view display:contents with a child",
		page:  `<div style="height:2000px">filler</div>Text, and a button: <button style="display:contents" onclick="note('contents')"><div>press me</div></button>`,
		steps: steps(clickS("button")), log: "contents;"},
	{name: "page-click-scroll: should not crash when clicking hidden input",
		page: `<input type="hidden">`, steps: steps(clickS("input")), code: notActionable, has: "not visible"},
	{name: "page-click-scroll: should scroll into view element in iframe",
		page:  `<div style="height:3000px"></div>` + srcdoc(`<button onclick="top.note('far')">Far</button>`),
		steps: steps(clickOn(inFrame(role("button"), "iframe"))), log: "far;"},

	// page-click-timeout-*.spec.ts: what a timed-out click names.
	{name: "page-click-timeout: should timeout waiting for button to be enabled",
		page:  `<button disabled onclick="note('pressed')"><span>Press</span></button>`,
		steps: steps(clickS("button span")), code: notActionable, has: "disabled", not: "pressed"},
	{name: "page-click-timeout: should timeout waiting for display:none to be gone",
		page: `<button style="display:none">Press</button>`, steps: steps(clickS("button")), code: notActionable, has: "not visible"},
	{name: "page-click-timeout: should timeout waiting for visibility:hidden to be gone",
		page: `<button style="visibility:hidden">Press</button>`, steps: steps(clickS("button")), code: notActionable, has: "not visible"},
	{name: "page-click-timeout: should timeout waiting for hit target",
		page:  `<style>body { position: relative; } #blocker { position: absolute; width: 400px; height: 30px; left: 0; top: 0; }</style><button onclick="note('pressed')">Press</button><div id="blocker"></div>`,
		steps: steps(clickS("button")), code: notActionable, has: "covered by <div#blocker>", not: "pressed"},
	{name: "page-click-timeout: should report wrong hit target subtree",
		ours:  "the message names the element hit (covered by <div#inner>), not the subtree it belongs to",
		page:  `<style>body { position: relative; } #blocker { position: absolute; width: 400px; height: 30px; left: 0; top: 0; } #inner { position: absolute; inset: 0; }</style><button>Press</button><div id="blocker"><div id="inner"></div></div>`,
		steps: steps(clickS("button")), code: notActionable, has: "covered by <div#inner>"},
	{name: "page-click-timeout: should timeout waiting for stable position",
		page: `<button id="b" style="transition:margin 5s linear" onclick="note('pressed')">Press</button>
<script>b.style.visibility = 'hidden'; b.offsetWidth; b.style.marginLeft = '200px'; requestAnimationFrame(() => requestAnimationFrame(() => { b.style.visibility = 'visible'; }));</script>`,
		steps: steps(clickS("#b")), code: notActionable, has: "not stable", not: "pressed"},
	{name: "page-click-timeout: should fail to click the button behind a large header after scrolling around",
		page: `<style>* { margin: 0; padding: 0; } li { height: 10vh; border: 1px solid; } ol { padding-top: 70vh; }
.bar { position: fixed; z-index: 5; width: 100%; height: 2000px; background: rgba(200, 0, 0, 0.2); }</style><div class="bar"></div>
<ol>` + strings.Repeat("<li>row</li>", 8) + `<li id="target" onclick="note('row 9')">row 9</li>` + strings.Repeat("<li>row</li>", 5) + `</ol>
<script>document.querySelector('li:last-child').scrollIntoView(); const seen = new Set();
addEventListener('scroll', () => { seen.add(scrollY); if (seen.size === 3) note('three scroll positions'); });</script>`,
		steps: steps(clickS("#target")), code: notActionable, has: "covered by <div.bar>", log: "three scroll positions;", not: "row 9"},

	// issue 21's own: motion measured in frames, covers that stay, a click
	// the page answers by covering itself.
	{name: "issue 21: a target that never stops moving is never clicked",
		page: `<style>@keyframes slide { to { transform: translateX(120px); } } #b { animation: slide 700ms linear infinite alternate; }</style>
<button id="b" onclick="note('pressed')">Press</button>`,
		steps: steps(clickS("#b")), code: notActionable, has: "not stable", not: "pressed"},
	{name: "issue 46: a cover that stays put, then leaves, is waited for",
		// MiniWoB click-button-sequence, seed 6: TWO lies over ONE, still,
		// then moves away inside the budget; a person would wait for it.
		page: `<style>button { position: absolute; width: 40px; height: 40px; left: 30px; top: 60px; }</style>
<button id="one" onclick="note('one')">ONE</button><button id="two" onclick="note('two')">TWO</button>
<script>setTimeout(() => { note('moved'); two.style.left = '120px'; }, 600)</script>`,
		steps: steps(&Step{Action: Click, Locator: css("#one"), TimeoutMS: ptr(5000)}), log: "moved;one;", not: "two"},
	{name: "issue 21: a text input the page covers when it takes focus",
		// MiniWoB focus-text: the input's focus ends the episode, and the
		// page covers itself before the release, so the click goes to the cover.
		page: `<input id="tt" onfocus="note('focus'); this.blur(); cover.style.display = 'block'">
<div id="cover" style="display:none;position:absolute;left:0;top:0;width:100%;height:300px;z-index:9999;background:#111" onclick="note('cover')"></div>`,
		steps: steps(clickS("#tt")), log: "focus;", verified: "took focus"},

	// issue 17's own: the page ends what it was doing on press or focus.
	{name: "issue 17: the target detaches on pointerdown",
		page:  `<button onpointerdown="note('down'); this.remove()">Close menu</button>`,
		steps: steps(clickS("button")), log: "down;", verified: "removed before the click"},
	{name: "issue 17: the target detaches on focus",
		page:  `<input onfocus="note('focus'); this.replaceWith(document.createElement('textarea'))">`,
		steps: steps(clickS("input")), log: "focus;", verified: "removed before the click"},
}
