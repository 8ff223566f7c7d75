// Package batch runs browser_batch: ordered steps in one tab's queue under
// one deadline. Every step is checked before anything runs (including steps
// start_at skips), the first failure stops the batch, and nothing is rolled
// back or retried.
package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/engine/timing"
)

// Request is a checked batch.
type Request struct {
	TabHandle    string            `json:"tab_handle"`
	Steps        []*act.Step       `json:"-"`
	RawSteps     []json.RawMessage `json:"steps"`
	Observe      *act.ObserveSpec  `json:"observe,omitempty"`
	StartAt      *int              `json:"start_at,omitempty"`
	TimeoutMS    *int              `json:"timeout_ms,omitempty"`
	DialogPolicy string            `json:"dialog_policy,omitempty"`
}

// Prevalidate decodes and checks a whole batch. It returns every violation,
// each with its path (steps[4].settle_ms), never only the first.
func Prevalidate(raw json.RawMessage) (*Request, []*errs.Error) {
	fields, keys, err := Fields(raw)
	if err != nil {
		return nil, []*errs.Error{errs.As(err)}
	}
	req, v := prevalidateTop(fields, keys)
	v = append(v, prevalidateSteps(req, fields)...)
	v = append(v, checkStartAt(req)...)
	if obs, given := fields["observe"]; given {
		o, errs := prevalidateObserve(obs)
		req.Observe = o
		v = append(v, errs...)
	}
	return req, v
}

// prevalidateTop decodes and checks the batch's own fields, each on its
// own, so that one bad field hides no other problem.
func prevalidateTop(fields map[string]json.RawMessage, keys []string) (*Request, []*errs.Error) {
	var top struct {
		TabHandle    string `json:"tab_handle"`
		StartAt      *int   `json:"start_at"`
		TimeoutMS    *int   `json:"timeout_ms"`
		DialogPolicy string `json:"dialog_policy"`
	}
	var v []*errs.Error
	add := func(path, format string, args ...any) { v = append(v, errs.Input(path, format, args...)) }
	for _, k := range keys {
		switch k {
		case "steps", "observe":
		case "tab_handle", "start_at", "timeout_ms", "dialog_policy":
			one, _ := json.Marshal(map[string]json.RawMessage{k: fields[k]})
			if err := DecodeStrict("", one, &top, []string{k}); err != nil {
				v = append(v, errs.As(err))
			}
		default:
			add(fieldPath(k), "unknown field %q", k)
		}
	}
	if _, given := fields["tab_handle"]; !given {
		add("tab_handle", "is required")
	}
	lim := ContractLimits()
	if top.TimeoutMS != nil && (*top.TimeoutMS < lim.MinTimeoutMS || *top.TimeoutMS > lim.MaxTimeoutMS) {
		add("timeout_ms", "must be between %d and %d; got %d", lim.MinTimeoutMS, lim.MaxTimeoutMS, *top.TimeoutMS)
	}
	switch top.DialogPolicy {
	case "", tabs.DialogAsk, tabs.DialogAccept, tabs.DialogDismiss:
	default:
		add("dialog_policy", "must be one of ask, accept, dismiss; got %q", top.DialogPolicy)
	}
	return &Request{TabHandle: top.TabHandle, StartAt: top.StartAt, TimeoutMS: top.TimeoutMS, DialogPolicy: top.DialogPolicy}, v
}

// prevalidateSteps decodes the list of steps into req and checks its
// length and each step.
func prevalidateSteps(req *Request, fields map[string]json.RawMessage) []*errs.Error {
	var v []*errs.Error
	add := func(path, format string, args ...any) { v = append(v, errs.Input(path, format, args...)) }
	lim := ContractLimits()
	steps, given := fields["steps"]
	switch {
	case !given:
		add("steps", "is required: a list of 1 to %d steps", lim.MaxSteps)
	case string(steps) == "null" || json.Unmarshal(steps, &req.RawSteps) != nil:
		add("steps", "must be a list of 1 to %d step objects", lim.MaxSteps)
		req.RawSteps = nil
	}
	switch n := len(req.RawSteps); {
	case req.RawSteps != nil && n == 0: // a list, but empty ("steps": [])
		add("steps", "must hold at least one step")
	case n > lim.MaxSteps:
		add("steps", "holds %d steps; at most %d", n, lim.MaxSteps)
	}
	for i, raw := range req.RawSteps {
		s, errs := prevalidateStep(i, raw)
		v = append(v, errs...)
		req.Steps = append(req.Steps, s)
	}
	return v
}

// checkStartAt checks start_at against its bounds and the steps given.
func checkStartAt(req *Request) []*errs.Error {
	at, n := req.StartAt, len(req.RawSteps)
	switch {
	case at == nil:
	case *at < 0 || *at > ContractLimits().MaxStartAt:
		return []*errs.Error{errs.Input("start_at", "must be between 0 and %d; got %d", ContractLimits().MaxStartAt, *at)}
	case n > 0 && *at >= n:
		return []*errs.Error{errs.Input("start_at", "is %d but the batch has %d steps (indexes 0 to %d)", *at, n, n-1)}
	}
	return nil
}

// prevalidateObserve decodes and checks the batch-level observe.
func prevalidateObserve(raw json.RawMessage) (*act.ObserveSpec, []*errs.Error) {
	var o act.ObserveSpec
	if err := DecodeStrict("observe.", raw, &o, act.BatchObserveFields()); err != nil {
		return nil, []*errs.Error{errs.As(err)}
	}
	var v []*errs.Error
	if o.Ref != "" {
		v = append(v, errs.Input("observe.ref", "refs are refused in a batch: they name elements of one observation, and a batch must stand on its own; use selector"))
	} else if o.Selector == "" {
		v = append(v, errs.Input("observe.selector", "is required: the batch-level observe reads one control named by a fresh locator"))
	}
	check := o
	check.Ref = ""
	return &o, append(v, check.Validate("observe")...)
}

// prevalidateStep decodes step i against its variant and checks its rules.
func prevalidateStep(i int, raw json.RawMessage) (*act.Step, []*errs.Error) {
	at := fmt.Sprintf("steps[%d]", i)
	members, _, err := Fields(raw)
	if err != nil || string(raw) == "null" {
		return nil, []*errs.Error{errs.Input(at, "must be a step object with an action")}
	}
	rawAction, given := members["action"]
	if !given {
		return nil, []*errs.Error{errs.Input(at+".action", "is required: one of %s", strings.Join(stepActions(), ", "))}
	}
	var action string
	if json.Unmarshal(rawAction, &action) != nil {
		return nil, []*errs.Error{errs.Input(at+".action", "must be a string: one of %s", strings.Join(stepActions(), ", "))}
	}
	fields, ok := act.StepFields(action)
	if !ok || !slices.Contains(act.BatchActions(), action) {
		return nil, []*errs.Error{errs.Input(at+".action", "must be one of %s; got %q", strings.Join(stepActions(), ", "), action)}
	}
	s := &act.Step{}
	if err := DecodeStrict(at+".", raw, s, fields); err != nil {
		e := errs.As(err)
		if e.Path == at+".ref" {
			e = errs.Input(e.Path, "refs are refused in a batch: they name elements of one observation; use selector").
				WithHint("take the selector of that element from the observation")
		}
		return nil, []*errs.Error{e}
	}
	return s, s.Validate(at)
}

func stepActions() []string { return act.BatchActions() }

// StepResult is what one step did.
type StepResult struct {
	Index     int    `json:"index"`
	Action    string `json:"action"`
	OK        bool   `json:"ok"`
	ElapsedMS int64  `json:"elapsed_ms"`
	*act.Result
	Error *errs.Error `json:"error,omitempty"`
}

// Result is the outcome of a batch. On failure FailedStep is the index of
// the step that failed and Steps holds it after the results of the steps
// before it; later steps did not run.
type Result struct {
	OK           bool          `json:"ok"`
	Steps        []*StepResult `json:"steps"`
	FailedStep   *int          `json:"failed_step,omitempty"`
	Error        *errs.Error   `json:"error,omitempty"`
	Skipped      int           `json:"skipped,omitempty"` // steps before start_at
	Observe      *act.Control  `json:"observe,omitempty"`
	ObserveError *errs.Error   `json:"observe_error,omitempty"`
	ElapsedMS    int64         `json:"elapsed_ms"`
}

// Run executes a prevalidated batch on the tab. The caller holds the tab's
// queue. The batch's timeout_ms bounds ctx unless ctx already ends sooner
// (the MCP layer sets this same budget when the call arrives, so the time
// spent waiting in the queue counts); each step's own timeout_ms narrows
// it. Whichever budget runs out, the error names it.
func Run(ctx context.Context, t *tabs.Tab, req *Request) *Result {
	start := time.Now()
	ctx, cancel := deadline.With(ctx, Budget(req), "timeout_ms", "the batch's timeout_ms")
	defer cancel()
	res := &Result{Steps: []*StepResult{}}
	from := 0
	if req.StartAt != nil {
		from = *req.StartAt
		res.Skipped = from
	}
	rec := timing.From(ctx)
	defer rec.End()
	// A step's last verification (a fill's read-back, what a click
	// reached) rides the next step's first page call when that call is the
	// next command sent, and runs on its own otherwise: the step counts as
	// done once it passed.
	var later *act.Pending // left by the last step in res.Steps
	for i := from; i < len(req.Steps); i++ {
		s := *req.Steps[i]
		if later != nil && !act.Carries(&s) {
			if err := later.Settle(ctx, t); err != nil {
				return failPrior(res, start, err)
			}
			later = nil
		}
		rec.Begin(fmt.Sprintf("steps[%d] %s", i, s.Action))
		if s.DialogPolicy == "" {
			s.DialogPolicy = req.DialogPolicy
		}
		stepStart := time.Now()
		r, next, err := runStep(later.With(ctx), t, i, &s)
		elapsed := time.Since(stepStart)
		if later != nil {
			// The step before is judged first: when its verification
			// failed, this step did nothing.
			if perr := later.Finish(ctx, t); perr != nil {
				return failPrior(res, start, perr)
			}
			if locate.CarriedFailed(err) {
				err = errs.New(errs.Internal, "the step before passed its verification on a second look")
			}
		}
		later = next
		sr := &StepResult{Index: i, Action: s.Action, OK: err == nil, ElapsedMS: elapsed.Milliseconds(), Result: r}
		res.Steps = append(res.Steps, sr)
		if err != nil {
			return fail(res, start, sr, err)
		}
	}
	if later != nil && (req.Observe == nil || !act.CarriesObserve(req.Observe)) {
		if err := later.Settle(ctx, t); err != nil {
			return failPrior(res, start, err)
		}
		later = nil
	}
	if req.Observe != nil {
		rec.Begin("observe")
		c, err := act.ReadControl(later.With(ctx), t, req.Observe, locate.Locator{})
		if perr := later.Finish(ctx, t); perr != nil {
			return failPrior(res, start, perr)
		}
		if err != nil {
			res.ObserveError = errs.As(err)
		} else {
			res.Observe = c
		}
	}
	res.OK = true
	res.ElapsedMS = time.Since(start).Milliseconds()
	return res
}

// fail ends the batch at step sr with err, its path put under the step.
func fail(res *Result, start time.Time, sr *StepResult, err error) *Result {
	e := errs.As(err)
	if e.Path != "" && !strings.HasPrefix(e.Path, "steps[") {
		e.Path = fmt.Sprintf("steps[%d].%s", sr.Index, e.Path)
	} else if e.Path == "" {
		e.Path = fmt.Sprintf("steps[%d]", sr.Index)
	}
	sr.OK = false
	sr.Error = e
	res.Error = e
	i := sr.Index
	res.FailedStep = &i
	res.ElapsedMS = time.Since(start).Milliseconds()
	return res
}

// failPrior ends the batch at the last step in res, whose verification
// (judged after it returned) failed.
func failPrior(res *Result, start time.Time, err error) *Result {
	return fail(res, start, res.Steps[len(res.Steps)-1], err)
}

// Budget is the batch's timeout_ms, or the contract's default.
func Budget(req *Request) time.Duration {
	if req.TimeoutMS != nil {
		return time.Duration(*req.TimeoutMS) * time.Millisecond
	}
	return DefaultTimeout()
}

// runStep runs step i under its own timeout_ms, named by its path, within
// what is left of the batch.
func runStep(ctx context.Context, t *tabs.Tab, i int, s *act.Step) (*act.Result, *act.Pending, error) {
	if s.TimeoutMS != nil {
		var cancel context.CancelFunc
		ctx, cancel = deadline.With(ctx, time.Duration(*s.TimeoutMS)*time.Millisecond,
			fmt.Sprintf("steps[%d].timeout_ms", i), fmt.Sprintf("step %d's timeout_ms", i))
		defer cancel()
	}
	return act.RunCarrying(ctx, t, s)
}
