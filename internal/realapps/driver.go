//go:build realapps

package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// waitMS bounds one wait for text, the app's start and a check's polling.
const waitMS = 5000

// app is one real app: the page that hosts it, a condition that says it
// has started (checked through evaluate, not counted) and its tasks.
type app struct {
	Name    string
	Package string // the npm package(s) and versions the app code comes from
	Page    string // path on the loopback site
	Ready   string // JS function body: true once the app has started
	Tasks   []task
}

// task is what a user would ask, the steps a model would take, looking each
// target up in the observation, and a check on the app's own state (a JS
// function body returning true, or what it found instead).
type task struct {
	ID    string
	Goal  string
	Steps []step
	Check string
}

type step struct {
	Do     string // click, dblclick, fill, type, press, select, drag
	Target *target
	To     *target // drag: the drop target
	Value  string  // fill/type text, key, option label
}

// target is how a model names what it wants: a role (optional) and the
// name or text it read; nth picks among several equal matches.
type target struct {
	Role string
	Name string
	Nth  int
	Near string // the element of Role closest to the one named Near (a row's checkbox)
	// Or is what a model picks when this target is not in the observation
	// (the editor's textbox when its text lines are not listed).
	Or *target
}

func (t target) String() string {
	s := fmt.Sprintf("%q", t.Name)
	if t.Role != "" {
		s = t.Role + " " + s
	}
	if t.Nth > 0 {
		s += fmt.Sprintf(" #%d", t.Nth)
	}
	if t.Near != "" {
		s += fmt.Sprintf(" near %q", t.Near)
	}
	if t.Or != nil {
		s += " (or " + t.Or.String() + ")"
	}
	return s
}

// errNotObserved marks a target the observation never offered: the
// finding this suite exists for.
var errNotObserved = errors.New("not in the observation")

// run is one task run on one server: what the driver knows of the page.
type run struct {
	srv      server
	known    []elem
	observed bool
}

func (r *run) do(ctx context.Context, st step) error {
	var e, to *elem
	var err error
	if st.Target != nil {
		if e, err = r.locate(ctx, *st.Target); err != nil {
			return err
		}
	}
	if st.To != nil {
		if to, err = r.locate(ctx, *st.To); err != nil {
			return err
		}
	}
	res, err := r.srv.act(ctx, st, e, to)
	if err != nil && e != nil {
		// A ref from an older observation may be stale, or the element
		// may not take the action: observe again and retry once with what
		// the page offers now (the alternative if the same ref comes back
		// and there is one), as a model would.
		if e2, to2, ok := r.relocate(ctx, st, e.Ref); ok {
			res, err = r.srv.act(ctx, st, e2, to2)
		}
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", st.Do, targetOf(st), err)
	}
	r.forgetPositions()
	r.absorb(res.text)
	return nil
}

// forgetPositions drops the folded elements known by position (a card's
// index): after an action the page may have moved its cards, and a model
// reads the fold again before it counts on one.
func (r *run) forgetPositions() {
	kept := r.known[:0]
	for _, e := range r.known {
		if e.Ref != "" {
			kept = append(kept, e)
		}
	}
	r.known = kept
}

func (r *run) relocate(ctx context.Context, st step, failed string) (*elem, *elem, bool) {
	if r.refresh(ctx) != nil {
		return nil, nil, false
	}
	e := findAny(r.known, *st.Target, true)
	if e != nil && e.Ref == failed && st.Target.Or != nil {
		if alt := findAny(r.known, *st.Target.Or, true); alt != nil {
			e = alt
		}
	}
	var to *elem
	if st.To != nil {
		to = findAny(r.known, *st.To, true)
	}
	return e, to, e != nil && (st.To == nil || to != nil)
}

// locate finds a target in what the server showed: an exact match in the
// last observation (and action results), then any match in a new
// observation, then in one more after waiting for the name to show up as
// text with the server's wait tool.
func (r *run) locate(ctx context.Context, t target) (*elem, error) {
	if r.observed {
		if e := findAny(r.known, t, false); e != nil {
			return e, nil
		}
	}
	if err := r.refresh(ctx); err != nil {
		return nil, err
	}
	if e := findAny(r.known, t, true); e != nil {
		return e, nil
	}
	if t.Name != "" || t.Near != "" {
		r.srv.waitText(ctx, t.Name+t.Near) // a miss is told by the observation below
		if err := r.refresh(ctx); err != nil {
			return nil, err
		}
		if e := findAny(r.known, t, true); e != nil {
			return e, nil
		}
	}
	return nil, fmt.Errorf("%s: %w", t, errNotObserved)
}

// findAny tries the target, then its alternatives.
func findAny(els []elem, t target, partial bool) *elem {
	for c := &t; c != nil; c = c.Or {
		if e := find(els, *c, partial); e != nil {
			return e
		}
	}
	return nil
}

func (r *run) refresh(ctx context.Context) error {
	els, delta, err := r.srv.observe(ctx)
	if err != nil {
		return err
	}
	r.observed = true
	if delta {
		r.merge(els)
	} else {
		r.known = els
	}
	return nil
}

// merge puts newer elements first, replacing older ones with the same ref.
func (r *run) merge(els []elem) {
	seen := map[string]bool{}
	for _, e := range els {
		seen[e.key()] = true
	}
	for _, e := range r.known {
		if !seen[e.key()] {
			els = append(els, e)
		}
	}
	r.known = els
}

// absorb takes the elements an action's result showed (Playwright MCP
// answers each action with the page's snapshot, or its changes).
func (r *run) absorb(text string) {
	if _, ok := r.srv.(*playwright); ok {
		if els := parseAriaSnapshot(text); len(els) > 0 {
			r.merge(els)
		}
	}
}

// find matches a target the way a reader would: the role if given, then
// the name exactly (case and spacing aside), else (partial) as a part of
// the name, else a field's value (a field with no label, read by what it
// holds). Partial matches are taken from a fresh observation only: an
// older one may hold a longer name ("Delete account") from before the
// wanted element ("Delete") appeared.
func find(els []elem, t target, partial bool) *elem {
	if t.Near != "" {
		return findNear(els, t)
	}
	want := norm(t.Name)
	byName := func(e *elem) string { return e.Name }
	byValue := func(e *elem) string { return e.Value }
	type how struct {
		text  func(*elem) string
		exact bool
	}
	passes := []how{{byName, true}}
	if partial {
		passes = append(passes, how{byName, false}, how{byValue, true}, how{byValue, false})
	}
	for _, pass := range passes {
		n := 0
		for i := range els {
			e := &els[i]
			if t.Role != "" && !strings.EqualFold(e.Role, t.Role) {
				continue
			}
			got := norm(pass.text(e))
			if pass.exact && got != want || !pass.exact && (want == "" || !strings.Contains(got, want)) {
				continue
			}
			if n == t.Nth {
				return e
			}
			n++
		}
	}
	return nil
}

// findNear picks the element of the target's role closest in the
// observation's order to the element named Near, as a model reads "the
// checkbox of the row 'buy milk'". Both must have been observed.
func findNear(els []elem, t target) *elem {
	anchor := find(els, target{Name: t.Near}, true)
	if anchor == nil {
		return nil
	}
	at := 0
	for i := range els {
		if &els[i] == anchor {
			at = i
		}
	}
	var best *elem
	dist := len(els) + 1
	for i := range els {
		d := i - at
		if d < 0 {
			d = -d
		}
		if i != at && strings.EqualFold(els[i].Role, t.Role) && d < dist {
			best, dist = &els[i], d
		}
	}
	return best
}

func norm(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

func targetOf(st step) string {
	if st.Target == nil {
		return fmt.Sprintf("%q", st.Value)
	}
	return st.Target.String()
}

// checkFn wraps a check body into a function that polls it in the page
// until it returns true or waitMS pass (the app may still be updating),
// and answers with a marker every server's evaluate result carries as is.
func checkFn(body string) string {
	return `async () => {
  const check = async () => { ` + body + ` };
  const end = Date.now() + ` + fmt.Sprint(waitMS) + `;
  for (;;) {
    let got;
    try { got = await check(); } catch (e) { got = 'threw ' + e.message; }
    if (got === true) return 'RA:PASS';
    if (Date.now() > end) return 'RA:FAIL ' + String(got).replace(/["\\\n\r]/g, "'").slice(0, 200);
    await new Promise(r => setTimeout(r, 50));
  }
}`
}

var verdict = regexp.MustCompile(`RA:(PASS|FAIL[^"\\\n]*)`)

// check runs a check through the server's evaluate tool.
func check(ctx context.Context, srv server, body string) error {
	out, err := srv.eval(ctx, checkFn(body))
	if err != nil {
		return fmt.Errorf("check could not run: %w", err)
	}
	m := verdict.FindStringSubmatch(out)
	switch {
	case m == nil:
		return fmt.Errorf("check gave no verdict: %s", oneLine(out, 200))
	case m[1] != "PASS":
		return fmt.Errorf("check: %s", strings.TrimSpace(strings.TrimPrefix(m[1], "FAIL")))
	}
	return nil
}

// outcome is one task run on one server.
type outcome struct {
	Server string `json:"server"`
	App    string `json:"app"`
	Task   string `json:"task"`
	Run    int    `json:"run"`
	Pass   bool   `json:"pass"`
	Reason string `json:"reason,omitempty"`
	Chars  int    `json:"chars"`
	MS     int64  `json:"ms"`
}

func runTask(ctx context.Context, srv server, s *site, a app, t task, n int) outcome {
	o := outcome{Server: srv.label(), App: a.Name, Task: t.ID, Run: n}
	start, before := time.Now(), srv.conn().read
	err := attempt(ctx, srv, s, a, t)
	o.MS = time.Since(start).Milliseconds()
	o.Chars = srv.conn().read - before
	o.Pass = err == nil
	if err != nil {
		o.Reason = err.Error()
	}
	return o
}

func attempt(ctx context.Context, srv server, s *site, a app, t task) error {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	base, stop, err := s.listen()
	if err != nil {
		return err
	}
	defer stop()
	if err := srv.open(ctx, base+a.Page); err != nil {
		return fmt.Errorf("open: %w", err)
	}
	if err := check(ctx, srv, a.Ready); err != nil {
		return fmt.Errorf("app did not start: %w", err)
	}
	r := &run{srv: srv}
	for i, st := range t.Steps {
		if err := r.do(ctx, st); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	return check(ctx, srv, t.Check)
}
