package runcmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/successcheck"
	"github.com/tabwright/tabwright/quickstart/task"
)

// CheckConfig is `qs check` as its flags give it.
type CheckConfig struct {
	Task      string // the task file
	Workspace string // the workspace qs run --keep-sandbox kept
	Show      bool   // print the check's script instead of running it
}

// Check is `qs check`: the task's success check run again in a workspace a
// run kept, on the backend the run would have chosen, or its script shown.
func Check(ctx context.Context, c CheckConfig, stdout, stderr io.Writer) run.ExitCode {
	t, code := loadOne(c.Task, stderr)
	if code != run.ExitOK {
		return code
	}
	if c.Show {
		fmt.Fprint(stdout, successcheck.Script(t.Name, t.SuccessScript))
		return run.ExitOK
	}
	sb, err := adopt(ctx, t, c.Workspace, stdout)
	if err != nil || c.Workspace == "" {
		why := ""
		if err != nil {
			why = fmt.Sprintf(" (%v)", err)
		}
		fmt.Fprintf(stderr, "no such workspace: %s%s\nRun qs run with --keep-sandbox first; the path is printed after the run.\n", c.Workspace, why)
		return run.ExitUsage
	}
	defer sb.Close(true)
	r := run.RunSuccessCheck(ctx, t, sb, nil)
	if out := strings.TrimRight(r.Output, "\n "); out != "" {
		fmt.Fprintln(stdout, out)
	}
	if r.ExitCode == 0 {
		fmt.Fprintf(stdout, "[PASS] %s check exited 0 (%s)\n", t.Name, sb.BackendName())
		return run.ExitOK
	}
	fmt.Fprintf(stdout, "[FAIL] %s check exited %d (%s)\n", t.Name, r.ExitCode, sb.BackendName())
	return run.ExitFailed
}

// loadOne loads one task file with the folder's qs config defaults.
func loadOne(path string, stderr io.Writer) (*task.Task, run.ExitCode) {
	defaults, code := taskDefaults(stderr)
	if code != run.ExitOK {
		return nil, code
	}
	t, err := task.Load(path, defaults)
	if err != nil {
		fmt.Fprintf(stderr, "INVALID  %v\n", err)
		return nil, run.ExitUsage
	}
	return t, run.ExitOK
}

// adopt opens the kept workspace on the backend a run of t would use: the
// task's image when a container engine answers, else the sandbox when this
// machine can enforce it, else local. No workspace is no sandbox.
func adopt(ctx context.Context, t *task.Task, workspace string, stdout io.Writer) (*sandbox.Sandbox, error) {
	if workspace == "" {
		return nil, nil
	}
	var rt *sandbox.Runtime
	if t.Image != "" {
		rt, _ = sandbox.FindRuntime(ctx)
	}
	backend := sandbox.Container
	if rt == nil {
		backend = sandbox.Local
		if ok, _ := sandbox.Probe(ctx); ok {
			backend = sandbox.Isolated
		}
	}
	return run.NewSandbox(t, run.SandboxOptions{Backend: backend, Runtime: rt, Image: t.Image, Adopt: workspace, OnEvent: func(typ string, f map[string]any) {
		if typ == "egress_blocked" {
			fmt.Fprintf(stdout, "blocked from the shell: %v\n", f["host"])
		}
	}})
}
