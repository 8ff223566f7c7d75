package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tabwright/tabwright/quickstart/trace"
)

// maxReplyTokens caps each response (a budget per call, not per run).
const maxReplyTokens = 16000

// keptImages is how many of the newest images the conversation keeps: an
// image is sent again on every turn, so older ones become a short note
// (the request's size and the per-request image limits stay bounded).
const keptImages = 5

const imageForgotten = "[an earlier image, no longer shown: only the newest few are kept]"

// toolCall is one tool use a model asked for.
type toolCall struct {
	ID, Name string
	Input    json.RawMessage
}

// toolResult answers one toolCall.
type toolResult struct {
	CallID, Name, Text string
	IsError            bool
	Images             []Image
}

// reply is one model response, vendor-neutral.
type reply struct {
	Text    string
	Calls   []toolCall
	Stop    string // the vendor's stop/finish reason
	Refused bool
	Pause   bool // call again without tool results (Anthropic pause_turn)
	Model   string
	Usage   Tokens
}

// conversation is one run's dialogue with a vendor. send is retried by the
// loop: it adds the reply to the history only when it succeeds.
type conversation interface {
	addResults([]toolResult)
	send(ctx context.Context, turn int, tr *trace.Trace) (*reply, error)
}

// runLoop is the tool loop every model agent shares: budgets, retries,
// tool dispatch and accounting are here once, for every vendor.
func runLoop(ctx context.Context, s *Session, conv conversation, retry RetryPolicy) Outcome {
	b := s.Task.Budgets
	out := Outcome{}
	var pending []toolResult
	for turn := 1; ; turn++ {
		if o, stop := ended(ctx, b.MaxSeconds, fmt.Sprintf("before model turn %d", turn), turn-1); stop {
			return keep(o, out)
		}
		if turn > b.MaxTurns {
			out.StopReason, out.Turns = StopMaxTurns, b.MaxTurns
			out.Detail = fmt.Sprintf("max_turns (%d) reached", b.MaxTurns)
			return out
		}
		if b.MaxTokens > 0 && out.Tokens.Total() >= b.MaxTokens {
			out.StopReason, out.Turns = StopTokenBudget, turn-1
			out.Detail = fmt.Sprintf("token budget %d exhausted (%d used)", b.MaxTokens, out.Tokens.Total())
			return out
		}
		if len(pending) > 0 {
			conv.addResults(pending)
			pending = nil
		}
		start := time.Now()
		r, err := send(ctx, conv, turn, s.Trace, retry)
		if err != nil {
			if o, stop := ended(ctx, b.MaxSeconds, fmt.Sprintf("during model turn %d", turn), turn-1); stop {
				return keep(o, out)
			}
			out.StopReason, out.Turns, out.Detail, out.Failure = StopError, turn-1, err.Error(), failureOf(err)
			return out
		}
		out.Tokens.Add(r.Usage)
		if r.Model != "" {
			out.ModelReported = r.Model
		}
		s.Trace.Add(trace.TurnDone(turnFacts(turn, r, time.Since(start))))
		switch {
		case r.Refused:
			out.StopReason, out.Turns, out.Detail = StopRefusal, turn, "model refused: "+trace.Clip(r.Text, 300)
			return out
		case len(r.Calls) == 0 && !r.Pause:
			s.Trace.Add(trace.Final(r.Text))
			out.StopReason, out.Turns, out.Detail = StopCompleted, turn, trace.Clip(r.Text, 500)
			return out
		}
		for _, c := range r.Calls {
			pending = append(pending, dispatch(ctx, s, c))
		}
	}
}

// keep carries what a run had counted into an outcome that ends it.
func keep(o, counted Outcome) Outcome {
	o.Tokens, o.ModelReported = counted.Tokens, counted.ModelReported
	return o
}

func turnFacts(turn int, r *reply, d time.Duration) trace.Turn {
	names := make([]string, len(r.Calls))
	for i, c := range r.Calls {
		names[i] = c.Name
	}
	return trace.Turn{Turn: turn, Model: r.Model, StopReason: r.Stop, Text: r.Text, Calls: names,
		Input: r.Usage.Input, Output: r.Usage.Output, CacheWrite: r.Usage.CacheWrite, CacheRead: r.Usage.CacheRead, Duration: d}
}

// dispatch runs one tool call. A name the harness does not know, or input
// that does not fit, is answered with an error result: the model can
// correct itself, and the run goes on.
func dispatch(ctx context.Context, s *Session, c toolCall) toolResult {
	res := toolResult{CallID: c.ID, Name: c.Name}
	switch c.Name {
	case trace.ToolBash:
		var in struct {
			Command *string `json:"command"`
		}
		if err := json.Unmarshal(orEmpty(c.Input), &in); err != nil || in.Command == nil || strings.TrimSpace(*in.Command) == "" {
			return unfit(s, c, `bash needs {"command": "<a shell command>"}`)
		}
		r := s.Tools.Bash(ctx, *in.Command)
		res.Text = fmt.Sprintf("exit code: %d\n%s", r.ExitCode, r.Output)
		return res
	case trace.ToolReadDocs:
		var in struct {
			URL *string `json:"url"`
		}
		if err := json.Unmarshal(orEmpty(c.Input), &in); err != nil || in.URL == nil || *in.URL == "" {
			return unfit(s, c, `read_docs needs {"url": "<absolute http(s) URL>"}`)
		}
		res.Text = s.Tools.ReadDocs(ctx, *in.URL)
		return res
	}
	if x := s.Tools.Extra(); x != nil {
		for _, d := range x.Defs() {
			if d.Name == c.Name {
				r := x.Call(ctx, c.Name, orEmpty(c.Input))
				res.Text, res.IsError, res.Images = r.Text, r.IsError, r.Images
				return res
			}
		}
	}
	return unfit(s, c, "Unknown tool: "+c.Name+". The tools are: "+strings.Join(toolNames(s), ", ")+".")
}

func unfit(s *Session, c toolCall, msg string) toolResult {
	s.Trace.Add(trace.OtherCall(c.Name, string(c.Input)))
	s.Trace.Add(trace.OtherResult(c.Name, true, msg, 0))
	return toolResult{CallID: c.ID, Name: c.Name, Text: msg, IsError: true}
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}

// Tools are the definitions offered to the model for s.
func Tools(s *Session) []ToolDef {
	defs := BuiltinTools()
	if x := s.Tools.Extra(); x != nil {
		defs = append(defs, x.Defs()...)
	}
	return defs
}

func toolNames(s *Session) []string {
	var n []string
	for _, d := range Tools(s) {
		n = append(n, d.Name)
	}
	return n
}

// failureOf is whose fault err is: the service's (infra) or not.
func failureOf(err error) Failure {
	var ae *APIError
	if errors.As(err, &ae) && ae.Infra {
		return FailureInfra
	}
	return FailureHarness
}
