package deadline

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
)

func TestInnerBudgetOnlyNarrows(t *testing.T) {
	call, cancel := With(context.Background(), 200*time.Millisecond, "timeout_ms", "the batch's timeout_ms")
	defer cancel()
	// A step asking for more than is left keeps the batch's deadline and name.
	step, cancel2 := With(call, time.Second, "steps[0].timeout_ms", "step 0's timeout_ms")
	defer cancel2()
	if got := Name(step); got != "the batch's timeout_ms (200 ms)" {
		t.Fatalf("name %q", got)
	}
	// A step asking for less narrows it, under its own name.
	short, cancel3 := With(call, 20*time.Millisecond, "steps[1].timeout_ms", "step 1's timeout_ms")
	defer cancel3()
	<-short.Done()
	e := Err(short, "waiting for #x")
	if e.Code != errs.Timeout || !strings.Contains(e.Message, "step 1's timeout_ms (20 ms) ran out") || !strings.Contains(e.Hint, "steps[1].timeout_ms") {
		t.Fatalf("step expiry: %+v", e)
	}
	if !errors.Is(context.Cause(short), context.DeadlineExceeded) {
		t.Fatal("the cause does not match DeadlineExceeded")
	}
	if call.Err() != nil {
		t.Fatal("the step's expiry ended the batch")
	}
}

func TestCancelIsNotTimeout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ctx, stop := With(ctx, time.Minute, "timeout_ms", "the call's timeout_ms")
	defer stop()
	if Err(ctx, "x") != nil {
		t.Fatal("error on a live context")
	}
	cancel()
	if e := Err(ctx, "loading"); e.Code != errs.Cancelled {
		t.Fatalf("cancel reported as %s", e.Code)
	}
}

func TestUnnamedDeadline(t *testing.T) {
	named, cancel := With(context.Background(), time.Minute, "timeout_ms", "the call's timeout_ms")
	defer cancel()
	ctx, cancel2 := context.WithTimeout(named, time.Millisecond)
	defer cancel2()
	<-ctx.Done()
	if Of(ctx) != nil || Name(ctx) != "the deadline" {
		t.Fatalf("an unnamed, earlier deadline took the outer name: %q", Name(ctx))
	}
}
