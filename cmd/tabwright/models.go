package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/tabwright/tabwright/quickstart/agent"
)

// modelsBinary is the full build of tabwright, with the model agents'
// vendor SDKs, installed beside the lean one. `make build` and the
// release build tabwright with -tags nomodels so that `tabwright mcp`
// does not load 31 MB of SDK code it never calls; a qs run with a model
// agent hands itself over to this binary instead.
const modelsBinary = "tabwright-models"

// modelAgentLeftOut reports whether qs run's args ask for a model agent
// this build leaves out, and which. They are parsed once without a word,
// so that what they make qs run say (notes, refusals) is said once, by the
// binary that runs.
func modelAgentLeftOut(args []string) (string, bool) {
	f := newRunFlags(io.Discard)
	if _, goOn := f.parse(args, io.Discard, io.Discard); !goOn {
		return "", false
	}
	_, err := agent.New(agent.Config{Agent: *f.agent.agent})
	var e *agent.Error
	return *f.agent.agent, errors.As(err, &e) && e.Code == agent.CodeModelsLeftOut
}

// execModels replaces this process with tabwright-models run with the
// same arguments, so the run is the one asked for, only in the build that
// has the model agents. It returns only when that binary cannot be run,
// having said why and what to do.
func execModels(agentSpec string, stderr io.Writer) {
	path := modelsBinary
	exe, err := os.Executable()
	if err == nil && filepath.Base(exe) == modelsBinary {
		err = fmt.Errorf("%s is itself built with -tags nomodels", exe) // a handover to itself would never end
	} else if err == nil {
		path = filepath.Join(filepath.Dir(exe), modelsBinary)
		err = syscall.Exec(path, append([]string{path}, os.Args[1:]...), os.Environ())
	}
	fmt.Fprintf(stderr, "qs.models_missing: --agent %s runs in %s, the build of tabwright with the model SDKs, which this one leaves out (built with -tags nomodels), and %s could not be run: %v. "+
		"Put %s beside this binary (`make build` builds both; each release has %s-linux-ARCH), or build this one without -tags nomodels.\n",
		agentSpec, modelsBinary, path, err, modelsBinary, modelsBinary)
}
