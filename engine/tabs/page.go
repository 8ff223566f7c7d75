package tabs

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
)

// Session returns the tab's CDP session, for the engine packages that act
// on the page (locate, act). The MCP layer never uses it.
func (t *Tab) Session() *cdp.Session { return t.sess }

// URL returns the main frame's URL as the tab's events last reported it.
func (t *Tab) URL() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.page.url
}

// WaitNetworkIdle waits until no request has been in flight for idle.
func (t *Tab) WaitNetworkIdle(ctx context.Context, idle time.Duration) error {
	for {
		t.mu.Lock()
		busy := len(t.page.inflight)
		quietFor := time.Since(t.page.netChanged)
		changed := t.changed
		t.mu.Unlock()
		wait := idle - quietFor
		if busy == 0 && wait <= 0 {
			return nil
		}
		if busy > 0 {
			wait = idle
		}
		timer := time.NewTimer(wait)
		select {
		case <-changed:
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-t.sess.Done():
			timer.Stop()
			return t.sessionGone()
		}
		timer.Stop()
	}
}

// InFlight counts the network requests not finished yet.
func (t *Tab) InFlight() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.page.inflight)
}

// EvalObjectIn evaluates expression in frame f's isolated world (nil: the
// main frame) and returns a reference to the resulting object, for DOM and
// Accessibility commands that take one. Release it with ReleaseObject.
func (t *Tab) EvalObjectIn(ctx context.Context, f *Frame, expression string) (runtime.RemoteObjectID, error) {
	f = t.frameOrMain(f)
	params := runtime.EvaluateParams{Expression: expression}
	if err := t.world(ctx, f, &params); err != nil {
		return "", err
	}
	var res runtime.EvaluateResult
	err := t.guard(ctx, func(ctx context.Context) (err error) {
		res, err = cdproto.Call(ctx, f.sess, runtime.Evaluate, params)
		return err
	})
	if err != nil {
		return "", err
	}
	if res.ExceptionDetails != nil {
		return "", errs.New(errs.Internal, "page-side script failed: %s", res.ExceptionDetails.Text)
	}
	if res.Result == nil || res.Result.ObjectID == "" {
		return "", errs.New(errs.Internal, "the expression gave no object")
	}
	return res.Result.ObjectID, nil
}

// CallOnIn calls the function declaration fn with this bound to an object of
// frame f (nil: the main frame) and decodes its JSON result into out.
func (t *Tab) CallOnIn(ctx context.Context, f *Frame, obj runtime.RemoteObjectID, fn string, out any) error {
	f = t.frameOrMain(f)
	var res runtime.CallFunctionOnResult
	err := t.guard(ctx, func(ctx context.Context) (err error) {
		res, err = cdproto.Call(ctx, f.sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: fn, ObjectID: obj, ReturnByValue: ptr(true), AwaitPromise: ptr(true),
		})
		return err
	})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return errs.New(errs.Internal, "page-side script failed: %s", res.ExceptionDetails.Text)
	}
	if out != nil && res.Result != nil && len(res.Result.Value) > 0 {
		return json.Unmarshal(res.Result.Value, out)
	}
	return nil
}

// ReleaseObject frees an object reference of frame f.
func (t *Tab) ReleaseObject(ctx context.Context, f *Frame, obj runtime.RemoteObjectID) {
	cdproto.Call(ctx, t.frameOrMain(f).sess, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj})
}

// ReleaseObjectLater frees an object reference of frame f without waiting
// for the browser's answer: nothing depends on it, and the commands sent
// after it are answered after it anyway.
func (t *Tab) ReleaseObjectLater(ctx context.Context, f *Frame, obj runtime.RemoteObjectID) {
	t.frameOrMain(f).sess.Post(ctx, runtime.CommandReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj})
}

// WorldID returns the execution context id of our isolated world in frame
// f (nil: the main frame), creating the world if needed.
func (t *Tab) WorldID(ctx context.Context, f *Frame) (runtime.ExecutionContextID, error) {
	f = t.frameOrMain(f)
	var params runtime.EvaluateParams
	if err := t.world(ctx, f, &params); err != nil {
		return 0, err
	}
	if params.ContextID != 0 {
		return params.ContextID, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.page.worlds[f.ID].id, nil
}

// WorldKey names our isolated world in frame f's current document as the
// tab's events last reported it, "" while none is known (a world not made
// yet, or one that just went away). A new key means a new world, which
// holds none of our scripts.
func (t *Tab) WorldKey(f *Frame) string {
	f = t.frameOrMain(f)
	t.mu.Lock()
	defer t.mu.Unlock()
	w, ok := t.page.worlds[f.ID]
	if !ok {
		return ""
	}
	if w.uid != "" {
		return w.uid
	}
	return strconv.FormatInt(int64(w.id), 10)
}

// WaitURL blocks until match accepts the main frame's URL and returns it.
// The tab's navigation events wake it (a new document, a fragment or
// history.pushState change): nothing polls.
func (t *Tab) WaitURL(ctx context.Context, match func(url string) bool) (string, error) {
	var url string
	err := t.waitFor(ctx, func(p *pageState) bool {
		url = p.url
		return match(url)
	})
	return url, err
}
