// Package agent is who works through a quickstart: replay (the task's own
// commands, no model) or a model over its vendor's API. Every agent acts
// only through the harness's tools (a Toolbelt: bash, read_docs, and any
// extra tools the harness adds, such as the browser on the sandbox's
// loopback), within the task's budgets, and says why it stopped.
package agent

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// StopReason is why an agent stopped (not the verdict): one closed set,
// written as it is into results and traces.
type StopReason string

// Stop reasons.
const (
	StopCompleted     StopReason = "completed"
	StopCommandFailed StopReason = "command_failed"
	StopMaxTurns      StopReason = "max_turns"
	StopTimeout       StopReason = "timeout"
	StopTokenBudget   StopReason = "token_budget"
	StopRefusal       StopReason = "refusal"
	StopError         StopReason = "error"
	StopSkipped       StopReason = "skipped"
	// StopWorkspaceFull: a command filled the sandbox's bounded workspace
	// (sandbox.WorkspaceFull); the harness stopped the agent.
	StopWorkspaceFull StopReason = sandbox.WorkspaceFull
	// StopProcessBound: a command met the sandbox's bound on processes
	// (sandbox.ProcessBound); the harness stopped the agent.
	StopProcessBound StopReason = sandbox.ProcessBound
	// StopOfflineCacheMiss: under --offline the agent (or the harness, for
	// replay) asked for a page the docs cache lacks; the harness stopped the
	// agent.
	StopOfflineCacheMiss = StopReason(docs.OfflineCacheMiss)
)

// Failure says whose fault an error stop was, so the verdict never has to
// read the detail text.
type Failure string

const (
	// FailureInfra: the model's service (or the way to it) failed: a
	// connection error, or retryable statuses until the tries or the time ran
	// out.
	FailureInfra Failure = "infra"
	// FailureHarness: anything else (a refused key, an unknown model, a
	// setup command, the sandbox, an interruption).
	FailureHarness Failure = "harness"
)

// ErrMaxSeconds is the cause of the agent context's end when max_seconds
// passed (anything else ending it is an interruption).
var ErrMaxSeconds = errors.New("max_seconds passed")

// Tokens are the four exclusive counters: Input never includes the cache
// buckets, so the total is their sum.
type Tokens struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheWrite int `json:"cache_write"`
	CacheRead  int `json:"cache_read"`
}

// Total is the sum of the four counters.
func (t Tokens) Total() int { return t.Input + t.Output + t.CacheWrite + t.CacheRead }

// Add adds u to t.
func (t *Tokens) Add(u Tokens) {
	t.Input += u.Input
	t.Output += u.Output
	t.CacheWrite += u.CacheWrite
	t.CacheRead += u.CacheRead
}

// Outcome is how an agent's run ended.
type Outcome struct {
	StopReason    StopReason
	Detail        string
	Failure       Failure // set when StopReason is StopError
	Turns         int
	Tokens        Tokens
	ModelReported string // the model the API said served the latest call
}

// Agent works on one task at a time; one value may run attempts
// concurrently (all per-run state lives inside Run).
type Agent interface {
	// Name is how results name the agent: replay, claude:MODEL, openai:MODEL.
	Name() string
	// Run works until done or a budget ends; ctx ends at max_seconds with
	// cause ErrMaxSeconds.
	Run(ctx context.Context, s *Session) Outcome
}

// Session is what an agent gets for one run.
type Session struct {
	Task  *task.Task
	Tools Toolbelt
	Trace *trace.Trace
}

// Toolbelt is the harness's side: each call is executed under the task's
// command budgets and traced by the harness.
type Toolbelt interface {
	// Bash runs command in a fresh shell in the workspace.
	Bash(ctx context.Context, command string) trace.Command
	// ReadDocs reads a documentation page for the agent: the text it sees
	// (the page, or why it was refused).
	ReadDocs(ctx context.Context, url string) string
	// ReadRoute is the harness reading the task's route itself, in order
	// (replay's record of what the docs say; no agent asked).
	ReadRoute(ctx context.Context)
	// Extra is the harness's optional tools (nil: none).
	Extra() ExtraTools
}

// ToolDef is a tool as offered to a model: a name, what it does, and its
// input's JSON Schema.
type ToolDef struct {
	Name        string
	Description string
	Schema      map[string]any
}

// ExtraTools are tools beyond bash and read_docs (the browser on the
// sandbox's loopback); their implementation traces each call.
type ExtraTools interface {
	Defs() []ToolDef
	// Call runs one; its result is what the model sees.
	Call(ctx context.Context, name string, input json.RawMessage) ToolAnswer
}

// ToolAnswer is what an extra tool answered: text, and any images (a
// screenshot) the model is shown beside it.
type ToolAnswer struct {
	Text    string
	IsError bool
	Images  []Image
}

// What one image may be, for every vendor the agent talks to (Anthropic's
// Messages API takes the least: 5 MB, 8000 px a side); a larger one would
// fail this turn and every later one, as it stays in the conversation.
const (
	MaxImageBytes = 5 << 20
	MaxImageSide  = 8000
)

// Image is one picture a tool returned.
type Image struct {
	MediaType string // image/png or image/jpeg
	Data      []byte
}
