// Package locate turns a strict locator into exactly one element of a tab,
// waiting until it can be acted on. Strict means a locator that matches
// several elements without nth is an error, never a guess.
package locate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Selector types.
const (
	CSS         = "css"
	XPath       = "xpath"
	Label       = "label"
	Placeholder = "placeholder"
	Role        = "role"
)

// DefaultTimeout is how long finding an element may take when the call set
// no deadline: a single action's default timeout_ms (act.DefaultTimeout).
const DefaultTimeout = 5 * time.Second

// Locator names one element. Exactly one of Selector and Ref is set.
type Locator struct {
	Selector     string     `json:"selector,omitempty"`
	SelectorType string     `json:"selector_type,omitempty"` // default css
	Name         *string    `json:"name,omitempty"`          // role only: exact accessible name; "" allowed
	Nth          *int       `json:"nth,omitempty"`           // zero-based; DOM order, AX order for role
	Ref          string     `json:"ref,omitempty"`           // from the tab's latest observation
	Frame        *FrameSpec `json:"frame,omitempty"`         // a child frame to search in
	FrameID      string     `json:"frame_id,omitempty"`      // the same, by its DevTools frame id

	bound *boundRef // set once Ref names its scope (see bindRef)
}

// FrameSpec names a child frame: by exact url and/or title, and/or by a path
// of CSS selectors, each naming one iframe in the document before it.
type FrameSpec struct {
	URL   string   `json:"url,omitempty"`
	Title string   `json:"title,omitempty"`
	Path  []string `json:"path,omitempty"`
}

// String says what was searched, for messages.
func (l Locator) String() string {
	if l.bound != nil {
		return "ref " + l.bound.public
	}
	if l.Ref != "" {
		return "ref " + l.Ref
	}
	t := l.SelectorType
	if t == "" {
		t = CSS
	}
	s := fmt.Sprintf("%s %q", t, l.Selector)
	if l.Name != nil {
		s += fmt.Sprintf(" name %q", *l.Name)
	}
	if l.Nth != nil {
		s += fmt.Sprintf(" nth %d", *l.Nth)
	}
	return s
}

// Offset is a point inside the element's content box, as ratios 0..1.
type Offset struct {
	XRatio float64 `json:"x_ratio"`
	YRatio float64 `json:"y_ratio"`
}

// Need lists the actionability checks an action requires.
type Need struct {
	Visible  bool `json:"visible,omitempty"`
	Enabled  bool `json:"enabled,omitempty"`
	Editable bool `json:"editable,omitempty"`
	// Whole: fill sets the value at once, so colour and range inputs, which
	// take no typed text, count as editable too.
	Whole   bool     `json:"whole,omitempty"`
	Stable  bool     `json:"stable,omitempty"`
	Pointer bool     `json:"pointer,omitempty"` // the hit-test point must land on the element
	Scroll  bool     `json:"scroll,omitempty"`  // scroll it into view first
	Offset  *Offset  `json:"offset,omitempty"`
	Watch   []string `json:"watch,omitempty"` // trusted events to verify afterwards
	// Option (select_option: value, label or index) must name an enabled
	// option of the select; resolve waits for it like for the other checks.
	Option map[string]any `json:"option,omitempty"`
}

// Pointer actions need all checks; reading needs none.
var (
	ForPointer = Need{Visible: true, Enabled: true, Stable: true, Pointer: true, Scroll: true}
	ForTyping  = Need{Visible: true, Enabled: true, Editable: true, Scroll: true}
	ForFill    = Need{Visible: true, Enabled: true, Editable: true, Whole: true, Scroll: true}
	ForSelect  = Need{Visible: true, Enabled: true, Scroll: true}
	Attached   = Need{}
)

// Target is the element found: a handle valid in the tab's isolated world
// for the life of the document, and the point to act at (CSS px of the
// viewport).
type Target struct {
	Handle string         `json:"handle"`
	X      float64        `json:"x"`
	Y      float64        `json:"y"`
	Count  int            `json:"count"`
	Desc   map[string]any `json:"target"`
	Frame  *tabs.Frame    `json:"-"` // nil: the main frame
	// Routed: the element is in another renderer than the tab's (an
	// out-of-process frame), so the browser routes input to it by what it
	// last drew.
	Routed bool `json:"-"`
	// Surface: the element takes text but is drawn under its widget's own
	// surface (a code editor's input under its rendered lines); the pointer
	// goes to that surface, described here.
	Surface string `json:"-"`
}

// Eval runs a page-side act call in the target's frame.
func (tg *Target) Eval(ctx context.Context, t *tabs.Tab, call string, out any) error {
	return Eval(ctx, t, tg.Frame, call, out)
}

type pageLocator struct {
	Selector string  `json:"selector,omitempty"`
	Type     string  `json:"type,omitempty"`
	Nth      *int    `json:"nth,omitempty"`
	Ref      string  `json:"ref,omitempty"`
	Doc      string  `json:"doc,omitempty"` // the document a ref was read from
	Handle   string  `json:"handle,omitempty"`
	Name     *string `json:"name,omitempty"` // role only: the accessible name
}

type pageResult struct {
	OK bool `json:"ok"`
	Refusal
	Static     bool             `json:"static"` // covered, by one cover that never moved until the deadline
	Log        []logRun         `json:"log"`    // what the checks found in turn
	Count      int              `json:"count"`
	Candidates []map[string]any `json:"candidates"`
	Handle     string           `json:"handle"`
	X          float64          `json:"x"`
	Y          float64          `json:"y"`
	Target     map[string]any   `json:"target"`
	Options    []map[string]any `json:"options"` // a select's options, when the wanted one is missing
	Then       json.RawMessage  `json:"then"`    // the answer of the follow-up call, as tw.answer gives it
	Before     json.RawMessage  `json:"before"`  // the answer of a carried verification (see Carried)
	Unsure     bool             `json:"unsure"`  // a role the DOM cannot answer for sure (see resolveRole)
	Surface    string           `json:"surface"` // what took the pointer for a text input drawn under its widget's surface
}

// Carried is a verification that the step before left to ride the next
// resolve's page call in the main frame: it runs there first, and when its
// value has no ok, nothing else does. Handle is its element's; Fn and Args
// a page helper taking the handle first.
type Carried struct {
	Fn     injected.Fn `json:"fn"`
	Handle string      `json:"handle"`
	Args   []any       `json:"args"`

	taken  atomic.Bool
	Answer json.RawMessage `json:"-"` // the page's answer, once it ran
}

type carriedKey struct{}

// Carry returns ctx with c for the next main-frame resolve to take.
func Carry(ctx context.Context, c *Carried) context.Context {
	return context.WithValue(ctx, carriedKey{}, c)
}

// take returns the verification ctx carries unless a call took it already.
func take(ctx context.Context) *Carried {
	c, _ := ctx.Value(carriedKey{}).(*Carried)
	if c == nil || !c.taken.CompareAndSwap(false, true) {
		return nil
	}
	return c
}

// DecodeAnswer decodes a page answer envelope ({value} or {refused}) into
// out; a refusal is its error.
func DecodeAnswer(raw json.RawMessage, out any) error { return decodeAnswer(raw, out) }

// Then is the page-side half of an action, run in the resolve's own page
// call on the element right after it passed its checks: one round trip for
// find, check and act, and nothing of the page runs between the checks and
// the action. Fn is an act helper taking the element's handle first.
type Then struct {
	Fn   injected.Fn `json:"fn"`
	Args []any       `json:"args"`
}

// Eval runs a page-side act call in frame f (nil: the main frame): a check
// of the bundle's mark and the call, since a claimed tab's documents get the
// act helpers as they are created (one round trip, no 30 KB script to parse
// again), and the whole program only in a world without them.
func Eval(ctx context.Context, t *tabs.Tab, f *tabs.Frame, call string, out any) error {
	return evalBuilt(ctx, t, f, func() string { return call }, out)
}

// evalBuilt is Eval with the call built right before each send, so a call
// that carries a time budget is given what is left when it goes out: a
// world without the helpers costs a round trip the budget must not pay.
func evalBuilt(ctx context.Context, t *tabs.Tab, f *tabs.Frame, build func() string, out any) error {
	b := injected.Actions()
	var raw json.RawMessage
	err := t.EvalIn(ctx, f, b.IfInstalled(injected.Answer(build())), &raw)
	if err == nil && injected.Missing(raw) { // a world without the helpers: the whole program, once
		raw = nil
		err = t.EvalIn(ctx, f, b.Installing(injected.Answer(build())), &raw)
	}
	if err != nil {
		return err
	}
	return decodeAnswer(raw, out)
}

// decodeAnswer decodes a page answer envelope ({value} or {refused}) into
// out; a refusal is its error.
func decodeAnswer(raw json.RawMessage, out any) error {
	var answer struct {
		Value   json.RawMessage `json:"value"`
		Refused *Refusal        `json:"refused"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return errs.Wrap(errs.Internal, err, "decoding the page-side answer")
	}
	if answer.Refused != nil {
		return answer.Refused.Err("")
	}
	if out == nil || len(answer.Value) == 0 {
		return nil
	}
	if err := json.Unmarshal(answer.Value, out); err != nil {
		return errs.Wrap(errs.Internal, err, "decoding the page-side result")
	}
	return nil
}

// Resolve finds the one element loc names and waits until it passes need,
// within ctx's deadline. Errors: not_found (what was searched),
// ambiguous (how many, the first candidates), not_actionable (why).
func Resolve(ctx context.Context, t *tabs.Tab, loc Locator, need Need) (*Target, error) {
	return ResolveThen(ctx, t, loc, need, nil, nil)
}

// ResolveThen is Resolve, and then (when not nil) runs on the element in
// the same page call; its value is decoded into out. A refusal of then is
// its error, with the target returned.
func ResolveThen(ctx context.Context, t *tabs.Tab, loc Locator, need Need, then *Then, out any) (*Target, error) {
	deadline := deadlineOf(ctx)
	loc, err := bindRef(t, loc)
	if err != nil {
		return nil, err
	}
	fr, err := findFrame(ctx, t, loc)
	if err != nil {
		return nil, err
	}
	var target *Target
	if loc.SelectorType == Role {
		target, err = resolveRole(ctx, t, fr, loc, need, then, out, deadline)
	} else {
		target, err = resolvePage(ctx, t, fr, loc, loc.page(), need, then, out, deadline)
	}
	if target == nil || fr == nil {
		return target, err
	}
	// The point is in the frame's viewport; input goes to the top one.
	var mapErr error
	if target.X, target.Y, mapErr = fr.toTop(ctx, t, target.X, target.Y); mapErr != nil {
		return nil, mapErr
	}
	target.Routed = fr.outOfProcessFrom(t, 0)
	return target, err
}

// page is the locator as the page-side find reads it.
func (l Locator) page() pageLocator {
	pl := pageLocator{Selector: l.Selector, Type: l.SelectorType, Nth: l.Nth, Ref: l.Ref}
	if l.bound != nil {
		pl.Doc = l.bound.doc
	}
	return pl
}

// Query returns the frame loc searches in (nil: the main frame) and loc as
// page-side finds take it, for callers that run their own page-side search
// (a wait for a condition). A ref is bound to its frame and document.
func Query(ctx context.Context, t *tabs.Tab, loc Locator) (*tabs.Frame, any, error) {
	loc, err := bindRef(t, loc)
	if err != nil {
		return nil, nil, err
	}
	f, err := FrameOf(ctx, t, loc)
	if err != nil {
		return nil, nil, err
	}
	return f, loc.page(), nil
}

// resolvePage runs the find-and-check loop in the page, in one round trip.
func resolvePage(ctx context.Context, t *tabs.Tab, fr *frameChain, loc Locator, pl pageLocator, need Need, then *Then, out any, deadline time.Time) (*Target, error) {
	var carried *Carried
	if fr.frame() == nil {
		carried = take(ctx)
	}
	call := func() string {
		switch {
		case carried != nil:
			return injected.Call(injected.FnResolve, pl, need, pageBudget(deadline), then, carried)
		case then != nil:
			return injected.Call(injected.FnResolve, pl, need, pageBudget(deadline), then)
		}
		return injected.Call(injected.FnResolve, pl, need, pageBudget(deadline))
	}
	var res pageResult
	answerCtx, stop := awaitAnswer(ctx, deadline)
	defer stop()
	err := evalBuilt(answerCtx, t, fr.frame(), call, &res)
	if carried != nil {
		carried.Answer = res.Before
	}
	if err == nil && len(res.Before) > 0 && !res.OK && res.Code == "" {
		err = errCarriedFailed
	}
	return targetOf(ctx, fr, loc, then, out, &res, err)
}

// errCarriedFailed is a resolve that stopped before it began: the
// verification it carried did not pass, so the step before failed and this
// one did nothing. Its caller reads the verification's answer from the
// Carried.
var errCarriedFailed = errs.New(errs.Internal, "the verification carried from the step before did not pass")

// CarriedFailed reports an error that says the carried verification failed.
func CarriedFailed(err error) bool { return err == errCarriedFailed }

// pageBudget is how long a page-side resolve may wait, in ms: what is left
// of deadline less a margin for its answer to arrive before it (one check
// can take two animation frames past the page's own deadline).
func pageBudget(at time.Time) int64 { return deadline.ForPage(at).Milliseconds() }

// pageUntil is when a wait that keeps the page's margin from at must end.
func pageUntil(at time.Time) time.Time { return time.Now().Add(deadline.ForPage(at)) }

// PageBudget is how long a page-side wait under ctx may take, in ms.
func PageBudget(ctx context.Context) int64 { return pageBudget(deadlineOf(ctx)) }

// targetOf turns the answer of one page-side resolve (or the error that
// took its place) into the target, and the value of then into out.
func targetOf(ctx context.Context, fr *frameChain, loc Locator, then *Then, out any, res *pageResult, err error) (*Target, error) {
	if err != nil {
		return nil, err
	}
	if res.Unsure {
		return nil, errDOMUnsure
	}
	target, err := res.target(ctx, loc)
	if target == nil {
		return nil, err
	}
	target.Frame = fr.frame()
	if then != nil {
		if len(res.Then) == 0 {
			return target, errs.New(errs.Internal, "the page ran no %s after finding the element", then.Fn)
		}
		return target, decodeAnswer(res.Then, out)
	}
	return target, nil
}

// answerGrace is how long past the deadline the page's answer to a wait it
// already ended is still awaited. The page gives up a margin before the
// deadline and answers with the last state it saw (not_found, ambiguous,
// why not actionable); on a loaded machine that answer can arrive after the
// deadline, and dropping it would turn a reason into a bare timeout. A page
// that does not answer at all (a busy script) still ends the call, this
// much later.
const answerGrace = 500 * time.Millisecond

// awaitAnswer returns a context for a page-side wait bounded by deadline:
// the caller's cancellation ends it at once, its deadline answerGrace later.
func awaitAnswer(ctx context.Context, deadline time.Time) (context.Context, func()) {
	answer, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline.Add(answerGrace))
	stop := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel() // cancelled by the client, not run out
		}
	})
	return answer, func() { stop(); cancel() }
}

// AnswerWindow is the context to wait in for a resolve under ctx: it ends
// answerGrace past ctx's deadline (or the default timeout), so that a
// caller waiting around a resolve (a dialog guard) still gets the page's
// answer with its reason rather than a bare timeout.
func AnswerWindow(ctx context.Context) (context.Context, func()) {
	return awaitAnswer(ctx, deadlineOf(ctx))
}

// deadlineOf is ctx's deadline, or DefaultTimeout from now when it has none.
func deadlineOf(ctx context.Context) time.Time { return deadline.At(ctx, DefaultTimeout) }

// within names the budget a failed search ran under, for its message.
func within(ctx context.Context) string { return deadline.Name(ctx) }

// logRun is a run of checks of one resolve that found the same thing.
type logRun struct {
	Refusal
	Checks int `json:"checks"`
}

// callLog words the runs of checks, oldest first, when the page's answer
// changed along the way: "; checks in turn: not visible (3), covered by
// <div#cookie> (5)". Empty when every check found the same.
func (r *pageResult) callLog() string {
	if len(r.Log) < 2 {
		return ""
	}
	parts := make([]string, 0, len(r.Log))
	for _, run := range r.Log {
		says := "nothing matched"
		if run.Reason != "" {
			says = run.Says()
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", says, run.Checks))
	}
	return "; checks in turn: " + strings.Join(parts, ", ")
}

func (r *pageResult) target(ctx context.Context, loc Locator) (*Target, error) {
	if r.OK {
		return &Target{Handle: r.Handle, X: r.X, Y: r.Y, Count: r.Count, Desc: r.Target, Surface: r.Surface}, nil
	}
	e := r.failure(ctx, loc)
	if e.Code != errs.Ambiguous {
		e.Message += r.callLog()
	}
	return nil, e
}

// failure is the error of a page answer that found no actionable element.
func (r *pageResult) failure(ctx context.Context, loc Locator) *errs.Error {
	switch r.Code {
	case errs.Ambiguous:
		return errs.New(errs.Ambiguous, "%s matches %d elements: %s", loc, r.Count, candidates(r.Candidates)).
			WithHint("make the selector specific, or pick one with nth (zero-based)")
	case errs.NotActionable:
		e := r.Err(fmt.Sprintf("%s %s", loc, describe(r.Target)))
		if r.Static {
			e.Message += " (it stayed there the whole time: the same element over the same place at every check until the deadline)"
		}
		return e
	case errs.InvalidInput:
		return r.Err(loc.String())
	case errs.StaleRef:
		return errs.As(StaleRef(loc))
	case errs.NotFound:
		if r.Reason != "" { // the element is there; what it holds is not
			e := r.Err(fmt.Sprintf("%s %s", loc, describe(r.Target)))
			e.Message += " within " + within(ctx)
			if len(r.Options) > 0 {
				e.WithHint("options on offer: %s", OptionList(r.Options))
			}
			return e
		}
	}
	where := "in the page"
	if loc.Nth != nil && r.Count > 0 {
		return errs.New(errs.NotFound, "%s: nth %d asked but only %d element(s) match %s", loc, *loc.Nth, r.Count, where).
			WithHint("nth is zero-based")
	}
	if loc.Ref != "" {
		return errs.New(errs.NotFound, "%s is no longer in the page", loc).
			WithHint("observe the tab again for fresh refs, or use a selector")
	}
	return errs.New(errs.NotFound, "nothing matches %s %s within %s", loc, where, within(ctx)).
		WithHint("check the selector against a fresh observation; raise timeout_ms if the element appears late").WithFact(FactNoMatch)
}

// OptionList renders a select's options for a hint: "Apple" (value "a"), …
func OptionList(opts []map[string]any) string {
	parts := make([]string, 0, len(opts))
	for _, o := range opts {
		parts = append(parts, fmt.Sprintf("%q (value %q)", o["label"], o["value"]))
	}
	return strings.Join(parts, ", ")
}

func candidates(list []map[string]any) string {
	parts := make([]string, 0, len(list))
	for _, c := range list {
		parts = append(parts, describe(c))
	}
	return strings.Join(parts, ", ")
}

// describe renders a page-side description: <button#save name=go> "Save".
func describe(d map[string]any) string {
	if d == nil {
		return "element"
	}
	s := "<" + str(d["tag"])
	if id := str(d["id"]); id != "" {
		s += "#" + id
	}
	if n := str(d["name"]); n != "" {
		s += " name=" + n
	}
	s += ">"
	if tx := str(d["text"]); tx != "" {
		s += fmt.Sprintf(" %q", tx)
	}
	return s
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
