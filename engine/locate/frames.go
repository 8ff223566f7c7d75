package locate

import (
	"context"
	"fmt"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Bounds of the frame search by url, title or id.
const (
	maxFrameDepth = 16
	maxFrames     = 200
)

// frameChain is the way from the main frame down to a child frame: each hop
// is an iframe element (held in its parent's world) and the frame it shows.
type frameChain struct {
	hops []hop
}

type hop struct {
	parent *tabs.Frame // nil: the main frame
	iframe string      // handle of the iframe element in parent
	child  *tabs.Frame
}

// frame is the frame at the end of the chain; nil for the main frame.
func (c *frameChain) frame() *tabs.Frame {
	if c == nil || len(c.hops) == 0 {
		return nil
	}
	return c.hops[len(c.hops)-1].child
}

// toTop maps a point in the chain's frame viewport to the tab's viewport.
func (c *frameChain) toTop(ctx context.Context, t *tabs.Tab, x, y float64) (float64, float64, error) {
	p, err := c.mapPoints(ctx, t, [][2]float64{{x, y}})
	if err != nil {
		return 0, 0, err
	}
	return p[0][0], p[0][1], nil
}

// mapPoints maps points of the chain's frame viewport to the tab's
// viewport, after scrolling each frame element into view (outermost
// first). Without CSS transforms each frame adds its content box's offset.
// With one, the browser's quad of the frame element says where its corners
// are drawn, and the points are placed on it.
func (c *frameChain) mapPoints(ctx context.Context, t *tabs.Tab, pts [][2]float64) ([][2]float64, error) {
	origins := make([]frameOrigin, len(c.hops))
	transformed := false
	for i, h := range c.hops {
		settle := int64(0)
		if c.outOfProcessFrom(t, i) {
			settle = PageBudget(ctx)
		}
		if err := Eval(ctx, t, h.parent, injected.Call(injected.FnFrameOrigin, h.iframe, settle), &origins[i]); err != nil {
			return nil, err
		}
		transformed = transformed || origins[i].Transformed
	}
	out := append([][2]float64(nil), pts...)
	if !transformed {
		for _, o := range origins {
			for k := range out {
				out[k][0] += o.X
				out[k][1] += o.Y
			}
		}
		return out, nil
	}
	for i := len(c.hops) - 1; i >= 0; {
		q, err := contentQuad(ctx, t, c.hops[i])
		if err != nil {
			return nil, err
		}
		for k := range out {
			out[k][0], out[k][1] = q.mapPoint(origins[i].W, origins[i].H, out[k][0], out[k][1])
		}
		// The quad is in the viewport of the frame its process draws from
		// (the tab's, or an out-of-process frame's): skip the hops inside it.
		i--
		for i >= 0 && sessionOf(t, c.hops[i].child) == sessionOf(t, c.hops[i].parent) {
			i--
		}
	}
	return out, nil
}

// outOfProcessFrom reports whether a frame at hop i or below it runs in
// another renderer than its parent: input to it is routed by the browser.
func (c *frameChain) outOfProcessFrom(t *tabs.Tab, i int) bool {
	for _, h := range c.hops[i:] {
		if sessionOf(t, h.child) != sessionOf(t, h.parent) {
			return true
		}
	}
	return false
}

type frameOrigin struct {
	X, Y, W, H  float64
	Transformed bool
}

type quad dom.Quad

// mapPoint places (x, y) of a w×h viewport on the quad: corners top-left,
// top-right, bottom-right, bottom-left. Transforms without perspective keep
// lines parallel, so two edges are enough.
func (q quad) mapPoint(w, h, x, y float64) (float64, float64) {
	if len(q) < 8 || w <= 0 || h <= 0 {
		return x, y
	}
	fx, fy := x/w, y/h
	return q[0] + (q[2]-q[0])*fx + (q[6]-q[0])*fy, q[1] + (q[3]-q[1])*fx + (q[7]-q[1])*fy
}

// contentQuad is the frame element's content box as the browser draws it.
func contentQuad(ctx context.Context, t *tabs.Tab, h hop) (quad, error) {
	obj, err := t.EvalObjectIn(ctx, h.parent, injected.Actions().Installing(injected.Call(injected.FnByHandle, h.iframe)))
	if err != nil {
		return nil, err
	}
	defer t.ReleaseObject(ctx, h.parent, obj)
	res, err := cdproto.Call(ctx, sessionOf(t, h.parent), dom.GetBoxModel, dom.GetBoxModelParams{ObjectID: obj})
	if err != nil {
		return nil, err
	}
	if res.Model == nil {
		return nil, errs.New(errs.NotActionable, "the frame element has no box")
	}
	return quad(res.Model.Content), nil
}

func sessionOf(t *tabs.Tab, f *tabs.Frame) *cdp.Session {
	if f == nil {
		return t.Session()
	}
	return f.Session()
}

// findFrame resolves the locator's frame or frame_id; nil means the main
// frame.
func findFrame(ctx context.Context, t *tabs.Tab, loc Locator) (*frameChain, error) {
	if loc.Frame == nil && loc.FrameID == "" {
		return nil, nil
	}
	chain, err := searchFrame(ctx, t, loc)
	if err != nil {
		return nil, refFrameGone(loc, err)
	}
	return chain, nil
}

func searchFrame(ctx context.Context, t *tabs.Tab, loc Locator) (*frameChain, error) {
	if loc.Frame != nil && len(loc.Frame.Path) > 0 {
		chain, err := framePath(ctx, t, loc.Frame.Path)
		if err != nil {
			return nil, err
		}
		if loc.Frame.URL != "" || loc.Frame.Title != "" {
			info, err := frameInfo(ctx, t, chain.frame())
			if err != nil {
				return nil, err
			}
			if !frameMatches(info, loc.Frame, "") {
				return nil, errs.New(errs.NotFound, "the frame at path %q shows url %q title %q, not the expected ones", loc.Frame.Path, info.URL, info.Title).
					WithPath("frame")
			}
		}
		return chain, nil
	}
	return frameSearch(ctx, t, loc)
}

// framePath follows a path of CSS selectors, each naming exactly one frame
// element in the document before it.
func framePath(ctx context.Context, t *tabs.Tab, path []string) (*frameChain, error) {
	chain := &frameChain{}
	var cur *tabs.Frame
	for i, sel := range path {
		var step struct {
			Handle     string           `json:"handle"`
			Code       string           `json:"code"`
			Count      int              `json:"count"`
			Reason     string           `json:"reason"`
			Candidates []map[string]any `json:"candidates"`
		}
		if err := Eval(ctx, t, cur, injected.Call(injected.FnFrameStep, sel), &step); err != nil {
			return nil, err
		}
		at := fmt.Sprintf("frame.path[%d]", i)
		switch step.Code {
		case "":
		case errs.Ambiguous:
			return nil, errs.New(errs.Ambiguous, "frame path step %q matches %d elements: %s", sel, step.Count, candidates(step.Candidates)).
				WithPath(at).WithHint("each path step must name exactly one iframe")
		case errs.InvalidInput:
			return nil, errs.Input(at, "%s", step.Reason)
		default:
			msg := "nothing matches"
			if step.Reason != "" {
				msg = step.Reason
			}
			return nil, errs.New(errs.NotFound, "frame path step %q: %s", sel, msg).WithPath(at).
				WithHint("path steps are CSS selectors of iframe elements, outermost first")
		}
		child, err := childOf(ctx, t, cur, step.Handle)
		if err != nil {
			return nil, err
		}
		chain.hops = append(chain.hops, hop{parent: cur, iframe: step.Handle, child: child})
		cur = child
	}
	return chain, nil
}

// childOf returns the frame a held iframe element shows.
func childOf(ctx context.Context, t *tabs.Tab, parent *tabs.Frame, handle string) (*tabs.Frame, error) {
	obj, err := t.EvalObjectIn(ctx, parent, injected.Actions().Installing(injected.Call(injected.FnByHandle, handle)))
	if err != nil {
		return nil, err
	}
	defer t.ReleaseObject(ctx, parent, obj)
	return t.ChildFrame(ctx, parent, obj)
}

type info struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

func frameInfo(ctx context.Context, t *tabs.Tab, f *tabs.Frame) (info, error) {
	var i info
	err := Eval(ctx, t, f, injected.Call(injected.FnFrameInfo), &i)
	return i, err
}

func frameMatches(i info, spec *FrameSpec, id string) bool {
	if spec == nil {
		return false
	}
	return (spec.URL == "" || i.URL == spec.URL) && (spec.Title == "" || i.Title == spec.Title)
}

// frameSearch walks every frame under the main one, breadth first, for the
// one with the exact url/title (or frame id). Several matches are ambiguous.
func frameSearch(ctx context.Context, t *tabs.Tab, loc Locator) (*frameChain, error) {
	type node struct {
		chain *frameChain
		depth int
	}
	queue := []node{{chain: &frameChain{}}}
	var found []*frameChain
	var seen []string
	visited := 0
	for len(queue) > 0 && visited < maxFrames {
		n := queue[0]
		queue = queue[1:]
		parent := n.chain.frame()
		var handles []string
		if err := Eval(ctx, t, parent, injected.Call(injected.FnFrameElements), &handles); err != nil {
			continue // a frame that went away while we walked
		}
		for _, h := range handles {
			child, err := childOf(ctx, t, parent, h)
			if err != nil {
				continue // not loaded yet, or gone
			}
			visited++
			chain := &frameChain{hops: append(append([]hop{}, n.chain.hops...), hop{parent: parent, iframe: h, child: child})}
			match := false
			if loc.FrameID != "" {
				match = child.ID == cdproto.FrameID(loc.FrameID)
			} else if i, err := frameInfo(ctx, t, child); err == nil {
				match = frameMatches(i, loc.Frame, "")
				if len(seen) < 10 {
					seen = append(seen, fmt.Sprintf("%q (%s)", i.Title, i.URL))
				}
			}
			if match {
				found = append(found, chain)
			}
			if n.depth+1 < maxFrameDepth {
				queue = append(queue, node{chain: chain, depth: n.depth + 1})
			}
		}
	}
	what := "frame_id " + loc.FrameID
	if loc.FrameID == "" {
		what = fmt.Sprintf("frame url %q title %q", loc.Frame.URL, loc.Frame.Title)
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		e := errs.New(errs.NotFound, "no frame with %s", what).WithPath(framePathName(loc))
		if len(seen) > 0 {
			e.WithHint("frames seen: %s", strings.Join(seen, ", "))
		}
		return nil, e
	}
	return nil, errs.New(errs.Ambiguous, "%d frames have %s", len(found), what).WithPath(framePathName(loc)).
		WithHint("add the frame's title or a path to tell them apart")
}

func framePathName(loc Locator) string {
	if loc.FrameID != "" {
		return "frame_id"
	}
	return "frame"
}

// FrameOf returns the frame a locator searches in (nil: the main frame),
// for callers that run their own page-side code there.
func FrameOf(ctx context.Context, t *tabs.Tab, loc Locator) (*tabs.Frame, error) {
	loc, err := bindRef(t, loc)
	if err != nil {
		return nil, err
	}
	chain, err := findFrame(ctx, t, loc)
	if err != nil {
		return nil, err
	}
	return chain.frame(), nil
}
