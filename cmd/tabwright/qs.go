package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/quickstart/check"
	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/examples"
	qsrun "github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
)

const qsUsage = `tabwright qs: can a reader get through the quickstart using only the docs?

Usage:
  tabwright qs validate [TASK|DIR ...] [--check-urls]     check task files, strictly, and lint them
  tabwright qs run [TASK|DIR ...] [--backend auto|sandbox|container|local] [--image IMAGE] [--allow-unenforced] [--out DIR]
                   [--repeat N] [--workers N] [--junit PATH] [--example NAME] [--keep-sandbox]
                   [--quiet] [--verbose] [--strict-inconclusive] [--cache-dir DIR [--refresh|--offline]]
                   [--registry-cache DIR] [--rate-limit S] [--ignore-robots] [--affordances all|none]
                   [--probe-affordances] [--shard I/N] [--github-summary]
                   [--agent replay|claude[:MODEL]|openai:MODEL|gemini:MODEL] [--base-url URL]
                   [--api-key-env NAME] [--agent-tools +browser] [--prices FILE] [--max-cost-usd N]
                                                          run tasks with an agent (sandbox backend
                                                          where bubblewrap works; a task with image: in it
                                                          on Docker or Podman; local needs --allow-unenforced;
                                                          --cache-dir is the docs cache, --registry-cache keeps
                                                          registry downloads between runs)
  tabwright qs check TASK (--sandbox DIR | --show)        re-run only the success check in a kept workspace
  tabwright qs examples                                   list the bundled examples (qs run --example NAME)
  tabwright qs report RESULTS [--out PATH] [--markdown]   an HTML page (or Markdown) from results.json or its directory
  tabwright qs report --merge DIR... --out DIR          join the results of qs run --shard I/N into one results directory
  tabwright qs diff BEFORE AFTER [--fail-on-regression]   per-task change between two results, with Fisher's exact test
  tabwright qs show TRACE [--verbose]                     a run's story from its trace.jsonl (or its directory)
  tabwright qs init DOCS-URL [--name N] [--out PATH] [--force]
                                                          write a starter task file for a docs page
  tabwright qs schema                                     print the task file's JSON Schema
  tabwright qs doctor [--prices FILE]                     tabwright doctor: this machine's browser, backends and price book

With no TASK: tasks/*.yaml, else ./*.yaml. tabwright.yaml or quickstarted.yaml (here or in a
parent) gives tasks: defaults merged under every task.

` + exitTable

// runQS is `tabwright qs SUBCOMMAND ...`; it returns the process's exit
// code.
func runQS(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return int(dispatchQS(ctx, args, stdout, stderr))
}

func dispatchQS(ctx context.Context, args []string, stdout, stderr io.Writer) exitCode {
	if len(args) == 0 {
		fmt.Fprint(stderr, qsUsage)
		return exitUsage
	}
	switch args[0] {
	case "validate":
		return qsValidate(ctx, args[1:], stdout, stderr)
	case "run":
		return qsRun(ctx, args[1:], stdout, stderr)
	case "check":
		return qsCheck(ctx, args[1:], stdout, stderr)
	case "examples":
		return qsExamples(stdout)
	case "report":
		return qsReport(args[1:], stdout, stderr)
	case "diff":
		return qsDiff(args[1:], stdout, stderr)
	case "show":
		return qsShow(args[1:], stdout, stderr)
	case "init":
		return qsInit(args[1:], stdout, stderr)
	case "schema":
		return qsSchema(stdout, stderr)
	case "doctor":
		// quickstarted's doctor is tabwright's: one check of the machine.
		return exitCode(runDoctor(args[1:], stdout, stderr))
	case "help", "-h", "--help":
		fmt.Fprint(stdout, qsUsage)
		return exitOK
	}
	hint := ""
	if n := task.Nearest(args[0], []string{"validate", "run", "check", "examples", "report", "diff", "init", "schema", "show", "doctor"}); n != "" {
		hint = fmt.Sprintf("; did you mean %q?", n)
	}
	fmt.Fprintf(stderr, "tabwright qs: unknown subcommand %q%s\n\n%s", args[0], hint, qsUsage)
	return exitUsage
}

// parseInterspersed parses flags anywhere among the positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			suggestFlag(fs, err)
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// loadTasks resolves paths (or discovers tasks), loads the config, and
// loads every task; invalid ones are printed. With example (a comma list of
// bundled examples) the paths must be empty, and the examples' docs are at
// docsURL.
func loadTasks(paths []string, example, docsURL string, stdout, stderr io.Writer) (tasks []*task.Task, invalid int, code exitCode) {
	if example != "" {
		if len(paths) > 0 {
			fmt.Fprintln(stderr, "give either --example or task files, not both")
			return nil, 0, exitUsage
		}
		for _, name := range strings.Split(example, ",") {
			t, err := examples.Load(strings.TrimSpace(name), docsURL)
			if err != nil {
				fmt.Fprintln(stderr, exampleError(strings.TrimSpace(name), err))
				return nil, 0, exitUsage
			}
			tasks = append(tasks, t)
		}
		return tasks, 0, 0
	}
	cfg, err := task.FindConfig(".")
	if err != nil {
		fmt.Fprintf(stderr, "config: %v\n", err)
		return nil, 0, exitUsage
	}
	if len(paths) == 0 {
		paths = task.Discover(".")
		if len(paths) == 0 {
			fmt.Fprintln(stderr, "no task files given, and none found in tasks/ or the current directory.")
			fmt.Fprintf(stderr, "Write one with `tabwright qs init DOCS-URL`, or try `%s`.\n", exampleCommand(sandbox.Probe(context.Background())))
			return nil, 0, exitUsage
		}
	} else {
		var warns []string
		paths, warns = task.Resolve(paths)
		for _, w := range warns {
			fmt.Fprintf(stderr, "warning  %s\n", w)
		}
		if len(paths) == 0 {
			return nil, 0, exitUsage
		}
	}
	var defaults map[string]any
	if cfg != nil {
		defaults = cfg.Tasks
	}
	for _, p := range paths {
		t, err := task.Load(p, defaults)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				fmt.Fprintf(stdout, "INVALID  %s\n", line)
			}
			invalid++
			continue
		}
		tasks = append(tasks, t)
	}
	return tasks, invalid, 0
}

func qsValidate(ctx context.Context, args []string, stdout, stderr io.Writer) exitCode {
	fs := newFlags("qs validate")
	fs.SetOutput(stderr)
	checkURLs := fs.Bool("check-urls", false, "read every route page through read_docs and report what cannot be read")
	example := fs.String("example", "", "validate a bundled example (see qs examples)")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	docsURL := ""
	if *example != "" && *checkURLs {
		srv := examples.Server()
		defer srv.Close()
		docsURL = srv.URL
	}
	tasks, invalid, code := loadTasks(paths, *example, docsURL, stdout, stderr)
	if code != 0 {
		return code
	}
	var reader *docs.Reader
	if *checkURLs && len(tasks) > 0 {
		b, release, err := docsBrowser()
		if err != nil {
			fmt.Fprintf(stderr, "--check-urls needs a browser: %v\n", err)
			return exitUsage
		}
		reader = &docs.Reader{Browser: b, RateLimit: time.Second} // robots.txt obeyed, no cache
		defer release()
		defer reader.Close()
	}
	for _, t := range tasks {
		fmt.Fprintf(stdout, "ok       %s (%s, %s)\n", t.Source, t.Name, t.Mode())
		for _, l := range t.Lints() {
			fmt.Fprintf(stdout, "%-9s%s\n", l.Kind, l.Message)
		}
		if reader != nil {
			for _, page := range t.Route {
				r := reader.Get(ctx, page, t.DocsAllow)
				switch {
				case r.Blocked != "":
					fmt.Fprintf(stdout, "warning  %s was blocked: %s %s\n", page, r.Blocked, r.ResolvedTo)
				case r.Err != "":
					fmt.Fprintf(stdout, "warning  %s could not be read: %s\n", page, r.Err)
				case strings.TrimSpace(r.Text) == "":
					fmt.Fprintf(stdout, "warning  %s was read but had no readable text\n", page)
				case r.ResolvedTo != "":
					fmt.Fprintf(stdout, "note     %s redirects to %s\n", page, r.ResolvedTo)
				default:
					fmt.Fprintf(stdout, "ok       %s read, %d chars\n", page, r.Chars)
				}
			}
		}
	}
	if invalid > 0 {
		return exitFailed
	}
	return exitOK
}

// docsBrowser gives read_docs its browser and the function that lets it go.
// A qs process starts its own as it starts; the tests, which call runQS
// dozens of times in one process, hand out one shared browser instead
// (TestMain), so that each call does not start Chromium.
var docsBrowser = func() (*docs.Browser, func(), error) {
	b, err := docs.NewBrowser()
	if err != nil {
		return nil, nil, err
	}
	return b, b.Close, nil
}

func qsRun(ctx context.Context, args []string, stdout, stderr io.Writer) exitCode {
	if spec, leftOut := modelAgentLeftOut(args); leftOut {
		execModels(spec, stderr) // returns only when it could not
		return exitUsage
	}
	f := newRunFlags(stderr)
	if code, goOn := f.parse(args, stdout, stderr); !goOn {
		return code
	}
	ag, book, ok := f.agent.build(stdout, stderr)
	if !ok {
		return exitUsage
	}
	// read_docs' browser starts now, while the tasks load and the backend
	// is chosen, rather than at the first read.
	b, release, err := docsBrowser()
	if err != nil {
		fmt.Fprintf(stderr, "read_docs needs a browser: %v\n", err)
		return exitUsage
	}
	reader := f.docs.reader(b)
	warmCtx, stopWarm := context.WithCancel(ctx) // a usage error below does not wait for the browser
	warmed := make(chan struct{})
	// The goroutine gets its own copy: open below reassigns reader (nil on
	// a bad cache dir), and a read of the shared variable raced with it.
	go func(r *docs.Reader) {
		defer close(warmed)
		r.Warm(warmCtx, nil, nil)
	}(reader)
	defer func(r *docs.Reader) {
		stopWarm()
		<-warmed
		r.Close()
		release()
	}(reader)
	docsURL := ""
	if f.example != "" {
		srv := examples.Server()
		defer srv.Close()
		docsURL = srv.URL
	}
	tasks, invalid, code := loadTasks(f.paths, f.example, docsURL, stdout, stderr)
	if code != 0 {
		return code
	}
	f.compat.applyImage(tasks)
	tasks, shard, code := f.ci.selectShard(tasks, stdout, stderr)
	if code != 0 || len(tasks) == 0 && shard == nil {
		return exitUsage
	}
	chosen, runtime, code := chooseBackends(ctx, f.backend, f.allow, anyImage(tasks), stdout, stderr)
	if code != 0 {
		return code
	}
	reader, cache, code := f.docs.open(reader, chosen, stdout, stderr)
	if code != 0 {
		return code
	}
	printRunHeader(stdout, ag.Name(), book, f.verbose)
	multi := len(tasks) > 1 || f.workers > 1
	opt := qsrun.SuiteOptions{Repeat: f.repeat, Workers: f.workers, Version: version, Prices: book.Prices, MaxCostUSD: *f.agent.maxCost, Options: qsrun.Options{
		Docs: reader, KeepSandbox: f.keep, CheckBrowser: &launch.Options{}, Backend: chosen, Runtime: runtime, Cache: cache, Agent: ag,
		ProbeAffordances: f.docs.probe, WorkspaceBytes: f.workspaceBytes,
	}}
	if *f.agent.tools == "+browser" {
		opt.AgentTools = browserTools(version)
	}
	if !f.quiet {
		opt.OnEvent = progressPrinter(stdout, multi, f.verbose)
	}
	suite := qsrun.RunSuite(ctx, tasks, opt, func(r *qsrun.Result) { qsrun.PrintRun(stdout, r) })
	qsrun.PrintSummary(stdout, suite, len(tasks))
	suite.Shard = shard
	code = runExit(suite, f.strict, shard != nil && len(tasks) == 0, invalid, f.agent.capFlag, stderr)
	if c := f.ci.after(suite, stdout, stderr); c != exitOK {
		code = c
	}
	// The results are written last, once the code the process exits with
	// is known, so results.json says that code.
	suite.ExitCode = code
	if c := writeResults(suite, f.out, f.junit, stdout, stderr); c != exitOK {
		return c
	}
	return code
}

// printRunHeader says which agent and model the runs use (a model is part
// of what a result means), and with verbose which prices estimate cost.
func printRunHeader(stdout io.Writer, agentName string, book qsrun.Book, verbose bool) {
	if vendor, model, ok := strings.Cut(agentName, ":"); ok {
		fmt.Fprintf(stdout, "agent: %s, model %s\n", vendor, model)
	} else {
		fmt.Fprintf(stdout, "agent: %s (no model)\n", agentName)
	}
	if !verbose {
		return
	}
	if book.Prices == nil {
		fmt.Fprintln(stdout, "price book: none (token counts only)")
		return
	}
	fmt.Fprintf(stdout, "price book: %s\n", book)
}

// anyImage reports whether a task names an image.
func anyImage(tasks []*task.Task) bool {
	for _, t := range tasks {
		if t.Image != "" {
			return true
		}
	}
	return false
}

// chooseBackends resolves --backend for the tasks that name no image, and
// the container engine for those that do: container runs every task in a
// container (the engine must answer); auto runs a task with image: in its
// image when an engine answers, and says so when none does (those tasks
// then run on the host's toolchain, with a warning per run).
func chooseBackends(ctx context.Context, want string, allow, images bool, stdout, stderr io.Writer) (string, *sandbox.Runtime, exitCode) {
	if want != sandbox.Container && (want != "auto" || !images) {
		chosen, code := chooseBackend(ctx, want, allow, stdout, stderr)
		return chosen, nil, code
	}
	rt, why := sandbox.FindRuntime(ctx)
	if want == sandbox.Container {
		if rt == nil {
			fmt.Fprintf(stderr, "qs.no_container_runtime: the container backend cannot run here: %s\n", why)
			return "", nil, exitUsage
		}
		fmt.Fprintf(stdout, "backend: container (enforced: %s %s, no network but the harness's egress proxy; tasks without image: run in %s)\n", rt.Name, rt.Version, sandbox.DefaultImage)
		return sandbox.Container, rt, 0
	}
	chosen, code := chooseBackend(ctx, want, allow, stdout, stderr)
	if code != 0 {
		return "", nil, code
	}
	if rt == nil {
		fmt.Fprintf(stdout, "warning  tasks with image: run on the %s backend's toolchain, not in their image: no container runtime answers (%s)\n", chosen, why)
		return chosen, nil, 0
	}
	fmt.Fprintf(stdout, "backend: container for tasks with image: (enforced: %s %s, no network but the harness's egress proxy)\n", rt.Name, rt.Version)
	return chosen, rt, 0
}

// chooseBackend resolves --backend: auto is the sandbox when this machine
// can enforce (Probe), else local; local needs --allow-unenforced. It says
// which backend runs and whether it is enforced.
func chooseBackend(ctx context.Context, want string, allow bool, stdout, stderr io.Writer) (string, exitCode) {
	ok, why := false, ""
	if want != sandbox.Local {
		ok, why = sandbox.Probe(ctx)
	}
	switch {
	case ok:
		fmt.Fprintln(stdout, "backend: sandbox (enforced: bubblewrap namespaces; the shell's only way out is the harness's egress proxy)")
		return sandbox.Isolated, 0
	case want == sandbox.Isolated:
		fmt.Fprintf(stderr, "the sandbox backend cannot run here: %s\n", why)
		return "", exitUsage
	case !allow:
		if why != "" {
			fmt.Fprintf(stderr, "no enforced backend on this machine: %s\n", why)
		}
		fmt.Fprintln(stderr, "REFUSING: the local backend enforces no network policy, so the docs allowlist and the page-read record cannot be guaranteed.")
		fmt.Fprintln(stderr, "Pass --allow-unenforced if you wrote the tasks and the project under test yourself.")
		return "", exitUsage
	}
	if why != "" {
		fmt.Fprintf(stdout, "backend: local (UNENFORCED; the sandbox cannot run here: %s)\n", why)
	} else {
		fmt.Fprintln(stdout, "backend: local (UNENFORCED)")
	}
	fmt.Fprintln(stdout, "  "+qsrun.AdvisoryNote)
	return sandbox.Local, 0
}

func progressLine(ev map[string]any, verbose bool) string {
	if line := agentProgressLine(ev, verbose); line != "" {
		return line
	}
	switch ev["type"] {
	case "run_start":
		if ev["enforced"] == true {
			return fmt.Sprintf("started on %v (enforced)", ev["backend"])
		}
		return fmt.Sprintf("started on %v (unenforced)", ev["backend"])
	case "egress_blocked":
		return fmt.Sprintf("blocked from the shell: %v", ev["host"])
	case "egress_cache_hit", "egress_cache_miss":
		if verbose {
			what := "from the registry cache"
			if ev["type"] == "egress_cache_miss" {
				what = "downloaded"
				if ev["stored"] == true {
					what += ", now cached"
				}
			}
			return fmt.Sprintf("%v (%v bytes) %s", ev["url"], ev["bytes"], what)
		}
	case "docs_read":
		if ev["from_cache"] == true {
			return fmt.Sprintf("read %v (cached)", ev["url"])
		}
		return fmt.Sprintf("read %v", ev["url"])
	case "docs_changed":
		return fmt.Sprintf("CHANGED %v since it was cached", ev["url"])
	case "affordance_withheld":
		return fmt.Sprintf("BLOCKED %v (withheld)", ev["url"])
	case "docs_read_blocked":
		return fmt.Sprintf("BLOCKED %v (%v)", ev["url"], ev["reason"])
	case "docs_read_error":
		return fmt.Sprintf("READ ERROR %v: %v", ev["url"], ev["error"])
	case "tool_call":
		if c, ok := ev["command"].(string); ok && verbose && ev["tool"] == "bash" {
			c = strings.Join(strings.Fields(c), " ")
			if len(c) > 90 {
				c = c[:90]
			}
			return "$ " + c
		}
	case "success_check":
		return fmt.Sprintf("check exited %v", ev["exit_code"])
	}
	return ""
}

// checkBackend is where qs check runs t's check: in t's image when it
// names one and a container engine answers, as qs run did; else the
// sandbox backend where it can enforce, else local.
func checkBackend(ctx context.Context, t *task.Task) (string, *sandbox.Runtime) {
	if t.Image != "" {
		if rt, _ := sandbox.FindRuntime(ctx); rt != nil {
			return sandbox.Container, rt
		}
	}
	if ok, _ := sandbox.Probe(ctx); ok {
		return sandbox.Isolated, nil
	}
	return sandbox.Local, nil
}

func qsCheck(ctx context.Context, args []string, stdout, stderr io.Writer) exitCode {
	fs := newFlags("qs check")
	fs.SetOutput(stderr)
	dir := fs.String("sandbox", "", "the kept workspace (printed by qs run --keep-sandbox)")
	show := fs.Bool("show", false, "print the full check script and exit")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(paths) != 1 {
		fmt.Fprintln(stderr, "usage: tabwright qs check TASK (--sandbox DIR | --show)")
		return exitUsage
	}
	cfg, err := task.FindConfig(".")
	if err != nil {
		fmt.Fprintf(stderr, "config: %v\n", err)
		return exitUsage
	}
	var defaults map[string]any
	if cfg != nil {
		defaults = cfg.Tasks
	}
	t, err := task.Load(paths[0], defaults)
	if err != nil {
		fmt.Fprintf(stderr, "INVALID  %v\n", err)
		return exitUsage
	}
	if *show {
		fmt.Fprint(stdout, check.Script(t.Name, t.SuccessScript))
		return exitOK
	}
	backend, rt := checkBackend(ctx, t)
	var sb *sandbox.Sandbox
	if *dir != "" {
		sb, err = qsrun.NewSandbox(t, qsrun.SandboxOptions{Backend: backend, Runtime: rt, Image: t.Image, Adopt: *dir, OnEvent: func(typ string, f map[string]any) {
			if typ == "egress_blocked" {
				fmt.Fprintf(stdout, "blocked from the shell: %v\n", f["host"])
			}
		}})
	}
	if *dir == "" || err != nil {
		why := ""
		if err != nil {
			why = fmt.Sprintf(" (%v)", err)
		}
		fmt.Fprintf(stderr, "no such workspace: %s%s\nRun qs run with --keep-sandbox first; the path is printed after the run.\n", *dir, why)
		return exitUsage
	}
	defer sb.Close(true)
	r := qsrun.RunCheck(ctx, t, sb, nil)
	if out := strings.TrimRight(r.Output, "\n "); out != "" {
		fmt.Fprintln(stdout, out)
	}
	if r.ExitCode == 0 {
		fmt.Fprintf(stdout, "[PASS] %s check exited 0 (%s)\n", t.Name, sb.BackendName())
		return exitOK
	}
	fmt.Fprintf(stdout, "[FAIL] %s check exited %d (%s)\n", t.Name, r.ExitCode, sb.BackendName())
	return exitFailed
}
