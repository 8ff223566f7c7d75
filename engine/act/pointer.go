package act

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/chromedp/cdproto/input"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// click presses and releases a mouse button on the element: native mode
// with trusted pointer events at the hit-tested point, dom mode with
// element.click(). Native clicks are verified: the element (or something
// inside it) must receive the click, unless the click navigated away.
func click(ctx context.Context, t *tabs.Tab, s *Step, r *Result) error {
	if s.Mode == "dom" {
		err := guardedFind(ctx, t, s, r, func(ctx context.Context) error {
			_, err := resolveThen(ctx, t, s.Locator, locate.Need{Enabled: true}, then(injected.FnDomClick), nil, r)
			return err
		})
		if err != nil {
			return err
		}
		r.Verified = "element.click() ran on the element"
		settle(ctx, s.SettleMS.Pick())
		return nil
	}

	button := input.MouseButtonLeft
	switch s.Button {
	case "right":
		button = input.MouseButtonRight
	case "middle":
		button = input.MouseButtonMiddle
	}
	clicks := int64(1)
	if s.ClickCount != nil {
		clicks = int64(*s.ClickCount)
	}
	expect := "click"
	switch {
	case button == input.MouseButtonRight:
		expect = "contextmenu"
	case button == input.MouseButtonMiddle:
		expect = "auxclick"
	case clicks == 2:
		expect = "dblclick"
	}
	need := locate.ForPointer
	need.Offset = s.Offset
	need.Watch = []string{expect, "mousedown", "pointerdown", "focus", "mousemove"}
	target, err := resolve(ctx, t, s.Locator, need, r)
	if err != nil {
		return err
	}
	mods := modifierMask(s.Modifiers)
	loader := t.Loader()
	// Move, press and release go out back to back: the browser keeps their
	// order, and waiting for each ack would cost a frame apiece. Into an
	// out-of-process frame the move goes first, on its own, until it lands.
	var events []cdp.Command
	if target.Routed {
		if err := guarded(ctx, t, s, r, func(ctx context.Context) error { return moveUntilRouted(ctx, t, target, mods) }); err != nil {
			return err
		}
	} else {
		events = append(events, mouseEvent(input.DispatchMouseEventTypeMouseMoved, target.X, target.Y, input.MouseButtonNone, 0, mods))
	}
	for i := int64(1); i <= clicks; i++ {
		events = append(events,
			mouseEvent(input.DispatchMouseEventTypeMousePressed, target.X, target.Y, button, i, mods),
			mouseEvent(input.DispatchMouseEventTypeMouseReleased, target.X, target.Y, button, i, mods))
	}
	err = guarded(ctx, t, s, r, func(ctx context.Context) error {
		return t.Session().Pipeline(ctx, events...)
	})
	if err != nil {
		return err
	}
	if r.mayCarry && target.Frame == nil && t.Loader() == loader && len(r.Dialogs) == 0 {
		// What the element received is read by the next step's first call.
		settle(ctx, s.SettleMS.Pick())
		r.later = pending(loader, injected.FnReached, target.Handle, []any{expect}, func(ctx context.Context, value json.RawMessage, err error) error {
			if value == nil && err == nil { // the document changed first
				r.Verified = expect + " dispatched; the page navigated"
				return nil
			}
			var seen map[string]bool
			json.Unmarshal(value, &seen)
			_, verdict := judgePointer(t, target, r, loader, expect, seen, err)
			return verdict
		})
		return nil
	}
	return verifyPointer(ctx, t, target, r, loader, expect, s.SettleMS)
}

// maxRoutedMoves bounds moveUntilRouted for a page that swallows pointer
// moves before our listener hears them: its press then goes out anyway,
// and the click's verification says where it went.
const maxRoutedMoves = 8

// moveUntilRouted moves the pointer onto a target in an out-of-process
// frame until the target hears the move. The browser routes input to such
// a frame by the layout it last drew, which can still show the frame where
// it was before a scroll, or under something the top page just removed; a
// press sent then lands on the top page. The move is checked, not timed:
// each try waits up to two of the frame's animation frames.
func moveUntilRouted(ctx context.Context, t *tabs.Tab, target *locate.Target, mods int64) error {
	for range maxRoutedMoves {
		if err := mouse(ctx, t, input.DispatchMouseEventTypeMouseMoved, target.X, target.Y, input.MouseButtonNone, 0, mods); err != nil {
			return err
		}
		var heard bool
		if err := target.Eval(ctx, t, injected.Call(injected.FnHeardMove, target.Handle, locate.PageBudget(ctx)), &heard); err != nil || heard {
			return err
		}
	}
	return nil
}

// verifyPointer checks that the trusted event reached the element.
func verifyPointer(ctx context.Context, t *tabs.Tab, target *locate.Target, r *Result, loader, expect string, settleMS *Range) error {
	if t.Loader() != loader {
		r.Verified = expect + " dispatched; the page navigated"
		settle(ctx, settleMS.Pick())
		return nil
	}
	var seen map[string]bool
	err := eval(ctx, t, target.Frame, injected.Call(injected.FnWatched, target.Handle), &seen)
	settles, verdict := judgePointer(t, target, r, loader, expect, seen, err)
	if settles {
		settle(ctx, settleMS.Pick())
	}
	return verdict
}

// judgePointer words what the watch saw (seen, or the error of reading
// it), and says whether the step's settle time follows.
func judgePointer(t *tabs.Tab, target *locate.Target, r *Result, loader, expect string, seen map[string]bool, err error) (settles bool, verdict error) {
	if err != nil && !(t.Loader() != loader || navigatedAway(err)) {
		return false, err
	}
	if err != nil || seen["gone"] { // the read ran in the next document
		r.Verified = expect + " dispatched; the page navigated"
		return false, nil
	}
	if !seen[expect] {
		if len(r.Dialogs) > 0 {
			r.Verified = expect + " dispatched; a dialog opened"
			return false, nil
		}
		if v := pressOnly(seen, target, expect); v != "" {
			r.Verified = v + surfaceNote(target)
			return true, nil
		}
		return false, errs.New(errs.NotActionable, "the %s at (%.0f, %.0f) did not reach %s", expect, target.X, target.Y, describeTarget(target)).
			WithHint("something may have covered it at the last moment or the page moved it; observe and try again")
	}
	r.Verified = fmt.Sprintf("trusted %s received by the element at (%.0f, %.0f)", expect, target.X, target.Y) + surfaceNote(target)
	return true, nil
}

// surfaceNote says when the pointer went to the surface a widget draws
// over the element (a code editor's lines over its input), not to the
// element itself.
func surfaceNote(target *locate.Target) string {
	if target.Surface == "" {
		return ""
	}
	return fmt.Sprintf(" (through %s, which its widget draws over it: the element takes the keys)", target.Surface)
}

// pressOnly words a click whose press reached the element but whose
// release did not: the page answered the press (or the focus it gave) by
// changing what is under the pointer, removing the element (a menu that
// closes on pointerdown) or putting something over it (MiniWoB's tasks
// cover the page when the input they asked for takes focus). The browser
// then sends the click to what is there now, as it would for a person's
// click: the input was delivered. Empty when the press did not arrive.
func pressOnly(seen map[string]bool, target *locate.Target, expect string) string {
	at := fmt.Sprintf("(%.0f, %.0f)", target.X, target.Y)
	switch {
	case !seen["mousedown"] && !seen["pointerdown"] && !seen["focus"]:
		return ""
	case seen["detached"]:
		return fmt.Sprintf("trusted press received by the element at %s, which the page then removed before the %s", at, expect)
	case seen["focus"]:
		return fmt.Sprintf("trusted press received by the element at %s, which took focus; the page then put something else under the pointer before the %s", at, expect)
	}
	return fmt.Sprintf("trusted press received by the element at %s; the page then put something else under the pointer before the %s", at, expect)
}

// navigatedAway reports an error that means the document we read from is
// gone: the event we dispatched started a navigation.
func navigatedAway(err error) bool {
	return errs.As(err).Fact == tabs.FactDocumentLeft
}

func describeTarget(t *locate.Target) string {
	if t == nil || t.Desc == nil {
		return "the element"
	}
	s := "<" + fmt.Sprint(t.Desc["tag"])
	if id, ok := t.Desc["id"].(string); ok {
		s += "#" + id
	}
	return s + ">"
}

// hover moves the real pointer onto the element and leaves it there.
func hover(ctx context.Context, t *tabs.Tab, s *Step, r *Result) error {
	need := locate.ForPointer
	need.Enabled = false // hovering a disabled control is legitimate (tooltips)
	need.Offset = s.Offset
	need.Watch = []string{"mousemove"}
	target, err := resolve(ctx, t, s.Locator, need, r)
	if err != nil {
		return err
	}
	loader := t.Loader()
	err = guarded(ctx, t, s, r, func(ctx context.Context) error {
		if target.Routed {
			return moveUntilRouted(ctx, t, target, 0)
		}
		return mouse(ctx, t, input.DispatchMouseEventTypeMouseMoved, target.X, target.Y, input.MouseButtonNone, 0, 0)
	})
	if err != nil {
		return err
	}
	return verifyPointer(ctx, t, target, r, loader, "mousemove", nil)
}

// dragThreshold is how far the first move of a drag goes at least, in CSS
// px: past the distance at which browsers start a drag.
const dragThreshold = 8

// drag presses on the element, moves the pointer in steps to the target
// element (or by dx, dy) and releases there.
func drag(ctx context.Context, t *tabs.Tab, s *Step, r *Result) error {
	need := locate.ForPointer
	need.Offset = s.Offset
	from, err := resolve(ctx, t, s.Locator, need, r)
	if err != nil {
		return err
	}
	toX, toY := from.X, from.Y
	if s.To != nil {
		var into Result
		to, err := resolve(ctx, t, *s.To, locate.Need{Visible: true, Scroll: false}, &into)
		if err != nil {
			return prefixPath(err, "to")
		}
		toX, toY = to.X, to.Y
	} else {
		if s.DX != nil {
			toX += *s.DX
		}
		if s.DY != nil {
			toY += *s.DY
		}
	}
	const steps = 10
	path := make([]point, steps)
	dist := math.Hypot(toX-from.X, toY-from.Y)
	for i := range path {
		f := float64(i+1) / steps
		if i == 0 && dist > 0 {
			// The first move must pass the browser's drag threshold (a few
			// pixels), or no drag starts where it can be intercepted.
			f = min(1, max(f, dragThreshold/dist))
		}
		path[i] = point{from.X + (toX-from.X)*f, from.Y + (toY-from.Y)*f}
	}
	native := false
	err = guarded(ctx, t, s, r, func(ctx context.Context) error {
		data, err := pressForDrag(ctx, t, from, path[0])
		if err != nil {
			return err
		}
		if data != nil {
			// Over the target at once, as Playwright's drag does: pages
			// such as SortableJS ignore a dragover that comes within 30 ms
			// of one that moved something, so steps in between would each
			// move the item one place and the drop would miss the target.
			native = true
			return dropAlong(ctx, t, data, []point{path[0], path[len(path)-1]})
		}
		for _, p := range path[1:] {
			if err := mouse(ctx, t, input.DispatchMouseEventTypeMouseMoved, p.x, p.y, input.MouseButtonLeft, 0, 0); err != nil {
				return err
			}
		}
		return mouse(ctx, t, input.DispatchMouseEventTypeMouseReleased, toX, toY, input.MouseButtonLeft, 1, 0)
	})
	if err != nil {
		return err
	}
	r.Verified = fmt.Sprintf("dragged from (%.0f, %.0f) to (%.0f, %.0f) in %d steps, %.0f px", from.X, from.Y, toX, toY, steps, math.Hypot(toX-from.X, toY-from.Y))
	if native {
		r.Verified += "; the page started an HTML5 drag: dragenter, dragover and drop dispatched"
	}
	return nil
}

func prefixPath(err error, at string) error {
	e := errs.As(err)
	if e.Path != "" {
		e.Path = at + "." + e.Path
	} else if e.Code == errs.NotFound || e.Code == errs.Ambiguous || e.Code == errs.NotActionable {
		e.Path = at
	}
	return e
}

// modifierMask turns modifier names into CDP's bit field.
func modifierMask(names []string) int64 {
	var m int64
	for _, n := range names {
		switch n {
		case "Alt":
			m |= ModAlt
		case "Control":
			m |= ModControl
		case "Meta":
			m |= ModMeta
		case "Shift":
			m |= ModShift
		}
	}
	return m
}
