package report

import (
	"fmt"
	"strings"

	qsrun "github.com/tabwright/tabwright/quickstart/run"
)

// costRow is one task's tokens, models and estimated cost.
type costRow struct {
	Task, Agent, Tokens, Models, Cost string
}

// costRows are the rows of the tokens table, or nil when no run used a
// token (replay only).
func costRows(s *qsrun.Suite) []costRow {
	if s.Totals.Tokens.Total() == 0 {
		return nil
	}
	var rows []costRow
	for _, st := range s.Tasks {
		rows = append(rows, costRow{st.Task, st.Agent, tokensText(st.Tokens), strings.Join(st.ModelsReported, ", "), costText(st.EstimatedCost)})
	}
	t := s.Totals
	rows = append(rows, costRow{"all", "", tokensText(t.Tokens), "", costText(t.EstimatedCost)})
	return rows
}

func tokensText(t qsrun.Tokens) string {
	return fmt.Sprintf("%d in / %d out, cache %d written / %d read", t.Input, t.Output, t.CacheWrite, t.CacheRead)
}

func costText(c *float64) string {
	if c == nil {
		return "no price"
	}
	return fmt.Sprintf("$%.4f", *c)
}

// unpricedNote says which models had tokens but no price, or "".
func unpricedNote(s *qsrun.Suite) string {
	if len(s.Totals.UnpricedModels) == 0 {
		return ""
	}
	return "No price for " + strings.Join(s.Totals.UnpricedModels, ", ") + ", so their tokens are not in any cost figure (qs run --prices FILE)."
}

// costMarkdown is the Markdown tokens table, or "".
func costMarkdown(s *qsrun.Suite) string {
	rows := costRows(s)
	if rows == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Tokens and cost\n\n| Task | Agent | Tokens | Models served | Estimated cost |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mdCell(r.Task), mdCell(r.Agent), r.Tokens, mdCell(r.Models), r.Cost)
	}
	if n := unpricedNote(s); n != "" {
		b.WriteString("\n" + n + "\n")
	}
	if s.StoppedAtCost {
		fmt.Fprintf(&b, "\n**Stopped at the cost cap** ($%.2f): attempts that never started are absent, not failed.\n", s.MaxCostUSD)
	}
	return b.String()
}
