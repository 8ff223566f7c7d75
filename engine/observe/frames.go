package observe

import (
	"context"
	"fmt"
)

// Child frames are part of the page a person sees, so their forms and
// interactive elements are part of its observation: each carries the frame
// path a batch step takes ({"path": [iframe selectors, outermost first]}),
// and its ref names the frame's document (a Scoped child page gives it its
// own tag), so the action tools act on it in that frame. The frames share
// the page's max_interactive.

// Framed is a Page that can reach the child frames of its document, same-
// and cross-origin; the child Page evaluates in the frame's isolated world.
type Framed interface {
	ChildFrame(ctx context.Context, path []string) (Page, error)
}

// FramePath names a child frame the way a locator's frame does.
type FramePath struct {
	Path []string `json:"path"`
}

// Bounds of the frames read into one observation.
const (
	MaxFrames     = 8 // child frames read, all depths together
	MaxFrameDepth = 3 // iframes inside iframes
)

// inliner reads child frames into one observation.
type inliner struct {
	f      Framed
	o      *Observation
	tr     *Truncation
	budget int // interactive elements still allowed
	read   int // frames read
	failed []FrameError
}

// FrameError is a child frame that was not read into the observation,
// listed in reserved.frames.
type FrameError struct {
	Frame FramePath `json:"frame"`
	Error string    `json:"error"`
}

// inlineFrames reads the frames the page listed (iframe selectors) and
// appends their forms and interactive elements to o.
func inlineFrames(ctx context.Context, f Framed, o *Observation, frames []string, opt Options, set Set, tr *Truncation) {
	in := &inliner{f: f, o: o, tr: tr, budget: opt.MaxInteractive - len(o.Interactive)}
	in.frames(ctx, nil, frames, set)
	if tr.Interactive != nil {
		tr.Interactive.Shown = len(o.Interactive)
	}
	if len(in.failed) > 0 {
		o.reserve("frames", in.failed)
	}
}

func (in *inliner) frames(ctx context.Context, parent []string, frames []string, set Set) {
	for _, sel := range frames {
		path := append(append([]string{}, parent...), sel)
		if in.read == MaxFrames || len(path) > MaxFrameDepth {
			in.failed = append(in.failed, FrameError{FramePath{path}, fmt.Sprintf("at most %d frames, %d deep, are read inline", MaxFrames, MaxFrameDepth)})
			continue
		}
		in.read++
		res, err := in.readFrame(ctx, path, set)
		if err != nil {
			in.failed = append(in.failed, FrameError{FramePath{path}, err.Error()})
			continue
		}
		in.add(path, res)
		in.frames(ctx, path, res.Frames, set)
	}
}

func (in *inliner) readFrame(ctx context.Context, path []string, set Set) (*pageResult, error) {
	child, err := in.f.ChildFrame(ctx, path)
	if err != nil {
		return nil, err
	}
	only := Set{SectionForms: set[SectionForms], SectionInteractive: set[SectionInteractive]}
	var res *pageResult
	call := pageCall(Options{MaxChars: 1, MaxInteractive: max(in.budget, 1)}, only, false)
	if err := evalPage(ctx, child, call, &res); err != nil {
		return nil, err
	}
	if res == nil || res.Error != nil {
		return nil, fmt.Errorf("the frame returned no observation")
	}
	scopeRefs(child, res)
	return res, nil
}

// add appends a frame's forms and elements, marking their frame;
// elements past the budget are counted as cut.
func (in *inliner) add(path []string, res *pageResult) {
	fp := &FramePath{Path: path}
	for _, f := range res.Forms {
		f.Frame = fp
		if f.Fields == nil {
			f.Fields = []Field{}
		}
		in.o.Forms = append(in.o.Forms, f)
	}
	omitted := 0
	if c := res.Truncated; c != nil && c.Interactive != nil {
		omitted = c.Interactive.Omitted
	}
	for _, e := range res.Interactive {
		if in.budget <= 0 {
			omitted++
			continue
		}
		e.Frame = fp
		in.o.Interactive = append(in.o.Interactive, e)
		in.budget--
	}
	if omitted > 0 {
		if in.tr.Interactive == nil {
			in.tr.Interactive = &Cut{}
		}
		in.tr.Interactive.Omitted += omitted
	}
}
