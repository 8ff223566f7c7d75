package act

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/input"

	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// scroll moves the page or a container: dom mode sets the scroll position,
// wheel mode sends trusted wheel events (what lazy lists listen to). With
// until it repeats steps until the text shows in the viewport.
func scroll(ctx context.Context, t *tabs.Tab, s *Step, r *Result) error {
	var container any // nil: the page
	var target *locate.Target
	var f *tabs.Frame
	if s.Selector != "" || s.Ref != "" {
		var err error
		target, err = resolve(ctx, t, s.Locator, locate.Need{Visible: true}, r)
		if err != nil {
			return err
		}
		container, f = target.Handle, target.Frame
	}
	var pos struct {
		X, Y   float64
		Height float64
		View   float64
	}
	if err := eval(ctx, t, f, injected.Call(injected.FnScrollPos, container), &pos); err != nil {
		return err
	}
	dx, dy := 0.0, pos.View*0.8
	if s.DeltaX != nil {
		dx = *s.DeltaX
	}
	if s.DeltaY != nil {
		dy = *s.DeltaY
	}
	// The wheel goes where the pointer is: x, y, else the container's centre,
	// else the middle of the viewport.
	wx, wy := 100.0, 100.0
	if s.X != nil {
		wx, wy = *s.X, *s.Y
	} else if target != nil {
		wx, wy = target.X, target.Y
	}

	step := func(ctx context.Context) error {
		if s.Mode == "wheel" {
			// The browser requires both deltas on a wheel event, and cdproto's
			// params leave a zero delta out, so this one is sent as a map.
			return t.Session().Call(ctx, input.DispatchMouseEvent.Method, map[string]any{
				"type": input.DispatchMouseEventTypeMouseWheel, "x": wx, "y": wy, "deltaX": dx, "deltaY": dy,
			}, nil)
		}
		return eval(ctx, t, f, injected.Call(injected.FnScrollStep, container, dx, dy), nil)
	}
	res := &ScrollResult{}
	r.Scroll = res
	if s.Until == nil {
		if err := guarded(ctx, t, s, r, step); err != nil {
			return err
		}
		res.Steps = 1
		return finishScroll(ctx, t, f, container, res, r)
	}

	maxSteps := 100
	if s.MaxSteps != nil {
		maxSteps = *s.MaxSteps
	}
	check := injected.Call(injected.FnTextInView, s.Until.Text, s.Until.Selector)
	for {
		var found bool
		if err := eval(ctx, t, f, check, &found); err != nil {
			return err
		}
		if found {
			res.Found = &found
			return finishScroll(ctx, t, f, container, res, r)
		}
		if res.Steps >= maxSteps {
			res.Found = &found
			finishScroll(ctx, t, f, container, res, r)
			return errs.New(errs.NotFound, "%q did not come into view in %d scroll steps", s.Until.Text, res.Steps).
				WithHint("raise max_steps, or check the text against a fresh observation")
		}
		if err := guarded(ctx, t, s, r, step); err != nil {
			return err
		}
		res.Steps++
		// Lists that load more on scroll fetch it now: give them a moment.
		idle, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		t.WaitNetworkIdle(idle, 50*time.Millisecond)
		cancel()
		if ctx.Err() != nil {
			return deadline.Err(ctx, fmt.Sprintf("scrolling until %q shows (%d steps so far)", s.Until.Text, res.Steps))
		}
	}
}

func finishScroll(ctx context.Context, t *tabs.Tab, f *tabs.Frame, container any, res *ScrollResult, r *Result) error {
	var pos struct{ X, Y float64 }
	if err := eval(ctx, t, f, injected.Call(injected.FnScrollPos, container), &pos); err != nil {
		return err
	}
	res.ScrollX, res.ScrollY = pos.X, pos.Y
	r.Verified = "scroll position read back"
	return nil
}
