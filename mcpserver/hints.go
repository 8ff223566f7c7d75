package mcpserver

import (
	"github.com/tabwright/tabwright/engine/batch"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// hintKey names an engine fact: its code and, finer, its errs.Error.Fact.
type hintKey struct{ code, fact string }

// toolHints words, in the tools' own names and fields, the next step after
// an engine error whose hint states only the engine fact.
var toolHints = map[hintKey]string{
	{errs.DialogPending, tabs.FactDialogOpen}:    "answer it with browser_dialog (accept or dismiss), or give the action a dialog_policy",
	{errs.Unsupported, tabs.FactManagedOnly}:     "open the tab in the managed browser (browser_open_tab without browser_id, server started without --cdp-url)",
	{errs.Unsupported, tabs.FactNoPrint}:         "use the managed headless browser (a tab from browser_open_tab without browser_id)",
	{errs.TabInUse, tabs.FactHeldByProcess}:      "open a new tab with browser_open_tab, or wait until that process releases it (its claims end when it exits)",
	{errs.TabInUse, tabs.FactHeldBySession}:      "open a new tab with browser_open_tab, or wait until the other session releases it",
	{errs.InvalidInput, tabs.FactNoBrowser}:      "call browser_discover with kind=browsers for the ids",
	{errs.InvalidInput, tabs.FactNoTab}:          "call browser_discover with kind=tabs for the current tab ids",
	{errs.InvalidHandle, tabs.FactUnknownHandle}: "use a tab_handle that browser_open_tab or browser_claim_tab returned to this session",
	{errs.NotFound, locate.FactNoMatch}:          "check the selector against a fresh browser_observe; raise timeout_ms if the element appears late",
	{errs.NotActionable, locate.ReasonDisabled}:  "wait for the element to be enabled (browser_wait condition=actionable)",
	{errs.NotActionable, locate.ReasonCovered}:   "close or scroll away what covers it first (browser_observe shows what is on top), or click with mode=dom",
	{errs.NotActionable, locate.ReasonUnstable}:  "wait with browser_wait condition=actionable until it holds still, then act again",

	// The next step for an error of the code that says none of its own.
	{errs.NotActionable, ""}: "read the page again with browser_observe and act on what it shows now",
	{errs.NotFound, ""}:      "check the locator against a fresh browser_observe",
	{errs.StaleRef, ""}:      "call browser_observe again and use a ref from that observation",
	{errs.Timeout, ""}:       "raise timeout_ms, or check with browser_observe what the page is doing",
	{errs.ProtocolError, ""}: "try the call again; if it repeats, reopen the tab with browser_open_tab",
}

// toolHint returns e with the tools' wording of its hint, when the table
// has one (or, for an error with no hint at all, its code's next step); e itself is left as it is (the engine may hand it out again).
func toolHint(e *errs.Error) *errs.Error {
	if e == nil {
		return e
	}
	h, ok := toolHints[hintKey{e.Code, e.Fact}]
	if !ok && e.Hint == "" {
		h, ok = toolHints[hintKey{e.Code, ""}]
	}
	if !ok || (e.Fact == "" && e.Hint != "") {
		return e
	}
	c := *e
	c.Hint = h
	return &c
}

// batchToolHints gives every error in a batch's result the tools' wording.
func batchToolHints(r *batch.Result) {
	r.Error, r.ObserveError = toolHint(r.Error), toolHint(r.ObserveError)
	for _, st := range r.Steps {
		st.Error = toolHint(st.Error)
	}
}
