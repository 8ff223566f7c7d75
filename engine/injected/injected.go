// Package injected holds the JavaScript the engine evaluates inside pages,
// one file per concern, embedded at build time.
//
// Every script is meant for an isolated world of the page's frame: the page
// cannot see it, and it cannot see the page's JavaScript, only the shared DOM.
// Scripts install themselves once on globalThis.__tabwright and keep their
// state there (refs, counters) for the life of the document, so evaluating
// them again with every command is cheap and harmless.
package injected

import (
	_ "embed"
	"strings"
)

// Core is the shared base every other script needs first: the
// globalThis.__tabwright namespace, element refs, visibility, roles,
// accessible names, unique CSS selectors and shadow-aware traversal.
//
//go:embed core.js
var Core string

// Observe installs __tabwright.observe({maxChars, maxInteractive}), which
// returns the page part of an observation: url, title, textpreview,
// textlength, forms, interactive and, when anything was cut, truncated.
//
//go:embed observe.js
var Observe string

// Program returns one expression that installs core and the given concern
// scripts (each a no-op when already installed) and then evaluates call,
// whose value is the expression's value. call is JavaScript, e.g.
// `globalThis.__tabwright.observe({"maxChars":4000})`.
func Program(call string, concerns ...string) string {
	var b strings.Builder
	n := len(Core) + len(call) + 8
	for _, c := range concerns {
		n += len(c) + 2
	}
	b.Grow(n)
	b.WriteString(Core)
	b.WriteString("\n;")
	for _, c := range concerns {
		b.WriteString(c)
		b.WriteString("\n;")
	}
	b.WriteString(call)
	return b.String()
}

// Observation sections beyond the base three, one script per concern; each
// needs Core and installs one function on __tabwright: a11y (outline),
// listpattern (repeated siblings), tableshape (data tables) and journal (the
// change journal of watching mode).
var (
	//go:embed a11y.js
	A11y string
	//go:embed lists.js
	Lists string
	//go:embed tables.js
	Tables string
	//go:embed watch.js
	Watch string
)

// Act installs strict element lookup (__tabwright.find, resolve), the
// actionability checks and the page-side halves of actions.
//
//go:embed act.js
var Act string
