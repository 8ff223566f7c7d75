package runcmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
)

// printRunHeader says which agent and model the runs use (a model is part
// of what a result means), and with verbose which prices estimate cost.
func printRunHeader(stdout io.Writer, agentName string, book run.Book, verbose bool) {
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
func chooseBackends(ctx context.Context, want string, allow, images bool, stdout, stderr io.Writer) (string, *sandbox.Runtime, run.ExitCode) {
	if want != sandbox.Container && (want != "auto" || !images) {
		chosen, code := chooseBackend(ctx, want, allow, stdout, stderr)
		return chosen, nil, code
	}
	rt, why := sandbox.FindRuntime(ctx)
	if want == sandbox.Container {
		if rt == nil {
			fmt.Fprintf(stderr, "qs.no_container_runtime: the container backend cannot run here: %s\n", why)
			return "", nil, run.ExitUsage
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
func chooseBackend(ctx context.Context, want string, allow bool, stdout, stderr io.Writer) (string, run.ExitCode) {
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
		return "", run.ExitUsage
	case !allow:
		if why != "" {
			fmt.Fprintf(stderr, "no enforced backend on this machine: %s\n", why)
		}
		fmt.Fprintln(stderr, "REFUSING: the local backend enforces no network policy, so the docs allowlist and the page-read record cannot be guaranteed.")
		fmt.Fprintln(stderr, "Pass --allow-unenforced if you wrote the tasks and the project under test yourself.")
		return "", run.ExitUsage
	}
	if why != "" {
		fmt.Fprintf(stdout, "backend: local (UNENFORCED; the sandbox cannot run here: %s)\n", why)
	} else {
		fmt.Fprintln(stdout, "backend: local (UNENFORCED)")
	}
	fmt.Fprintln(stdout, "  "+run.AdvisoryNote)
	return sandbox.Local, 0
}
