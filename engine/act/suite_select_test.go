package act

import "strings"

// colours is our select page: sixteen colours, the last one's label led by
// a no-break space, noting input and change on the select and on the body.
var colours = `<select id="s">` + func() string {
	var b strings.Builder
	for _, c := range []string{"black", "blue", "brown", "cyan", "gray", "green", "indigo", "magenta", "orange", "pink", "purple", "red", "violet", "white", "yellow"} {
		b.WriteString(`<option value="` + c + `">` + strings.ToUpper(c[:1]) + c[1:] + `</option>`)
	}
	return b.String()
}() + `<option value="html">&nbsp;HTML</option></select>
<script>for (const t of ['input', 'change']) {
  s.addEventListener(t, () => note(t + ' ' + s.value));
  document.body.addEventListener(t, () => note('body ' + t + ' ' + s.value));
}</script>`

func selectS(sel string, how func(*Step)) *Step {
	s := &Step{Action: SelectOption, Locator: css(sel)}
	how(s)
	return s
}
func byValue(v string) func(*Step) { return func(s *Step) { s.Value = ptr(v) } }
func byLabel(v string) func(*Step) { return func(s *Step) { s.Label = ptr(v) } }
func byIndex(i int) func(*Step)    { return func(s *Step) { s.Index = ptr(i) } }

// hydrate runs js after a second, as a late framework would.
func hydrate(js string) string {
	return `<script>setTimeout(() => { note('hydrated'); ` + js + ` }, 600)</script>`
}

var selectCases = []suiteCase{
	// page-select-option.spec.ts
	{name: "page-select-option: should select single option", page: colours, steps: steps(selectS("select", byValue("blue"))), log: "input blue;body input blue;change blue;body change blue;"},
	{name: "page-select-option: should select single option by value", page: colours, steps: steps(selectS("select", byValue("blue"))), log: "change blue;"},
	{name: "page-select-option: should select single option by label", page: colours, steps: steps(selectS("select", byLabel("Indigo"))), log: "input indigo;", not: "blue"},
	{name: "page-select-option: should select single option by label with html whitespace", page: colours, steps: steps(selectS("select", byLabel("HTML"))), log: "change html;"},
	{name: "page-select-option: should select single option by index", page: colours, steps: steps(selectS("select", byIndex(2))), log: "change brown;"},
	{name: "page-select-option: should respect event bubbling", page: colours, steps: steps(selectS("select", byValue("blue"))), log: "body input blue;change blue;body change blue;"},
	{name: "page-select-option: should not throw when select causes navigation",
		page:  `<select onchange="location.href = '/suite/empty.html'"><option value="a">A</option><option value="b">B</option></select>`,
		steps: steps(selectS("select", byValue("b")))},
	{name: "page-select-option: should throw when element is not a <select>", page: colours,
		steps: steps(selectS("body", byValue(""))), code: notActionable, has: "not a <select>"},
	{name: "page-select-option: should work when re-defining top-level Event class", page: colours + `<script>window.Event = null</script>`,
		steps: steps(selectS("select", byValue("blue"))), log: "change blue;"},
	{name: "page-select-option: should wait for option to be present",
		page:  colours + `<script>setTimeout(() => { const o = document.createElement('option'); o.value = 'scarlet'; o.textContent = 'Scarlet'; s.append(o); note('added'); }, 300)</script>`,
		steps: steps(selectS("select", byValue("scarlet"))), log: "added;input scarlet;"},
	{name: "page-select-option: should wait for option index to be present",
		page:  colours + `<script>setTimeout(() => { const o = document.createElement('option'); o.value = 'scarlet'; o.textContent = 'Scarlet'; s.append(o); note('added'); }, 300)</script>`,
		steps: steps(selectS("select", byIndex(16))), log: "added;input scarlet;"},
	{name: "page-select-option: a missing option is reported with the options on offer", page: colours,
		steps: steps(selectS("select", byValue("scarlet"))), code: notFound, has: "no such option"},
	{name: "page-select-option: input event.composed should be true and cross shadow dom boundary",
		page: `<div id="host"></div><script>const root = host.attachShadow({ mode: 'open' });
root.innerHTML = '<select><option value="black">Black</option><option value="blue">Blue</option></select>';
for (const t of ['input', 'change']) { root.querySelector('select').addEventListener(t, (e) => note(e.type + ':' + e.composed)); document.body.addEventListener(t, (e) => note('body-' + e.type + ':' + e.composed)); }</script>`,
		steps: steps(selectS("select", byValue("blue"))), log: "input:true;body-input:true;change:false;", not: "body-change"},
	{name: "page-select-option: should wait for select to be enabled",
		page:  `<select disabled onchange="note('chose ' + this.value)"><option>one</option><option>two</option></select>` + hydrate(`document.querySelector('select').disabled = false;`),
		steps: steps(selectS("select", byLabel("two"))), log: "hydrated;chose two;"},
	{name: "page-select-option: should wait for option to be enabled (not yet)",
		page:  `<select><option>one</option><option disabled>two</option></select>`,
		steps: steps(selectS("select", byLabel("two"))), code: notActionable, has: "the option is disabled"},
	{name: "page-select-option: should wait for option to be enabled",
		page:  `<select onchange="note('chose ' + this.value)"><option>one</option><option disabled id="two">two</option></select>` + hydrate(`document.getElementById('two').disabled = false;`),
		steps: steps(selectS("select", byLabel("two"))), log: "hydrated;chose two;"},
	{name: "page-select-option: should wait for optgroup to be enabled (not yet)",
		page:  `<select><option>one</option><optgroup label="Group" disabled><option>two</option></optgroup></select>`,
		steps: steps(selectS("select", byLabel("two"))), code: notActionable, has: "disabled optgroup"},
	{name: "page-select-option: should wait for optgroup to be enabled",
		page:  `<select onchange="note('chose ' + this.value)"><option>one</option><optgroup id="g" label="Group" disabled><option>two</option></optgroup></select>` + hydrate(`document.getElementById('g').disabled = false;`),
		steps: steps(selectS("select", byLabel("two"))), log: "hydrated;chose two;"},
	{name: "page-select-option: should wait for select to be swapped",
		page: `<select disabled><option>one</option><option>two</option></select>` + hydrate(`document.querySelector('select').remove();
const n = document.createElement('select'); n.innerHTML = '<option>one</option><option>two</option>'; n.onchange = () => note('new chose ' + n.value); document.body.append(n);`),
		steps: steps(selectS("select", byLabel("two"))), log: "hydrated;new chose two;"},
	{name: "selectors-role: should support disabled (option in a disabled optgroup)",
		page:  `<select><optgroup disabled><option>one</option></optgroup><optgroup><option>two</option></optgroup><option disabled>three</option></select>`,
		steps: steps(selectS("select", byLabel("two")), selectS("select", byLabel("one"))), code: notActionable, has: "disabled optgroup"},
}

// page-dialog.spec.ts, through the step's dialog_policy.
var dialogCases = []suiteCase{
	{name: "page-dialog: should fire (alert, accepted)",
		page:  `<button onclick="alert('yo'); note('after')">Go</button>`,
		steps: steps(&Step{Action: Click, Locator: css("button"), DialogPolicy: "accept"}), log: "after;", dialogs: 1},
	{name: "page-dialog: should dismiss the prompt",
		page:  `<button onclick="note('got ' + prompt('question?', 'yes.'))">Go</button>`,
		steps: steps(&Step{Action: Click, Locator: css("button"), DialogPolicy: "dismiss"}), log: "got null;", dialogs: 1},
	{name: "page-dialog: should accept the confirm prompt",
		page:  `<button onclick="note('got ' + confirm('boolean?'))">Go</button>`,
		steps: steps(&Step{Action: Click, Locator: css("button"), DialogPolicy: "accept"}), log: "got true;", dialogs: 1},
	{name: "page-dialog: should dismiss the confirm prompt",
		page:  `<button onclick="note('got ' + confirm('boolean?'))">Go</button>`,
		steps: steps(&Step{Action: Click, Locator: css("button"), DialogPolicy: "dismiss"}), log: "got false;", dialogs: 1},
	{name: "page-dialog: should handle multiple alerts",
		page:  `<button onclick="alert('1'); alert('2'); alert('3'); note('done')">Go</button>`,
		steps: steps(&Step{Action: Click, Locator: css("button"), DialogPolicy: "accept"}), log: "done;", dialogs: 3},
	{name: "page-dialog: should handle multiple confirms",
		page:  `<button onclick="note([confirm('1'), confirm('2'), confirm('3')].join(','))">Go</button>`,
		steps: steps(&Step{Action: Click, Locator: css("button"), DialogPolicy: "accept"}), log: "true,true,true;", dialogs: 3},
	{name: "page-dialog: should allow accepting prompts",
		ours:  "a step's accept answers a prompt with empty text; browser_dialog's prompt_text gives another answer",
		page:  `<button onclick="note('got [' + prompt('question?', 'yes.') + ']')">Go</button>`,
		steps: steps(&Step{Action: Click, Locator: css("button"), DialogPolicy: "accept"}), log: "got [];", dialogs: 1},
}
