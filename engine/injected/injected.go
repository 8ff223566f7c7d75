// Package injected holds the JavaScript the engine evaluates inside pages,
// one file per concern, embedded at build time.
//
// Every script is meant for an isolated world of the page's frame: the page
// cannot see it, and it cannot see the page's JavaScript, only the shared DOM.
// Scripts install themselves once on globalThis.__tabwright and keep their
// state there (refs, counters) for the life of the document, so evaluating
// them again is harmless; a Bundle avoids sending them again at all.
package injected

import (
	_ "embed"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
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
// Its text and forms sections are scripts of their own (text.js, forms.js),
// installed before it.
var Observe = text + "\n;" + forms + "\n;" + observe

var (
	//go:embed text.js
	text string
	//go:embed forms.js
	forms string
	//go:embed observe.js
	observe string
)

// Installing returns one expression that installs core and the given concern
// scripts (each a no-op when already installed) and then evaluates call,
// whose value is the expression's value. call is JavaScript, e.g.
// `globalThis.__tabwright.observe({"maxChars":2500,"maxInteractive":150})`.
func Installing(call string, concerns ...string) string {
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

// Act installs strict element lookup (find.js: __tabwright.find), the
// actionability checks and the find-and-check loop (check.js:
// __tabwright.resolve) and the page-side halves of actions (act.js), in
// that order: each builds on the one before.
var Act = find + "\n;" + check + "\n;" + act

var (
	//go:embed find.js
	find string
	//go:embed check.js
	check string
	//go:embed act.js
	act string
)

// NotInstalled is what a Bundle's IfInstalled expression answers in a world
// that does not hold the bundle's scripts yet: a new document, or one an
// older build installed into.
const NotInstalled = "__tabwright_not_installed__"

// Bundle is core and a set of concern scripts, installed together. The
// scripts run to tens of kilobytes, which a world would parse again on every
// command; a Bundle instead marks the world it installed into, so later
// commands send only a check of the mark and the call.
type Bundle struct {
	prefix string // the installers and the mark, ready for a call
	mark   string // names this exact set of scripts (a hash of their text)
}

// Extractors is core and the observation's scripts: the bundle observe
// calls into.
var Extractors = sync.OnceValue(func() *Bundle { return NewBundle(Observe, A11y, Lists, Tables, Watch) })

// Actions is core and the act helpers: the bundle locate and act call into.
var Actions = sync.OnceValue(func() *Bundle { return NewBundle(Act) })

// NewDocument is the script a claimed tab's isolated world runs as each of
// its documents is created, before any page call: it installs and marks
// both bundles, so the first call into a new document sends only a check
// of the mark and its call. It holds a document's load back by a few milliseconds
// (3 ms on a small page here, under 1 ms for each of 50 iframes), less
// than the first call saves, and the page sees nothing: the world is ours.
var NewDocument = sync.OnceValue(func() string { return Actions().prefix + Extractors().prefix })

// NewBundle bundles core with concerns.
func NewBundle(concerns ...string) *Bundle {
	installers := Installing("", concerns...)
	sum := fnv.New64a()
	sum.Write([]byte(installers))
	mark := strconv.FormatUint(sum.Sum64(), 36)
	return &Bundle{
		prefix: installers + "(globalThis.__tabwright.marks ??= {})[" + strconv.Quote(mark) + "] = true;\n",
		mark:   mark,
	}
}

// Installing installs the bundle (each script a no-op when already there),
// marks the world, then evaluates call.
func (b *Bundle) Installing(call string) string { return b.prefix + call }

// IfInstalled evaluates call when the world holds this bundle, and answers
// NotInstalled otherwise; the caller then sends Installing(call).
func (b *Bundle) IfInstalled(call string) string {
	return "(globalThis.__tabwright?.marks?.[" + strconv.Quote(b.mark) + "]) ? (" + call + ") : " + strconv.Quote(NotInstalled)
}
