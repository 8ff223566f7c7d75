package locate

import (
	"fmt"
	"strings"

	"github.com/tabwright/tabwright/engine/errs"
)

// The page contract. A page function that cannot do what it was asked
// answers {ok: false, code, reason, detail}: code is an errs code, reason
// one of the closed set below (find.js holds the same set, and a test keeps
// the two equal), detail words the particulars for people and is never
// branched on. Refusal.Err maps the pair to the engine's error, once for
// every caller; the error's Fact is the reason, so a layer with its own
// vocabulary (the MCP tools) words the next step by (code, reason).
const (
	ReasonCovered         = "covered"          // another element takes the pointer at every point tried; detail: that element
	ReasonNotVisible      = "not_visible"      // the element draws no box (display:none, visibility:hidden, no size)
	ReasonDisabled        = "disabled"         // it, or the control it sits in, is disabled (natively or by aria-disabled)
	ReasonNotEditable     = "not_editable"     // it takes no text; detail: why (read-only, the input's type)
	ReasonUnstable        = "unstable"         // its box changed between two animation frames, or time ran out before two equal ones
	ReasonDetached        = "detached"         // it left the document during the action (the page replaced or removed it)
	ReasonOutsideViewport = "outside_viewport" // no point of it is inside the viewport, even after scrolling
	ReasonNotSelect       = "not_select"       // select_option's element is not a <select>; detail: what it is
	ReasonOptionDisabled  = "option_disabled"  // the wanted option is disabled, or in a disabled optgroup; detail: which
	ReasonNoOption        = "no_option"        // the <select> has no such option (the answer lists those on offer)
	ReasonBadSelector     = "bad_selector"     // the selector does not parse; detail: the browser's words
	ReasonNotFrame        = "not_frame"        // a frame path step names an element that is not a frame; detail: what it is
)

// reasonWords says, for each reason, how a message puts it (%s takes the
// detail, when the words have one) and the next step in the engine's words.
var reasonWords = map[string]struct{ says, hint string }{
	ReasonCovered:         {"covered by %s", "close or scroll away what covers it first, or use mode=dom to click without the pointer"},
	ReasonNotVisible:      {"not visible", "reveal it first (open its menu or section), or wait for condition=visible"},
	ReasonDisabled:        {"disabled", "wait for the element to be enabled (wait for condition=actionable)"},
	ReasonNotEditable:     {"%s", "act on the text field itself (an input, textarea or contenteditable element)"},
	ReasonUnstable:        {"not stable (%s)", "wait for the page to settle (a wait for condition=actionable waits for it to hold still) and act again"},
	ReasonDetached:        {"left the page during the action (the page replaced or removed it, or navigated)", "observe the page again and act on what is there now"},
	ReasonOutsideViewport: {"outside the viewport after scrolling", "scroll its container into view first, or use mode=dom"},
	ReasonNotSelect:       {"not a <select> (it is %s)", "for a custom dropdown, click it open and click the option"},
	ReasonOptionDisabled:  {"%s", "wait for the page to enable the option (raise timeout_ms), or pick another one"},
	ReasonNoOption:        {"no such option", ""},
	ReasonBadSelector:     {"%s", "fix the selector"},
	ReasonNotFrame:        {"matches %s, not an iframe", "path steps are CSS selectors of iframe elements, outermost first"},
}

// Refusal is the page's answer when it cannot do what it was asked.
type Refusal struct {
	Code   string `json:"code"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
}

// Says words the refusal for a message: "covered by <div#cookie>".
func (r Refusal) Says() string {
	w, ok := reasonWords[r.Reason]
	if !ok {
		return r.Reason
	}
	if !strings.Contains(w.says, "%s") {
		return w.says
	}
	d := r.Detail
	if d == "" {
		d = "no more said"
		if r.Reason == ReasonNotEditable {
			d = "not editable"
		}
	}
	return fmt.Sprintf(w.says, d)
}

// Err is the engine's error for the refusal; subject (what was acted on,
// for the message) may be empty.
func (r Refusal) Err(subject string) *errs.Error {
	w, ok := reasonWords[r.Reason]
	if !ok || r.Code == "" {
		return errs.New(errs.Internal, "the page answered %q (%q), which is not in the page contract", r.Code, r.Reason)
	}
	msg := r.Says()
	if subject != "" {
		msg = subject + ": " + msg
	}
	e := &errs.Error{Code: r.Code, Message: msg, Hint: w.hint, Fact: r.Reason}
	if r.Code == errs.InvalidInput {
		e.Path = "selector"
	}
	return e
}
