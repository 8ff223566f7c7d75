package main

// qs examples and qs init: where a first-time user starts.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tabwright/tabwright/quickstart/examples"
	qsrun "github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/runcmd"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
)

func qsExamples(stdout io.Writer) exitCode {
	fmt.Fprintln(stdout, "Example tasks bundled with tabwright, their docs served by the harness on loopback (no network needed):")
	for _, name := range examples.Names() {
		t, err := examples.Load(name, "")
		if err != nil {
			fmt.Fprintf(stdout, "  %-13s INVALID %v\n", name, err)
			continue
		}
		fmt.Fprintf(stdout, "  %-13s %s  (%s)\n", name, t.Route[0], t.Mode())
		for _, page := range t.Route[1:] {
			fmt.Fprintf(stdout, "  %-13s %s\n", "", page)
		}
		fmt.Fprintf(stdout, "  %-13s goal: %s\n", "", t.Goal)
	}
	fmt.Fprintln(stdout, "\n  "+runcmd.ExampleCommand(sandbox.Probe(context.Background())))
	return exitOK
}

func qsInit(args []string, stdout, stderr io.Writer) exitCode {
	fs := newFlags("qs init")
	fs.SetOutput(stderr)
	name := fs.String("name", "", "the task name (default: from the docs host)")
	out := fs.String("out", "", "the file to write (default: tasks/NAME.yaml)")
	force := fs.Bool("force", false, "overwrite an existing file")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(paths) != 1 {
		fmt.Fprintln(stderr, "usage: tabwright qs init DOCS-URL [--name N] [--out PATH] [--force]")
		return exitUsage
	}
	n, text, err := task.Scaffold(paths[0], *name)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	dest := *out
	if dest == "" {
		dest = filepath.Join("tasks", n+".yaml")
	}
	if _, err := os.Stat(dest); err == nil && !*force {
		fmt.Fprintf(stderr, "%s already exists; pass --force to overwrite\n", dest)
		return exitUsage
	}
	if err := qsrun.WriteFileAtomic(dest, []byte(text)); err != nil {
		fmt.Fprintf(stderr, "could not write %s: %v\n", dest, err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "wrote %s\nNext: write the goal, the replay commands and the success check, then\n  tabwright qs validate %s --check-urls\n", dest, dest)
	return exitOK
}
