// Command tabwright is a browser for AI agents (an MCP server over real
// Chromium tabs) and a proving ground for docs. This file wires flags to the
// engine; the work happens in the packages it calls.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/launch"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `tabwright: real browser tabs for AI agents.

Usage:
  tabwright mcp [--cdp-url URL] [--headful] [--http ADDR]   run the MCP server (stdio by default)
      [--browser chrome|chrome-beta|chrome-canary|msedge|chromium] [--executable-path PATH]
  tabwright observe URL [--json] [--max-chars N] [--include a,b] [--scope SEL]
                                                           open URL, print its observation, exit
  tabwright observe --diff a.json b.json                   compare two saved observations
  tabwright batch --url URL --steps steps.json [--observe SEL]
                                                           run browser_batch steps in a fresh tab, print the result
  tabwright session view|batch DIR                         look at a session --save-session recorded; turn it into batch steps
  tabwright qs validate|run|check|report|diff|init|schema ... run quickstart tasks: can a reader get through the docs?
  tabwright demo                                           run the server on a bundled page and show what an agent sees
  tabwright setup [--name N] [--new-key]                    pair your own Chrome/Edge: the extension folder, key and MCP config
  tabwright doctor [--prices FILE]                         check this machine: browser, version, fixes, the price book
  tabwright version                                        print the version

` + exitTable

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(int(code))
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) exitCode {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	if args[0] != "mcp" {
		stdout, stderr = newTerminalSafe(stdout), newTerminalSafe(stderr)
	}
	var err error
	switch args[0] {
	case "mcp":
		err = runMCP(ctx, args[1:], stderr)
	case "observe":
		err = runObserve(ctx, args[1:], stdout)
	case "setup":
		err = runSetup(ctx, args[1:], stdout)
	case "qs":
		return exitCode(runQS(ctx, args[1:], stdout, stderr))
	case "batch":
		err = runBatch(ctx, args[1:], stdout, stderr)
	case "session":
		err = runSession(args[1:], stdout, stderr)
	case "demo":
		err = runDemo(ctx, args[1:], stdout)
	case "doctor":
		return exitCode(runDoctor(args[1:], stdout, stderr))
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "tabwright", version)
		return exitOK
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "tabwright: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		if isFlagError(err) {
			return exitUsage // the flag package has printed what was wrong
		}
		e := errs.As(err)
		fmt.Fprintf(stderr, "tabwright: %s\n", e.Error())
		if e.Code == errs.InvalidInput {
			return exitUsage
		}
		return exitFailed
	}
	return exitOK
}

// browserFlags are the flags every command that drives a browser takes.
type browserFlags struct {
	cdpURL  string
	headful bool
	browser string // a launch channel
	exePath string
}

func (b *browserFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&b.cdpURL, "cdp-url", "", "attach to this DevTools endpoint (http://host:port or ws://…) instead of launching Chromium")
	fs.BoolVar(&b.headful, "headful", false, "show the managed browser's window")
	fs.StringVar(&b.browser, "browser", "", "the installed browser to launch: "+strings.Join(launch.Channels, ", ")+" (default: the first of these found; tabwright doctor lists them)")
	fs.StringVar(&b.exePath, "executable-path", "", "the browser executable to launch, instead of looking for one (overrides --browser and $"+launch.EnvChrome+")")
}

// launchOptions are the managed browser's options these flags ask for.
func (b *browserFlags) launchOptions() launch.Options {
	return launch.Options{Headful: b.headful, Browser: b.browser, Exec: b.exePath}
}

// check refuses a --browser that is not a channel before anything starts.
func (b *browserFlags) check() error {
	if b.browser != "" && !slices.Contains(launch.Channels, b.browser) {
		return errs.Input("--browser", "%q is not one of %s", b.browser, strings.Join(launch.Channels, ", "))
	}
	return nil
}

func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("tabwright "+name, flag.ContinueOnError)
	return fs
}
