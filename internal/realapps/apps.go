//go:build realapps

package main

// Steps are written as a model would plan them from what it reads: the
// role and the name (or visible text) of each thing it acts on.

func click(role, name string) step    { return step{Do: "click", Target: &target{Role: role, Name: name}} }
func dblclick(role, name string) step { return step{Do: "dblclick", Target: &target{Role: role, Name: name}} }
func fill(role, name, v string) step  { return step{Do: "fill", Target: &target{Role: role, Name: name}, Value: v} }
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
				step{Do: "click", Target: &target{Role: "checkbox", Near: "buy milk"}},
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
				step{Do: "click", Target: &target{Role: "checkbox", Near: "walk dog"}},
				click("button", "Clear completed"),
			},
			Check: todos + ` return d.length === 1 && d[0].title === 'pay rent' && !d[0].completed || JSON.stringify(d);`,
		}},
	}
}
