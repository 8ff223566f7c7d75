package runcmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tabwright/tabwright/quickstart/examples"
	"github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
)

// LoadTasks resolves paths (or discovers tasks), loads the config, and
// loads every task; invalid ones are printed. With example (a comma list of
// bundled examples) the paths must be empty, and the examples' docs are at
// docsURL.
func LoadTasks(paths []string, example, docsURL string, stdout, stderr io.Writer) (tasks []*task.Task, invalid int, code run.ExitCode) {
	if example != "" {
		return loadExamples(paths, example, docsURL, stderr)
	}
	defaults, code := taskDefaults(stderr)
	if code != run.ExitOK {
		return nil, 0, code
	}
	paths, code = taskPaths(paths, stderr)
	if code != run.ExitOK {
		return nil, 0, code
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
	return tasks, invalid, run.ExitOK
}

// loadExamples loads the bundled examples named in the comma list.
func loadExamples(paths []string, example, docsURL string, stderr io.Writer) ([]*task.Task, int, run.ExitCode) {
	if len(paths) > 0 {
		fmt.Fprintln(stderr, "give either --example or task files, not both")
		return nil, 0, run.ExitUsage
	}
	var tasks []*task.Task
	for _, name := range strings.Split(example, ",") {
		t, err := examples.Load(strings.TrimSpace(name), docsURL)
		if err != nil {
			fmt.Fprintln(stderr, exampleError(strings.TrimSpace(name), err))
			return nil, 0, run.ExitUsage
		}
		tasks = append(tasks, t)
	}
	return tasks, 0, run.ExitOK
}

// taskPaths resolves the paths given, or discovers the task files.
func taskPaths(paths []string, stderr io.Writer) ([]string, run.ExitCode) {
	if len(paths) == 0 {
		paths = task.Discover(".")
		if len(paths) == 0 {
			fmt.Fprintln(stderr, "no task files given, and none found in tasks/ or the current directory.")
			fmt.Fprintf(stderr, "Write one with `tabwright qs init DOCS-URL`, or try `%s`.\n", ExampleCommand(sandbox.Probe(context.Background())))
			return nil, run.ExitUsage
		}
		return paths, run.ExitOK
	}
	paths, warns := task.Resolve(paths)
	for _, w := range warns {
		fmt.Fprintf(stderr, "warning  %s\n", w)
	}
	if len(paths) == 0 {
		return nil, run.ExitUsage
	}
	return paths, run.ExitOK
}

// ExampleCommand is the command that runs the hello example here: plain
// where the sandbox backend can enforce, else with --allow-unenforced and
// why it is needed.
func ExampleCommand(sandboxWorks bool, why string) string {
	if sandboxWorks {
		return "tabwright qs run --example hello"
	}
	return "tabwright qs run --example hello --allow-unenforced   # the sandbox backend cannot run here: " + why
}

// exampleError says, for one of quickstarted's example names (its examples
// read the live httpx, Streamlit and Vite sites), that ours are offline and
// which they are.
func exampleError(name string, err error) error {
	switch name {
	case "httpx", "streamlit", "vite":
		return fmt.Errorf("qs.example_unknown: %q is quickstarted's example, which reads the live site; tabwright's examples bundle their docs: %s (qs examples lists them), or run quickstarted's task file itself", name, strings.Join(examples.Names(), ", "))
	}
	return err
}

// taskDefaults are the task defaults of the qs config found from the
// working folder (none without one).
func taskDefaults(stderr io.Writer) (map[string]any, run.ExitCode) {
	cfg, err := task.FindConfig(".")
	if err != nil {
		fmt.Fprintf(stderr, "config: %v\n", err)
		return nil, run.ExitUsage
	}
	if cfg == nil {
		return nil, run.ExitOK
	}
	return cfg.Tasks, run.ExitOK
}
