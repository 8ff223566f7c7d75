//go:build realapps

package main

// Steps are written as a model would plan them from what it reads: the
// role and the name (or visible text) of each thing it acts on.

func click(role, name string) step { return step{Do: "click", Target: &target{Role: role, Name: name}} }
func dblclick(role, name string) step {
	return step{Do: "dblclick", Target: &target{Role: role, Name: name}}
}
func fill(role, name, v string) step {
	return step{Do: "fill", Target: &target{Role: role, Name: name}, Value: v}
}
func typeIn(role, name, v string) step {
	return step{Do: "type", Target: &target{Role: role, Name: name}, Value: v}
}
func press(key string) step { return step{Do: "press", Value: key} }
func choose(role, name, option string) step {
	return step{Do: "select", Target: &target{Role: role, Name: name}, Value: option}
}
func drag(from, to target) step { return step{Do: "drag", Target: &from, To: &to} }

// apps lists the suite. Each Package names exactly what serves the app
// code; the versions are pinned in scripts/real-apps/package.json.
func apps() []app {
	return []app{
		todoMVC(),
		shoelace(),
		agGrid(),
		flatpickrApp(),
		monaco(),
		codeMirror(),
		quill(),
		swaggerUI(),
		jqueryUI(),
		materialWeb(),
		sortable(),
	}
}

// todoMVC is TodoMVC's vanilla JS example as the todomvc package ships it,
// its own index.html included; it keeps the list in localStorage.
func todoMVC() app {
	const todos = `const d = JSON.parse(localStorage['todos-vanillajs'] || '{"todos":[]}').todos;`
	return app{
		Name:    "todomvc",
		Package: "todomvc 0.1.1 (examples/vanillajs)",
		Page:    "/m/todomvc/examples/vanillajs/index.html",
		Ready:   `return document.readyState === 'complete' && !!localStorage['todos-vanillajs'];`,
		Tasks: []task{{
			ID:   "add-and-complete",
			Goal: "add a todo 'buy milk' and mark it done",
			Steps: []step{
				fill("textbox", "What needs to be done?", "buy milk"),
				press("Enter"),
				{Do: "click", Target: near("checkbox", "buy milk")},
			},
			Check: todos + ` return d.length === 1 && d[0].title === 'buy milk' && d[0].completed === true || JSON.stringify(d);`,
		}, {
			ID:   "rename",
			Goal: "add 'buy milk', then double-click it and rename it to 'buy oat milk'",
			Steps: []step{
				fill("textbox", "What needs to be done?", "buy milk"),
				press("Enter"),
				dblclick("", "buy milk"),
				fill("textbox", "buy milk", "buy oat milk"),
				press("Enter"),
			},
			Check: todos + ` return d.length === 1 && d[0].title === 'buy oat milk' || JSON.stringify(d);`,
		}, {
			ID:   "clear-completed",
			Goal: "add 'walk dog' and 'pay rent', complete 'walk dog', then clear completed todos",
			Steps: []step{
				fill("textbox", "What needs to be done?", "walk dog"),
				press("Enter"),
				fill("textbox", "What needs to be done?", "pay rent"),
				press("Enter"),
				{Do: "click", Target: near("checkbox", "walk dog")},
				click("button", "Clear completed"),
			},
			Check: todos + ` return d.length === 1 && d[0].title === 'pay rent' && !d[0].completed || JSON.stringify(d);`,
		}},
	}
}

func near(role, anchor string) *target { return &target{Role: role, Near: anchor} }

// either is a target with the alternatives a model takes, in order, when
// the first is not offered.
func either(ts ...target) *target {
	for i := len(ts) - 2; i >= 0; i-- {
		ts[i].Or = &ts[i+1]
	}
	return &ts[0]
}

// shoelace is a form of Shoelace web components: buttons whose label is
// slotted light-DOM text, inputs and a select inside shadow roots.
func shoelace() app {
	return app{
		Name:    "shoelace",
		Package: "@shoelace-style/shoelace 2.20.1 (cdn build)",
		Page:    "/shoelace.html",
		Ready:   `return !!customElements.get('sl-button') && !!customElements.get('sl-select') && !!document.querySelector('#save').shadowRoot;`,
		Tasks: []task{{
			ID:    "save-name",
			Goal:  "enter 'Ada Lovelace' as the name and click Save",
			Steps: []step{fill("textbox", "Name", "Ada Lovelace"), click("button", "Save")},
			Check: `return window.saved && window.saved.name === 'Ada Lovelace' || JSON.stringify(window.saved);`,
		}, {
			ID:    "choose-plan",
			Goal:  "choose the Pro plan",
			Steps: []step{click("combobox", "Plan"), click("option", "Pro")},
			Check: `const v = document.querySelector('#plan').value; return v === 'pro' || 'plan is ' + v;`,
		}, {
			ID:    "newsletter",
			Goal:  "subscribe to the newsletter",
			Steps: []step{click("", "Subscribe to the newsletter")},
			Check: `return document.querySelector('#news').checked || 'not checked';`,
		}, {
			ID:    "delete-account",
			Goal:  "delete the account, confirming in the dialog",
			Steps: []step{click("button", "Delete account"), click("button", "Delete")},
			Check: `return window.deleted === true && !document.querySelector('#confirm').open || 'deleted ' + window.deleted;`,
		}},
	}
}

// agGrid is a data grid of 200 rows in a 400 px viewport: most rows are
// virtualised, cells are gridcells that take focus and double-clicks.
func agGrid() app {
	const priceOf = `const price = (model) => { let p; gridApi.forEachNode(n => { if (n.data.model === model) p = n.data.price; }); return p; };`
	return app{
		Name:    "ag-grid",
		Package: "ag-grid-community 36.2.0 (UMD build)",
		Page:    "/aggrid.html",
		Ready:   `return !!window.gridApi && document.querySelectorAll('.ag-row').length > 0;`,
		Tasks: []task{{
			ID:   "edit-price",
			Goal: "double-click the price of the Toyota Celica (35000) and change it to 42000",
			Steps: []step{
				dblclick("", "35000"),
				fill("", "Input Editor", "42000"),
				press("Enter"),
			},
			Check: priceOf + ` const p = price('Celica'); return Number(p) === 42000 || 'price is ' + p;`,
		}, {
			ID:    "sort-desc",
			Goal:  "sort the cars by price, highest first",
			Steps: []step{click("", "Price"), click("", "Price")},
			Check: `const c = gridApi.getColumnState().find(c => c.colId === 'price'); return c.sort === 'desc' || 'sort is ' + c.sort;`,
		}, {
			ID:   "last-row",
			Goal: "go to the last row (Volvo XC90, a virtualised row) and set its price to 62000",
			Steps: []step{
				click("", "Toyota"),
				press("Control+End"),
				dblclick("", "61000"),
				fill("", "Input Editor", "62000"),
				press("Enter"),
			},
			Check: priceOf + ` const p = price('XC90'); return Number(p) === 62000 || 'price is ' + p;`,
		}},
	}
}

// flatpickrApp is a date picker whose days are spans named by aria-label
// with the click delegated to their container.
func flatpickrApp() app {
	const ymd = `const ymd = (d) => d ? d.getFullYear() + '-' + (d.getMonth() + 1) + '-' + d.getDate() : 'none';`
	return app{
		Name:    "flatpickr",
		Package: "flatpickr 4.6.13 (dist build)",
		Page:    "/flatpickr.html",
		Ready:   `return !!window.depart && !!window.depart.calendarContainer;`,
		Tasks: []task{{
			ID:    "pick-day",
			Goal:  "pick March 21, 2024 as the departure date",
			Steps: []step{click("textbox", "Departure date"), click("", "March 21, 2024")},
			Check: ymd + ` const d = depart.selectedDates[0]; return ymd(d) === '2024-3-21' || ymd(d);`,
		}, {
			ID:   "other-month",
			Goal: "pick April 5, 2024 as the departure date (the calendar opens on March)",
			Steps: []step{
				click("textbox", "Departure date"),
				choose("combobox", "Month", "April"),
				click("", "April 5, 2024"),
			},
			Check: ymd + ` const d = depart.selectedDates[0]; return ymd(d) === '2024-4-5' || ymd(d);`,
		}, {
			ID:   "meeting-time",
			Goal: "set the meeting time to 14:30",
			Steps: []step{
				click("textbox", "Meeting time"),
				fill("spinbutton", "Hour", "14"),
				fill("spinbutton", "Minute", "30"),
				press("Enter"),
			},
			Check: `const d = meeting.selectedDates[0]; return d && d.getHours() === 14 && d.getMinutes() === 30 || String(d);`,
		}},
	}
}

// monaco is VS Code's editor: the text is drawn in aria-hidden view lines
// above a hidden textarea that takes the keys.
func monaco() app {
	const value = `const v = monaco.editor.getModels()[0].getValue();`
	// A model clicks the code it sees; where the view lines are not
	// listed, the editor's textbox.
	monacoText := either(target{Name: "greet('world');"}, target{Role: "textbox", Name: "Editor content"})
	return app{
		Name:    "monaco",
		Package: "monaco-editor 0.52.2 (min/vs, AMD loader)",
		Page:    "/monaco.html",
		Ready:   `return !!window.editor && document.querySelectorAll('.view-line').length > 0;`,
		Tasks: []task{{
			ID:   "append-line",
			Goal: "type `const x = 1;` on a new line at the end of the file",
			Steps: []step{
				{Do: "click", Target: monacoText},
				press("Control+End"),
				press("Enter"),
				typeIn("textbox", "Editor content", "const x = 1;"),
			},
			Check: value + ` return v.trimEnd().endsWith("greet('world');\nconst x = 1;") || JSON.stringify(v.slice(-40));`,
		}, {
			ID:   "replace-all",
			Goal: "replace every 'Hello' with 'Hi' using find and replace",
			Steps: []step{
				{Do: "click", Target: monacoText},
				press("Control+H"),
				fill("textbox", "Find", "Hello"),
				fill("textbox", "Replace", "Hi"),
				click("button", "Replace All"),
			},
			Check: value + ` return v.includes("'Hi, '") && !v.includes('Hello') || JSON.stringify(v.split('\n')[1]);`,
		}, {
			ID:   "comment-line",
			Goal: "comment out the first line",
			Steps: []step{
				{Do: "click", Target: monacoText},
				press("Control+Home"),
				press("Control+/"),
			},
			Check: value + ` return v.startsWith('// function greet') || JSON.stringify(v.split('\n')[0]);`,
		}},
	}
}

// codeMirror is CodeMirror 6: a contenteditable document drawn line by
// line, changed through its own transactions.
func codeMirror() app {
	const doc = `const v = view.state.doc.toString();`
	return app{
		Name:    "codemirror",
		Package: "codemirror 6.0.2, @codemirror/lang-javascript 6.2.4 (ES modules via an import map)",
		Page:    "/codemirror.html",
		Ready:   `return !!window.view && !!document.querySelector('.cm-content');`,
		Tasks: []task{{
			ID:   "append-line",
			Goal: "type `const x = 1;` on a new line at the end of the file",
			Steps: []step{
				click("textbox", "Code editor"),
				press("Control+End"),
				press("Enter"),
				typeIn("textbox", "Code editor", "const x = 1;"),
			},
			Check: doc + ` return v.trimEnd().endsWith("greet('world');\nconst x = 1;") || JSON.stringify(v.slice(-40));`,
		}, {
			ID:   "replace-all",
			Goal: "replace every 'Hello' with 'Hi' using the search panel",
			Steps: []step{
				click("textbox", "Code editor"),
				press("Control+f"),
				fill("textbox", "Find", "Hello"),
				fill("textbox", "Replace", "Hi"),
				click("button", "replace all"),
			},
			Check: doc + ` return v.includes("'Hi, '") && !v.includes('Hello') || JSON.stringify(v.split('\n')[1]);`,
		}, {
			ID:   "comment-line",
			Goal: "comment out the first line",
			Steps: []step{
				click("textbox", "Code editor"),
				press("Control+Home"),
				press("Control+/"),
			},
			Check: doc + ` return v.startsWith('// function greet') || JSON.stringify(v.split('\n')[0]);`,
		}},
	}
}

// quill is a rich text editor whose document is a Delta; the toolbar
// buttons are icons.
func quill() app {
	const ops = `const ops = quill.getContents().ops;`
	// The empty editor shows its placeholder; where that text is not
	// offered or does not take clicks, a model clicks the empty paragraph
	// or the page's only textbox.
	editor := either(target{Name: "Write a note…"}, target{Role: "paragraph"}, target{Role: "textbox"})
	typeNote := func(text string) step { return step{Do: "type", Target: editor, Value: text} }
	return app{
		Name:    "quill",
		Package: "quill 2.0.3 (dist build, snow theme)",
		Page:    "/quill.html",
		Ready:   `return !!window.quill && !!document.querySelector('.ql-editor');`,
		Tasks: []task{{
			ID:    "type-text",
			Goal:  "write 'Hello Quill' in the note",
			Steps: []step{{Do: "click", Target: editor}, typeNote("Hello Quill")},
			Check: `const t = quill.getText().trim(); return t === 'Hello Quill' || JSON.stringify(t);`,
		}, {
			ID:   "bold",
			Goal: "write 'Bold move' and make it bold",
			Steps: []step{
				{Do: "click", Target: editor},
				typeNote("Bold move"),
				press("Control+a"),
				click("button", "bold"),
			},
			Check: ops + ` return ops[0].insert === 'Bold move' && ops[0].attributes && ops[0].attributes.bold === true || JSON.stringify(ops);`,
		}, {
			ID:   "bullet",
			Goal: "write 'first item' as a bullet list item",
			Steps: []step{
				{Do: "click", Target: editor},
				typeNote("first item"),
				click("button", "list: bullet"),
			},
			Check: ops + ` return ops.some(o => o.attributes && o.attributes.list === 'bullet') && quill.getText().trim() === 'first item' || JSON.stringify(ops);`,
		}},
	}
}

// swaggerUI renders an OpenAPI spec as React components: collapsible
// operations, Try it out, parameters and Execute against this site's /api.
func swaggerUI() app {
	const resp = `const r = (p, m) => ui.specSelectors.responseFor(p, m); const s = (x) => x ? x.get('status') + ' ' + x.get('url') : 'no response';`
	return app{
		Name:    "swagger-ui",
		Package: "swagger-ui-dist 5.36.0 (bundle), our OpenAPI spec",
		Page:    "/swagger.html",
		Ready:   `return !!window.ui && document.querySelectorAll('.opblock').length === 3;`,
		Tasks: []task{{
			ID:    "list-pets",
			Goal:  "expand GET /pets, press Try it out, then Execute",
			Steps: []step{click("button", "List all pets"), click("button", "Try it out"), click("button", "Execute")},
			Check: resp + ` const x = r('/pets', 'get'); return !!x && x.get('status') === 200 || s(x);`,
		}, {
			ID:   "pet-by-id",
			Goal: "look up the pet with id 2 (GET /pets/{petId})",
			Steps: []step{
				click("button", "Info for a specific pet"),
				click("button", "Try it out"),
				fill("textbox", "petId", "2"),
				click("button", "Execute"),
			},
			Check: resp + ` const x = r('/pets/{petId}', 'get'); return !!x && x.get('status') === 200 && x.get('url').endsWith('/api/pets/2') || s(x);`,
		}, {
			ID:   "create-pet",
			Goal: "create a pet named Bella (POST /pets)",
			Steps: []step{
				click("button", "Create a pet"),
				click("button", "Try it out"),
				fill("textbox", `"name": "string"`, `{"name": "Bella", "tag": "dog"}`),
				click("button", "Execute"),
			},
			Check: resp + ` const x = r('/pets', 'post'); return !!x && x.get('status') === 201 || s(x);`,
		}},
	}
}

// jqueryUI is the classic widget library: a datepicker of links, a menu
// with a submenu, tabs and an accordion.
func jqueryUI() app {
	return app{
		Name:    "jquery-ui",
		Package: "jquery-ui 1.14.2, jquery 3.7.1 (dist builds)",
		Page:    "/jqueryui.html",
		Ready:   `return !!window.jQuery && !!jQuery.ui && jQuery('#menu').hasClass('ui-menu');`,
		Tasks: []task{{
			ID:    "datepicker",
			Goal:  "pick March 21, 2024 as the check-in date (the picker opens on March 2024)",
			Steps: []step{click("textbox", "Check-in"), click("link", "21")},
			Check: `const d = $('#checkin').datepicker('getDate'); return !!d && d.getFullYear() === 2024 && d.getMonth() === 2 && d.getDate() === 21 || String(d);`,
		}, {
			ID:    "menu",
			Goal:  "choose Delivery, then Express, in the menu",
			Steps: []step{click("", "Delivery"), click("", "Express")},
			Check: `return window.menuChoice === 'Express' || 'chose ' + window.menuChoice;`,
		}, {
			ID:    "tabs",
			Goal:  "open the Shipping tab",
			Steps: []step{click("", "Shipping")},
			Check: `const a = $('#tabs').tabs('option', 'active'); return a === 1 || 'active tab ' + a;`,
		}, {
			ID:    "accordion",
			Goal:  "open the Cancellation section",
			Steps: []step{click("", "Cancellation")},
			Check: `const a = $('#accordion').accordion('option', 'active'); return a === 1 || 'active section ' + a;`,
		}},
	}
}

// materialWeb is Google's Material Design web components (lit), each
// control inside its own shadow root.
func materialWeb() app {
	return app{
		Name:    "material-web",
		Package: "@material/web 2.5.0, lit 3.3.3 (ES modules via an import map)",
		Page:    "/materialweb.html",
		Ready:   `return !!customElements.get('md-filled-button') && !!document.querySelector('#city').shadowRoot && !!document.querySelector('#seat').shadowRoot;`,
		Tasks: []task{{
			ID:    "book-city",
			Goal:  "enter Lisbon as the city and press Book",
			Steps: []step{fill("textbox", "City", "Lisbon"), click("button", "Book")},
			Check: `return window.booked && window.booked.city === 'Lisbon' || JSON.stringify(window.booked);`,
		}, {
			ID:    "insurance",
			Goal:  "add travel insurance",
			Steps: []step{{Do: "click", Target: either(target{Name: "Travel insurance"}, target{Role: "checkbox"})}},
			Check: `return document.querySelector('#insurance').checked || 'not checked';`,
		}, {
			ID:    "seat",
			Goal:  "choose an aisle seat",
			Steps: []step{click("combobox", "Seat"), click("option", "Aisle")},
			Check: `const v = document.querySelector('#seat').value; return v === 'aisle' || 'seat is ' + v;`,
		}},
	}
}

// sortable is a two-list board whose items are dragged (HTML5 drag and
// drop, SortableJS's default) within and between lists.
func sortable() app {
	const order = `const ids = (id) => Sortable.get(document.getElementById(id)).toArray();`
	return app{
		Name:    "sortable",
		Package: "sortablejs 1.15.7",
		Page:    "/sortable.html",
		Ready:   `return !!window.Sortable && !!Sortable.get(document.getElementById('backlog'));`,
		Tasks: []task{{
			ID:    "reorder",
			Goal:  "drag 'Plan sprint' to the top of the backlog",
			Steps: []step{drag(target{Name: "Plan sprint"}, target{Name: "Write report"})},
			Check: order + ` const b = ids('backlog'); return b[0] === 'plan' || b.join(',');`,
		}, {
			ID:    "move-done",
			Goal:  "move 'Answer email' to Done",
			Steps: []step{drag(target{Name: "Answer email"}, target{Name: "Standup"})},
			Check: order + ` const d = ids('done'); return d.includes('email') && !ids('backlog').includes('email') || d.join(',');`,
		}, {
			ID:    "move-back",
			Goal:  "move 'Standup' from Done back to the backlog, onto 'Review pull request'",
			Steps: []step{drag(target{Name: "Standup"}, target{Name: "Review pull request"})},
			Check: order + ` const b = ids('backlog'); return b.includes('standup') && ids('done').length === 0 || b.join(',') + ' / ' + ids('done').join(',');`,
		}},
	}
}
