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
func Call(fn Fn, args ...any) string {
	return callOf("globalThis.__tabwright.", fn, "", args)
}

// CallOnHeld is a function declaration, for Runtime.callFunctionOn, that
// calls __tabwright[fn] with a handle of the node it is called on, then
// args, and answers in the page contract's envelope (see Answer).
func CallOnHeld(fn Fn, args ...any) string {
	return "function(){ const tw = globalThis.__tabwright; return tw.answer(() => " + callOf("tw.", fn, "{handle: tw.hold(this)}", args) + ") }"
}

// callOf writes ns+fn(first, args...), first being JavaScript of ours and
// each arg JSON-encoded.
func callOf(ns string, fn Fn, first string, args []any) string {
	var b strings.Builder
	b.WriteString(ns)
	b.WriteString(string(fn))
	b.WriteByte('(')
	b.WriteString(first)
	for i, a := range args {
		if i > 0 || first != "" {
			b.WriteByte(',')
		}
		raw, err := json.Marshal(a)
		if err != nil {
			return "(() => { throw new Error(" + strconv.Quote("tabwright: argument "+strconv.Itoa(i)+" of "+string(fn)+" cannot be encoded") + ") })()"
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
func Method(fn Fn) string {
	return "function(){ return globalThis.__tabwright." + string(fn) + "(this) }"
}

// Evaluator evaluates one expression in one world and returns its value as
// JSON (empty for undefined).
type Evaluator func(ctx context.Context, expr string) (json.RawMessage, error)

// Run evaluates the expression call builds in the world eval reaches, and
// returns its value. It sends the call behind a check of the bundle's mark first: a claimed tab's
// worlds get the bundles as each document is created (NewDocument), so that
// is one round trip and no script to parse. A world without them (a
// document loaded before the tab was claimed) answers that check with
// NotInstalled, and the whole program follows: one round trip more, once
// per such world. call is built right before each send, so a call that
// carries a time budget gets what is left.
func (b *Bundle) Run(ctx context.Context, eval Evaluator, call func() string) (json.RawMessage, error) {
	raw, err := eval(ctx, b.IfInstalled(call()))
	if err != nil || !Missing(raw) {
		return raw, err
	}
	return eval(ctx, b.Installing(call()))
}

// Missing reports an IfInstalled call's answer that the world lacks the
// bundle: the caller sends it Installing next.
func Missing(answer json.RawMessage) bool { return string(answer) == notInstalledJSON }

// notInstalledJSON is NotInstalled as IfInstalled's JSON answer.
var notInstalledJSON = strconv.Quote(NotInstalled)
