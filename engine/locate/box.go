package locate

import (
	"context"
	"math"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Box finds the one visible element loc names, scrolls it into view, and
// returns its border box in CSS px of the tab's viewport (frames' offsets
// added), for a screenshot of it.
func Box(ctx context.Context, t *tabs.Tab, loc Locator) (tabs.Rect, *Target, error) {
	loc, err := bindRef(t, loc)
	if err != nil {
		return tabs.Rect{}, nil, err
	}
	tg, err := Resolve(ctx, t, loc, Need{Visible: true, Scroll: true})
	if err != nil {
		return tabs.Rect{}, nil, err
	}
	var r struct {
		OK         bool
		X, Y, W, H float64
	}
	if err := Eval(ctx, t, tg.Frame, injected.Call(injected.FnBorderBox, tg.Handle), &r); err != nil {
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
		// The corners as the tab's viewport shows them (a transformed frame
		// turns the box; the screenshot takes what encloses it).
		corners, err := fr.mapPoints(ctx, t, [][2]float64{{box.X, box.Y}, {box.X + box.W, box.Y}, {box.X, box.Y + box.H}, {box.X + box.W, box.Y + box.H}})
		if err != nil {
			return tabs.Rect{}, nil, err
		}
		minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, c := range corners {
			minX, minY, maxX, maxY = math.Min(minX, c[0]), math.Min(minY, c[1]), math.Max(maxX, c[0]), math.Max(maxY, c[1])
		}
		box = tabs.Rect{X: minX, Y: minY, W: maxX - minX, H: maxY - minY}
	}
	return box, tg, nil
}
