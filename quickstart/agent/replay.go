package agent

import (
	"context"
	"errors"
	"fmt"
)

// Replay runs the task's replay commands verbatim, stopping at the first
// failure: it proves the documented commands work, not that a reader could
// find them. The harness reads the route first, in order, for the record;
// those reads are the harness's, not tool calls.
type Replay struct{}

// Name is "replay".
func (Replay) Name() string { return "replay" }

// Run runs each replay command in a fresh shell; a turn is one command.
func (Replay) Run(ctx context.Context, s *Session) Outcome {
	t := s.Task
	if len(t.Replay) == 0 {
		return Outcome{StopReason: StopSkipped, Detail: "task has no 'replay' commands"}
	}
	s.Tools.ReadRoute(ctx)
	turns := 0
	for i, c := range t.Replay {
		if o, stop := ended(ctx, t.Budgets.MaxSeconds, fmt.Sprintf("before replay step %d", i+1), turns); stop {
			return o
		}
		if turns >= t.Budgets.MaxTurns {
			return Outcome{StopReason: StopMaxTurns, Turns: turns, Detail: fmt.Sprintf("max_turns (%d) reached before replay step %d", t.Budgets.MaxTurns, i+1)}
		}
		r := s.Tools.Bash(ctx, c)
		turns++
		if r.ExitCode == 0 {
			continue
		}
		if o, stop := ended(ctx, t.Budgets.MaxSeconds, fmt.Sprintf("during replay step %d: %s", i+1, c), turns); stop {
			return o
		}
		return Outcome{StopReason: StopCommandFailed, Turns: turns, Detail: fmt.Sprintf("replay step %d failed: %s", i+1, c)}
	}
	return Outcome{StopReason: StopCompleted, Turns: turns}
}

// ended reports whether ctx is over: max_seconds (a timeout) or an
// interruption (an error).
func ended(ctx context.Context, maxSeconds int, where string, turns int) (Outcome, bool) {
	if ctx.Err() == nil {
		return Outcome{}, false
	}
	if errors.Is(context.Cause(ctx), ErrMaxSeconds) {
		return Outcome{StopReason: StopTimeout, Turns: turns, Detail: fmt.Sprintf("max_seconds (%d s) passed %s", maxSeconds, where)}, true
	}
	return Outcome{StopReason: StopError, Failure: FailureHarness, Turns: turns, Detail: "interrupted"}, true
}
