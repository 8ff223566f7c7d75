// Package deadline carries a call's deadline together with the budget that
// set it (the call's timeout_ms, the batch's, one step's), so that the layer
// that sees it pass can say which budget ran out instead of a bare
// "timeout". A deadline is set once, where a call arrives; inner budgets
// only ever narrow it.
package deadline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
)

// Budget is a named time limit: what the caller asked for, and where.
type Budget struct {
	Name  string        // "the batch's timeout_ms"
	Path  string        // the input field that set it: "timeout_ms", "steps[3].timeout_ms"
	Limit time.Duration // as asked
	At    time.Time     // when it ends
}

func (b *Budget) String() string {
	return fmt.Sprintf("%s (%d ms)", b.Name, b.Limit.Milliseconds())
}

type key struct{}

// With bounds ctx by d, naming the budget. When ctx already ends no later,
// ctx's deadline and its name stand: a budget never extends another.
func With(ctx context.Context, d time.Duration, path, name string) (context.Context, context.CancelFunc) {
	at := time.Now().Add(d)
	if cur, ok := ctx.Deadline(); ok && !cur.After(at) {
		return context.WithCancel(ctx)
	}
	b := &Budget{Name: name, Path: path, Limit: d, At: at}
	return context.WithDeadlineCause(context.WithValue(ctx, key{}, b), at, &expired{b})
}

// Of returns the budget that bounds ctx; nil when its deadline was set
// without a name, or it has none.
func Of(ctx context.Context) *Budget {
	b, _ := ctx.Value(key{}).(*Budget)
	cur, ok := ctx.Deadline()
	if b == nil || !ok || !cur.Equal(b.At) {
		return nil
	}
	return b
}

// Name says which budget bounds ctx, for messages: "the batch's timeout_ms
// (30000 ms)", or "the deadline" when it has no name.
func Name(ctx context.Context) string {
	if b := Of(ctx); b != nil {
		return b.String()
	}
	return "the deadline"
}

// Left is the time until ctx's deadline (0 when there is none or it passed).
func Left(ctx context.Context) time.Duration {
	d, ok := ctx.Deadline()
	if !ok {
		return 0
	}
	return max(0, time.Until(d))
}

// At is ctx's deadline, or fallback from now when it has none (a library
// caller that set none).
func At(ctx context.Context, fallback time.Duration) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(fallback)
}

// PageMargin is the time kept back from a page-side wait of left so that
// its answer (with the last state seen) arrives before the caller's
// deadline. A two-core machine under a load average of 20 was measured
// answering 250 ms and more after the page gave up.
func PageMargin(left time.Duration) time.Duration {
	return min(400*time.Millisecond, left/3)
}

// ForPage is how long a page-side wait may take to end by at: what is left
// less PageMargin, never negative.
func ForPage(at time.Time) time.Duration {
	left := time.Until(at)
	return max(0, left-PageMargin(left))
}

// Err reports why ctx ended, for a layer that was doing something when it
// did: a timeout naming the budget that ran out (its hint names the field
// that set it), or the call's cancellation. Nil while ctx is live.
func Err(ctx context.Context, doing string) *errs.Error {
	switch {
	case ctx.Err() == nil:
		return nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return Timeout(ctx, doing)
	default:
		return errs.New(errs.Cancelled, "the call was cancelled while %s", doing).
			WithHint("nothing was rolled back: observe the tab to see how far it got")
	}
}

// Timeout is the error of a wait that gave up at ctx's deadline (the page
// side gives up a moment early, so ctx may still be live).
func Timeout(ctx context.Context, doing string) *errs.Error {
	b := Of(ctx)
	if b == nil {
		return errs.New(errs.Timeout, "%s: the deadline passed", doing).
			WithHint("raise timeout_ms")
	}
	return errs.New(errs.Timeout, "%s: %s ran out", doing, b).
		WithHint("raise %s, or check against a fresh observation what the page is doing", b.Path)
}

// expired is the cause a named deadline leaves on its context.
type expired struct{ b *Budget }

func (e *expired) Error() string { return e.b.String() + " ran out" }

// Is makes the cause match context.DeadlineExceeded.
func (e *expired) Is(target error) bool { return target == context.DeadlineExceeded }
