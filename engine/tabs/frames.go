package tabs

import (
	"context"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
)

// Frame is a frame of the tab where page-side scripts run: the main frame,
// a child frame in the same renderer, or an out-of-process (cross-origin)
// frame reached through its own flattened session.
type Frame struct {
	ID   cdproto.FrameID
	sess *cdp.Session
}

// Session returns the CDP session that owns the frame's documents.
func (f *Frame) Session() *cdp.Session { return f.sess }

// worldRef is our isolated world in one frame's current document.
type worldRef struct {
	id   runtime.ExecutionContextID
	uid  string
	sess *cdp.Session
}

// MainFrame returns the tab's main frame.
func (t *Tab) MainFrame() *Frame { return &Frame{ID: t.mainFrame, sess: t.sess} }

func (t *Tab) frameOrMain(f *Frame) *Frame {
	if f == nil {
		return t.MainFrame()
	}
	return f
}

// FrameByID returns the frame with the id, in whichever session owns it.
func (t *Tab) FrameByID(id cdproto.FrameID) *Frame {
	t.mu.Lock()
	defer t.mu.Unlock()
	if child, ok := t.children[id]; ok {
		return &Frame{ID: id, sess: child}
	}
	return &Frame{ID: id, sess: t.sess}
}

// ChildFrame returns the frame an <iframe> element (an object of parent)
// shows.
func (t *Tab) ChildFrame(ctx context.Context, parent *Frame, iframe runtime.RemoteObjectID) (*Frame, error) {
	parent = t.frameOrMain(parent)
	res, err := cdproto.Call(ctx, parent.sess, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: iframe})
	if err != nil {
		return nil, err
	}
	if res.Node == nil || res.Node.FrameID == "" {
		return nil, errs.New(errs.NotFound, "the element is not a frame")
	}
	return t.FrameByID(res.Node.FrameID), nil
}

// autoAttach makes the browser attach us to every out-of-process frame of
// the session's page, flattened, so cross-origin iframes are reachable.
// Each one waits until onAttached has set its session up: its first
// document then gets our world and helpers, and its requests are seen from
// the first one on (its document is requested in the parent's session and
// answered in its own).
func autoAttach(ctx context.Context, sess *cdp.Session) error {
	_, err := cdproto.Call(ctx, sess, target.SetAutoAttach, target.SetAutoAttachParams{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: ptr(true)})
	return err
}

// onAttached takes a target the browser attached us to: an out-of-process
// frame is adopted, anything else (a worker) is let run as it is.
func (t *Tab) onAttached(params jsonv2.Value) {
	var ev target.EventAttachedToTarget
	if jsonv2.Unmarshal(params, &ev) != nil || ev.TargetInfo == nil {
		return
	}
	if ev.TargetInfo.Type == "iframe" {
		go t.adoptChild(ev.SessionID, cdproto.FrameID(ev.TargetInfo.TargetID))
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), cdp.DefaultCallTimeout)
		defer cancel()
		cdproto.Call(ctx, t.sess.Conn().SessionByID(ev.SessionID), runtime.RunIfWaitingForDebugger, cdproto.Empty{})
	}()
}

// adoptChild prepares the session of an out-of-process frame: track our
// world in it, create that world in its new documents, and attach to its
// own out-of-process children.
func (t *Tab) adoptChild(id target.SessionID, frame cdproto.FrameID) {
	child := t.sess.Conn().SessionByID(id)
	t.mu.Lock()
	t.children[frame] = child
	t.mu.Unlock()
	child.Listen(func(method string, params jsonv2.Value) {
		if method == "Page.windowOpen" {
			t.popups.nudge() // the frame's popups are the tab's
			return
		}
		if method != "Page.frameNavigated" && method != "Page.navigatedWithinDocument" {
			t.logs.record(method, params) // the frame's console and requests; navigations are the main frame's
		}
		if method == "Target.attachedToTarget" {
			t.onAttached(params)
			return
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		changed := t.page.trackWorld(child, method, params)
		switch method {
		case "Network.requestWillBeSent", "Network.loadingFinished", "Network.loadingFailed":
			changed = t.page.onRequest(method, params) // the frame's requests count for network idle
		}
		if changed {
			close(t.changed)
			t.changed = make(chan struct{})
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), cdp.DefaultCallTimeout)
	defer cancel()
	calls := []func() error{
		func() error { _, err := cdproto.Call(ctx, child, runtime.Enable, cdproto.Empty{}); return err },
		func() error { _, err := cdproto.Call(ctx, child, page.Enable, page.EnableParams{}); return err },
		func() error { _, err := cdproto.Call(ctx, child, network.Enable, network.EnableParams{}); return err },
		func() error { return newDocumentWorld(ctx, child) },
		func() error { return autoAttach(ctx, child) },
		func() error { return emulateFocus(ctx, child) },
	}
	if t.profile.kind == KindManaged {
		calls = append(calls, initScripts(ctx, child, t.profile.m.opt.Page.InitScripts)...)
	}
	parallel(calls...)
	// Only once the session is set up (in whatever order those went):
	// the frame waits for this to run.
	cdproto.Call(ctx, child, runtime.RunIfWaitingForDebugger, cdproto.Empty{})
	<-child.Done()
	t.mu.Lock()
	if t.children[frame] == child {
		delete(t.children, frame)
	}
	for id, w := range t.page.worlds {
		if w.sess == child {
			delete(t.page.worlds, id)
		}
	}
	t.mu.Unlock()
}

// trackWorld records our isolated world's contexts from sess; it reports
// whether anything changed. Called with the tab's lock held.
func (p *pageState) trackWorld(sess *cdp.Session, method string, params jsonv2.Value) bool {
	switch method {
	case "Runtime.executionContextCreated":
		var ev runtime.EventExecutionContextCreated
		if jsonv2.Unmarshal(params, &ev) != nil || ev.Context == nil || ev.Context.Name != worldName {
			return false
		}
		var aux struct {
			FrameID cdproto.FrameID `json:"frameId"`
		}
		if jsonv2.Unmarshal(ev.Context.AuxData, &aux) != nil || aux.FrameID == "" {
			return false
		}
		p.worlds[aux.FrameID] = worldRef{id: ev.Context.ID, uid: ev.Context.UniqueID, sess: sess}
		return true
	case "Runtime.executionContextDestroyed":
		var ev runtime.EventExecutionContextDestroyed
		if jsonv2.Unmarshal(params, &ev) != nil {
			return false
		}
		for id, w := range p.worlds {
			if w.uid == ev.ExecutionContextUniqueID {
				delete(p.worlds, id)
				return true
			}
		}
	case "Runtime.executionContextsCleared":
		for id, w := range p.worlds {
			if w.sess == sess {
				delete(p.worlds, id)
			}
		}
		return true
	}
	return false
}

// newDocumentWorld has every new document of sess's frames create our
// isolated world before the document's own scripts run, with the page
// helpers installed in it (injected.NewDocument).
func newDocumentWorld(ctx context.Context, sess *cdp.Session) error {
	_, err := cdproto.Call(ctx, sess, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: injected.NewDocument(), WorldName: worldName})
	return err
}
