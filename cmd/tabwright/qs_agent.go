package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tabwright/tabwright/quickstart/agent"
	qsrun "github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// agentFlags are qs run's flags that choose the agent and what it may cost.
type agentFlags struct {
	agent, baseURL, keyEnv, tools, prices *string
	maxCost                               *float64
}

func addAgentFlags(fs *flag.FlagSet) *agentFlags {
	return &agentFlags{
		agent:   fs.String("agent", "replay", "who works through the docs: replay (the task's commands, no model), claude[:MODEL], openai:MODEL, gemini:MODEL"),
		baseURL: fs.String("base-url", "", "the model server's API base URL: a gateway, or an OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio); a loopback one needs no key"),
		keyEnv:  fs.String("api-key-env", "", "read the API key from this variable only (default: TABWRIGHT_<VENDOR>_API_KEY, QUICKSTARTED_<VENDOR>_API_KEY, then the vendor's own)"),
		tools:   fs.String("agent-tools", "", "+browser also gives a model agent tabwright's browser tools on the app it serves on the sandbox's loopback"),
		prices:  fs.String("prices", "", "a price book (JSON: {\"MODEL\": {\"input\": USD per million tokens, \"output\": ..., \"cache_write\": ..., \"cache_read\": ...}}) for estimated cost"),
		maxCost: fs.Float64("max-cost-usd", 0, "stop starting attempts once the estimated cost reaches this (needs --prices)"),
	}
}

// build makes the agent and the price book, or says what is wrong (exit 3).
func (f *agentFlags) build(stderr io.Writer) (agent.Agent, qsrun.Prices, bool) {
	a, err := agent.New(agent.Config{Agent: *f.agent, BaseURL: *f.baseURL, APIKeyEnv: *f.keyEnv})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, nil, false
	}
	if *f.tools != "" && *f.tools != "+browser" {
		fmt.Fprintf(stderr, "qs.agent_tools: --agent-tools %q: the only choice is +browser\n", *f.tools)
		return nil, nil, false
	}
	if *f.tools != "" && a.Name() == "replay" {
		fmt.Fprintln(stderr, "qs.agent_tools: --agent-tools +browser is for model agents; replay runs the task's commands only")
		return nil, nil, false
	}
	var book qsrun.Prices
	if *f.prices != "" {
		if book, err = qsrun.LoadPrices(*f.prices); err != nil {
			fmt.Fprintln(stderr, err)
			return nil, nil, false
		}
	}
	if *f.maxCost < 0 || *f.maxCost > 0 && book == nil {
		fmt.Fprintln(stderr, "qs.max_cost: --max-cost-usd needs a positive amount and a --prices book to estimate cost with")
		return nil, nil, false
	}
	return a, book, true
}

// agentProgressLine is the progress line of a model agent's event: retries
// and the browser always, turns with --verbose; "" for other events.
func agentProgressLine(ev map[string]any, verbose bool) string {
	switch ev["type"] {
	case trace.APIRetry:
		return fmt.Sprintf("model call failed (%v), retrying in %vs", ev["error"], ev["sleep"])
	case trace.ThinkingUnsupported:
		return fmt.Sprintf("%v refused adaptive thinking; asking without it", ev["model"])
	case trace.ImagesUnsupported:
		return fmt.Sprintf("%v's server refused an image; going on without images", ev["model"])
	case trace.TokenParamSwitched:
		return fmt.Sprintf("%v's server refused %v; asking with %v", ev["model"], ev["refused"], ev["using"])
	case trace.BrowserCall:
		if ev["is_error"] == true {
			return fmt.Sprintf("browser %v failed", ev["tool"])
		}
		return fmt.Sprintf("browser %v", ev["tool"])
	case trace.BrowserRefused:
		return fmt.Sprintf("browser blocked from %v", ev["host"])
	case trace.AgentTurn:
		return turnProgress(ev, verbose)
	}
	return ""
}

// turnProgress is one line per model turn: the tools it called (or that it
// answered in words), how long the call took and the tokens it used; with
// verbose also the model and its stop reason.
func turnProgress(ev map[string]any, verbose bool) string {
	var tools []string
	switch calls := ev["tool_calls"].(type) {
	case []string: // as traced
		tools = calls
	case []any: // as read back from trace.jsonl
		for _, c := range calls {
			tools = append(tools, fmt.Sprint(c))
		}
	}
	did := "answered, no tool"
	if len(tools) > 0 {
		did = strings.Join(tools, ", ")
	}
	line := fmt.Sprintf("turn %v: %s (%vs, %v in / %v out tokens)", ev["turn"], did, ev["duration"], ev["input_tokens"], ev["output_tokens"])
	if verbose {
		line += fmt.Sprintf(" [%v, stop %v]", ev["model"], ev["stop_reason"])
	}
	return line
}
