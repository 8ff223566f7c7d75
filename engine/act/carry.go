package act

import (
	"context"
	"encoding/json"

	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Pending is a step's last verification (a fill's read-back, what a click
// reached) left for the next step's first page call to carry, so that it
// costs no round trip of its own. A batch hands it on only when the next
// step's first command is that call (see Carries); otherwise, and after the
// last step, it runs on its own (Settle). Until then the step's result is
// not complete: Finish completes it, or fails the step.
type Pending struct {
	carried *locate.Carried
	loader  string // the document the verification reads
	// judge completes the result from the verification's value or the error of
	// its call; both nil when the document changed before it could run.
	judge func(ctx context.Context, value json.RawMessage, err error) error
}

// pending makes the verification call fn(handle, args...) in the main frame.
func pending(loader string, fn injected.Fn, handle string, args []any, judge func(ctx context.Context, value json.RawMessage, err error) error) *Pending {
	return &Pending{carried: &locate.Carried{Fn: fn, Handle: handle, Args: args}, loader: loader, judge: judge}
}

// Carries reports whether s's first command is a resolve in the main frame,
// which can carry a Pending: an element step with a plain locator, or a
// role with a name and no nth (the page is asked first: see locate's
// resolveRole; when it cannot answer, it has run the verification all the same).
func Carries(s *Step) bool {
	if s.Selector == "" || s.Ref != "" || s.Frame != nil || s.FrameID != "" || s.SelectorType == locate.Role && (s.Name == nil || s.Nth != nil) {
		return false
	}
	switch s.Action {
	case Click, Fill, SelectOption, Hover, Drag:
		return true
	case Type:
		return s.Focused == nil || !*s.Focused
	case PressKey:
		return true // with a selector it resolves first
	}
	return false
}

// CarriesObserve is Carries for a control read.
func CarriesObserve(o *ObserveSpec) bool {
	return o.Selector != "" && o.Ref == "" && o.Frame == nil && o.FrameID == "" && o.SelectorType != locate.Role
}

// With returns ctx carrying p to the next main-frame resolve.
func (p *Pending) With(ctx context.Context) context.Context {
	if p == nil {
		return ctx
	}
	return locate.Carry(ctx, p.carried)
}

// Finish completes the step after the call that carried p: its answer
// judged, or, when no call took it (the next step failed before sending
// one), the verification run now.
func (p *Pending) Finish(ctx context.Context, t *tabs.Tab) error {
	if p == nil {
		return nil
	}
	if len(p.carried.Answer) == 0 {
		return p.Settle(ctx, t)
	}
	var value json.RawMessage
	err := locate.DecodeAnswer(p.carried.Answer, &value)
	return p.judge(ctx, value, err)
}

// Settle runs the verification on its own call.
func (p *Pending) Settle(ctx context.Context, t *tabs.Tab) error {
	if p == nil {
		return nil
	}
	var value json.RawMessage
	if t.Loader() != p.loader { // the document it would read is gone
		return p.judge(ctx, nil, nil)
	}
	call := injected.Call(p.carried.Fn, append([]any{p.carried.Handle}, p.carried.Args...)...)
	err := locate.Eval(ctx, t, nil, call, &value)
	return p.judge(ctx, value, err)
}
