// Package observetab observes a tab the way an agent asks for it: the whole
// page with its child frames inline, one child frame, or the part under one
// element found by a strict locator (or a ref, a child frame's included).
// It joins observe (which reads any Page) to tabs and locate, so the MCP
// server, the CLI and the quickstart harness read tabs alike.
package observetab

import (
	"context"

	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Part says which part of the tab to read: Locator (nil: the whole page,
// or the frame Frame or FrameID names).
type Part struct {
	Locator *locate.Locator
	Frame   *locate.FrameSpec
	FrameID string
}

// Capture observes part of t with opt and sets the environment. Run it in
// the tab's queue.
func Capture(ctx context.Context, t *tabs.Tab, part Part, opt observe.Options) (*observe.Observation, error) {
	loading := t.AwaitCommit(ctx)
	page, err := pageFor(ctx, t, part, &opt)
	if err != nil {
		return nil, err
	}
	obs, err := observe.Capture(ctx, page, opt)
	if err == nil {
		obs.Environment = t.Environment()
		if loading != nil {
			if obs.Reserved == nil {
				obs.Reserved = map[string]any{}
			}
			obs.Reserved[observe.ReservedLoading] = loading
		}
	}
	return obs, err
}

func pageFor(ctx context.Context, t *tabs.Tab, part Part, opt *observe.Options) (observe.Page, error) {
	switch {
	case part.Locator != nil:
		loc := *part.Locator
		// The element is found where the action tools would find it, then
		// read through its handle in the same world.
		tg, err := locate.Resolve(ctx, t, loc, locate.Attached)
		if err != nil {
			return nil, err
		}
		opt.ScopeHandle, opt.ScopeName = tg.Handle, loc.String()
		if tg.Frame != nil {
			return framePage{Tab: t, frame: tg.Frame, path: pathOf(loc.Frame)}, nil
		}
	case part.Frame != nil || part.FrameID != "":
		f, err := locate.FrameOf(ctx, t, locate.Locator{Frame: part.Frame, FrameID: part.FrameID})
		if err != nil {
			return nil, err
		}
		return framePage{Tab: t, frame: f, path: pathOf(part.Frame)}, nil
	}
	return Page(t), nil
}

// Page is t as a whole-page observation reads it: its child frames' forms
// and elements inline.
func Page(t *tabs.Tab) observe.Page { return framedTab{t} }

// pathOf is the iframe path a frame spec names, when it names one.
func pathOf(spec *locate.FrameSpec) []string {
	if spec == nil {
		return nil
	}
	return spec.Path
}

// framePage reads a child frame of the tab: page-side calls go to the
// frame's isolated world; per-tab state (history, watch) stays the tab's.
type framePage struct {
	*tabs.Tab
	frame *tabs.Frame
	path  []string // how the frame was reached; nil: by its id
}

func (p framePage) Eval(ctx context.Context, expression string, out any) error {
	return p.EvalIn(ctx, p.frame, expression, out)
}

// MarkListeners marks the frame's own document, not the tab's.
func (p framePage) MarkListeners(ctx context.Context) error { return p.MarkListenersIn(ctx, p.frame) }

// Refs makes the frame's refs name its own document.
func (p framePage) Refs(doc string) func(string) string { return p.ScopeRefs(p.frame, p.path, doc) }

// framedTab is a tab whose observation reads its child frames inline.
type framedTab struct{ *tabs.Tab }

// ChildFrame finds the frame at path as a locator's frame would, and reads
// it in its own isolated world, keeping no per-tab state for it.
func (t framedTab) ChildFrame(ctx context.Context, path []string) (observe.Page, error) {
	f, err := locate.FrameOf(ctx, t.Tab, locate.Locator{Frame: &locate.FrameSpec{Path: path}})
	if err != nil {
		return nil, err
	}
	return childFrame{t.Tab, f, path}, nil
}

type childFrame struct {
	t     *tabs.Tab
	frame *tabs.Frame
	path  []string
}

func (c childFrame) Eval(ctx context.Context, expression string, out any) error {
	return c.t.EvalIn(ctx, c.frame, expression, out)
}

func (c childFrame) MarkListeners(ctx context.Context) error {
	return c.t.MarkListenersIn(ctx, c.frame)
}

func (c childFrame) Refs(doc string) func(string) string { return c.t.ScopeRefs(c.frame, c.path, doc) }

// OfferedTools lists the page tools of the tab's documents for the
// observation, from what the tab's events told (no page call).
func (t framedTab) OfferedTools() []observe.PageTool {
	list := t.Tab.PageTools()
	out := make([]observe.PageTool, 0, len(list))
	for _, tl := range list {
		out = append(out, observe.PageTool{
			Name: tl.Name, Description: tl.Description, Schema: tl.InputSchema,
			Form: tl.Form, ReadOnly: tl.ReadOnly, Consequential: tl.Consequential,
		})
	}
	return out
}
