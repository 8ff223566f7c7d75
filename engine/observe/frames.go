package observe

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Child frames are part of the page a person sees, so their forms and
// interactive elements are part of its observation: each carries the frame
// path a batch step takes ({"path": [iframe selectors, outermost first]}),
// and its ref is the frame's own ref behind a prefix naming the frame
// (f1:e3), which the action tools resolve through FrameRef. The frames
// share the page's max_interactive.

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

// frameRefsKey keeps, per tab, the frame path of each ref prefix.
const frameRefsKey = "observe.framerefs"

// frameRefs gives each frame path of a document its prefix for good: a
// frame keeps its prefix across observations, and a prefix never names
// another frame, even when frames come and go, so an older ref never
// reaches into the wrong frame.
type frameRefs struct {
	mu     sync.Mutex
	loader string              // the document the prefixes belong to
	paths  map[string][]string // "f1" -> path
	byPath map[string]string   // path (joined) -> "f1"
}

// prefix returns the path's prefix, giving it the next one when new.
func (r *frameRefs) prefix(path []string) string {
	key := strings.Join(path, "\x00")
	if p, ok := r.byPath[key]; ok {
		return p
	}
	p := fmt.Sprintf("f%d", len(r.paths)+1)
	r.paths[p], r.byPath[key] = path, p
	return p
}

// FrameRef resolves a ref of a child frame's element (f1:e3) from the tab's
// latest observation to the frame's own ref and the frame's path; ok is
// false for a ref without a frame prefix, or one no observation gave.
func FrameRef(t Tracked, ref string) (local string, path []string, ok bool) {
	prefix, local, found := strings.Cut(ref, ":")
	if !found {
		return ref, nil, false
	}
	refs := t.State(frameRefsKey, func() any { return &frameRefs{} }).(*frameRefs)
	refs.mu.Lock()
	defer refs.mu.Unlock()
	path, ok = refs.paths[prefix]
	return local, path, ok
}

// inliner reads child frames into one observation.
type inliner struct {
	f      Framed
	o      *Observation
	tr     *Truncation
	budget int        // interactive elements still allowed
	read   int        // frames read
	refs   *frameRefs // held locked while the frames are read
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
	in := &inliner{f: f, o: o, tr: tr, budget: opt.MaxInteractive - len(o.Interactive), refs: &frameRefs{}}
	if t, ok := f.(Tracked); ok {
		in.refs = t.State(frameRefsKey, func() any { return &frameRefs{} }).(*frameRefs)
		in.refs.mu.Lock()
		defer in.refs.mu.Unlock()
		if in.refs.loader != t.Loader() || in.refs.paths == nil {
			in.refs.loader, in.refs.paths, in.refs.byPath = t.Loader(), map[string][]string{}, map[string]string{}
		}
	} else {
		in.refs.paths, in.refs.byPath = map[string][]string{}, map[string]string{}
	}
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
		in.add(in.refs.prefix(path)+":", path, res)
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
	return res, nil
}

// add appends a frame's forms and elements, prefixing their refs and
// marking their frame; elements past the budget are counted as cut.
func (in *inliner) add(prefix string, path []string, res *pageResult) {
	fp := &FramePath{Path: path}
	for _, f := range res.Forms {
		f.Frame = fp
		for i := range f.Fields {
			fd := &f.Fields[i]
			if fd.Ref != "" {
				fd.Ref = prefix + fd.Ref
			}
			for k := range fd.Options {
				if fd.Options[k].Ref != "" {
					fd.Options[k].Ref = prefix + fd.Options[k].Ref
				}
			}
		}
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
		e.Ref, e.Frame = prefix+e.Ref, fp
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
