package timing

import (
	"context"
	"testing"
	"time"
)

// Overlapping commands count once, for the first kind (page, input,
// other), and Go is what no command covers.
func TestBreakdownCountsOverlapOnce(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	s := Span{Start: at(0), End: at(100), Waited: 5 * time.Millisecond, Commands: []Command{
		{"Runtime.evaluate", at(0), at(20)},
		{"Runtime.evaluate", at(10), at(30)},         // overlaps the first: 30 ms of page in all
		{"Input.dispatchMouseEvent", at(25), at(45)}, // 15 ms past the page's
		{"DOM.resolveNode", at(50), at(60)},
	}}
	b := Of(s)
	want := Breakdown{Commands: 4, Wall: 100 * ms, Page: 30 * ms, Input: 15 * ms, Other: 10 * ms, Waited: 5 * ms, Go: 40 * ms}
	if b.Commands != want.Commands || b.Wall != want.Wall || b.Page != want.Page || b.Input != want.Input || b.Other != want.Other || b.Go != want.Go {
		t.Fatalf("got %+v, want %+v", b, want)
	}
	if got := b.MethodList(); got != "Runtime.evaluate×2 DOM.resolveNode Input.dispatchMouseEvent" {
		t.Fatalf("methods: %s", got)
	}
}

const ms = time.Millisecond

// Commands go to the open span, and only under a context that carries the
// recorder; with none every hook is a no-op.
func TestRecorderSpans(t *testing.T) {
	Sent(context.Background(), "Runtime.evaluate", time.Now()) // no recorder: nothing happens
	r := &Recorder{}
	ctx := With(context.Background(), r)
	Sent(ctx, "Page.navigate", time.Now())
	r.Begin("one")
	Sent(ctx, "Runtime.evaluate", time.Now())
	Waited(ctx, ms)
	r.Begin("two")
	Sent(ctx, "Input.insertText", time.Now())
	Sent(ctx, "Runtime.evaluate", time.Now())
	r.End()
	spans := r.Spans()
	if len(spans) != 2 || len(spans[0].Commands) != 1 || spans[0].Waited != ms || len(spans[1].Commands) != 2 || r.Unspanned() != 1 {
		t.Fatalf("spans %+v, unspanned %d", spans, r.Unspanned())
	}
	var none *Recorder
	none.Begin("x") // a nil recorder is a no-op
	none.End()
}
