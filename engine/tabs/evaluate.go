package tabs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
)

// Bounds of what an evaluation captures.
const (
	DefaultEvalCapture = 1 << 20 // characters of JSON
	maxEvalNodes       = 50000
	maxEvalDepth       = 8
)

// Evaluation is a script to run in a page's own world.
type Evaluation struct {
	Expression string // an expression, or a function (called with no arguments)
	Frame      *Frame // nil: the main frame
	Element    bool   // the result must be one element: return its ref
	MaxCapture int    // characters of JSON kept; 0: DefaultEvalCapture
}

// Evaluated is the result: JSON text (cut at the capture bound) and the
// value's type, or an element's ref.
type Evaluated struct {
	JSON      string         `json:"-"`
	Type      string         `json:"type"`
	Truncated bool           `json:"capture_truncated,omitempty"`
	Ref       string         `json:"ref,omitempty"`
	Element   map[string]any `json:"element,omitempty"`
}

// serializer turns any page value into bounded JSON: cycles, DOM nodes,
// functions, symbols, bigints and non-finite numbers become strings; depth
// and node count are capped. It runs in the page's world with this = value.
const serializer = `function(max, maxNodes, maxDepth) {
  const seen = new WeakSet(); let nodes = 0; let cut = false;
  const desc = (el) => '[' + (el.nodeType === 1 ? 'element ' + el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') : el.nodeName) + ']';
  const enc = (v, depth) => {
    if (++nodes > maxNodes) { cut = true; return '[node limit]'; }
    switch (typeof v) {
      case 'number': return Number.isFinite(v) ? v : String(v);
      case 'bigint': return v + 'n';
      case 'function': return '[function ' + (v.name || 'anonymous') + ']';
      case 'symbol': return v.toString();
      case 'undefined': return null;
      case 'string': case 'boolean': return v;
    }
    if (v === null) return null;
    if (typeof Node !== 'undefined' && v instanceof Node) return desc(v);
    if (seen.has(v)) return '[circular]';
    if (depth >= maxDepth) { cut = true; return '[depth limit]'; }
    seen.add(v);
    try {
      if (v instanceof Date) return isNaN(v) ? 'Invalid Date' : v.toISOString();
      if (v instanceof RegExp) return String(v);
      if (v instanceof Error) return { name: v.name, message: v.message, stack: String(v.stack || '') };
      if (v instanceof Map) return { '[Map]': Array.from(v, ([k, x]) => [enc(k, depth + 1), enc(x, depth + 1)]) };
      if (v instanceof Set) return Array.from(v, (x) => enc(x, depth + 1));
      if (Array.isArray(v) || ArrayBuffer.isView(v)) return Array.from(v, (x) => enc(x, depth + 1));
      const out = {};
      for (const k of Object.keys(v)) out[k] = enc(v[k], depth + 1);
      return out;
    } finally { seen.delete(v); }
  };
  const type = this === null ? 'null' : Array.isArray(this) ? 'array' : (typeof Node !== 'undefined' && this instanceof Node) ? 'node' : typeof this;
  let json = JSON.stringify(enc(this, 0));
  if (json === undefined) json = 'null';
  if (json.length > max) { json = json.slice(0, max); cut = true; }
  return { json, type, cut };
}`

// Evaluate runs e in the page's own world (page scripts' globals visible),
// awaits a returned promise, and captures the result. When ctx ends first
// the script is terminated (Runtime.terminateExecution, which reaches even a
// busy loop), so the tab takes the next call.
func (t *Tab) Evaluate(ctx context.Context, e Evaluation) (*Evaluated, error) {
	f := t.frameOrMain(e.Frame)
	if e.MaxCapture <= 0 {
		e.MaxCapture = DefaultEvalCapture
	}
	params := runtime.EvaluateParams{Expression: e.Expression, AwaitPromise: ptr(true), UserGesture: ptr(true)}
	if f.sess == t.sess {
		id, ok := t.mainWorlds.get(f.ID)
		if !ok && f.ID != t.mainFrame {
			return nil, errs.New(errs.NotFound, "the frame %s has no document to run in yet", f.ID).WithHint("wait for the frame to load, then retry")
		}
		params.UniqueContextID = id
	}
	var obj, captured *runtime.RemoteObject
	end, _ := ctx.Deadline()
	err := t.run(ctx, f, func(ctx context.Context) error {
		// Runtime.evaluate's own timeout ends a script that runs too long
		// inside the renderer; it is what works through chrome.debugger,
		// which refuses Runtime.terminateExecution.
		params.Timeout = scriptBudget(end)
		res, err := t.timedEval(ctx, f, params)
		if err != nil {
			return err
		}
		if err := thrown(res.ExceptionDetails); err != nil {
			return err
		}
		obj = res.Result
		if obj != nil && obj.Type == runtime.RemoteObjectTypeFunction && obj.ObjectID != "" {
			// A function: call it by a second evaluation, which carries the
			// timeout too (Runtime.callFunctionOn has none).
			if res, err = t.evalOn(ctx, f, params, obj.ObjectID, "return v();", false, end); err != nil {
				return err
			}
			obj = res.Result
		}
		if e.Element || obj == nil || obj.ObjectID == "" {
			return nil
		}
		// Turning the value into JSON runs the page's code too (a getter, a
		// Proxy's traps): under the same deadline, ended with the rest.
		ser, err := t.evalOn(ctx, f, params, obj.ObjectID, fmt.Sprintf("return (%s).call(v, %d, %d, %d);", serializer, e.MaxCapture, maxEvalNodes, maxEvalDepth), true, end)
		t.ReleaseObjectLater(ctx, f, obj.ObjectID)
		if err != nil {
			return err
		}
		captured = ser.Result
		return nil
	})
	if err != nil {
		return nil, err
	}
	if e.Element {
		return t.elementRef(ctx, f, obj)
	}
	return capture(obj, captured, e.MaxCapture)
}

// parkKey is where evalOn leaves an object for the evaluation that uses it.
const parkKey = "Symbol.for('tabwright.evaluate')"

// evalOn evaluates body, a function body that reads the object obj as v
// (its result sent by value when byValue), as a Runtime.evaluate with the call's timeout (callFunctionOn has none,
// and Runtime.terminateExecution does not pass chrome.debugger). The object
// is parked on the global with defineProperty, which runs no setter of the
// page's, and taken off again before body runs.
func (t *Tab) evalOn(ctx context.Context, f *Frame, base runtime.EvaluateParams, obj runtime.RemoteObjectID, body string, byValue bool, end time.Time) (runtime.EvaluateResult, error) {
	_, err := cdproto.Call(ctx, f.sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function() { Object.defineProperty(globalThis, " + parkKey + ", { value: this, configurable: true }); }", ObjectID: obj,
	})
	if err != nil {
		return runtime.EvaluateResult{}, err
	}
	call := base
	call.Expression = "(() => { const k = " + parkKey + "; const v = Object.getOwnPropertyDescriptor(globalThis, k).value; delete globalThis[k]; " + body + " })()"
	call.Timeout = scriptBudget(end)
	call.ReturnByValue = ptr(byValue)
	res, err := t.timedEval(ctx, f, call)
	if err != nil {
		return res, err
	}
	return res, thrown(res.ExceptionDetails)
}

// run calls fn under ctx's deadline, with dialogs reported, and terminates
// the script when the deadline passes first.
func (t *Tab) run(ctx context.Context, f *Frame, fn func(ctx context.Context) error) error {
	start := time.Now()
	// The script's own timeout ends it inside the renderer just before ctx's
	// deadline; its answer may cross a slow relay after the deadline, so the
	// call waits a little longer for it than ctx (a cancel by the caller
	// still ends the wait at once).
	grace, cancelGrace := withGrace(ctx, 2*time.Second)
	defer cancelGrace()
	err := t.guard(grace, fn)
	if grace.Err() == nil || errs.Code(err) == errs.DialogPending || ctx.Err() == context.Canceled {
		return err
	}
	stop, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, terr := cdproto.Call(stop, f.sess, runtime.TerminateExecution, cdproto.Empty{}); terr != nil {
		return errs.New(errs.Timeout, "the script ran past its deadline (%v) and could not be stopped: %v", time.Since(start).Round(time.Millisecond), terr).
			WithHint("the tab may stay busy; close it and open another")
	}
	return errs.New(errs.Timeout, "the script ran past its deadline (%v) and was terminated", time.Since(start).Round(time.Millisecond)).
		WithHint("the tab is usable again; raise timeout_ms or make the script finish sooner")
}

// timedEval is Runtime.evaluate with a timeout. V8 answers a script it
// terminated at the timeout with a bare internal error; that is reported
// as the timeout it is.
func (t *Tab) timedEval(ctx context.Context, f *Frame, p runtime.EvaluateParams) (runtime.EvaluateResult, error) {
	start := time.Now()
	res, err := cdproto.Call(ctx, f.sess, runtime.Evaluate, p)
	var pe *cdp.ProtocolError
	if err != nil && p.Timeout > 0 && asProtocol(err, &pe) && time.Since(start) >= time.Duration(p.Timeout)*time.Millisecond*9/10 {
		return res, errs.New(errs.Timeout, "the script ran past its deadline (%v) and was terminated", time.Since(start).Round(time.Millisecond)).
			WithHint("the tab is usable again; raise timeout_ms or make the script finish sooner")
	}
	return res, err
}

// withGrace is ctx with its deadline moved later by grace; cancelling ctx
// (not its deadline passing) cancels it.
func withGrace(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	d, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	out, cancel := context.WithDeadline(context.WithoutCancel(ctx), d.Add(grace))
	stop := context.AfterFunc(ctx, func() {
		if ctx.Err() == context.Canceled {
			cancel()
		}
	})
	return out, func() { stop(); cancel() }
}

// scriptBudget is the time a script may run until end, less a margin for
// the answer to arrive before the caller's deadline.
func scriptBudget(end time.Time) runtime.TimeDelta {
	if end.IsZero() {
		return 0
	}
	left := time.Until(end)
	left -= min(200*time.Millisecond, left/5)
	return runtime.TimeDelta(max(1, left.Milliseconds()))
}

func thrown(d *runtime.ExceptionDetails) error {
	if d == nil {
		return nil
	}
	msg := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		msg, _, _ = strings.Cut(d.Exception.Description, "\n    at ")
	}
	if d.Exception == nil && strings.Contains(strings.ToLower(msg), "terminated") {
		return errs.New(errs.Timeout, "the script ran past its deadline and was terminated (%s)", msg).
			WithHint("the tab is usable again; raise timeout_ms or make the script finish sooner")
	}
	return errs.New(errs.ScriptError, "the script threw: %s", msg).WithHint("fix the script; nothing else was done")
}

// capture is the value's bounded JSON: a primitive as sent, an object as
// the serializer made it (ser).
func capture(obj, ser *runtime.RemoteObject, max int) (*Evaluated, error) {
	out := &Evaluated{Type: "undefined", JSON: "null"}
	if obj == nil {
		return out, nil
	}
	out.Type = string(obj.Type)
	if obj.ObjectID == "" { // a primitive, sent by value
		switch {
		case obj.UnserializableValue != "":
			b, _ := json.Marshal(string(obj.UnserializableValue))
			out.JSON = string(b)
		case len(obj.Value) > 0:
			out.JSON = string(obj.Value)
		}
	} else {
		var got struct {
			JSON string `json:"json"`
			Type string `json:"type"`
			Cut  bool   `json:"cut"`
		}
		if ser == nil || json.Unmarshal(ser.Value, &got) != nil {
			return nil, errs.New(errs.Internal, "the value could not be captured")
		}
		out.JSON, out.Type, out.Truncated = got.JSON, got.Type, got.Cut
	}
	if len(out.JSON) > max {
		out.JSON, out.Truncated = out.JSON[:max], true
	}
	return out, nil
}

// elementRef moves an element result into our isolated world and names it
// with the observation's ref for it (one the action tools take).
func (t *Tab) elementRef(ctx context.Context, f *Frame, obj *runtime.RemoteObject) (*Evaluated, error) {
	if obj == nil || obj.Subtype != runtime.RemoteObjectSubtypeNode || obj.ObjectID == "" {
		typ := "undefined"
		if obj != nil {
			typ = string(obj.Type) + " " + string(obj.Subtype)
		}
		return nil, errs.New(errs.ScriptError, "the script returned %s, not an element", strings.TrimSpace(typ)).
			WithHint("return one element (e.g. document.querySelector(...)), or use result_type json")
	}
	defer t.ReleaseObject(ctx, f, obj.ObjectID)
	node, err := cdproto.Call(ctx, f.sess, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: obj.ObjectID})
	if err != nil {
		return nil, err
	}
	if node.Node == nil || node.Node.NodeType != 1 {
		return nil, errs.New(errs.ScriptError, "the script returned a node that is not an element")
	}
	world, err := t.WorldID(ctx, f)
	if err != nil {
		return nil, err
	}
	// The observation's ref table lives in core; install it if this world
	// has not seen an observation yet.
	if err := t.EvalIn(ctx, f, injected.Installing("true"), nil); err != nil {
		return nil, err
	}
	moved, err := cdproto.Call(ctx, f.sess, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: node.Node.BackendNodeID, ExecutionContextID: world})
	if err != nil {
		return nil, err
	}
	defer t.ReleaseObject(ctx, f, moved.Object.ObjectID)
	var got struct {
		Ref  string         `json:"ref"`
		Doc  string         `json:"doc"`
		Desc map[string]any `json:"desc"`
	}
	call := `function() { const tw = globalThis.__tabwright; return {ref: tw.ref(this), doc: tw.doc, desc: {tag: this.tagName.toLowerCase(), id: this.id || undefined, role: tw.role(this) || undefined, name: tw.cut(tw.accName(this), 80) || undefined}}; }`
	if err := t.CallOnIn(ctx, f, moved.Object.ObjectID, call, &got); err != nil {
		return nil, err
	}
	ref := t.ScopeRefs(f, nil, got.Doc)(got.Ref)
	return &Evaluated{Type: "element", JSON: "null", Ref: ref, Element: got.Desc}, nil
}

// mainWorlds tracks the page's own (default) execution context in each
// same-process frame, for evaluating in a child frame.
type mainWorlds struct {
	mu  sync.Mutex
	ids map[cdproto.FrameID]string // unique context ids
}

func (w *mainWorlds) get(id cdproto.FrameID) (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, ok := w.ids[id]
	return c, ok
}

// track follows the main session's context events.
func (w *mainWorlds) track(method string, params jsonv2.Value) {
	switch method {
	case "Runtime.executionContextCreated":
		var ev runtime.EventExecutionContextCreated
		if jsonv2.Unmarshal(params, &ev) != nil || ev.Context == nil {
			return
		}
		var aux struct {
			FrameID   cdproto.FrameID `json:"frameId"`
			IsDefault bool            `json:"isDefault"`
		}
		if jsonv2.Unmarshal(ev.Context.AuxData, &aux) != nil || !aux.IsDefault || aux.FrameID == "" {
			return
		}
		w.mu.Lock()
		if w.ids == nil {
			w.ids = map[cdproto.FrameID]string{}
		}
		w.ids[aux.FrameID] = ev.Context.UniqueID
		w.mu.Unlock()
	case "Runtime.executionContextDestroyed":
		var ev runtime.EventExecutionContextDestroyed
		if jsonv2.Unmarshal(params, &ev) != nil {
			return
		}
		w.mu.Lock()
		for f, id := range w.ids {
			if id == ev.ExecutionContextUniqueID {
				delete(w.ids, f)
			}
		}
		w.mu.Unlock()
	case "Runtime.executionContextsCleared":
		w.mu.Lock()
		w.ids = nil
		w.mu.Unlock()
	}
}
