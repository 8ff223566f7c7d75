package locate

import (
	"context"

	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Stable returns a locator for the element loc names that holds without
// the observation that gave its ref: the element's unique CSS selector as
// the page stands now, in the frame the ref was read from (by frame path,
// or by frame_id when the observation had no path for it). A locator
// without a ref comes back as it is. One page round trip; run it in the
// tab's queue, before the action that may change the page.
func Stable(ctx context.Context, t *tabs.Tab, loc Locator) (Locator, error) {
	if loc.Ref == "" {
		return loc, nil
	}
	bound, err := bindRef(t, loc)
	if err != nil {
		return loc, err
	}
	f, err := FrameOf(ctx, t, bound)
	if err != nil {
		return loc, refFrameGone(bound, err)
	}
	var sel *string
	if err := Eval(ctx, t, f, injected.Call(injected.FnStableSelector, bound.page()), &sel); err != nil {
		return loc, err
	}
	if sel == nil {
		return loc, StaleRef(bound)
	}
	return Locator{Selector: *sel, Frame: bound.Frame, FrameID: bound.FrameID}, nil
}
