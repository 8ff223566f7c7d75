package tabs

import (
	"context"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/errs"
)

// Dialog is a JavaScript dialog (alert, confirm, prompt, beforeunload)
// waiting for an answer. While one is open the page's scripts are stopped,
// so every call that needs the page would hang: guard refuses them instead.
type Dialog struct {
	Type          string `json:"type"`
	Message       string `json:"message"`
	DefaultPrompt string `json:"default_prompt,omitempty"`
	URL           string `json:"url,omitempty"`
}

// Dialog policies.
const (
	DialogAsk     = "ask"
	DialogAccept  = "accept"
	DialogDismiss = "dismiss"
)

// PendingDialog returns the dialog waiting for an answer, or nil.
func (t *Tab) PendingDialog() *Dialog {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.page.dialog
}

// AnswerDialog accepts or dismisses the pending dialog.
func (t *Tab) AnswerDialog(ctx context.Context, accept bool, promptText string) (*Dialog, error) {
	d := t.PendingDialog()
	if d == nil {
		return nil, errs.New(errs.NoDialog, "no dialog is open in this tab").
			WithHint("dialogs are reported by the action that opened them; nothing to answer now")
	}
	_, err := cdproto.Call(ctx, t.sess, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept, PromptText: promptText})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// dialogErr reports a dialog that blocks the page.
func dialogErr(d *Dialog) *errs.Error {
	return errs.New(errs.DialogPending, "a %s dialog is open: %q", d.Type, d.Message).
		WithHint("answer it (accept or dismiss), or give the action a dialog_policy").WithFact(FactDialogOpen)
}

// DialogResult says what happened to a dialog during a guarded call.
type DialogResult struct {
	Dialog
	Action string `json:"action"` // accepted, dismissed, or pending (policy ask)
}

// Guard runs fn, which may make the page open dialogs. A dialog that opens
// meanwhile is answered by policy (accept, dismiss), or with ask stops the
// wait and is reported with code dialog_pending while fn stays blocked in the
// browser until the dialog is answered. A dialog already open refuses the call.
func (t *Tab) Guard(ctx context.Context, policy string, fn func(context.Context) error) ([]DialogResult, error) {
	return t.guardDialogs(ctx, policy, true, fn)
}

// guardDialogs is Guard; with crashStops false a crashed renderer does not
// stop the wait (a navigation is what brings a crashed tab back).
func (t *Tab) guardDialogs(ctx context.Context, policy string, crashStops bool, fn func(context.Context) error) ([]DialogResult, error) {
	if d := t.PendingDialog(); d != nil {
		return nil, dialogErr(d)
	}
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	var seen []DialogResult
	var answered *Dialog // until its close event arrives
	for {
		t.mu.Lock()
		d, changed, crashed := t.page.dialog, t.changed, t.page.crashed
		t.mu.Unlock()
		if crashed && crashStops {
			return seen, errCrashed()
		}
		if d != nil && d != answered {
			switch policy {
			case DialogAccept, DialogDismiss:
				if _, err := t.AnswerDialog(ctx, policy == DialogAccept, ""); err != nil {
					return seen, err
				}
				action := "accepted"
				if policy == DialogDismiss {
					action = "dismissed"
				}
				seen = append(seen, DialogResult{Dialog: *d, Action: action})
				answered = d
				continue
			default:
				seen = append(seen, DialogResult{Dialog: *d, Action: "pending"})
				return seen, dialogErr(d)
			}
		}
		select {
		case err := <-done:
			return seen, err
		case <-changed:
		case <-ctx.Done():
			return seen, deadline.Err(ctx, "waiting for the page to answer (a busy script, or a slow page)")
		}
	}
}

// guard is Guard for calls that never expect a dialog.
func (t *Tab) guard(ctx context.Context, fn func(context.Context) error) error {
	_, err := t.guardDialogs(ctx, DialogAsk, true, fn)
	return err
}
