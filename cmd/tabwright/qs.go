package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/examples"
	qsrun "github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/runcmd"
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
	tasks, invalid, code := runcmd.LoadTasks(paths, *example, docsURL, stdout, stderr)
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
	return runcmd.Run(ctx, f.config(ag, book), stdout, stderr)
}

// config is what qs run was asked to do, for runcmd.Run.
func (f *runFlags) config(ag agent.Agent, book qsrun.Book) runcmd.Config {
	cfg := runcmd.Config{
		Paths: f.paths, Example: f.example, Image: f.compat.image, Shard: f.ci.shard, GitHubSummary: f.ci.githubSummary,
		Backend: f.backend, AllowUnenforced: f.allow, WorkspaceBytes: f.workspaceBytes, KeepSandbox: f.keep,
		Repeat: f.repeat, Workers: f.workers, Out: f.out, JUnit: f.junit, Quiet: f.quiet, Verbose: f.verbose, Strict: f.strict,
		Agent: ag, Book: book, MaxCostUSD: *f.agent.maxCost, CapFlag: f.agent.capFlag,
		Docs: f.docs.config(), Version: version, DocsBrowser: docsBrowser,
	}
	if *f.agent.tools == "+browser" {
		cfg.AgentTools = browserTools(version)
	}
	return cfg
}

// qsCheck parses `qs check`'s flags; runcmd.Check runs it.
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
	return runcmd.Check(ctx, runcmd.CheckConfig{Task: paths[0], Workspace: *dir, Show: *show}, stdout, stderr)
}
