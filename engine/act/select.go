package act

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/input"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// selectOption picks one option of a native <select> by value, label or
// index without opening its popup, and reports the option now selected.
func selectOption(ctx context.Context, t *tabs.Tab, s *Step, r *Result) error {
	want := map[string]any{}
	switch {
	case s.Value != nil:
		want["value"] = *s.Value
	case s.Label != nil:
		want["label"] = *s.Label
	default:
		want["index"] = *s.Index
	}
	// The wait covers the option too: one that the page adds or enables
	// later is waited for, like the select itself.
	need := locate.ForSelect
	need.Option = want
	var res struct {
		OK bool `json:"ok"`
		locate.Refusal
		Options  []map[string]any `json:"options"`
		Selected map[string]any   `json:"selected"`
	}
	// Find, check, select and read the choice back in one page call.
	err := guardedFind(ctx, t, s, r, func(ctx context.Context) error {
		_, err := resolveThen(ctx, t, s.Locator, need, then(injected.FnSelectOption, want), &res, r)
		return err
	})
	if err != nil {
		return err
	}
	if res.Reason != "" {
		e := res.Err(fmt.Sprintf("%s %v", s.Locator, want))
		if len(res.Options) > 0 {
			e.WithHint("options on offer: %s", locate.OptionList(res.Options))
		}
		return e
	}
	if !res.OK {
		return errs.New(errs.ValueMismatch, "%s: the page put back another option than %v", s.Locator, want).
			WithHint("the page's own script changed the choice; observe it and try again")
	}
	r.Selected = res.Selected
	r.Verified = fmt.Sprintf("selectedIndex is now %v", res.Selected["index"])
	return nil
}

// Choice names several options at once, by value or by label: for a
// <select multiple> or an ARIA listbox. It is a single-action option; the
// batch contract's select_option takes one option.
type Choice struct {
	Values []string
	Labels []string
}

type multiState struct {
	Code     string           `json:"code"`
	Native   bool             `json:"native"`
	Rect     [2]float64       `json:"rect"`
	Selected []map[string]any `json:"selected"`
	Options  []map[string]any `json:"options"`
	Point    *struct {
		X, Y    float64
		Covered string
	} `json:"point"`
}

// SelectMany selects every option c names in the one control loc finds. A
// listbox's options are clicked one by one with trusted clicks, each
// scrolled into view inside the list first. Options already selected stay.
func SelectMany(ctx context.Context, t *tabs.Tab, loc locate.Locator, c Choice) (*Result, error) {
	r := &Result{Action: SelectOption}
	box, target, err := locate.Box(ctx, t, loc)
	if err != nil {
		return r, err
	}
	r.Target = target.Desc
	want := map[string]any{}
	if c.Values != nil {
		want["values"] = c.Values
	} else {
		want["labels"] = c.Labels
	}
	call := injected.Call(injected.FnSelectMany, target.Handle, want)
	var st multiState
	var originX, originY float64
	for clicks := 0; ; clicks++ {
		if err := eval(ctx, t, target.Frame, call, &st); err != nil {
			return r, err
		}
		if err := st.problem(loc); err != nil {
			return r, err
		}
		if clicks == 0 { // where the control's frame sits in the tab's viewport
			originX, originY = box.X-st.Rect[0], box.Y-st.Rect[1]
		}
		if st.Native || st.Point == nil || clicks > len(c.Values)+len(c.Labels) {
			break
		}
		if st.Point.Covered != "" {
			return r, errs.New(errs.NotActionable, "%s: an option is covered by <%s>", loc, st.Point.Covered)
		}
		x, y := originX+st.Point.X, originY+st.Point.Y
		for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMouseMoved, input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
			button, n := input.MouseButtonLeft, int64(1)
			if typ == input.DispatchMouseEventTypeMouseMoved {
				button, n = input.MouseButtonNone, 0
			}
			if err := mouse(ctx, t, typ, x, y, button, n, 0); err != nil {
				return r, err
			}
		}
	}
	missing := c.missing(st.Selected)
	if len(missing) > 0 {
		return r, errs.New(errs.ValueMismatch, "%s: %q not selected afterwards; selected: %s", loc, missing, locate.OptionList(st.Selected)).
			WithHint("options on offer: %s", locate.OptionList(st.Options))
	}
	r.Selected = map[string]any{"options": st.Selected}
	how := "selectedOptions"
	if !st.Native {
		how = "aria-selected after trusted clicks"
	}
	r.Verified = fmt.Sprintf("%s now holds %d option(s), all asked for among them", how, len(st.Selected))
	return r, nil
}

func (st *multiState) problem(loc locate.Locator) error {
	switch st.Code {
	case "":
		return nil
	case "gone":
		return errs.New(errs.NotActionable, "%s left the page", loc)
	case "single":
		return errs.New(errs.NotActionable, "%s is a single <select>", loc).WithHint("pick one option with value, label or index")
	case "disabled":
		return errs.New(errs.NotActionable, "%s: an option asked for is disabled", loc)
	}
	return errs.New(errs.NotActionable, "%s is neither a <select multiple> nor a listbox", loc).WithHint("for other widgets, click the options")
}

// missing lists the values or labels asked for that are not selected.
func (c Choice) missing(selected []map[string]any) []string {
	have := map[string]bool{}
	key := "label"
	if c.Values != nil {
		key = "value"
	}
	for _, o := range selected {
		have[fmt.Sprint(o[key])] = true
	}
	var out []string
	for _, w := range append(append([]string{}, c.Values...), c.Labels...) {
		if !have[w] {
			out = append(out, w)
		}
	}
	return out
}
