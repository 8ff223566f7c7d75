package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tabwright/tabwright/quickstart/task"
)

// Stat groups the attempts of one task by one agent.
type Stat struct {
	Task           string         `json:"task"`
	Agent          string         `json:"agent"`
	Attempts       int            `json:"attempts"`
	Passes         int            `json:"passes"`
	EvidentialRuns int            `json:"evidential_runs"`
	PassRate       *float64       `json:"pass_rate"`
	Discarded      map[string]int `json:"discarded"`
	Skipped        int            `json:"skipped"`
	ModelsReported []string       `json:"models_reported"`
	SuspectPages   map[string]int `json:"suspect_pages"`
	Tokens         Tokens         `json:"tokens"`
	EstimatedCost  *float64       `json:"estimated_cost_usd"`
	Runs           []*Result      `json:"runs"`
}

// Suite is results.json (schema 2.0 fields, plus tool and exit_rule).
type Suite struct {
	SchemaVersion   string  `json:"schema_version"`
	Tool            string  `json:"tool"`
	ToolVersion     string  `json:"tool_version"`
	GeneratedAt     string  `json:"generated_at"`
	Environment     Env     `json:"environment"`
	Repeat          int     `json:"repeat"`
	Workers         int     `json:"workers"`
	DurationSeconds float64 `json:"duration_seconds"`
	Interrupted     bool    `json:"interrupted"`
	Totals          Totals  `json:"totals"`
	Tasks           []*Stat `json:"tasks"`
	AllPassed       bool    `json:"all_passed"`
	ExitCode        int     `json:"exit_code"`
	// Shard is set when qs run --shard ran part of the suite.
	Shard *ShardInfo `json:"shard,omitempty"`
}

// Env describes where the suite ran.
type Env struct {
	Go       string `json:"go"`
	Platform string `json:"platform"`
	Hostname string `json:"hostname"`
	Backend  string `json:"backend"`
	Enforced bool   `json:"enforced"`
}

// Totals sums the suite.
type Totals struct {
	Runs           int      `json:"runs"`
	Tokens         Tokens   `json:"tokens"`
	EstimatedCost  *float64 `json:"estimated_cost_usd"`
	UnpricedModels []string `json:"unpriced_models"`
}

// SuiteOptions configure a suite.
type SuiteOptions struct {
	Options
	Repeat, Workers int
	Version         string
}

// RunSuite runs every task repeat times on workers goroutines; results keep
// submission order. An interrupted suite keeps the attempts that finished.
func RunSuite(ctx context.Context, tasks []*task.Task, opt SuiteOptions, onRun func(*Result)) *Suite {
	start := time.Now()
	if opt.Repeat < 1 {
		opt.Repeat = 1
	}
	if opt.Workers < 1 {
		opt.Workers = 1
	}
	type job struct {
		t       *task.Task
		attempt int
	}
	var jobs []job
	for _, t := range tasks {
		for a := 1; a <= opt.Repeat; a++ {
			jobs = append(jobs, job{t, a})
		}
	}
	results := make([]*Result, len(jobs))
	done := make([]chan struct{}, len(jobs))
	for i := range done {
		done[i] = make(chan struct{})
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < opt.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() == nil {
					results[i] = Attempt(ctx, jobs[i].t, jobs[i].attempt, opt.Options)
				}
				close(done[i])
			}
		}()
	}
	go func() {
		for i := range jobs {
			next <- i
		}
		close(next)
	}()
	var kept []*Result
	for i := range jobs {
		<-done[i]
		r := results[i]
		if r == nil || ctx.Err() != nil && r.Detail == "interrupted" {
			continue
		}
		kept = append(kept, r)
		if onRun != nil {
			onRun(r)
		}
	}
	wg.Wait()
	s := Summarise(kept)
	s.Repeat, s.Workers, s.ToolVersion = opt.Repeat, opt.Workers, opt.Version
	s.Interrupted = ctx.Err() != nil
	s.DurationSeconds = math.Round(time.Since(start).Seconds()*100) / 100
	s.ExitCode = s.Exit(false)
	return s
}

// Summarise groups runs by (task, agent) in order of first appearance.
func Summarise(runs []*Result) *Suite {
	host, _ := os.Hostname()
	s := &Suite{SchemaVersion: "2.0", Tool: "tabwright", GeneratedAt: time.Now().UTC().Format("2006-01-02T15:04:05Z"),
		Environment: Env{Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Hostname: host, Backend: "local"},
		Totals:      Totals{UnpricedModels: []string{}}, Tasks: []*Stat{}}
	index := map[[2]string]*Stat{}
	for _, r := range runs {
		k := [2]string{r.Task, r.Agent}
		st := index[k]
		if st == nil {
			st = &Stat{Task: r.Task, Agent: r.Agent, Discarded: map[string]int{}, ModelsReported: []string{}, SuspectPages: map[string]int{}}
			index[k] = st
			s.Tasks = append(s.Tasks, st)
		}
		st.Runs = append(st.Runs, r)
		if s.Totals.Runs == 0 {
			s.Environment.Backend, s.Environment.Enforced = r.Backend, r.Enforced
		}
		st.Attempts++
		switch {
		case r.Classification == Skipped:
			st.Skipped++
		case r.Evidential:
			st.EvidentialRuns++
			if r.Passed {
				st.Passes++
			}
		default:
			st.Discarded[r.Classification]++
		}
		if r.SuspectPage != nil {
			st.SuspectPages[*r.SuspectPage]++
		}
		s.Totals.Runs++
	}
	for _, st := range s.Tasks {
		if st.EvidentialRuns > 0 {
			rate := float64(st.Passes) / float64(st.EvidentialRuns)
			st.PassRate = &rate
		}
	}
	return s
}

// Exit is the suite's exit code. The rule (it differs from quickstarted's
// for mixed suites):
//
//	130  interrupted
//	1    a documentation gap: some run finished and its check failed
//	0    no gap, and every task that was not skipped has evidence (all passed)
//	2    no gap, but some task that was not skipped produced no evidence, or
//	     every run was skipped
//
// So a suite where one task passed and another only hit budgets exits 2 (the
// reference said 1, "a documentation gap", though none was seen). strict
// turns that 2 into 1.
func (s *Suite) Exit(strict bool) int {
	if s.Interrupted {
		return 130
	}
	gap, noEvidence, ran := false, false, false
	for _, st := range s.Tasks {
		if st.Passes < st.EvidentialRuns {
			gap = true
		}
		if st.Attempts > st.Skipped {
			ran = true
			if st.EvidentialRuns == 0 {
				noEvidence = true
			}
		}
	}
	s.AllPassed = ran && !gap && !noEvidence
	switch {
	case gap:
		return 1
	case !ran || noEvidence:
		if strict {
			return 1
		}
		return 2
	}
	return 0
}

// WriteFiles writes results.json and, per run, trace.jsonl, transcript.txt
// and check.log under dir, each atomically.
func (s *Suite) WriteFiles(dir string) error {
	for _, st := range s.Tasks {
		for _, r := range st.Runs {
			if err := WriteRunFiles(s.RunDir(dir, r), r); err != nil {
				return err
			}
		}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicWrite(filepath.Join(dir, "results.json"), append(b, '\n'))
}

// WriteRunFiles writes one run's files into dir.
func WriteRunFiles(dir string, r *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := atomicWrite(filepath.Join(dir, "trace.jsonl"), r.Trace.JSONL()); err != nil {
		return err
	}
	if err := atomicWrite(filepath.Join(dir, "transcript.txt"), []byte(Transcript(r.Trace.Events()))); err != nil {
		return err
	}
	if r.SuccessCheck != nil {
		return atomicWrite(filepath.Join(dir, "check.log"), []byte(r.SuccessCheck.full))
	}
	return nil
}

func safeName(n string) string {
	n = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, n)
	if n == "." || n == ".." || n == "" {
		n = "_" + n
	}
	return n
}

func atomicWrite(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp's 0600 is not what a results file needs
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// Transcript renders events as a readable transcript.
func Transcript(events []map[string]any) string {
	var b strings.Builder
	if len(events) == 0 {
		return ""
	}
	t0, _ := events[0]["ts"].(float64)
	for _, ev := range events {
		ts, _ := ev["ts"].(float64)
		line := ""
		switch ev["type"] {
		case "run_start":
			enf := "UNENFORCED"
			if ev["enforced"] == true {
				enf = "enforced"
			}
			line = fmt.Sprintf("%v on %v (%s), agent %v, attempt %v", ev["task"], ev["backend"], enf, ev["agent"], ev["attempt"])
		case "egress_blocked":
			line = fmt.Sprintf("blocked from the shell: %v (%v)", ev["host"], ev["reason"])
		case "setup":
			line = fmt.Sprintf("setup: %v  -> exit %v", ev["command"], ev["exit_code"])
		case "docs_read":
			line = fmt.Sprintf("read %v (%v chars, sha256 %v)", ev["url"], ev["chars"], ev["content_hash"])
			if ev["from_cache"] == true {
				line += " (cached)"
			}
		case "docs_read_blocked":
			line = fmt.Sprintf("BLOCKED %v (%v)", ev["url"], ev["reason"])
		case "docs_read_error":
			line = fmt.Sprintf("READ ERROR %v: %v", ev["url"], ev["error"])
		case "tool_call":
			if ev["tool"] == "bash" {
				line = fmt.Sprintf("$ %v", ev["command"])
			}
		case "tool_result":
			line = fmt.Sprintf("  exit %v", ev["exit_code"])
			if ev["timed_out"] == true {
				line += " (timed out)"
			}
			line += indent(fmt.Sprint(ev["output"]))
		case "success_check":
			line = fmt.Sprintf("success check exited %v", ev["exit_code"]) + indent(fmt.Sprint(ev["output"]))
		case "run_end":
			line = fmt.Sprintf("%v (stop reason: %v)", ev["classification"], ev["stop_reason"])
		}
		if line != "" {
			fmt.Fprintf(&b, "[%6.1fs] %s\n", ts-t0, line)
		}
	}
	return b.String()
}

func indent(out string) string {
	out = strings.TrimRight(out, "\n")
	if out == "" {
		return ""
	}
	return "\n           | " + strings.ReplaceAll(out, "\n", "\n           | ")
}

// PrintRun prints the per-run block.
func PrintRun(w io.Writer, r *Result) {
	fmt.Fprintf(w, "[%s] %s (%s)\n", Label(r.Classification), r.Task, r.Agent)
	fmt.Fprintf(w, "  classification: %s\n", r.Classification)
	stop := r.StopReason
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
	fmt.Fprintf(w, "  wall clock: %.1fs\n%s\n", s.DurationSeconds, bar)
}
