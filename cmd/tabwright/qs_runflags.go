package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/tabwright/tabwright/quickstart/sandbox"
)

// runFlags are qs run's flags once parsed: ours, and quickstarted's
// spellings mapped onto them (compatFlags), checked before anything runs.
type runFlags struct {
	fs     *flag.FlagSet
	agent  *agentFlags
	docs   *docsFlags
	ci     *ciFlags
	compat *compatFlags

	backend, out, junit, example        string
	workspaceSize                       string
	workspaceBytes                      int64
	allow, keep, quiet, verbose, strict bool
	repeat, workers                     int
	paths                               []string
}

func newRunFlags(stderr io.Writer) *runFlags {
	fs := newFlags("qs run")
	fs.SetOutput(stderr)
	f := &runFlags{fs: fs, agent: addAgentFlags(fs)}
	fs.StringVar(&f.backend, "backend", "auto", "execution backend: auto (a task with image: in a container when Docker or Podman answers; the others on sandbox when this machine can enforce, else local), sandbox (bubblewrap, enforced), container (every task in its image, enforced) or local (unenforced)")
	fs.BoolVar(&f.allow, "allow-unenforced", false, "permit the local backend, which enforces no network policy")
	fs.StringVar(&f.out, "out", "", "write results.json and per-run files here")
	fs.StringVar(&f.junit, "junit", "", "write JUnit XML here (with or without --out)")
	fs.IntVar(&f.repeat, "repeat", 1, "attempts per task")
	fs.IntVar(&f.workers, "workers", 1, "attempts run at once")
	fs.BoolVar(&f.keep, "keep-sandbox", false, "keep each workspace and print its path")
	fs.StringVar(&f.workspaceSize, "workspace-size", sandbox.HumanBytes(sandbox.DefaultWorkspaceBytes), "sandbox backend: the bound on each workspace with its $HOME and $TMPDIR (a tmpfs; needs root), e.g. 512M or 4G; 0 for none")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress lines")
	fs.BoolVar(&f.verbose, "verbose", false, "progress lines also show every command")
	fs.BoolVar(&f.strict, "strict-inconclusive", false, "exit 1 instead of 2 when a task produced no evidence")
	fs.StringVar(&f.example, "example", "", "run bundled examples (comma-separated; see qs examples), their docs served locally")
	f.docs = addDocsFlags(fs)
	f.ci = addCIFlags(fs)
	f.compat = addCompatFlags(fs)
	return f
}

// parse reads args, maps quickstarted's flags onto ours and refuses what
// cannot run. It returns whether to go on, and else the exit code (0 after
// -h: the usage was asked for).
func (f *runFlags) parse(args []string, stdout, stderr io.Writer) (exitCode, bool) {
	paths, err := parseInterspersed(f.fs, args)
	if err != nil {
		return flagExit(err), false
	}
	f.paths = paths
	code := f.check(stdout, stderr)
	return code, code == exitOK
}

// check maps quickstarted's flags and refuses values that cannot run.
func (f *runFlags) check(stdout, stderr io.Writer) exitCode {
	if code := f.compat.apply(f, stdout, stderr); code != 0 {
		return code
	}
	if code := f.docs.check(stderr); code != 0 {
		return code
	}
	switch {
	case f.backend != "auto" && f.backend != sandbox.Isolated && f.backend != sandbox.Container && f.backend != sandbox.Local:
		fmt.Fprintf(stderr, "unknown backend %q: auto, sandbox, container or local\n", f.backend)
		return exitUsage
	case f.repeat < 1 || f.workers < 1:
		fmt.Fprintln(stderr, "--repeat and --workers must be at least 1")
		return exitUsage
	}
	n, err := sandbox.ParseSize(f.workspaceSize)
	if err != nil {
		fmt.Fprintf(stderr, "--workspace-size: %v\n", err)
		return exitUsage
	}
	if f.workspaceBytes = n; n == 0 {
		f.workspaceBytes = -1 // Options: negative is no bound
	}
	return exitOK
}

// flagExit is the exit code of a parse error: 0 for -h/--help (the flag
// package has printed the usage), else usage.
func flagExit(err error) exitCode {
	if err == flag.ErrHelp {
		return exitOK
	}
	return exitUsage
}
