package run

import (
	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// Classification is a run's verdict: one closed set, written as it is into
// results and traces. Only Passed and DocsGap are evidence.
type Classification string

// Classifications.
const (
	Passed          Classification = "passed"
	DocsGap         Classification = "docs_gap"
	BudgetExhausted Classification = "budget_exhausted"
	InfraError      Classification = "infra_error"
	HarnessError    Classification = "harness_error"
	AgentRefusal    Classification = "agent_refusal"
	Skipped         Classification = "skipped"
)

// Stop reasons (the agent's; see package agent).
const (
	StopCompleted     = agent.StopCompleted
	StopCommandFailed = agent.StopCommandFailed
	StopMaxTurns      = agent.StopMaxTurns
	StopTimeout       = agent.StopTimeout
	StopTokenBudget   = agent.StopTokenBudget
	StopRefusal       = agent.StopRefusal
	StopError         = agent.StopError
	StopSkipped       = agent.StopSkipped
	StopWorkspaceFull = agent.StopWorkspaceFull
	StopProcessBound  = agent.StopProcessBound
	StopOfflineMiss   = agent.StopOfflineCacheMiss
)

// scored reports whether a run that stopped so gets its check run and can
// be evidence: not when skipped, refused, in error, or offline without the
// pages it asked for.
func scored(stop agent.StopReason) bool {
	switch stop {
	case StopSkipped, StopError, StopRefusal, StopOfflineMiss:
		return false
	}
	return true
}

// Trace is an attempt's event log.
type Trace = trace.Trace

// Tokens are an agent's four exclusive counters (always zero for replay).
type Tokens = agent.Tokens

// Classify gives the verdict, in the reference's order, with its bugs
// fixed: a run that read no docs page at all, though it tried, is
// infra_error (no evidence about the docs, even when its check passed); a run that ended in an agent or harness error (or a refusal) is
// never a pass, even when a check would hold in the untouched workspace
// (such runs are not scored at all); whose fault an error was is a typed
// fact the agent reported, never a match on its message; and the egress
// facts are all in the trace before this is called.
func Classify(stop agent.StopReason, failure agent.Failure, checkPassed *bool, f trace.Facts) Classification {
	if stop == StopSkipped {
		return Skipped
	}
	if none, _ := DocsUnreadable(f); none {
		return InfraError
	}
	if scored(stop) && checkPassed != nil && *checkPassed {
		return Passed
	}
	switch stop {
	case StopOfflineMiss:
		return InfraError
	case StopRefusal:
		return AgentRefusal
	case StopError:
		if failure == agent.FailureInfra {
			return InfraError
		}
		return HarnessError
	case StopMaxTurns, StopTimeout, StopTokenBudget, StopWorkspaceFull, StopProcessBound:
		return BudgetExhausted
	}
	switch {
	case f.EgressErrors > 0:
		return InfraError
	case f.EgressBlocked > 0 && stop == StopCommandFailed, f.NotAllowlisted > 0:
		return HarnessError
	}
	return DocsGap
}

// Evidential reports whether a classification counts toward a pass rate.
func Evidential(c Classification) bool { return c == Passed || c == DocsGap }

// Label is the console label of a classification.
func Label(c Classification) string {
	switch c {
	case Passed:
		return "PASS"
	case DocsGap:
		return "FAIL"
	case Skipped:
		return "SKIP"
	}
	return "INCONCLUSIVE"
}
