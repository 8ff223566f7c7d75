package act

import (
	"context"
	"fmt"

	"github.com/tabwright/tabwright/engine/errs"
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
	target, err := resolve(ctx, t, s.Locator, need, r)
	if err != nil {
		return err
	}
	var res struct {
		OK       bool             `json:"ok"`
		Reason   string           `json:"reason"`
		Options  []map[string]any `json:"options"`
		Selected map[string]any   `json:"selected"`
	}
	err = guarded(ctx, t, s, r, func(ctx context.Context) error {
		return eval(ctx, t, target.Frame, "globalThis.__tabwright.selectOption("+js(target.Handle)+","+js(want)+")", &res)
	})
	if err != nil {
		return err
	}
	if !res.OK {
		e := errs.New(errs.NotFound, "%s: %s %v", s.Locator, res.Reason, want)
		if res.Reason == "not a <select> element" {
			e = errs.New(errs.NotActionable, "%s is not a <select>", s.Locator).
				WithHint("for a custom dropdown, click it open and click the option")
		} else if len(res.Options) > 0 {
			e.WithHint("options on offer: %s", locate.OptionList(res.Options))
		}
		return e
	}
	r.Selected = res.Selected
	r.Verified = fmt.Sprintf("selectedIndex is now %v", res.Selected["index"])
	return nil
}
