package act

import (
	"context"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/input"

	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// An HTML5 drag (draggable elements, SortableJS's default, most kanban
// boards) does not follow dispatched mouse moves in a headless browser:
// the browser starts its own drag loop, which no further event reaches.
// As Playwright does, the drag is intercepted instead: Chromium hands over
// the drag's data (Input.setInterceptDrags, Input.dragIntercepted), and
// the engine dispatches dragenter, dragover and drop itself
// (Input.dispatchDragEvent). A press that starts no drag (a mouse-driven
// slider, a canvas) goes on as mouse moves.

type point struct{ x, y float64 }

// pressForDrag presses on from and makes the first move, to first. It
// returns the drag's data when the page started an HTML5 drag, nil when
// it did not (or the browser cannot intercept drags: the extension relay).
func pressForDrag(ctx context.Context, t *tabs.Tab, from *locate.Target, first point) (*input.DragData, error) {
	press := func() error {
		if err := mouse(ctx, t, input.DispatchMouseEventTypeMouseMoved, from.X, from.Y, input.MouseButtonNone, 0, 0); err != nil {
			return err
		}
		if err := mouse(ctx, t, input.DispatchMouseEventTypeMousePressed, from.X, from.Y, input.MouseButtonLeft, 1, 0); err != nil {
			return err
		}
		return mouse(ctx, t, input.DispatchMouseEventTypeMouseMoved, first.x, first.y, input.MouseButtonLeft, 0, 0)
	}
	// Drags are intercepted at the page's session: a target in a child
	// frame is dragged by the mouse alone.
	if from.Frame != nil {
		return nil, press()
	}
	data := make(chan *input.DragData, 1)
	stop := t.Session().Listen(func(method string, params jsonv2.Value) {
		var ev input.EventDragIntercepted
		if method == "Input.dragIntercepted" && jsonv2.Unmarshal(params, &ev) == nil && ev.Data != nil {
			select {
			case data <- ev.Data:
			default:
			}
		}
	})
	defer stop()
	if _, err := cdproto.Call(ctx, t.Session(), input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: true}); err != nil {
		return nil, press()
	}
	defer t.Session().Post(context.WithoutCancel(ctx), input.CommandSetInterceptDrags, input.SetInterceptDragsParams{Enabled: false})
	if err := from.Eval(ctx, t, injected.Call(injected.FnWatchDragStart), nil); err != nil {
		return nil, err
	}
	if err := press(); err != nil {
		return nil, err
	}
	var started bool
	if err := from.Eval(ctx, t, injected.Call(injected.FnDragStarted), &started); err != nil || !started {
		return nil, err
	}
	select {
	case d := <-data:
		return d, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// dropAlong carries an intercepted drag along path (dragenter at its
// first point, dragover at each) and drops it at the last point.
func dropAlong(ctx context.Context, t *tabs.Tab, data *input.DragData, path []point) error {
	for i, p := range path {
		typ := input.DispatchDragEventTypeDragOver
		if i == 0 {
			typ = input.DispatchDragEventTypeDragEnter
		}
		if _, err := cdproto.Call(ctx, t.Session(), input.DispatchDragEvent, input.DispatchDragEventParams{Type: typ, X: p.x, Y: p.y, Data: data}); err != nil {
			return err
		}
	}
	end := path[len(path)-1]
	_, err := cdproto.Call(ctx, t.Session(), input.DispatchDragEvent, input.DispatchDragEventParams{Type: input.DispatchDragEventTypeDrop, X: end.x, Y: end.y, Data: data})
	return err
}
