// Package timing records where one call's time goes: each CDP command it
// sent (method, when sent, when answered) and each wait our own code made,
// grouped in spans (one per batch step). A Recorder rides the context, so
// only the calls made under it are counted, whatever else shares the
// browser connection. With no Recorder in the context every hook is a
// no-op.
package timing

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Command is one CDP command and its round trip.
type Command struct {
	Method   string
	Sent     time.Time
	Answered time.Time
}

// Span is one stretch of a traced call (a batch step, or its final read).
type Span struct {
	Name     string
	Start    time.Time
	End      time.Time
	Commands []Command
	// Waited is time our code spent waiting on purpose outside any command
	// (a step's settle_ms), which is neither the page's nor Go's work.
	Waited time.Duration
}

// Recorder collects spans. Safe for concurrent use: pipelined commands are
// answered on other goroutines.
type Recorder struct {
	mu    sync.Mutex
	spans []*Span
	loose Span // commands sent outside any span
}

type key struct{}

// With returns ctx carrying r.
func With(ctx context.Context, r *Recorder) context.Context {
	return context.WithValue(ctx, key{}, r)
}

// From returns the Recorder ctx carries, or nil.
func From(ctx context.Context) *Recorder {
	r, _ := ctx.Value(key{}).(*Recorder)
	return r
}

// Begin opens a span; the one open before it ends.
func (r *Recorder) Begin(name string) {
	if r == nil {
		return
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endLocked(now)
	r.spans = append(r.spans, &Span{Name: name, Start: now})
}

// End closes the open span.
func (r *Recorder) End() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endLocked(time.Now())
}

func (r *Recorder) endLocked(now time.Time) {
	if n := len(r.spans); n > 0 && r.spans[n-1].End.IsZero() {
		r.spans[n-1].End = now
	}
}

// open is the span commands go to now (r.mu held).
func (r *Recorder) open() *Span {
	if n := len(r.spans); n > 0 && r.spans[n-1].End.IsZero() {
		return r.spans[n-1]
	}
	return &r.loose
}

// Sent records a command answered (or given up on) now.
func Sent(ctx context.Context, method string, sent time.Time) {
	r := From(ctx)
	if r == nil {
		return
	}
	now := time.Now()
	r.mu.Lock()
	s := r.open()
	s.Commands = append(s.Commands, Command{Method: method, Sent: sent, Answered: now})
	r.mu.Unlock()
}

// Waited records d spent waiting on purpose (not for a command).
func Waited(ctx context.Context, d time.Duration) {
	r := From(ctx)
	if r == nil || d <= 0 {
		return
	}
	r.mu.Lock()
	r.open().Waited += d
	r.mu.Unlock()
}

// Spans returns the closed spans, in order.
func (r *Recorder) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Span, 0, len(r.spans))
	for _, s := range r.spans {
		if !s.End.IsZero() {
			c := *s
			c.Commands = slices.Clone(s.Commands)
			out = append(out, c)
		}
	}
	return out
}

// Unspanned counts the commands sent outside any span.
func (r *Recorder) Unspanned() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.loose.Commands)
}

// Breakdown is where a span's wall time went. Page is time with a
// Runtime command in flight (our page-side scripts, their waits for
// animation frames and conditions included); Input with an Input command
// in flight (the browser handing the event to the page and its handlers
// running); Other with any other command in flight (DOM, Accessibility,
// Page); Waited our deliberate waits; Go the rest: our own code between
// commands. Overlapping commands count once, for the first kind in that
// order.
type Breakdown struct {
	Commands int
	Methods  map[string]int
	Wall     time.Duration
	Page     time.Duration
	Input    time.Duration
	Other    time.Duration
	Waited   time.Duration
	Go       time.Duration
}

// Of breaks s down.
func Of(s Span) Breakdown {
	b := Breakdown{Commands: len(s.Commands), Methods: map[string]int{}, Wall: s.End.Sub(s.Start), Waited: s.Waited}
	kinds := map[string][]Command{}
	for _, c := range s.Commands {
		b.Methods[c.Method]++
		kinds[kindOf(c.Method)] = append(kinds[kindOf(c.Method)], c)
	}
	var covered []interval
	for _, k := range []string{"page", "input", "other"} {
		var own []interval
		for _, c := range kinds[k] {
			own = append(own, interval{c.Sent, c.Answered})
		}
		d := minus(union(own), covered)
		covered = union(append(covered, union(own)...))
		switch k {
		case "page":
			b.Page = d
		case "input":
			b.Input = d
		default:
			b.Other = d
		}
	}
	b.Go = max(0, b.Wall-b.Page-b.Input-b.Other-b.Waited)
	return b
}

func kindOf(method string) string {
	switch {
	case strings.HasPrefix(method, "Runtime."):
		return "page"
	case strings.HasPrefix(method, "Input."):
		return "input"
	}
	return "other"
}

type interval struct{ from, to time.Time }

// union merges overlapping intervals, sorted by start.
func union(in []interval) []interval {
	s := slices.Clone(in)
	slices.SortFunc(s, func(a, b interval) int { return a.from.Compare(b.from) })
	var out []interval
	for _, iv := range s {
		if n := len(out); n > 0 && !iv.from.After(out[n-1].to) {
			if iv.to.After(out[n-1].to) {
				out[n-1].to = iv.to
			}
			continue
		}
		out = append(out, iv)
	}
	return out
}

// minus is the length of the union of a (merged) not covered by b (merged).
func minus(a, b []interval) time.Duration {
	var d time.Duration
	for _, iv := range a {
		d += iv.to.Sub(iv.from)
		for _, c := range b {
			from, to := later(iv.from, c.from), earlier(iv.to, c.to)
			if to.After(from) {
				d -= to.Sub(from)
			}
		}
	}
	return d
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// MethodList renders the methods as "Runtime.evaluate×2 Input.insertText",
// most used first.
func (b Breakdown) MethodList() string {
	type mc struct {
		m string
		n int
	}
	var list []mc
	for m, n := range b.Methods {
		list = append(list, mc{m, n})
	}
	slices.SortFunc(list, func(x, y mc) int { return cmp.Or(y.n-x.n, strings.Compare(x.m, y.m)) })
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = e.m
		if e.n > 1 {
			parts[i] += fmt.Sprintf("×%d", e.n)
		}
	}
	return strings.Join(parts, " ")
}

// Table renders spans one line each: name, commands, wall, page, input,
// other, waited and Go time in ms, then the methods; and a total line.
func Table(spans []Span) string {
	var b strings.Builder
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }
	fmt.Fprintf(&b, "%-18s %4s %7s %7s %7s %7s %7s %7s  %s\n", "span", "cmds", "wall", "page", "input", "other", "waited", "go", "methods")
	var total Breakdown
	for _, s := range spans {
		d := Of(s)
		fmt.Fprintf(&b, "%-18s %4d %7s %7s %7s %7s %7s %7s  %s\n", s.Name, d.Commands, ms(d.Wall), ms(d.Page), ms(d.Input), ms(d.Other), ms(d.Waited), ms(d.Go), d.MethodList())
		total.Commands += d.Commands
		total.Wall += d.Wall
		total.Page += d.Page
		total.Input += d.Input
		total.Other += d.Other
		total.Waited += d.Waited
		total.Go += d.Go
	}
	fmt.Fprintf(&b, "%-18s %4d %7s %7s %7s %7s %7s %7s\n", "total", total.Commands, ms(total.Wall), ms(total.Page), ms(total.Input), ms(total.Other), ms(total.Waited), ms(total.Go))
	return b.String()
}
