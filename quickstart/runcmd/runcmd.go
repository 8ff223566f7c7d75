// Package runcmd owns `qs run` as a command: the order in which read_docs'
// browser warms, the tasks load, a shard is chosen, the backend is chosen,
// the caches open, the suite runs and its results are written. The CLI
// parses flags into a Config and calls Run; nothing else decides that order.
package runcmd

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/egress"
	"github.com/tabwright/tabwright/quickstart/examples"
	"github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
)

// Config is qs run's flags once parsed and checked.
type Config struct {
	Paths   []string // task files or folders; none: discovered
	Example string   // bundled examples, comma-separated (then no Paths)
	Image   string   // quickstarted's --image: for the tasks that name none
	Shard   string   // "I/N", or "" for every task
	// GitHubSummary appends the suite's Markdown to $GITHUB_STEP_SUMMARY.
	GitHubSummary bool

	Backend         string // auto, sandbox, container or local
	AllowUnenforced bool
	WorkspaceBytes  int64 // run.Options.WorkspaceBytes
	KeepSandbox     bool

	Repeat, Workers int
	Out, JUnit      string
	Quiet, Verbose  bool
	Strict          bool // --strict-inconclusive

	Agent      agent.Agent
	Book       run.Book
	MaxCostUSD float64
	CapFlag    string // the cost cap's flag as typed, for messages
	// AgentTools makes an attempt's extra tools (+browser); nil: none.
	AgentTools func(ctx context.Context, t *task.Task, sb *sandbox.Sandbox, tr *run.Trace) (agent.ExtraTools, func(), error)

	Docs    Docs
	Version string
	// DocsBrowser gives read_docs its browser and the function that lets
	// it go (tests share one); nil starts one.
	DocsBrowser func() (*docs.Browser, func(), error)
}

// Docs is how read_docs reads (the docs cache, manners, affordances) and
// the registry cache.
type Docs struct {
	CacheDir, RegistryCache, Affordances  string
	Refresh, Offline, IgnoreRobots, Probe bool
	RateLimit                             time.Duration
}

// Run runs qs run as cfg says and returns the process's exit code.
func Run(ctx context.Context, cfg Config, stdout, stderr io.Writer) run.ExitCode {
	c := &command{cfg: cfg, stdout: stdout, stderr: stderr}
	defer c.close()
	if code := c.startDocs(ctx); code != run.ExitOK {
		return code
	}
	if code := c.prepare(ctx); code != run.ExitOK {
		return code
	}
	return c.runSuite(ctx)
}

// command is one qs run: what its steps made, and what it closes.
type command struct {
	cfg            Config
	stdout, stderr io.Writer
	closers        []func() // in reverse order

	reader  *docs.Reader
	tasks   []*task.Task
	invalid int
	shard   *run.ShardInfo
	backend string
	runtime *sandbox.Runtime
	cache   *egress.Cache
}

func (c *command) close() {
	for i := len(c.closers) - 1; i >= 0; i-- {
		c.closers[i]()
	}
}

// startDocs starts read_docs' browser now, while the tasks load and the
// backend is chosen, rather than at the first read.
func (c *command) startDocs(ctx context.Context) run.ExitCode {
	start := c.cfg.DocsBrowser
	if start == nil {
		start = newDocsBrowser
	}
	b, release, err := start()
	if err != nil {
		fmt.Fprintf(c.stderr, "read_docs needs a browser: %v\n", err)
		return run.ExitUsage
	}
	r := c.cfg.Docs.reader(b)
	c.reader = r
	warmCtx, stopWarm := context.WithCancel(ctx) // a usage error below does not wait for the browser
	warmed := make(chan struct{})
	go func() {
		defer close(warmed)
		r.Warm(warmCtx, nil, nil)
	}()
	c.closers = append(c.closers, func() {
		stopWarm()
		<-warmed
		r.Close()
		release()
	})
	return run.ExitOK
}

func newDocsBrowser() (*docs.Browser, func(), error) {
	b, err := docs.NewBrowser()
	if err != nil {
		return nil, nil, err
	}
	return b, b.Close, nil
}

// prepare loads the tasks, keeps this shard's, chooses the backend and
// opens the caches.
func (c *command) prepare(ctx context.Context) run.ExitCode {
	docsURL := ""
	if c.cfg.Example != "" {
		srv := examples.Server()
		c.closers = append(c.closers, srv.Close)
		docsURL = srv.URL
	}
	tasks, invalid, code := LoadTasks(c.cfg.Paths, c.cfg.Example, docsURL, c.stdout, c.stderr)
	if code != run.ExitOK {
		return code
	}
	c.invalid = invalid
	ApplyImage(tasks, c.cfg.Image)
	if c.tasks, c.shard, code = selectShard(tasks, c.cfg.Shard, c.stdout, c.stderr); code != run.ExitOK || len(c.tasks) == 0 && c.shard == nil {
		return run.ExitUsage
	}
	if c.backend, c.runtime, code = chooseBackends(ctx, c.cfg.Backend, c.cfg.AllowUnenforced, anyImage(c.tasks), c.stdout, c.stderr); code != run.ExitOK {
		return code
	}
	c.cache, code = c.cfg.Docs.openCaches(c.reader, c.backend, c.stdout, c.stderr)
	return code
}

// runSuite runs the attempts, then decides the exit code and writes the
// results last, once that code is known, so results.json says it.
func (c *command) runSuite(ctx context.Context) run.ExitCode {
	cfg := c.cfg
	printRunHeader(c.stdout, cfg.Agent.Name(), cfg.Book, cfg.Verbose)
	suite := run.RunSuite(ctx, c.tasks, c.suiteOptions(), func(r *run.AttemptResult) { run.PrintRun(c.stdout, r) })
	run.PrintSummary(c.stdout, suite, len(c.tasks))
	suite.Shard = c.shard
	code := runExit(suite, cfg.Strict, c.shard != nil && len(c.tasks) == 0, c.invalid, cfg.CapFlag, c.stderr)
	if ci := ciAfter(suite, cfg.GitHubSummary, c.stdout, c.stderr); ci != run.ExitOK {
		code = ci
	}
	suite.ExitCode = code
	if w := writeResults(suite, cfg.Out, cfg.JUnit, c.stdout, c.stderr); w != run.ExitOK {
		return w
	}
	return code
}

func (c *command) suiteOptions() run.SuiteOptions {
	cfg := c.cfg
	opt := run.SuiteOptions{Repeat: cfg.Repeat, Workers: cfg.Workers, Version: cfg.Version, Prices: cfg.Book.Prices, MaxCostUSD: cfg.MaxCostUSD, Options: run.Options{
		Docs: c.reader, KeepSandbox: cfg.KeepSandbox, ExpectBrowser: &launch.Options{}, Backend: c.backend, Runtime: c.runtime, Cache: c.cache, Agent: cfg.Agent,
		ProbeAffordances: cfg.Docs.Probe, WorkspaceBytes: cfg.WorkspaceBytes, AgentTools: cfg.AgentTools,
	}}
	if !cfg.Quiet {
		multi := len(c.tasks) > 1 || cfg.Workers > 1
		opt.OnEvent = progressPrinter(c.stdout, multi, cfg.Verbose)
	}
	return opt
}

// ApplyImage gives image to the tasks that name none.
func ApplyImage(tasks []*task.Task, image string) {
	if image == "" {
		return
	}
	for _, t := range tasks {
		if t.Image == "" {
			t.Image = image
		}
	}
}
