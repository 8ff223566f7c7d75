package injected

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
)

// Call is the expression that calls the page function __tabwright[fn] with
// args, each JSON-encoded (JSON is valid JavaScript, and encoding/json
// escapes U+2028 and U+2029), so no caller splices strings into script.
// An argument that cannot be encoded (a NaN, a channel) makes the
// expression throw in the page, which the evaluation reports as an error.
func Call(fn string, args ...any) string {
	var b strings.Builder
	b.WriteString("globalThis.__tabwright.")
	b.WriteString(fn)
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteByte(',')
		}
		raw, err := json.Marshal(a)
		if err != nil {
			return "(() => { throw new Error(" + strconv.Quote("tabwright: argument "+strconv.Itoa(i)+" of "+fn+" cannot be encoded") + ") })()"
		}
		b.Write(raw)
	}
	b.WriteByte(')')
	return b.String()
}

// Answer wraps call, an expression built by Call, so that the page answers
// in the page contract's envelope: {value} when the call returns, {refused:
// {code, reason, detail}} when a helper inside it refuses (see find.js).
func Answer(call string) string {
	return "globalThis.__tabwright.answer(() => " + call + ")"
}

// Method is a function declaration, for Runtime.callFunctionOn, that calls
// the page function __tabwright[fn] with the object it is called on.
func Method(fn string) string {
	return "function(){ return globalThis.__tabwright." + fn + "(this) }"
}

// Evaluator evaluates one expression in one world and returns its value as
// JSON (empty for undefined).
type Evaluator func(ctx context.Context, expr string) (json.RawMessage, error)

// Run evaluates the expression call builds in the world eval reaches, and
// returns its value. It sends a guard and the call first: a claimed tab's
// worlds get the bundles as each document is created (NewDocument), so that
// is one round trip and no script to parse. A world without them (a
// document loaded before the tab was claimed) answers the guard with
// NotInstalled, and the whole program follows: one round trip more, once
// per such world. call is built right before each send, so a call that
// carries a time budget gets what is left.
func (b *Bundle) Run(ctx context.Context, eval Evaluator, call func() string) (json.RawMessage, error) {
	raw, err := eval(ctx, b.Guarded(call()))
	if err != nil || string(raw) != notInstalledJSON {
		return raw, err
	}
	return eval(ctx, b.Program(call()))
}

// notInstalledJSON is NotInstalled as the guard's JSON answer.
var notInstalledJSON = strconv.Quote(NotInstalled)
