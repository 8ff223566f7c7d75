//go:build realapps

package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// printTable writes one row per task with each server's verdict, then the
// totals, the median characters read per task run and the wall time, then
// every distinct failure in full.
func printTable(w io.Writer, rep report, selected []app, servers []string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "app\ttask\t%s\n", strings.Join(servers, "\t"))
	for _, a := range selected {
		for _, t := range a.Tasks {
			cells := []string{a.Name, t.ID}
			for _, s := range servers {
				cells = append(cells, cell(runsOf(rep, s, a.Name, t.ID)))
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
	}
	row := func(label string, f func(os []outcome, s string) string) {
		cells := []string{label, ""}
		for _, s := range servers {
			cells = append(cells, f(serverRuns(rep, s), s))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	fmt.Fprintln(tw)
	row("passed", func(os []outcome, _ string) string { return fmt.Sprintf("%d/%d", passed(os), len(os)) })
	row("median chars/task", func(os []outcome, _ string) string { return fmt.Sprint(median(os, false)) })
	row("median chars/passed", func(os []outcome, _ string) string { return fmt.Sprint(median(os, true)) })
	common := passedByAll(rep, servers)
	row(fmt.Sprintf("median chars, %d tasks all passed", len(common)), func(os []outcome, _ string) string {
		var in []outcome
		for _, o := range os {
			if common[o.App+"/"+o.Task] {
				in = append(in, o)
			}
		}
		return fmt.Sprint(median(in, true))
	})
	row("wall time", func(_ []outcome, s string) string {
		return (time.Duration(rep.WallMS[s]) * time.Millisecond).Round(100 * time.Millisecond).String()
	})
	tw.Flush()
	printFailures(w, rep)
}

// passedByAll is the set of tasks (app/task) that every server passed at
// least once: the fair ground to compare what each read.
func passedByAll(rep report, servers []string) map[string]bool {
	passes := map[string]map[string]bool{}
	for _, o := range rep.Outcomes {
		if o.Pass {
			k := o.App + "/" + o.Task
			if passes[k] == nil {
				passes[k] = map[string]bool{}
			}
			passes[k][o.Server] = true
		}
	}
	out := map[string]bool{}
	for k, by := range passes {
		if len(by) == len(servers) {
			out[k] = true
		}
	}
	return out
}

func runsOf(rep report, server, a, t string) []outcome {
	var out []outcome
	for _, o := range rep.Outcomes {
		if o.Server == server && o.App == a && o.Task == t {
			out = append(out, o)
		}
	}
	return out
}

func serverRuns(rep report, server string) []outcome {
	var out []outcome
	for _, o := range rep.Outcomes {
		if o.Server == server {
			out = append(out, o)
		}
	}
	return out
}

// cell is "pass", "FAIL <why>" for one run, or "k/n <first why>" for more.
func cell(os []outcome) string {
	if len(os) == 0 {
		return "-"
	}
	p := passed(os)
	why := ""
	for _, o := range os {
		if !o.Pass {
			why = " " + short(o.Reason)
			break
		}
	}
	if len(os) == 1 {
		if p == 1 {
			return "pass"
		}
		return "FAIL" + why
	}
	return fmt.Sprintf("%d/%d%s", p, len(os), why)
}

// short keeps the start of a reason, which says the step and the kind.
func short(reason string) string { return oneLine(reason, 60) }

func passed(os []outcome) int {
	n := 0
	for _, o := range os {
		if o.Pass {
			n++
		}
	}
	return n
}

func median(os []outcome, onlyPassed bool) int {
	var xs []int
	for _, o := range os {
		if o.Pass || !onlyPassed {
			xs = append(xs, o.Chars)
		}
	}
	if len(xs) == 0 {
		return 0
	}
	sort.Ints(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

// printFailures writes one line per failing server and task: how many of
// its runs failed, and the first failure's reason in full.
func printFailures(w io.Writer, rep report) {
	type key struct{ server, app, task string }
	var order []key
	first := map[key]string{}
	count := map[key]int{}
	for _, o := range rep.Outcomes {
		if o.Pass {
			continue
		}
		k := key{o.Server, o.App, o.Task}
		if count[k] == 0 {
			order = append(order, k)
			first[k] = o.Reason
		}
		count[k]++
	}
	if len(order) > 0 {
		fmt.Fprintln(w, "\nfailures (runs failed, the first one's reason):")
	}
	for _, k := range order {
		fmt.Fprintf(w, "  %s %s/%s (%d): %s\n", k.server, k.app, k.task, count[k], first[k])
	}
}
