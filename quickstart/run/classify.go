package run

import "strings"

// Classifications.
const (
	Passed          = "passed"
	DocsGap         = "docs_gap"
	BudgetExhausted = "budget_exhausted"
	InfraError      = "infra_error"
	HarnessError    = "harness_error"
	AgentRefusal    = "agent_refusal"
	Skipped         = "skipped"
)

// Stop reasons.
const (
	StopCompleted     = "completed"
	StopCommandFailed = "command_failed"
	StopMaxTurns      = "max_turns"
	StopTimeout       = "timeout"
	StopTokenBudget   = "token_budget"
	StopRefusal       = "refusal"
	StopError         = "error"
	StopSkipped       = "skipped"
)

var infraMarkers = []string{"connection error", "api error 429", "api error 500", "api error 502", "api error 503", "api error 529", "overloaded", "rate limit"}

// Classify gives the verdict, in the reference's order, with three of its
// bugs fixed: a run that read no docs page at all, though it tried, is
// infra_error (no evidence about the docs, even when its check passed); a run that ended in an agent or harness error (or a refusal)
// is never a pass, even when a check would hold in the untouched workspace
// (such runs are not scored at all); and the egress facts are all in the
// trace before this is called.
func Classify(stop, detail string, checkPassed *bool, events []map[string]any) string {
	if stop == StopSkipped {
		return Skipped
	}
	if none, _ := DocsUnreadable(events); none {
		return InfraError
	}
	scored := stop != StopError && stop != StopRefusal
	if scored && checkPassed != nil && *checkPassed {
		return Passed
	}
	switch stop {
	case StopRefusal:
		return AgentRefusal
	case StopError:
		d := strings.ToLower(detail)
		for _, m := range infraMarkers {
			if strings.Contains(d, m) {
				return InfraError
			}
		}
		return HarnessError
	case StopMaxTurns, StopTimeout, StopTokenBudget:
		return BudgetExhausted
	}
	blocked, notListed := false, false
	for _, ev := range events {
		switch ev["type"] {
		case "egress_error":
			return InfraError
		case "egress_blocked":
			blocked = true
			if ev["reason"] == "not_allowlisted" {
				notListed = true
			}
		}
	}
	if blocked && stop == StopCommandFailed || notListed {
		return HarnessError
	}
	return DocsGap
}

// Evidential reports whether a classification counts toward a pass rate.
func Evidential(c string) bool { return c == Passed || c == DocsGap }

// Label is the console label of a classification.
func Label(c string) string {
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
