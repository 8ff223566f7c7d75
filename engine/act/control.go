package act

import (
	"context"
	"time"

	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Control is one control as read right after an action.
type Control struct {
	Role           string           `json:"role"`
	Name           string           `json:"name"`
	Value          *string          `json:"value,omitempty"`
	Checked        any              `json:"checked,omitempty"`
	Selected       *bool            `json:"selected,omitempty"`
	Expanded       *bool            `json:"expanded,omitempty"`
	Disabled       bool             `json:"disabled,omitempty"`
	Options        []map[string]any `json:"options,omitempty"`
	OptionsOmitted int              `json:"options_omitted,omitempty"`
	Text           string           `json:"text,omitempty"`
}

// ReadControl reads the control obs names (a fresh locator; with none, the
// element the step acted on) within obs's own small timeout.
func ReadControl(ctx context.Context, t *tabs.Tab, obs *ObserveSpec, fallback locate.Locator) (*Control, error) {
	timeout := time.Second
	if obs.TimeoutMS != nil {
		timeout = time.Duration(*obs.TimeoutMS) * time.Millisecond
	}
	ctx, cancel := deadline.With(ctx, timeout, "observe.timeout_ms", "the control read's timeout_ms")
	defer cancel()
	loc := obs.Locator
	if loc.Selector == "" && loc.Ref == "" {
		loc = fallback
	}
	if loc.Selector == "" && loc.Ref == "" {
		return nil, errs.Input("observe.selector", "name the control to read")
	}
	opts := map[string]any{"maxOptions": 30, "maxChars": 16000, "popup": obs.PopupSelector}
	if obs.MaxOptions != nil {
		opts["maxOptions"] = *obs.MaxOptions
	}
	if obs.MaxChars != nil {
		opts["maxChars"] = *obs.MaxChars
	}
	var c Control
	if _, err := locate.ResolveThen(ctx, t, loc, locate.Attached, then(injected.FnReadControl, opts), &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// readControlInto attaches the control read to the result; a failed read is
// reported, not fatal: the action itself already happened.
func readControlInto(ctx context.Context, t *tabs.Tab, s *Step, r *Result) {
	c, err := ReadControl(ctx, t, s.Observe, s.Locator)
	if err != nil {
		r.ObserveError = errs.As(err)
		return
	}
	if r.Value != nil && c.Value != nil && *c.Value == *r.Value {
		c.Value = nil // the result states it once
	}
	r.Control = c
}
