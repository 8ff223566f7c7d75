package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	qsrun "github.com/tabwright/tabwright/quickstart/run"
)

// Fisher is the two-sided p-value of Fisher's exact test on the 2x2 table
// [[a, b], [c, d]]: the sum of the probabilities of every table with the
// same margins that is no more likely than the one observed. A table with
// an empty margin gives 1.
func Fisher(a, b, c, d int) float64 {
	r1, r2, c1 := a+b, c+d, a+c
	n := r1 + r2
	if r1 == 0 || r2 == 0 || c1 == 0 || c1 == n {
		return 1
	}
	lf := func(k int) float64 { v, _ := math.Lgamma(float64(k) + 1); return v }
	base := lf(r1) + lf(r2) + lf(c1) + lf(n-c1) - lf(n)
	prob := func(x int) float64 {
		return math.Exp(base - lf(x) - lf(r1-x) - lf(c1-x) - lf(r2-c1+x))
	}
	obs := prob(a)
	p := 0.0
	for x := max(0, c1-r2); x <= min(r1, c1); x++ {
		if q := prob(x); q <= obs*(1+1e-7) {
			p += q
		}
	}
	if p > 1-1e-9 {
		return 1
	}
	return p
}

// SmallestReachable is the smallest p-value any outcome of nb runs before
// and na after could give: the two most separated tables. 1 when a side
// has no runs.
func SmallestReachable(nb, na int) float64 {
	if nb == 0 || na == 0 {
		return 1
	}
	return math.Min(Fisher(0, nb, na, 0), Fisher(nb, 0, 0, na))
}

// TaskDiff is one task present in both documents.
type TaskDiff struct {
	Task                      string   `json:"task"`
	PassesBefore, NBefore     int      `json:"-"`
	PassesAfter, NAfter       int      `json:"-"`
	P                         float64  `json:"p"`
	SmallestReachable         float64  `json:"smallest_reachable"`
	Comparable                bool     `json:"comparable"`
	Significant               bool     `json:"significant"`
	Underpowered              bool     `json:"underpowered"`
	Direction                 string   `json:"direction"` // improved, regressed, unchanged, unknown
	Verdict                   string   `json:"verdict"`
	ModelsBefore, ModelsAfter []string `json:"-"`
	Cleared, Appeared         []string `json:"-"`
	DiscardedBefore           map[string]int
	DiscardedAfter            map[string]int
}

// Diff is the comparison of two results documents.
type Diff struct {
	Tasks       []*TaskDiff
	Added       []string // only after
	Removed     []string // only before
	Regressions []string // significant and regressed
}

// Compare matches tasks by name (the after document's order; a later
// duplicate name wins) and tests each change.
func Compare(before, after *qsrun.Suite) *Diff {
	index := func(s *qsrun.Suite) (map[string]*qsrun.Stat, []string) {
		m := map[string]*qsrun.Stat{}
		var order []string
		for _, st := range s.Tasks {
			if _, seen := m[st.Task]; !seen {
				order = append(order, st.Task)
			}
			m[st.Task] = st
		}
		return m, order
	}
	bm, border := index(before)
	am, aorder := index(after)
	d := &Diff{}
	for _, name := range aorder {
		b, ok := bm[name]
		if !ok {
			d.Added = append(d.Added, name)
			continue
		}
		a := am[name]
		td := &TaskDiff{Task: name, PassesBefore: b.Passes, NBefore: b.EvidentialRuns, PassesAfter: a.Passes, NAfter: a.EvidentialRuns,
			ModelsBefore: b.ModelsReported, ModelsAfter: a.ModelsReported, DiscardedBefore: b.Discarded, DiscardedAfter: a.Discarded}
		td.P = Fisher(b.Passes, b.EvidentialRuns-b.Passes, a.Passes, a.EvidentialRuns-a.Passes)
		td.SmallestReachable = SmallestReachable(b.EvidentialRuns, a.EvidentialRuns)
		td.Comparable = !(len(b.ModelsReported) > 0 && len(a.ModelsReported) > 0 && strings.Join(b.ModelsReported, ",") != strings.Join(a.ModelsReported, ","))
		td.Significant = td.Comparable && td.P < 0.05
		td.Underpowered = td.SmallestReachable >= 0.05
		switch {
		case b.EvidentialRuns == 0 || a.EvidentialRuns == 0:
			td.Direction = "unknown"
		default:
			rb := float64(b.Passes) / float64(b.EvidentialRuns)
			ra := float64(a.Passes) / float64(a.EvidentialRuns)
			td.Direction = map[bool]string{true: "improved", false: "regressed"}[ra > rb]
			if ra == rb {
				td.Direction = "unchanged"
			}
		}
		switch {
		case !td.Comparable:
			td.Verdict = "not comparable: a different model served these runs"
		case td.Direction == "unknown":
			td.Verdict = "no evidence on one side"
		case td.Significant:
			td.Verdict = fmt.Sprintf("%s, p=%.3f", td.Direction, td.P)
		case td.Underpowered:
			td.Verdict = fmt.Sprintf("inside the noise, and no result at %d vs %d runs could have cleared p<0.05 (best possible p=%.3f)", td.NBefore, td.NAfter, td.SmallestReachable)
		default:
			td.Verdict = fmt.Sprintf("inside the noise, p=%.3f", td.P)
		}
		td.Cleared = keysMissing(b.SuspectPages, a.SuspectPages)
		td.Appeared = keysMissing(a.SuspectPages, b.SuspectPages)
		if td.Significant && td.Direction == "regressed" {
			d.Regressions = append(d.Regressions, name)
		}
		d.Tasks = append(d.Tasks, td)
	}
	for _, name := range border {
		if _, ok := am[name]; !ok {
			d.Removed = append(d.Removed, name)
		}
	}
	return d
}

func keysMissing(from, in map[string]int) []string {
	var out []string
	for k := range from {
		if _, ok := in[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func side(p, n int) string {
	if n == 0 {
		return "no evidence"
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", p, n, float64(p)/float64(n)*100)
}

// Print writes the comparison for a person.
func (d *Diff) Print(w io.Writer) {
	bar := strings.Repeat("=", 68)
	fmt.Fprintf(w, "\n%s\ntabwright qs diff\n%s\n", bar, bar)
	if len(d.Tasks) == 0 {
		fmt.Fprintln(w, "  no task appears in both documents")
	}
	for _, t := range d.Tasks {
		fmt.Fprintf(w, "  %s\n      %s  ->  %s\n      %s\n", t.Task, side(t.PassesBefore, t.NBefore), side(t.PassesAfter, t.NAfter), t.Verdict)
		if !t.Comparable {
			fmt.Fprintf(w, "      before: %s; after: %s\n", strings.Join(t.ModelsBefore, ", "), strings.Join(t.ModelsAfter, ", "))
		}
		for _, p := range t.Cleared {
			fmt.Fprintf(w, "      no longer failing after: %s\n", p)
		}
		for _, p := range t.Appeared {
			fmt.Fprintf(w, "      newly failing after: %s\n", p)
		}
		if b, a := discardedText(t.DiscardedBefore, "none"), discardedText(t.DiscardedAfter, "none"); b != a {
			fmt.Fprintf(w, "      discarded: %s -> %s\n", b, a)
		}
	}
	for _, n := range d.Added {
		fmt.Fprintf(w, "  %s: new, no earlier run to compare\n", n)
	}
	for _, n := range d.Removed {
		fmt.Fprintf(w, "  %s: gone, present only in the earlier run\n", n)
	}
	fmt.Fprintln(w, bar)
}
