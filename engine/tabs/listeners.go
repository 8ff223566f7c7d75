package tabs

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/domdebugger"
	"github.com/chromedp/cdproto/runtime"

	"github.com/tabwright/tabwright/engine/errs"
)

// Pages make elements usable with listeners added from script: a div that
// is clicked, a list whose container handles its items' clicks. No page
// script can see another world's listeners, ours included, so the
// observer asks DevTools: DOMDebugger.getEventListeners over the whole
// document (pierce: shadow roots, and the listeners of every world), then
// hands the elements that have pointer listeners to our isolated world
// (tw.listeners) by their backend node ids.

// pointerEvents are the listener types that make an element usable by
// pointer: what the observer's listing rules read.
var pointerEvents = map[string]bool{
	"click": true, "dblclick": true, "mousedown": true, "mouseup": true,
	"pointerdown": true, "pointerup": true, "touchstart": true,
}

// maxListenerNodes bounds the elements handed over per read: a page that
// listens on every row of a huge table still costs one bounded read.
const maxListenerNodes = 400

// listenerGroup holds the object references one read makes; it is
// released as one.
const listenerGroup = "tabwright-listeners"

// markListenersFn records the marks in our world; each read replaces the
// last (a removed listener must not stay). It may run before the page
// helpers are installed in a fresh world, so it makes their home itself
// as core.js does.
const markListenersFn = `function (types, ...els) {
  if (!Object.hasOwn(globalThis, '__tabwright')) Object.defineProperty(globalThis, '__tabwright', { value: {}, enumerable: false });
  const m = new WeakMap();
  els.forEach((el, i) => { if (el) m.set(el, new Set(types[i])); });
  globalThis.__tabwright.listeners = m;
}`

// listenerMarks remembers, per frame, the world our last marks went to:
// its document's object (read once per world) and the nodes marked. An
// observation of a page whose listeners did not change costs one command.
type listenerMarks struct {
	mu     sync.Mutex
	frames map[cdproto.FrameID]*worldMarks
}

type worldMarks struct {
	world string                 // WorldKey when these were made
	doc   runtime.RemoteObjectID // the document, in our world
	nodes string                 // the marked nodes and types, as sent
}

// of returns frame f's marks for the world named key, new when the world
// changed.
func (m *listenerMarks) of(f cdproto.FrameID, key string) *worldMarks {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.frames == nil {
		m.frames = map[cdproto.FrameID]*worldMarks{}
	}
	w := m.frames[f]
	if w == nil || w.world != key || key == "" {
		w = &worldMarks{world: key}
		m.frames[f] = w
	}
	return w
}

// MarkListenersIn tells our isolated world in frame f (nil: the main
// frame) which of its document's elements have pointer listeners of the
// page's own, for the observer's listing rules.
func (t *Tab) MarkListenersIn(ctx context.Context, f *Frame) error {
	f = t.frameOrMain(f)
	if _, err := t.WorldID(ctx, f); err != nil {
		return err
	}
	marks := t.marks.of(f.ID, t.WorldKey(f))
	if marks.doc == "" {
		doc, err := t.pageDocument(ctx, f)
		if err != nil {
			return err
		}
		marks.doc = doc // lives as long as the document
	}
	var found domdebugger.GetEventListenersResult
	err := t.guard(ctx, func(ctx context.Context) (err error) {
		found, err = cdproto.Call(ctx, f.sess, domdebugger.GetEventListeners,
			domdebugger.GetEventListenersParams{ObjectID: marks.doc, Depth: ptr(int64(-1)), Pierce: ptr(true)})
		return err
	})
	if err != nil {
		marks.doc = "" // the world may have gone with its document: read it again next time
		return err
	}
	nodes, types := pointerListeners(found.Listeners)
	typesJSON, _ := json.Marshal(types)
	said := fmt.Sprint(nodes, string(typesJSON))
	if said == marks.nodes || len(nodes) == 0 && marks.nodes == "" {
		marks.nodes = said
		return nil // our world holds these marks already (none, in a world never told)
	}
	world, err := t.WorldID(ctx, f)
	if err != nil {
		return err
	}
	defer f.sess.Post(ctx, runtime.CommandReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: listenerGroup})
	objs := t.resolveNodes(ctx, f, world, nodes)
	args := make([]*runtime.CallArgument, 0, len(objs)+1)
	args = append(args, &runtime.CallArgument{Value: jsonv2.Value(typesJSON)})
	for _, o := range objs {
		args = append(args, &runtime.CallArgument{ObjectID: o}) // none: undefined, skipped
	}
	err = t.guard(ctx, func(ctx context.Context) error {
		_, err := cdproto.Call(ctx, f.sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: markListenersFn, ExecutionContextID: world, Arguments: args,
		})
		return err
	})
	if err == nil {
		marks.nodes = said
	}
	return err
}

// pageDocument is frame f's document as the page's own world holds it.
// The listeners are read from there: read from our isolated world's
// document (pierce reports every world's listeners either way), Chromium
// mixed up the two worlds' wrappers of the page's nodes, and our next
// page call failed with "Illegal invocation" (TodoMVC, after a
// navigation) or the renderer died. Evaluating the name document runs no
// page code: a window's document cannot be redefined or shadowed.
func (t *Tab) pageDocument(ctx context.Context, f *Frame) (runtime.RemoteObjectID, error) {
	params := runtime.EvaluateParams{Expression: "document"}
	if id, ok := t.mainWorlds.get(f.ID); ok && f.sess == t.sess {
		params.UniqueContextID = id
	} else if f.ID != t.mainFrame && f.sess == t.sess {
		return "", errs.New(errs.NotFound, "the frame %s has no document yet", f.ID)
	}
	var res runtime.EvaluateResult
	err := t.guard(ctx, func(ctx context.Context) (err error) {
		res, err = cdproto.Call(ctx, f.sess, runtime.Evaluate, params)
		return err
	})
	if err != nil {
		return "", err
	}
	if res.Result == nil || res.Result.ObjectID == "" {
		return "", errs.New(errs.Internal, "the page's document could not be read")
	}
	return res.Result.ObjectID, nil
}

// MarkListeners is MarkListenersIn for the main frame.
func (t *Tab) MarkListeners(ctx context.Context) error { return t.MarkListenersIn(ctx, nil) }

// pointerListeners lists the nodes with pointer listeners, in the order
// DevTools gave them (document order), each with its pointer event types;
// the document itself (window-wide handlers) is left out.
func pointerListeners(ls []*domdebugger.EventListener) ([]cdproto.BackendNodeID, [][]string) {
	index := map[cdproto.BackendNodeID]int{}
	var nodes []cdproto.BackendNodeID
	var types [][]string
	for _, l := range ls {
		if !pointerEvents[l.Type] || l.BackendNodeID == 0 {
			continue
		}
		i, ok := index[l.BackendNodeID]
		if !ok {
			if len(nodes) >= maxListenerNodes {
				continue
			}
			i = len(nodes)
			index[l.BackendNodeID] = i
			nodes = append(nodes, l.BackendNodeID)
			types = append(types, nil)
		}
		types[i] = append(types[i], l.Type)
	}
	return nodes, types
}

// resolveNodes gives each node's object in our world ("" for one that is
// not an element of this frame's document, or is gone). The requests go
// out together: one connection carries them in order, and the answers come
// back in about one round trip.
func (t *Tab) resolveNodes(ctx context.Context, f *Frame, world runtime.ExecutionContextID, nodes []cdproto.BackendNodeID) []runtime.RemoteObjectID {
	objs := make([]runtime.RemoteObjectID, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cdproto.Call(ctx, f.sess, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: n, ObjectGroup: listenerGroup, ExecutionContextID: world})
			if err == nil && res.Object != nil {
				objs[i] = res.Object.ObjectID
			}
		}()
	}
	wg.Wait()
	return objs
}
