package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

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

// modelsPath is where tabwright-models is looked for: beside this
// binary (os.Executable has resolved any symlink to it).
func modelsPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return modelsBinary, err
	}
	if strings.TrimSuffix(filepath.Base(exe), exeSuffix()) == modelsBinary {
		return exe, fmt.Errorf("%s is itself built with -tags nomodels", exe) // a handover to itself would never end
	}
	return filepath.Join(filepath.Dir(exe), modelsBinary+exeSuffix()), nil
}

// exeSuffix is what an executable's name ends with on this OS.
func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// execModels hands this run over to tabwright-models with the same
// arguments (handOver: exec on Unix, spawn and forward on Windows), so the
// run is the one asked for, only in the build that has the model agents.
// It returns only when that binary cannot be run, having said why and what
// to do.
func execModels(agentSpec string, stderr io.Writer) {
	path, err := modelsPath()
	if err == nil {
		err = handOver(path, os.Args[1:])
	}
	fmt.Fprintf(stderr, "qs.models_missing: --agent %s runs in %s, the build of tabwright with the model SDKs, which this one leaves out (built with -tags nomodels), and %s could not be run: %v. %s\n",
		agentSpec, modelsBinary, path, err, modelsFix)
}

const modelsFix = "Put " + modelsBinary + " beside this binary (`make build` builds both; each release archive has both), or build this one without -tags nomodels."

// modelsReport is doctor's line on the model agents: in this build, in
// tabwright-models beside it (and whether that is this version), or
// nowhere, which leaves qs run only replay.
func modelsReport(stdout io.Writer) {
	if agent.ModelsBuiltIn() {
		fmt.Fprintln(stdout, "models:   the model agents (claude, openai, gemini) are in this build")
		return
	}
	path, err := modelsPath()
	var out []byte
	if err == nil {
		out, err = exec.Command(path, "version").Output()
	}
	if err != nil {
		fmt.Fprintf(stdout, "models:   none: this build leaves the model SDKs out and %s does not run (%v); qs run has replay only\n", path, err)
		fmt.Fprintf(stdout, "  fix:    %s\n", modelsFix)
		return
	}
	theirs := strings.TrimSpace(string(out))
	fmt.Fprintf(stdout, "models:   %s (%s) runs qs with a model agent; this build leaves the model SDKs out\n", path, theirs)
	if theirs != "tabwright "+version {
		fmt.Fprintf(stdout, "  note:   it is not this version (tabwright %s); rebuild both with make build\n", version)
	}
}
