package tabs

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/inspector"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/claimlock"
	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/timing"
)

// worldName names the isolated world our page-side scripts run in: the
// page's own scripts cannot see or tamper with what we install there.
const worldName = "tabwright"

// Tab is a claimed tab. Only the owner that claimed it can reach it, through
// its handle.
type Tab struct {
	TargetID target.ID

	handle  string
	owner   string
	profile *profile
	gen     int
	opened  bool // made by Open for its owner: closed when the owner's session ends
	sess    *cdp.Session
	xlock   *claimlock.Lock // the claim as other processes see it (--cdp-url only)

	// spareDue: the spare this tab was (or might have been) is replaced
	// after its first navigation (spare.go).
	spareDue atomic.Bool

	queue    chan struct{} // one slot: the serial work queue
	dead     chan struct{}
	deadOnce sync.Once
	why      *errs.Error
	unlisten func()

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced whenever page state changes
	mainFrame  cdproto.FrameID
	children   map[cdproto.FrameID]*cdp.Session // out-of-process frames' sessions
	page       pageState
	extras     map[string]any // per-tab state other packages keep (see State)
	logs       *logBuffer     // what the tab reported since the claim (logs.go)
	mainWorlds mainWorlds     // the page's own context in each frame (evaluate.go)
	refs       refScopes      // the tags of the refs observations gave (refs.go)
	popups     popupLedger    // what became of the windows its pages opened (popups.go)
	marks      listenerMarks  // what our worlds were last told of listeners (listeners.go)
}

// pageState is what the tab's events tell us about its main frame.
type pageState struct {
	url         string
	loader      cdproto.LoaderID
	lifecycle   map[cdproto.LoaderID]map[string]bool
	status      map[cdproto.LoaderID]int64
	sameDocNavs int                          // same-document navigations (fragment, pushState)
	restores    int                          // back/forward cache restores
	worlds      map[cdproto.FrameID]worldRef // our isolated world in each frame
	dialog      *Dialog                      // the JavaScript dialog waiting for an answer
	crashed     bool                         // the renderer died; a new document ends it
	crashes     int                          // renderer deaths so far
	inflight    map[string]struct{}          // network requests not finished yet
	netChanged  time.Time                    // when a request last started or ended
	commits     int                          // main-frame commits seen (frameNavigated)
	pending     string                       // the URL of a navigation under way when we attached, until it commits
	tools       pageToolSet                  // the tools its documents offer (webmcp.go)
}

// Handle returns the opaque handle that names this claim.
func (t *Tab) Handle() string { return t.handle }

// BrowserID returns the id of the browser that holds the tab.
func (t *Tab) BrowserID() string { return t.profile.id }

// Environment names the browser for observations, e.g. "chromium/156 headless".
func (t *Tab) Environment() string { return t.profile.environment() }

// RoundTrips counts CDP commands sent on the tab's browser connection.
func (t *Tab) RoundTrips() int64 { return t.sess.Conn().RoundTrips() }

// State returns the value other packages keep for this tab under key,
// creating it with init on first use. It lives as long as the claim, so
// e.g. the observer's recent digests die with the handle.
func (t *Tab) State(key string, init func() any) any {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.extras == nil {
		t.extras = map[string]any{}
	}
	v, ok := t.extras[key]
	if !ok {
		v = init()
		t.extras[key] = v
	}
	return v
}

// Loader returns the id of the main frame's current document; it changes on
// every cross-document navigation.
func (t *Tab) Loader() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.page.loader)
}

// Do runs fn in the tab's serial queue: work on one tab never interleaves.
func (t *Tab) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	select {
	case t.queue <- struct{}{}:
	case <-t.dead:
		return t.deadErr()
	case <-ctx.Done():
		e := deadline.Err(ctx, fmt.Sprintf("waiting in tab %s's queue for an earlier call to finish", t.TargetID))
		if e.Code == errs.Timeout {
			e.Hint = "the tab is busy with another call (of this session, or a batch); retry when it is done, or raise timeout_ms"
		}
		return e
	}
	defer func() { <-t.queue }()
	if err := t.deadErr(); err != nil {
		return err
	}
	return fn(ctx)
}

func (t *Tab) deadErr() error {
	select {
	case <-t.dead:
		return t.why
	default:
		return nil
	}
}

func (t *Tab) kill(why *errs.Error) {
	t.deadOnce.Do(func() {
		t.why = why
		close(t.dead)
		if t.unlisten != nil {
			t.unlisten()
		}
	})
}

// attach opens a flattened session on the tab and enables the domains that
// navigation and observation rely on, in parallel to save round-trip time.
func (t *Tab) attach(ctx context.Context, conn *cdp.Conn) error {
	sess, err := conn.Attach(ctx, t.TargetID)
	if err != nil {
		return err
	}
	t.sess = sess
	t.mainFrame = cdproto.FrameID(t.TargetID) // a page target's main frame shares its id
	t.changed = make(chan struct{})
	t.page.lifecycle = map[cdproto.LoaderID]map[string]bool{}
	t.page.status = map[cdproto.LoaderID]int64{}
	t.page.inflight = map[string]struct{}{}
	t.page.worlds = map[cdproto.FrameID]worldRef{}
	t.children = map[cdproto.FrameID]*cdp.Session{}
	t.logs = newLogBuffer(t.profile.m.gateRefusal(t.profile))
	t.unlisten = sess.Listen(t.onEvent)

	t.mu.Lock()
	commits := t.page.commits
	t.mu.Unlock()
	err = parallel(
		func() error { _, err := cdproto.Call(ctx, sess, page.Enable, page.EnableParams{}); return err },
		func() error {
			_, err := cdproto.Call(ctx, sess, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true})
			return err
		},
		func() error { _, err := cdproto.Call(ctx, sess, runtime.Enable, cdproto.Empty{}); return err },
		func() error { _, err := cdproto.Call(ctx, sess, inspector.Enable, cdproto.Empty{}); return err }, // tells of a renderer crash
		func() error { _, err := cdproto.Call(ctx, sess, network.Enable, network.EnableParams{}); return err },
		func() error { _, err := cdproto.Call(ctx, sess, cdplog.Enable, cdproto.Empty{}); return err }, // the browser's own messages, for logs
		func() error { return autoAttach(ctx, sess) },
		func() error { return emulateFocus(ctx, sess) },
		func() error { return newDocumentWorld(ctx, sess) },
		func() error { return t.setupTab(ctx, sess) },
		func() error { return enableWebMCP(ctx, sess) },
	)
	if err != nil {
		return err
	}
	if err := t.notePending(ctx, commits); err != nil {
		return err
	}
	go t.watchPopups()
	go func() {
		select {
		case <-sess.Done():
			if conn.Err() != nil {
				t.profile.m.forget(t, t.profile.m.browserGone(t.profile, t.gen, t.handle))
			} else {
				t.profile.m.forget(t, deadHandle("the tab of handle %q was closed", t.handle).
					WithHint("open or claim another tab"))
			}
		case <-t.dead:
		}
	}()
	return nil
}

// detach ends our session on the tab and leaves the page as it is.
func (t *Tab) detach(ctx context.Context) error {
	if t.sess == nil {
		return nil
	}
	_, err := cdproto.Call(ctx, t.sess.Conn().Browser(), target.DetachFromTarget, target.DetachFromTargetParams{SessionID: t.sess.ID()})
	if errs.Code(err) == errs.BrowserUnavailable {
		return nil // nothing left to detach from
	}
	return err
}

// onEvent keeps pageState current. It runs on the connection's reader, in
// event order, so it only decodes the few events it needs.
func (t *Tab) onEvent(method string, params jsonv2.Value) {
	t.logs.record(method, params)
	t.mainWorlds.track(method, params)
	if method == "Page.windowOpen" {
		t.popups.nudge()
		return
	}
	if method == "Target.attachedToTarget" {
		t.onAttached(params)
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.applyEvent(method, params) {
		return
	}
	close(t.changed)
	t.changed = make(chan struct{})
}

// applyEvent updates pageState (t.mu held) and says whether it changed, so
// that waiters look again.
func (t *Tab) applyEvent(method string, params jsonv2.Value) bool {
	p := &t.page
	switch method {
	case "Page.lifecycleEvent":
		return p.onLifecycle(params, t.mainFrame)
	case "Page.frameNavigated":
		return p.onFrameNavigated(params)
	case "Page.navigatedWithinDocument":
		return p.onSameDocument(params, t.mainFrame)
	case "Network.responseReceived":
		return p.onResponse(params, t.mainFrame)
	case "Runtime.executionContextCreated", "Runtime.executionContextDestroyed", "Runtime.executionContextsCleared":
		return p.trackWorld(t.sess, method, params)
	case "Page.javascriptDialogOpening":
		return p.onDialog(params)
	case "Inspector.targetCrashed":
		p.crashed, p.dialog = true, nil
		p.crashes++
		p.tools.dropFrame("")
	case "WebMCP.toolsAdded":
		return p.tools.onAdded(params)
	case "WebMCP.toolsRemoved":
		return p.tools.onRemoved(params)
	case "Page.frameDetached":
		return p.tools.onFrameDetached(params)
	case "Page.frameStoppedLoading":
		return p.onStoppedLoading(params, t.mainFrame)
	case "Page.javascriptDialogClosed":
		p.dialog = nil
	case "Network.requestWillBeSent", "Network.loadingFinished", "Network.loadingFailed":
		return p.onRequest(method, params)
	default:
		return false
	}
	return true
}

// onSameDocument records a navigation of the main frame within its document
// (history API, fragment).
func (p *pageState) onSameDocument(params jsonv2.Value, mainFrame cdproto.FrameID) bool {
	var ev page.EventNavigatedWithinDocument
	if jsonv2.Unmarshal(params, &ev) != nil || ev.FrameID != mainFrame {
		return false
	}
	p.url = ev.URL
	p.sameDocNavs++
	return true
}

// onResponse records the HTTP status of a main-frame document.
func (p *pageState) onResponse(params jsonv2.Value, mainFrame cdproto.FrameID) bool {
	var ev network.EventResponseReceived
	if jsonv2.Unmarshal(params, &ev) != nil || ev.Type != network.ResourceTypeDocument || ev.FrameID != mainFrame || ev.Response == nil {
		return false
	}
	p.status[ev.LoaderID] = ev.Response.Status
	return true
}

// onDialog records the dialog the page opened.
func (p *pageState) onDialog(params jsonv2.Value) bool {
	var ev page.EventJavascriptDialogOpening
	if jsonv2.Unmarshal(params, &ev) != nil {
		return false
	}
	p.dialog = &Dialog{Type: string(ev.Type), Message: ev.Message, DefaultPrompt: ev.DefaultPrompt, URL: ev.URL}
	return true
}

// onLifecycle records a lifecycle event of the main frame's documents.
func (p *pageState) onLifecycle(params jsonv2.Value, mainFrame cdproto.FrameID) bool {
	var ev page.EventLifecycleEvent
	if jsonv2.Unmarshal(params, &ev) != nil || ev.FrameID != mainFrame {
		return false
	}
	if ev.Name == "init" {
		p.loader = ev.LoaderID
		p.trim()
	}
	if p.lifecycle[ev.LoaderID] == nil {
		p.lifecycle[ev.LoaderID] = map[string]bool{}
	}
	p.lifecycle[ev.LoaderID][ev.Name] = true
	return true
}

// onFrameNavigated records the main frame's new document; a restore from
// the back-forward cache counts as fully loaded.
func (p *pageState) onFrameNavigated(params jsonv2.Value) bool {
	var ev page.EventFrameNavigated
	if jsonv2.Unmarshal(params, &ev) != nil || ev.Frame == nil {
		return false
	}
	dropped := p.tools.dropFrame(ev.Frame.ID) // the old document's tools went with it
	if ev.Frame.ParentID != "" {
		return dropped
	}
	p.url = ev.Frame.URL + ev.Frame.URLFragment
	p.loader = ev.Frame.LoaderID
	p.crashed = false
	p.commits++
	p.pending = ""
	if ev.Type == page.NavigationTypeBackForwardCacheRestore {
		p.restores++
		p.lifecycle[p.loader] = map[string]bool{"init": true, "DOMContentLoaded": true, "load": true, "networkIdle": true}
	}
	return true
}

// onRequest keeps the set of requests in flight, for network idle.
func (p *pageState) onRequest(method string, params jsonv2.Value) bool {
	var ev struct {
		RequestID string `json:"requestId"`
	}
	if jsonv2.Unmarshal(params, &ev) != nil {
		return false
	}
	if method == "Network.requestWillBeSent" {
		p.inflight[ev.RequestID] = struct{}{}
	} else {
		delete(p.inflight, ev.RequestID)
	}
	p.netChanged = time.Now()
	return true
}

// trim keeps per-loader records for the current document only, so a long
// session does not grow them.
func (p *pageState) trim() {
	for id := range p.lifecycle {
		if id != p.loader {
			delete(p.lifecycle, id)
		}
	}
	for id := range p.status {
		if id != p.loader {
			delete(p.status, id)
		}
	}
}

// waitFor blocks until cond (called with t.mu held) is true, or the
// renderer crashes meanwhile.
func (t *Tab) waitFor(ctx context.Context, cond func(p *pageState) bool) error {
	t.mu.Lock()
	crashes := t.page.crashes
	t.mu.Unlock()
	start, blocked := time.Now(), false
	defer func() {
		if blocked {
			timing.Waited(ctx, time.Since(start))
		}
	}()
	for {
		t.mu.Lock()
		ok, ch, crashed := cond(&t.page), t.changed, t.page.crashes > crashes
		t.mu.Unlock()
		if ok {
			return nil
		}
		if crashed {
			return errCrashed()
		}
		blocked = true
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-t.sess.Done():
			return t.sessionGone()
		}
	}
}

// errCrashed is the error of a call on a tab whose renderer died.
func errCrashed() *errs.Error {
	return errs.New(errs.TabCrashed, "the page crashed: its renderer process died").
		WithHint("navigate the tab to load a page again, or close it")
}

// sessionGone says why the tab's session ended.
func (t *Tab) sessionGone() error {
	if err := t.sess.Conn().Err(); err != nil {
		return err
	}
	return errs.New(errs.TabNotFound, "the tab closed while we waited")
}

// Eval evaluates expression in the tab's isolated world of its main frame,
// awaits a returned promise and decodes the JSON value into out. One round
// trip when the world exists; it is made again after a navigation.
func (t *Tab) Eval(ctx context.Context, expression string, out any) error {
	return t.EvalIn(ctx, nil, expression, out)
}

// EvalIn is Eval in frame f (nil: the main frame).
func (t *Tab) EvalIn(ctx context.Context, f *Frame, expression string, out any) error {
	f = t.frameOrMain(f)
	for attempt := 0; ; attempt++ {
		params := runtime.EvaluateParams{Expression: expression, ReturnByValue: ptr(true), AwaitPromise: ptr(true)}
		if err := t.world(ctx, f, &params); err != nil {
			return err
		}
		var res runtime.EvaluateResult
		_, err := t.guardDialogs(ctx, DialogAsk, true, func(ctx context.Context) (err error) {
			res, err = cdproto.Call(ctx, f.sess, runtime.Evaluate, params)
			return err
		})
		if err != nil {
			var pe *cdp.ProtocolError
			if !asProtocol(err, &pe) || !t.worldLeft(ctx, f, params) {
				return err
			}
			if attempt == 0 {
				continue // the document changed under us: once more, in its new world
			}
			return errs.Wrap(errs.ProtocolError, err, "the page call's document went away").WithFact(FactDocumentLeft)
		}
		if res.ExceptionDetails != nil {
			msg := res.ExceptionDetails.Text
			if ex := res.ExceptionDetails.Exception; ex != nil && ex.Description != "" {
				msg = ex.Description
			}
			return errs.New(errs.Internal, "page-side script failed: %s", msg)
		}
		if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
			return nil
		}
		if err := json.Unmarshal(res.Result.Value, out); err != nil {
			return errs.Wrap(errs.Internal, err, "decoding the page-side result")
		}
		return nil
	}
}

// worldLeft reports, after an evaluation in it failed, whether the world
// params was sent to is gone: the tab's events replaced or removed it, or
// (an awaited call is answered before the event that says its context
// died) an empty evaluation there fails too. It forgets a world that left.
func (t *Tab) worldLeft(ctx context.Context, f *Frame, params runtime.EvaluateParams) bool {
	t.mu.Lock()
	w, ok := t.page.worlds[f.ID]
	t.mu.Unlock()
	same := ok && (w.uid != "" && w.uid == params.UniqueContextID || w.uid == "" && w.id == params.ContextID)
	if same {
		probe := runtime.EvaluateParams{Expression: "0", UniqueContextID: params.UniqueContextID, ContextID: params.ContextID}
		if _, err := cdproto.Call(ctx, f.sess, runtime.Evaluate, probe); err == nil {
			return false
		}
	}
	t.mu.Lock()
	if cur, ok := t.page.worlds[f.ID]; ok && cur == w {
		delete(t.page.worlds, f.ID)
	}
	t.mu.Unlock()
	return true
}

// world points params at our isolated world in frame f, creating it for a
// document that was loaded before we attached.
func (t *Tab) world(ctx context.Context, f *Frame, params *runtime.EvaluateParams) error {
	t.mu.Lock()
	w, ok := t.page.worlds[f.ID]
	t.mu.Unlock()
	if !ok {
		res, err := cdproto.Call(ctx, f.sess, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: f.ID, WorldName: worldName})
		if err != nil {
			return err
		}
		t.mu.Lock()
		w, ok = t.page.worlds[f.ID] // the creation event came first
		t.mu.Unlock()
		if !ok {
			w = worldRef{id: res.ExecutionContextID}
		}
	}
	if w.uid != "" {
		params.UniqueContextID = w.uid
	} else {
		params.ContextID = w.id
	}
	return nil
}
