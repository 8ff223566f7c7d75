package act

import "fmt"

// fields is our page of text fields: an input, a textarea and an editable
// div, each noting its value on input.
const fields = `<input id="in" oninput="note('in ' + this.value)"><textarea id="ta" oninput="note('ta ' + this.value)"></textarea>
<div id="ce" contenteditable="true" oninput="note('ce ' + this.innerText)"></div>`

// typed is an input of the given type that notes its value on input.
func typed(typ string) string {
	return fmt.Sprintf(`<input type="%s" oninput="note('in ' + this.value)">`, typ)
}

// shadowValueInput puts an input of the type in a shadow root and notes
// the input and change events, there and on the body, with their composed flag.
func shadowValueInput(typ string) string {
	return fmt.Sprintf(`<div id="host"></div><script>
const root = host.attachShadow({ mode: 'open' }); root.innerHTML = '<input type=%s>';
for (const t of ['input', 'change']) {
  root.querySelector('input').addEventListener(t, (e) => note(e.type + ':' + e.composed));
  document.body.addEventListener(t, (e) => note('body-' + e.type + ':' + e.composed));
}</script>`, typ)
}

func later(js string) string {
	return `<script>setTimeout(() => { note('ready'); ` + js + ` }, 300)</script>`
}

var valueTypes = []struct{ typ, value string }{
	{"color", "#aaaaaa"}, {"date", "2020-03-02"}, {"time", "13:15"}, {"datetime-local", "2020-03-02T13:15:30"},
	{"month", "2020-03"}, {"range", "42"}, {"week", "2020-W50"},
}

var fillCases = append([]suiteCase{
	// page-fill.spec.ts
	{name: "page-fill: should fill textarea", page: fields, steps: steps(fillS("#ta", "some value")), log: "ta some value;"},
	{name: "page-fill: should fill input", page: fields, steps: steps(fillS("#in", "some value")), log: "in some value;"},
	{name: "page-fill: should throw on unsupported inputs (button)", page: typed("button"), steps: steps(fillS("input", "")), code: notActionable, has: "not a text field"},
	{name: "page-fill: should throw on unsupported inputs (checkbox)", page: typed("checkbox"), steps: steps(fillS("input", "")), code: notActionable, has: "not a text field"},
	{name: "page-fill: should throw on unsupported inputs (file)", page: typed("file"), steps: steps(fillS("input", "")), code: notActionable, has: "not a text field"},
	{name: "page-fill: should throw on unsupported inputs (image)", page: typed("image"), steps: steps(fillS("input", "")), code: notActionable, has: "not a text field"},
	{name: "page-fill: should throw on unsupported inputs (radio)", page: typed("radio"), steps: steps(fillS("input", "")), code: notActionable, has: "not a text field"},
	{name: "page-fill: should throw on unsupported inputs (reset)", page: typed("reset"), steps: steps(fillS("input", "")), code: notActionable, has: "not a text field"},
	{name: "page-fill: should throw on unsupported inputs (submit)", page: typed("submit"), steps: steps(fillS("input", "")), code: notActionable, has: "not a text field"},
	{name: "page-fill: should fill different input types (password)", page: typed("password"), steps: steps(fillS("input", "text password")), log: "in text password;"},
	{name: "page-fill: should fill different input types (search)", page: typed("search"), steps: steps(fillS("input", "text search")), log: "in text search;"},
	{name: "page-fill: should fill different input types (tel)", page: typed("tel"), steps: steps(fillS("input", "text tel")), log: "in text tel;"},
	{name: "page-fill: should fill different input types (text)", page: typed("text"), steps: steps(fillS("input", "text text")), log: "in text text;"},
	{name: "page-fill: should fill different input types (url)", page: typed("url"), steps: steps(fillS("input", "text url")), log: "in text url;"},
	{name: "page-fill: should fill different input types (invalid-type)", page: typed("invalid-type"), steps: steps(fillS("input", "text odd")), log: "in text odd;"},
	{name: "page-fill: should fill range input", page: `<input type="range" min="0" max="100" value="50">`, steps: steps(fillS("input", "42")), value: "42"},
	{name: "page-fill: should throw on incorrect range value (text)", page: `<input type="range" min="0" max="100" value="50">`, steps: steps(fillS("input", "foo")), code: badInput, has: "does not take"},
	{name: "page-fill: should throw on incorrect range value (over max)", page: `<input type="range" min="0" max="100" value="50">`, steps: steps(fillS("input", "200")), code: badInput, has: "does not take"},
	{name: "page-fill: should throw on incorrect range value (off step)", page: `<input type="range" min="0" max="100" value="50">`, steps: steps(fillS("input", "15.43")), code: badInput, has: "does not take"},
	{name: "page-fill: should fill color input", page: `<input type="color" value="#e66465">`, steps: steps(fillS("input", "#aaaaaa")), value: "#aaaaaa"},
	{name: "page-fill: should fill color input case insensitive", page: `<input type="color" value="#e66465">`, steps: steps(fillS("input", "#AbCd00")), value: "#abcd00"},
	{name: "page-fill: should throw on incorrect color value", page: `<input type="color" value="#e66465">`, steps: steps(fillS("input", "badvalue")), code: badInput, has: "does not take"},
	{name: "page-fill: should fill date input after clicking", page: typed("date"), steps: steps(clickS("input"), fillS("input", "2020-03-02")), value: "2020-03-02", log: "in 2020-03-02;"},
	{name: "page-fill: should throw on incorrect date", page: typed("date"), steps: steps(fillS("input", "2020-13-05")), code: badInput, has: "YYYY-MM-DD"},
	{name: "page-fill: should fill time input", page: typed("time"), steps: steps(fillS("input", "13:15")), value: "13:15"},
	{name: "page-fill: should fill month input", page: typed("month"), steps: steps(fillS("input", "2020-07")), value: "2020-07"},
	{name: "page-fill: should throw on incorrect month", page: typed("month"), steps: steps(fillS("input", "2020-13")), code: badInput, has: "does not take"},
	{name: "page-fill: should fill week input", page: typed("week"), steps: steps(fillS("input", "2020-W50")), value: "2020-W50"},
	{name: "page-fill: should throw on incorrect week", page: typed("week"), steps: steps(fillS("input", "2020-123")), code: badInput, has: "does not take"},
	{name: "page-fill: should throw on incorrect time", page: typed("time"), steps: steps(fillS("input", "25:05")), code: badInput, has: "does not take"},
	{name: "page-fill: should fill datetime-local input", page: typed("datetime-local"), steps: steps(fillS("input", "2020-03-02T05:15")), value: "2020-03-02T05:15"},
	{name: "page-fill: should throw on incorrect datetime-local", page: typed("datetime-local"), steps: steps(fillS("input", "abc")), code: badInput, has: "does not take"},
	{name: "page-fill: should fill contenteditable", page: fields, steps: steps(fillS("#ce", "some value")), value: "some value"},
	{name: "page-fill: should fill contenteditable with new lines", page: `<div contenteditable="true"></div>`, steps: steps(fillS("div", "John\nDoe")), value: "John\nDoe"},
	{name: "page-fill: should not double-fill in contenteditable with beforeinput handler",
		page:  `<div id="ed" contenteditable="true"></div><script>ed.addEventListener('beforeinput', (e) => { e.preventDefault(); ed.textContent = e.data; });</script>`,
		steps: steps(fillS("#ed", "Tabwright")), value: "Tabwright"},
	{name: "page-fill: should fill elements with existing value and selection",
		page: fields + `<script>document.getElementById('in').value = 'value one'; document.getElementById('ta').value = 'abc'; document.getElementById('ta').setSelectionRange(1, 2);
document.getElementById('ce').innerHTML = 'some text <span>more text</span> and more'; const r = document.createRange(); r.selectNodeContents(document.querySelector('#ce span')); getSelection().addRange(r);</script>`,
		steps: steps(fillS("#in", "another value"), fillS("#ta", "maybe this one"), fillS("#ce", "replace with this")), value: "replace with this", log: "in another value;ta maybe this one;"},
	{name: "page-fill: should throw nice error when element is not an <input>",
		page: `<select><option>one</option></select>`, steps: steps(fillS("select", "")), code: notActionable, has: "not editable"},
	{name: "page-fill: should retry on disabled element", page: fields + later(`document.getElementById('in').disabled = false;`) + `<script>document.getElementById('in').disabled = true</script>`,
		steps: steps(fillS("#in", "some value")), log: "ready;in some value;"},
	{name: "page-fill: should retry on readonly element", page: fields + later(`document.getElementById('ta').readOnly = false;`) + `<script>document.getElementById('ta').readOnly = true</script>`,
		steps: steps(fillS("#ta", "some value")), log: "ready;ta some value;"},
	{name: "page-fill: should retry on invisible element", page: fields + later(`document.getElementById('in').style.display = 'inline';`) + `<script>document.getElementById('in').style.display = 'none'</script>`,
		steps: steps(fillS("#in", "some value")), log: "ready;in some value;"},
	{name: "page-fill: should be able to fill the body", page: `<script>document.body.contentEditable = 'true'</script>`, steps: steps(fillS("body", "some value")), value: "some value"},
	{name: "page-fill: should fill fixed position input", page: `<input style="position:fixed">`, steps: steps(fillS("input", "some value")), value: "some value"},
	{name: "page-fill: should be able to fill when focus is in the wrong frame",
		page:  `<div contenteditable="true"></div><iframe></iframe><script>document.querySelector('iframe').focus()</script>`,
		steps: steps(fillS("div", "some value")), value: "some value"},
	{name: "page-fill: should be able to fill the input[type=number]", page: typed("number"), steps: steps(fillS("input", "42")), value: "42"},
	{name: "page-fill: should be able to fill exponent into the input[type=number]", page: typed("number"), steps: steps(fillS("input", "-10e5")), value: "-10e5"},
	{name: "page-fill: should be able to fill input[type=number] with empty string", page: `<input type="number" value="123">`, steps: steps(fillS("input", "")), value: ""},
	{name: "page-fill: should not be able to fill text into the input[type=number]",
		ours: "the browser drops the letters and fill reports value_mismatch with both values; Playwright refuses before typing",
		page: typed("number"), steps: steps(fillS("input", "abc")), code: mismatch, has: `expected "abc"`},
	{name: "page-fill: should be able to clear using fill()", page: fields, steps: steps(fillS("#in", "some value"), fillS("#in", "")), value: "", log: "in some value;in ;"},
	{name: "page-fill: should not throw when fill causes navigation",
		page:  `<input type="date" oninput="location.href = '/suite/empty.html'">`,
		steps: steps(fillS("input", "2020-03-02"))},
	{name: "page-fill: fill back to back",
		page:  `<input id="one" oninput="note('one ' + this.value)"><input id="two" oninput="note('two ' + this.value)">`,
		steps: steps(fillS("#one", "first value"), fillS("#two", "second value")), log: "one first value;two second value;"},
	{name: "page-fill: should fill contenteditable with focus handler that collapses selection",
		page:  `<div id="ed" contenteditable="true">initial text</div><script>ed.addEventListener('focus', () => { const s = getSelection(); if (s.rangeCount) s.collapseToEnd(); });</script>`,
		steps: steps(fillS("#ed", "some value")), value: "some value"},

	// issue 17's own: keys cannot set a colour or a range; fill can.
	{name: "issue 17: type refuses a range input, which fill sets whole", page: `<input type="range" min="0" max="10" value="5">`,
		steps: steps(&Step{Action: Type, Locator: css("input"), Text: ptr("7")}), code: notActionable, has: "not a text field"},

	// issue 24's own: why a native fill's text is not inserted by the page
	// call that focuses the field (one round trip fewer): the page's
	// execCommand('insertText') fires no beforeinput, which rich text
	// editors build on; the browser's Input.insertText does.
	{name: "issue 24: a native fill's events are the browser's own insertText",
		page:  `<input id="a"><script>for (const t of ['beforeinput', 'input']) a.addEventListener(t, (e) => note(t + ':' + e.isTrusted + ':' + e.inputType + ':' + e.data));</script>`,
		steps: steps(fillS("#a", "hello")), value: "hello", log: "beforeinput:true:insertText:hello;input:true:insertText:hello;"},
}, composedFills()...)

// composedFills: page-fill's "input event.composed should be true and cross
// shadow dom boundary", once per value input type.
func composedFills() []suiteCase {
	var out []suiteCase
	for _, v := range valueTypes {
		out = append(out, suiteCase{
			name:  "page-fill: input event.composed should be true and cross shadow dom boundary - " + v.typ,
			page:  shadowValueInput(v.typ),
			steps: steps(fillS("input", v.value)), value: v.value,
			log: "input:true;body-input:true;change:false;", not: "body-change",
		})
	}
	return out
}
