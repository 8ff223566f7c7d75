package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tabwright/tabwright/quickstart/sandbox"
)

// compatFlags are quickstarted's qs run flags that tabwright spells
// another way. Each is accepted and mapped onto ours, or refused naming
// ours, so a quickstarted command line never meets a bare flag error
// (docs/qs.md, "quickstarted's command lines", is the table).
type compatFlags struct {
	model, image  string
	maxSpend      float64
	refreshPrices bool
}

func addCompatFlags(fs *flag.FlagSet) *compatFlags {
	c := &compatFlags{}
	fs.StringVar(&c.model, "model", "", "the model, as quickstarted spells it: --agent VENDOR --model M is --agent VENDOR:M (replay takes none and ignores it)")
	fs.Float64Var(&c.maxSpend, "max-spend", 0, "quickstarted's name for --max-cost-usd (with replay it caps nothing: replay costs nothing)")
	fs.StringVar(&c.image, "image", "", "the container image of tasks that name no image:")
	fs.BoolVar(&c.refreshPrices, "refresh-prices", false, "refused: tabwright has no live price source; give --prices FILE")
	return c
}

// apply maps quickstarted's spellings onto f's own flags, or refuses them
// with our equivalent; it returns the exit code (0: go on).
func (c *compatFlags) apply(f *runFlags, stdout, stderr io.Writer) exitCode {
	if c.refreshPrices {
		fmt.Fprintln(stderr, "qs.flag_refused: --refresh-prices asks quickstarted's live price library, which tabwright does not have; give the rates in a price book with --prices FILE")
		return exitUsage
	}
	agent, err := agentWithModel(*f.agent.agent, c.model)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	if agent == "replay" && c.model != "" {
		fmt.Fprintf(stdout, "note     --model %s is ignored: the replay agent runs the task's commands and asks no model\n", c.model)
	}
	*f.agent.agent = agent
	if c.maxSpend != 0 {
		if *f.agent.maxCost != 0 && *f.agent.maxCost != c.maxSpend {
			fmt.Fprintf(stderr, "qs.flag_conflict: --max-spend %g and --max-cost-usd %g are one cap; give one\n", c.maxSpend, *f.agent.maxCost)
			return exitUsage
		}
		*f.agent.maxCost = c.maxSpend
		f.agent.capFlag = "--max-spend"
	}
	if *f.agent.prices == "" {
		*f.agent.prices = os.Getenv("QUICKSTARTED_PRICES") // quickstarted's default for --prices
		f.agent.pricesEnv = *f.agent.prices != ""
	}
	return c.mapBackend(f, stdout, stderr)
}

// mapBackend maps quickstarted's backend names: docker (its enforced
// backend on Linux, which runs each task in its image) is our container
// backend, on whichever engine answers; seatbelt (macOS's sandbox-exec) is
// refused, naming ours.
func (c *compatFlags) mapBackend(f *runFlags, stdout, stderr io.Writer) exitCode {
	switch f.backend {
	case "docker", "podman":
		fmt.Fprintf(stdout, "note     --backend %s (quickstarted's) is tabwright's --backend %s: each task in its image, on Docker or Podman, whichever answers (%s chooses)\n", f.backend, sandbox.Container, sandbox.RuntimeEnv)
		f.backend = sandbox.Container
	case "seatbelt":
		fmt.Fprintf(stderr, "qs.flag_refused: --backend seatbelt is macOS's sandbox-exec, which tabwright does not use; its enforced backend is --backend %s (bubblewrap, Linux), or auto\n", sandbox.Isolated)
		return exitUsage
	}
	return exitOK
}

// agentWithModel joins quickstarted's --agent VENDOR --model M into our
// --agent VENDOR:M. A model given both ways must be the same one.
func agentWithModel(agent, model string) (string, error) {
	if model == "" || agent == "replay" {
		return agent, nil
	}
	vendor, had, found := strings.Cut(agent, ":")
	if found && had != model {
		return "", fmt.Errorf("qs.flag_conflict: --agent %s and --model %s name two models; give one (--agent %s:%s)", agent, model, vendor, model)
	}
	return vendor + ":" + model, nil
}
