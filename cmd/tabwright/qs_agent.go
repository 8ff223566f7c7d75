package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/quickstart/agent"
	qsrun "github.com/tabwright/tabwright/quickstart/run"
)

// agentFlags are qs run's flags that choose the agent and what it may cost.
type agentFlags struct {
	agent, baseURL, keyEnv, tools, prices *string
	maxCost                               *float64
	// capFlag is the cap's flag as the user typed it (--max-spend is
	// quickstarted's name), so an error names what they wrote.
	capFlag string
	// pricesEnv says the book came from $QUICKSTARTED_PRICES, not --prices.
	pricesEnv bool
}

func addAgentFlags(fs *flag.FlagSet) *agentFlags {
	return &agentFlags{
		agent:   fs.String("agent", "replay", "who works through the docs: replay (the task's commands, no model), claude[:MODEL] (default model "+agent.DefaultClaudeModel+", as quickstarted), openai:MODEL, gemini:MODEL"),
		baseURL: fs.String("base-url", "", "the model server's API base URL: a gateway, or an OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio); a loopback one needs no key"),
		keyEnv:  fs.String("api-key-env", "", "read the API key from this variable only (default: TABWRIGHT_<VENDOR>_API_KEY, QUICKSTARTED_<VENDOR>_API_KEY, then the vendor's own)"),
		tools:   fs.String("agent-tools", "", "+browser also gives a model agent tabwright's browser tools on the app it serves on the sandbox's loopback"),
		prices:  fs.String("prices", "", "a price book (JSON: {\"MODEL\": {\"input\": USD per million tokens, \"output\": ..., \"cache_write\": ..., \"cache_read\": ...}}) that replaces the built-in, dated one (default $QUICKSTARTED_PRICES)"),
		maxCost: fs.Float64("max-cost-usd", 0, "stop starting attempts once the estimated cost reaches this many US dollars (quickstarted: --max-spend)"),
		capFlag: "--max-cost-usd",
	}
}

// build makes the agent and its price book, or says what is wrong (exit
// 3). A model agent is priced by --prices, else $QUICKSTARTED_PRICES, else
// the built-in book; replay asks no model, so it needs no book and a cap
// caps nothing (said once, on stdout).
func (f *agentFlags) build(stdout, stderr io.Writer) (agent.Agent, qsrun.Book, bool) {
	a, err := agent.New(agent.Config{Agent: *f.agent, BaseURL: *f.baseURL, APIKeyEnv: *f.keyEnv})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, qsrun.Book{}, false
	}
	if *f.tools != "" && *f.tools != "+browser" {
		fmt.Fprintf(stderr, "qs.agent_tools: --agent-tools %q: the only choice is +browser\n", *f.tools)
		return nil, qsrun.Book{}, false
	}
	if *f.tools != "" && a.Name() == "replay" {
		fmt.Fprintln(stderr, "qs.agent_tools: --agent-tools +browser is for model agents; replay runs the task's commands only")
		return nil, qsrun.Book{}, false
	}
	book, err := f.book(a.Name() != "replay")
	if err == nil {
		err = f.checkCap(a.Name(), book, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, qsrun.Book{}, false
	}
	return a, book, true
}

// book is the price book runs are priced with: the user's, else (for a
// model agent) the built-in one; replay with no book given gets none, so
// its results say no cost, as quickstarted's do.
func (f *agentFlags) book(model bool) (qsrun.Book, error) {
	if *f.prices != "" {
		return qsrun.LoadBook(*f.prices)
	}
	if !model {
		return qsrun.Book{}, nil
	}
	return qsrun.BuiltinBook()
}

// checkCap refuses a cap that cannot be kept: a negative one, or one on a
// model the book cannot price (every run would count as free). With replay
// the cap is dropped, and that is said.
func (f *agentFlags) checkCap(agentName string, book qsrun.Book, stdout io.Writer) error {
	cap := *f.maxCost
	switch {
	case cap < 0:
		return &errs.Error{Code: "qs.max_cost", Path: f.capFlag, Message: fmt.Sprintf("%g is not an amount of US dollars", cap), Hint: "give a positive amount, or leave it out for no cap"}
	case cap == 0:
		return nil
	case agentName == "replay":
		fmt.Fprintf(stdout, "note     %s %g caps nothing here: the replay agent asks no model, so its runs cost nothing\n", f.capFlag, cap)
		*f.maxCost = 0
		return nil
	}
	_, model, _ := strings.Cut(agentName, ":")
	if _, ok := book.Prices.Rate(model, agentName); ok {
		return nil
	}
	from := "--prices " + book.Origin
	if f.pricesEnv {
		from = "QUICKSTARTED_PRICES=" + book.Origin
	}
	if book.Origin == "built-in" {
		from = "the built-in price book (rates as of " + book.AsOf + ")"
	}
	return &errs.Error{Code: "qs.max_cost", Path: f.capFlag,
		Message: fmt.Sprintf("%s %g cannot be kept: %s has no price for %s, so its runs would count as free", f.capFlag, cap, from, model),
		Hint:    fmt.Sprintf(`give its rates in a price book, --prices FILE (or QUICKSTARTED_PRICES=FILE), with {"%s": {"input": USD, "output": USD, "cache_write": USD, "cache_read": USD}} per million tokens`, model)}
}
