package run

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// PrintRun prints the per-run block.
func PrintRun(w io.Writer, r *AttemptResult) {
	fmt.Fprintf(w, "[%s] %s (%s)\n", Label(r.Classification), r.Task, r.Agent)
	fmt.Fprintf(w, "  classification: %s\n", r.Classification)
	stop := string(r.StopReason)
	if r.Detail != "" {
		stop += " (" + r.Detail + ")"
	}
	fmt.Fprintf(w, "  stop reason: %s\n", stop)
	fmt.Fprintf(w, "  turns: %d, duration: %.1fs\n", r.Turns, r.Duration.Seconds())
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	if r.Enforced {
		fmt.Fprintf(w, "  backend: %s  [enforced]\n", r.Backend)
	} else {
		fmt.Fprintf(w, "  backend: %s  [UNENFORCED: policy is advisory here; the proxy records what goes through it]\n", r.Backend)
	}
	if r.EgressBlocked > 0 {
		fmt.Fprintf(w, "  blocked from the shell: %d request(s)\n", r.EgressBlocked)
	}
	if line := tokensLine(r.Tokens); line != "" {
		if r.EstimatedCost != nil {
			line += fmt.Sprintf(", estimated $%.4f", *r.EstimatedCost)
		}
		fmt.Fprintf(w, "  tokens: %s\n", line)
	}
	if r.ModelReported != "" {
		fmt.Fprintf(w, "  model served: %s\n", r.ModelReported)
	}
	if n := len(r.DocsPagesRead); n > 0 {
		fmt.Fprintf(w, "  docs pages read: %d\n", n)
	}
	if c := r.SuccessCheck; c != nil && c.ExitCode != 0 {
		last := lastLine(c.full)
		if last != "" {
			fmt.Fprintf(w, "  success check exit code: %d (%s)\n", c.ExitCode, last)
		} else {
			fmt.Fprintf(w, "  success check exit code: %d\n", c.ExitCode)
			fmt.Fprintln(w, "  note: the check printed nothing, so this failure cannot be diagnosed. Have it say what it saw.")
		}
	}
	if r.Classification == DocsGap && r.SuspectPage != nil {
		fmt.Fprintf(w, "  last docs page read before failure: %s\n", *r.SuspectPage)
	}
	if r.Sandbox != "" {
		fmt.Fprintf(w, "  sandbox kept at: %s\n", r.Sandbox)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n "), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return strings.TrimSpace(lines[i])
		}
	}
	return ""
}

// PrintSummary prints the suite summary.
func PrintSummary(w io.Writer, s *Suite, ntasks int) {
	bar := strings.Repeat("=", 62)
	fmt.Fprintf(w, "\n%s\nSuite: %d task(s), repeat=%d, workers=%d\n", bar, ntasks, s.Repeat, s.Workers)
	if s.Interrupted {
		fmt.Fprintln(w, "  INTERRUPTED: these are the runs that finished. Attempts that never started are absent, not failed.")
	}
	for _, st := range s.Tasks {
		if st.Skipped > 0 && st.EvidentialRuns == 0 && st.Skipped == st.Attempts {
			fmt.Fprintf(w, "  %s (%s): skipped, no replay commands\n", st.Task, st.Agent)
			continue
		}
		rate := "no evidence"
		if st.PassRate != nil {
			rate = fmt.Sprintf("%.0f%%", *st.PassRate*100)
		}
		fmt.Fprintf(w, "  %s (%s): pass rate %s [%d/%d evidential of %d run(s)]\n", st.Task, st.Agent, rate, st.Passes, st.EvidentialRuns, st.Attempts)
		if len(st.ModelsReported) > 1 {
			fmt.Fprintf(w, "      WARNING: more than one model served this task (%s); do not compare these runs\n", strings.Join(st.ModelsReported, ", "))
		}
		if len(st.Discarded) > 0 {
			var parts []string
			for k, v := range st.Discarded {
				parts = append(parts, fmt.Sprintf("%s=%d", k, v))
			}
			sort.Strings(parts)
			fmt.Fprintf(w, "      discarded: %s\n", strings.Join(parts, ", "))
		}
		type pc struct {
			p string
			n int
		}
		var pages []pc
		for p, n := range st.SuspectPages {
			pages = append(pages, pc{p, n})
		}
		sort.Slice(pages, func(i, j int) bool {
			return pages[i].n > pages[j].n || pages[i].n == pages[j].n && pages[i].p < pages[j].p
		})
		for i, p := range pages {
			if i == 3 {
				break
			}
			fmt.Fprintf(w, "      failed after: %s (%dx)\n", p.p, p.n)
		}
	}
	printCost(w, s)
	fmt.Fprintf(w, "  wall clock: %.1fs\n%s\n", s.DurationSeconds, bar)
}

// printCost prints the suite's tokens, estimated cost, what could not be
// priced, and the cost cap if it stopped the suite.
func printCost(w io.Writer, s *Suite) {
	t := s.Totals
	if t.Tokens.Total() > 0 {
		fmt.Fprintf(w, "  tokens: %d in / %d out, cache %d written / %d read\n", t.Tokens.Input, t.Tokens.Output, t.Tokens.CacheWrite, t.Tokens.CacheRead)
	}
	if t.EstimatedCost != nil {
		fmt.Fprintf(w, "  estimated cost: $%.4f\n", *t.EstimatedCost)
	}
	if len(t.UnpricedModels) > 0 {
		fmt.Fprintf(w, "  no price for %s, so their tokens are not in any cost figure\n", strings.Join(t.UnpricedModels, ", "))
	}
	if s.StoppedAtCost {
		fmt.Fprintf(w, "  STOPPED AT THE COST CAP ($%.2f): these are the runs that finished; attempts that never started are absent, not failed.\n", s.MaxCostUSD)
	}
}

// tokensLine is "<in> in / <out> out[, cache <w> written / <r> read]", or
// "" when every counter is zero.
func tokensLine(t Tokens) string {
	var parts []string
	if t.Input > 0 || t.Output > 0 {
		parts = append(parts, fmt.Sprintf("%d in / %d out", t.Input, t.Output))
	}
	if t.CacheWrite > 0 || t.CacheRead > 0 {
		parts = append(parts, fmt.Sprintf("cache %d written / %d read", t.CacheWrite, t.CacheRead))
	}
	return strings.Join(parts, ", ")
}
