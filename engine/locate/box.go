package locate

import (
	"context"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Box finds the one visible element loc names, scrolls it into view, and
// returns its border box in CSS px of the tab's viewport (frames' offsets
// added), for a screenshot of it.
func Box(ctx context.Context, t *tabs.Tab, loc Locator) (tabs.Rect, *Target, error) {
	tg, err := Resolve(ctx, t, loc, Need{Visible: true, Scroll: true})
	if err != nil {
		return tabs.Rect{}, nil, err
	}
	var r struct {
		OK         bool
		X, Y, W, H float64
	}
	call := "(() => { const el = globalThis.__tabwright.byHandle(" + quote(tg.Handle) + "); if (!el) return {OK: false};" +
		" const r = el.getBoundingClientRect(); return {OK: true, X: r.x, Y: r.y, W: r.width, H: r.height}; })()"
	if err := Eval(ctx, t, tg.Frame, call, &r); err != nil {
		return tabs.Rect{}, nil, err
	}
	if !r.OK {
		return tabs.Rect{}, nil, errs.New(errs.NotFound, "%s: the element left the document", loc)
	}
	box := tabs.Rect{X: r.X, Y: r.Y, W: r.W, H: r.H}
	if tg.Frame != nil {
		fr, err := findFrame(ctx, t, loc)
		if err != nil {
			return tabs.Rect{}, nil, err
		}
		dx, dy, err := fr.origin(ctx, t)
		if err != nil {
			return tabs.Rect{}, nil, err
		}
		box.X += dx
		box.Y += dy
	}
	return box, tg, nil
}
