package run

import (
	"context"
	"encoding/json"
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
	Task           string           `json:"task"`
	Agent          string           `json:"agent"`
	Attempts       int              `json:"attempts"`
	Passes         int              `json:"passes"`
	EvidentialRuns int              `json:"evidential_runs"`
	PassRate       *float64         `json:"pass_rate"`
	Discarded      map[string]int   `json:"discarded"`
	Skipped        int              `json:"skipped"`
	ModelsReported []string         `json:"models_reported"`
	SuspectPages   map[string]int   `json:"suspect_pages"`
	Tokens         Tokens           `json:"tokens"`
	EstimatedCost  *float64         `json:"estimated_cost_usd"`
	Runs           []*AttemptResult `json:"runs"`
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
	// MaxCostUSD is --max-cost-usd (0: none); StoppedAtCost says the suite
	// stopped starting attempts because the estimate reached it.
	MaxCostUSD    float64  `json:"max_cost_usd,omitempty"`
	StoppedAtCost bool     `json:"stopped_at_cost"`
	Totals        Totals   `json:"totals"`
	Tasks         []*Stat  `json:"tasks"`
	AllPassed     bool     `json:"all_passed"`
	ExitCode      ExitCode `json:"exit_code"`
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
	Prices          Prices  // nil: no cost estimates
	MaxCostUSD      float64 // stop starting attempts once the estimate reaches it; 0: no cap
}

// RunSuite runs every task repeat times on workers goroutines; results keep
// submission order. An interrupted suite keeps the attempts that finished.
func RunSuite(ctx context.Context, tasks []*task.Task, opt SuiteOptions, onRun func(*AttemptResult)) *Suite {
	start := time.Now()
	if opt.Repeat < 1 {
		opt.Repeat = 1
	}
	if opt.Workers < 1 {
		opt.Workers = 1
	}
	sc := newScheduler(tasks, opt)
	var wg sync.WaitGroup
	for w := 0; w < opt.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc.work(ctx)
		}()
	}
	go sc.dispatch()
	kept := sc.collect(ctx, onRun)
	wg.Wait()
	s := Summarise(kept)
	s.Repeat, s.Workers, s.ToolVersion = opt.Repeat, opt.Workers, opt.Version
	s.Interrupted = ctx.Err() != nil
	sc.mu.Lock()
	s.MaxCostUSD, s.StoppedAtCost = opt.MaxCostUSD, sc.stopped
	sc.mu.Unlock()
	s.DurationSeconds = math.Round(time.Since(start).Seconds()*100) / 100
	s.ExitCode = s.Exit(false)
	return s
}

// job is one attempt of one task.
type job struct {
	t       *task.Task
	attempt int
}

// scheduler hands a suite's jobs to its workers one at a time, so the cost
// cap is checked before each attempt starts, with every finished attempt
// counted; done[i] closes when job i finished or will not run.
type scheduler struct {
	opt     SuiteOptions
	jobs    []job
	results []*AttemptResult
	done    []chan struct{}
	// A worker says it is free (ready) before it is given a job (next);
	// stop ends the workers waiting to say so.
	next  chan int
	ready chan struct{}
	stop  chan struct{}

	mu      sync.Mutex
	spent   float64
	stopped bool // at the cost cap
}

func newScheduler(tasks []*task.Task, opt SuiteOptions) *scheduler {
	sc := &scheduler{opt: opt, next: make(chan int), ready: make(chan struct{}), stop: make(chan struct{})}
	for _, t := range tasks {
		for a := 1; a <= opt.Repeat; a++ {
			sc.jobs = append(sc.jobs, job{t, a})
		}
	}
	sc.results = make([]*AttemptResult, len(sc.jobs))
	sc.done = make([]chan struct{}, len(sc.jobs))
	for i := range sc.done {
		sc.done[i] = make(chan struct{})
	}
	return sc
}

// work runs jobs until there are none left or the dispatcher stopped.
func (sc *scheduler) work(ctx context.Context) {
	for {
		select {
		case sc.ready <- struct{}{}:
		case <-sc.stop:
			return
		}
		i, ok := <-sc.next
		if !ok {
			return
		}
		if ctx.Err() == nil {
			sc.results[i] = sc.attempt(ctx, sc.jobs[i])
		}
		close(sc.done[i])
	}
}

// attempt runs j, prices it and counts its cost.
func (sc *scheduler) attempt(ctx context.Context, j job) *AttemptResult {
	r := Attempt(ctx, j.t, j.attempt, sc.opt.Options)
	sc.opt.Prices.price(r)
	if r.EstimatedCost != nil {
		sc.mu.Lock()
		sc.spent += *r.EstimatedCost
		sc.mu.Unlock()
	}
	return r
}

// dispatch hands out the jobs in order to free workers; at the cost cap
// the rest are marked done, unrun.
func (sc *scheduler) dispatch() {
	defer close(sc.stop)
	for i := range sc.jobs {
		<-sc.ready
		if sc.overBudget() {
			for j := i; j < len(sc.jobs); j++ {
				close(sc.done[j])
			}
			break
		}
		sc.next <- i
	}
	close(sc.next)
}

func (sc *scheduler) overBudget() bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.stopped = sc.opt.MaxCostUSD > 0 && sc.spent >= sc.opt.MaxCostUSD
	return sc.stopped
}

// collect waits for the jobs in submission order and keeps those that ran
// to an end (not cut short by an interruption), telling onRun of each.
func (sc *scheduler) collect(ctx context.Context, onRun func(*AttemptResult)) []*AttemptResult {
	var kept []*AttemptResult
	for i := range sc.jobs {
		<-sc.done[i]
		r := sc.results[i]
		if r == nil || ctx.Err() != nil && r.Detail == "interrupted" {
			continue
		}
		kept = append(kept, r)
		if onRun != nil {
			onRun(r)
		}
	}
	return kept
}

// Summarise groups runs by (task, agent) in order of first appearance.
func Summarise(runs []*AttemptResult) *Suite {
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
			st.Discarded[string(r.Classification)]++
		}
		if r.SuspectPage != nil {
			st.SuspectPages[*r.SuspectPage]++
		}
		s.Totals.Runs++
		account(s, st, r)
	}
	for _, st := range s.Tasks {
		if st.EvidentialRuns > 0 {
			rate := float64(st.Passes) / float64(st.EvidentialRuns)
			st.PassRate = &rate
		}
		sort.Strings(st.ModelsReported)
	}
	sort.Strings(s.Totals.UnpricedModels)
	return s
}

// account adds r's tokens, model and cost to its stat and the totals.
// A stat's cost sums its priced runs (null when none was priced); models
// whose runs used tokens but had no price are listed.
func account(s *Suite, st *Stat, r *AttemptResult) {
	st.Tokens.Add(r.Tokens)
	s.Totals.Tokens.Add(r.Tokens)
	if m := r.ModelReported; m != "" && !contains(st.ModelsReported, m) {
		st.ModelsReported = append(st.ModelsReported, m)
	}
	if r.EstimatedCost != nil {
		st.EstimatedCost = addCost(st.EstimatedCost, *r.EstimatedCost)
		s.Totals.EstimatedCost = addCost(s.Totals.EstimatedCost, *r.EstimatedCost)
		return
	}
	if r.Tokens.Total() > 0 {
		m := r.ModelReported
		if m == "" {
			m = r.Agent
		}
		if !contains(s.Totals.UnpricedModels, m) {
			s.Totals.UnpricedModels = append(s.Totals.UnpricedModels, m)
		}
	}
}

func addCost(sum *float64, c float64) *float64 {
	v := c
	if sum != nil {
		v += *sum
	}
	return &v
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// Exit is the suite's exit code. The rule (it differs from quickstarted's
// for mixed suites):
//
//	130  interrupted, or stopped at --max-cost-usd
//	1    a documentation gap: some run finished and its check failed
//	0    no gap, and every task that was not skipped has evidence (all passed)
//	2    no gap, but some task that was not skipped produced no evidence, or
//	     every run was skipped
//
// So a suite where one task passed and another only hit budgets exits 2 (the
// reference said 1, "a documentation gap", though none was seen). strict
// turns that 2 into 1.
func (s *Suite) Exit(strict bool) ExitCode {
	if s.Interrupted || s.StoppedAtCost {
		return ExitInterrupted
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
		return ExitFailed
	case !ran || noEvidence:
		if strict {
			return ExitFailed
		}
		return ExitNoEvidence
	}
	return ExitOK
}

// WriteFiles writes results.json and, per run, trace.jsonl, transcript.txt,
// check.log and the docs pages it read (PagesDir) under dir, each
// atomically.
func (s *Suite) WriteFiles(dir string) error {
	for _, st := range s.Tasks {
		for _, r := range st.Runs {
			if err := WriteRunFiles(s.RunDir(dir, r), r); err != nil {
				return err
			}
			if err := writePages(dir, r); err != nil {
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
func WriteRunFiles(dir string, r *AttemptResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := atomicWrite(filepath.Join(dir, "trace.jsonl"), r.Trace.JSONL()); err != nil {
		return err
	}
	if err := atomicWrite(filepath.Join(dir, "transcript.txt"), []byte(Transcript(r.Trace.Events(), false))); err != nil {
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
	if n == "." || n == ".." || n == "" || n == PagesDir {
		n = "_" + n // a task named pages keeps its runs out of the pages folder
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
