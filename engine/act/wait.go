package act

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// wait blocks, reading only, until a condition holds: an element's state,
// the URL, or network quiet. On a timeout the error carries the last state
// observed, so the agent learns how far the page got.
func wait(ctx context.Context, t *tabs.Tab, s *Step, r *Result) error {
	switch s.Condition {
	case "url":
		want := *s.Expected.Str
		u, err := t.WaitURL(ctx, func(u string) bool { return strings.Contains(u, want) })
		if err != nil {
			if e := deadline.Err(ctx, fmt.Sprintf("waiting for the url to contain %q (last url %q)", want, t.URL())); e != nil {
				return e
			}
			return err
		}
		r.Wait = map[string]any{"url": u}
		r.Verified = "url contains " + js(want)
		return nil
	case "network_idle":
		idle := 500
		if s.IdleMS != nil {
			idle = *s.IdleMS
		}
		if err := t.WaitNetworkIdle(ctx, time.Duration(idle)*time.Millisecond); err != nil {
			if e := deadline.Err(ctx, fmt.Sprintf("waiting for the network to stay idle for %d ms (%d requests still in flight)", idle, t.InFlight())); e != nil {
				return e
			}
			return err
		}
		r.Wait = map[string]any{"idle_ms": idle}
		r.Verified = "no request in flight for idle_ms"
		return nil
	}

	f, pl, err := locate.Query(ctx, t, s.Locator)
	if err != nil {
		return err
	}
	if s.SelectorType == locate.Role {
		if s.Condition == "absent" {
			return waitRoleAbsent(ctx, t, s, r)
		}
		target, err := resolve(ctx, t, s.Locator, locate.Attached, r)
		if err != nil {
			return err
		}
		pl, f = map[string]any{"handle": target.Handle}, target.Frame
	}
	w := map[string]any{"condition": s.Condition}
	if s.Previous != nil {
		w["previous"] = *s.Previous
	}
	if s.Expected != nil {
		w["expected"] = s.Expected
	}
	budget := time.Duration(0)
	if at, ok := ctx.Deadline(); ok {
		budget = deadline.ForPage(at)
	}
	var res struct {
		OK    bool           `json:"ok"`
		Code  string         `json:"code"`
		State map[string]any `json:"state"`
	}
	if err := eval(ctx, t, f, injected.Call(injected.FnWaitFor, pl, w, budget.Milliseconds()), &res); err != nil {
		return err
	}
	r.Wait = res.State
	if res.OK {
		r.Verified = "condition " + s.Condition + " holds"
		return nil
	}
	if res.Code == errs.StaleRef {
		return locate.StaleRef(s.Locator)
	}
	if res.Code == errs.Ambiguous {
		return errs.New(errs.Ambiguous, "%s matches %d elements", s.Locator, int(num(res.State["count"]))).
			WithHint("make the selector specific, or pick one with nth")
	}
	last, _ := json.Marshal(res.State)
	return errs.New(errs.Timeout, "condition %s on %s did not hold before %s ran out (expected %s); last observed %s", s.Condition, s.Locator, deadline.Name(ctx), s.Expected, last).
		WithHint("raise timeout_ms, or check the condition against a fresh observation")
}

func waitRoleAbsent(ctx context.Context, t *tabs.Tab, s *Step, r *Result) error {
	for {
		probe, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
		_, err := locate.Resolve(probe, t, s.Locator, locate.Attached)
		cancel()
		if errs.Code(err) == errs.NotFound {
			r.Wait = map[string]any{"count": 0}
			r.Verified = "condition absent holds"
			return nil
		}
		if e := deadline.Err(ctx, fmt.Sprintf("waiting for %s to be absent (it is still present)", s.Locator)); e != nil {
			return e
		}
		if err != nil && errs.Code(err) != errs.Ambiguous {
			return err
		}
	}
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}
