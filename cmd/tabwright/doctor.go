package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/tabs"
	qsrun "github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/sandbox"
)

// usernsReport says whether the kernel's settings under root let
// bubblewrap make its user namespace, and the exact fix when they do not.
func usernsReport(stdout io.Writer, root, bwrap string) {
	b, blocked := sandbox.DetectUsernsBlock(root, bwrap)
	if !blocked {
		fmt.Fprintln(stdout, "userns:   unprivileged user namespaces are allowed (bubblewrap needs them)")
		return
	}
	fmt.Fprintf(stdout, "userns:   RESTRICTED: %s; bubblewrap is refused its user namespace\n", b.Setting)
	fmt.Fprintf(stdout, "  fix:    %s\n", b.Fix)
}

// browsersReport lists every browser discovery finds, with the --browser
// value that picks it; the first is the default when nothing is named.
func browsersReport(stdout io.Writer) {
	found := launch.Discover(launch.LocalHost())
	if len(found) == 0 {
		fmt.Fprintf(stdout, "found:    no Chromium, Chrome or Edge where they are installed on %s (--browser: %s)\n", runtime.GOOS, strings.Join(launch.Channels, ", "))
		return
	}
	for i, f := range found {
		note := ""
		if i == 0 && os.Getenv(launch.EnvChrome) == "" {
			note = " (the default full browser)"
		}
		fmt.Fprintf(stdout, "found:    --browser %-13s %s%s\n", f.Channel, f.Path, note)
	}
}

// runDoctor reports whether this machine can run a managed browser, and the
// exact command that fixes what is missing. Exit status 1 when it cannot,
// or when the price book named by --prices (quickstarted's doctor flag) or
// $QUICKSTARTED_PRICES cannot be used; 3 for a bad flag.
func runDoctor(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("doctor")
	fs.SetOutput(stderr)
	prices := fs.String("prices", os.Getenv("QUICKSTARTED_PRICES"), "the price book qs run would use (default $QUICKSTARTED_PRICES, else the built-in one)")
	if err := fs.Parse(args); err != nil {
		return int(flagExit(err))
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tabwright doctor takes no arguments; got %q\n", fs.Arg(0))
		return int(exitUsage)
	}
	ok := pricesReport(stdout, *prices)
	if shell, err := launch.FindHeadless(); err == nil {
		if full, _ := launch.Find(); shell != full {
			fmt.Fprintf(stdout, "headless: %s (used for the managed headless browser; starts faster)\n", shell)
		}
	} else {
		fmt.Fprintln(stdout, "headless: no chromium-headless-shell; the full browser runs headless (install chromium-headless-shell for faster starts)")
	}
	path, err := launch.Find()
	if err != nil {
		ok = false
		fmt.Fprintf(stdout, "browser:  MISSING: %v\n", err)
		fmt.Fprintf(stdout, "  fix:    %s\n", launch.InstallHint)
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		out, verr := exec.CommandContext(ctx, path, "--version").CombinedOutput()
		cancel()
		if verr != nil {
			ok = false
			fmt.Fprintf(stdout, "browser:  %s does not run: %v %s\n", path, verr, strings.TrimSpace(string(out)))
			fmt.Fprintf(stdout, "  fix:    reinstall it (%s)\n", launch.InstallHint)
		} else {
			fmt.Fprintf(stdout, "browser:  %s (%s)\n", path, strings.TrimSpace(string(out)))
			webmcpReport(stdout, tabs.Options{})
		}
		if env := os.Getenv(launch.EnvChrome); env != "" {
			fmt.Fprintf(stdout, "  chosen by $%s\n", launch.EnvChrome)
		}
	}
	browsersReport(stdout)
	if os.Geteuid() == 0 {
		fmt.Fprintln(stdout, "sandbox:  running as root, so Chromium starts with --no-sandbox")
	} else {
		fmt.Fprintln(stdout, "sandbox:  Chromium's own sandbox is on")
	}
	fmt.Fprintf(stdout, "tmp dir:  %s (browser profiles live here and are removed at exit)\n", os.TempDir())
	if bin, why := observe.OCRAvailable(); bin != "" {
		fmt.Fprintf(stdout, "ocr:      %s (the observation's vision section carries OCR text)\n", bin)
	} else {
		fmt.Fprintf(stdout, "ocr:      none: %s; vision works without OCR text\n", why)
	}
	probe, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	if ok, why := sandbox.Probe(probe); ok {
		fmt.Fprintln(stdout, "qs:       the sandbox backend can enforce isolation here (bubblewrap)")
	} else {
		fmt.Fprintf(stdout, "qs:       the sandbox backend cannot enforce isolation here: %s\n", why)
	}
	cancel()
	usernsReport(stdout, "/", sandbox.BwrapPath())
	containerReport(stdout)
	modelsReport(stdout)
	if ok {
		fmt.Fprintln(stdout, "ready:    yes — try: tabwright observe https://example.com/")
		return 0
	}
	fmt.Fprintln(stdout, "ready:    no")
	return 1
}

// pricesReport names the price book qs run estimates cost with, and the
// day its rates were read; it reports false when a named book is unusable.
func pricesReport(stdout io.Writer, path string) bool {
	var book qsrun.Book
	var err error
	if path != "" {
		book, err = qsrun.LoadBook(path)
	} else {
		book, err = qsrun.BuiltinBook()
	}
	if err != nil {
		fmt.Fprintf(stdout, "prices:   UNUSABLE: %v\n", err)
		return false
	}
	how := " (qs run --prices FILE or $QUICKSTARTED_PRICES replaces it)"
	if path != "" {
		how = ""
	}
	fmt.Fprintf(stdout, "prices:   %s%s\n", book, how)
	return true
}

// containerReport names the container engine a task's image: runs on
// (qs run --backend container, or auto), and the start flags this machine
// was found to need.
func containerReport(stdout io.Writer) {
	rt, why := sandbox.FindRuntime(context.Background())
	if rt == nil {
		fmt.Fprintf(stdout, "container: none: %s; tasks with image: run on the host's toolchain, with a warning\n", why)
		return
	}
	mode := "rootful"
	if rt.Rootless {
		mode = "rootless"
	}
	fmt.Fprintf(stdout, "container: %s %s (%s, %s): qs runs a task's image: in it\n", rt.Name, rt.Version, mode, rt.Path)
	if flags := sandbox.StartFlags(rt); flags != "" {
		fmt.Fprintf(stdout, "  start flags this machine needs (learned): %s\n", flags)
	}
}
