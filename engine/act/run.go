package act

import (
	"context"
	"encoding/json"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/engine/timing"
)

// DefaultTimeout bounds a step that names no timeout_ms: as long as
// finding its element may take.
const DefaultTimeout = locate.DefaultTimeout

// Run performs a validated step on the tab, for a caller that has not
// bounded it: the step's timeout_ms narrows ctx, and a ctx without a
// deadline gets DefaultTimeout. The caller runs it inside the tab's queue.
func Run(ctx context.Context, t *tabs.Tab, s *Step) (*Result, error) {
	ctx, cancel := bound(ctx, s)
	defer cancel()
	return RunWithin(ctx, t, s)
}

// bound is the deadline Run gives a step (see package deadline).
func bound(ctx context.Context, s *Step) (context.Context, context.CancelFunc) {
	if s.TimeoutMS != nil {
		return deadline.With(ctx, time.Duration(*s.TimeoutMS)*time.Millisecond, "timeout_ms", "the step's timeout_ms")
	}
	if _, ok := ctx.Deadline(); !ok {
		return deadline.With(ctx, DefaultTimeout, "timeout_ms", "the default step timeout")
	}
	return ctx, func() {}
}

// RunWithin performs a validated step on the tab within ctx's deadline,
// which the caller set from the step's timeout_ms, once: the MCP action
// tools before the tab's queue (so the wait in it counts), the batch per
// step within what is left of its own.
func RunWithin(ctx context.Context, t *tabs.Tab, s *Step) (*Result, error) {
	r := &Result{Action: s.Action, Loading: t.AwaitCommit(ctx), mayCarry: s.carry && s.Observe == nil}
	a, ok := actions[s.Action]
	if !ok {
		return nil, errs.Input("action", "unknown action %q", s.Action)
	}
	if err := a.run(ctx, t, s, r); err != nil {
		return r, stillLoading(err, r.Loading)
	}
	if s.Observe != nil {
		readControlInto(ctx, t, s, r)
	}
	return r, nil
}

// RunCarrying is RunWithin for a batch: the step may leave its last
// verification (a fill's read-back, what a click reached) for the next
// step's first call to carry, returned as a Pending; its result is complete
// once the Pending's Finish or Settle ran. A verification the step before
// left rides in ctx (Pending.With).
func RunCarrying(ctx context.Context, t *tabs.Tab, s *Step) (*Result, *Pending, error) {
	carrying := *s
	carrying.carry = true
	r, err := RunWithin(ctx, t, &carrying)
	if r == nil || err != nil {
		return r, nil, err
	}
	return r, r.later, nil
}

// stillLoading adds to a step's error that the page it met had not
// committed yet, the likely reason it found nothing to act on.
func stillLoading(err error, l *tabs.Loading) error {
	if l == nil || l.Committed {
		return err
	}
	e := *errs.As(err) // a copy: the error may be shared (a closed tab's)
	e.Message += " (" + l.String() + ")"
	return &e
}

// resolve finds the step's element and waits until it passes need.
func resolve(ctx context.Context, t *tabs.Tab, loc locate.Locator, need locate.Need, r *Result) (*locate.Target, error) {
	target, err := locate.ResolveThen(ctx, t, loc, need, nil, nil)
	if target != nil {
		r.Target = target.Desc
	}
	return target, err
}

// resolveThen is resolve, then runs fn(handle, args...) on the element in
// the same page call and decodes its value into out: a DOM-side action
// costs one round trip with its checks. The target comes back with an
// error of fn.
func resolveThen(ctx context.Context, t *tabs.Tab, loc locate.Locator, need locate.Need, then *locate.Then, out any, r *Result) (*locate.Target, error) {
	target, err := locate.ResolveThen(ctx, t, loc, need, then, out)
	if target == nil {
		return nil, err
	}
	r.Target = target.Desc
	return target, err
}

// then names a page-side act helper and its arguments after the handle.
func then(fn injected.Fn, args ...any) *locate.Then {
	if args == nil {
		args = []any{}
	}
	return &locate.Then{Fn: fn, Args: args}
}

// eval runs a page-side act call in frame f (nil: the main frame) and
// decodes its result; a refusal (the element left the page) comes back as
// its error.
func eval(ctx context.Context, t *tabs.Tab, f *tabs.Frame, call string, out any) error {
	return locate.Eval(ctx, t, f, call, out)
}

// guarded runs dispatch under the step's dialog policy and records the
// dialogs it met.
func guarded(ctx context.Context, t *tabs.Tab, s *Step, r *Result, dispatch func(context.Context) error) error {
	dialogs, err := t.Guard(ctx, policy(s), dispatch)
	r.Dialogs = append(r.Dialogs, dialogs...)
	return err
}

// guardedFind is guarded for a dispatch that starts with a resolve: the
// guard waits as long as the resolve may take to give its reason (see
// locate.AnswerWindow). dispatch gets ctx itself, not the guard's.
func guardedFind(ctx context.Context, t *tabs.Tab, s *Step, r *Result, dispatch func(context.Context) error) error {
	window, stop := locate.AnswerWindow(ctx)
	defer stop()
	return guarded(window, t, s, r, func(context.Context) error { return dispatch(ctx) })
}

func policy(s *Step) string {
	if s.DialogPolicy == "" {
		return tabs.DialogAsk
	}
	return s.DialogPolicy
}

// mouseEvent builds one trusted mouse event at (x, y) in viewport CSS
// pixels, for a pipeline.
func mouseEvent(typ input.DispatchMouseEventType, x, y float64, button input.MouseButton, clicks int64, mods int64) cdp.Command {
	p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Modifiers: mods, Button: button, ClickCount: clicks}
	if typ == input.DispatchMouseEventTypeMousePressed || (typ == input.DispatchMouseEventTypeMouseMoved && button != "" && button != input.MouseButtonNone) {
		p.Buttons = buttonBit(button)
	}
	return cdp.Command{Method: input.DispatchMouseEvent.Method, Params: p}
}

// mouse sends one trusted mouse event at (x, y) in viewport CSS pixels.
func mouse(ctx context.Context, t *tabs.Tab, typ input.DispatchMouseEventType, x, y float64, button input.MouseButton, clicks int64, mods int64) error {
	p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Modifiers: mods, Button: button, ClickCount: clicks}
	if typ == input.DispatchMouseEventTypeMousePressed || typ == input.DispatchMouseEventTypeMouseReleased {
		if typ == input.DispatchMouseEventTypeMousePressed {
			p.Buttons = buttonBit(button)
		}
	} else if button != "" && button != input.MouseButtonNone {
		p.Buttons = buttonBit(button)
	}
	_, err := cdproto.Call(ctx, t.Session(), input.DispatchMouseEvent, p)
	return err
}

func buttonBit(b input.MouseButton) int64 {
	switch b {
	case input.MouseButtonLeft:
		return 1
	case input.MouseButtonRight:
		return 2
	case input.MouseButtonMiddle:
		return 4
	}
	return 0
}

// settle waits the step's settle time, within the deadline.
func settle(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	start := time.Now()
	defer func() { timing.Waited(ctx, time.Since(start)) }()
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}

// js renders a Go value as a JavaScript literal.
func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
