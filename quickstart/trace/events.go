package trace

import (
	"fmt"
	"math"
	"time"
)

// Type names an event kind, the "type" of its JSON. Readers accept types
// they do not know.
type Type string

// TypeOf is ev's type, as recorded or as read back from trace.jsonl (a
// string there; a Type in an event a test or a caller built).
func TypeOf(ev map[string]any) Type {
	switch v := ev["type"].(type) {
	case Type:
		return v
	case string:
		return Type(v)
	}
	return ""
}

// Event types.
const (
	RunStart            Type = "run_start"
	Setup               Type = "setup"
	ToolCall            Type = "tool_call"
	ToolResult          Type = "tool_result"
	DocsRead            Type = "docs_read"
	DocsRedirect        Type = "docs_redirect_followed"
	DocsReadBlocked     Type = "docs_read_blocked"
	DocsReadError       Type = "docs_read_error"
	DocsChanged         Type = "docs_changed"
	DocsRequestBlocked  Type = "docs_request_blocked" // a request of read_docs' browser, refused
	AffordanceWithheld  Type = "affordance_withheld"
	AffordanceProbe     Type = "affordances"
	AgentTurn           Type = "agent_turn"
	AgentFinal          Type = "agent_final"
	APIRetry            Type = "api_retry"
	ThinkingUnsupported Type = "adaptive_thinking_unsupported"
	ImagesUnsupported   Type = "images_unsupported"
	TokenParamSwitched  Type = "token_param_switched"
	BrowserCall         Type = "browser_call"
	BrowserRefused      Type = "browser_blocked"
	EgressBlocked       Type = "egress_blocked"
	EgressError         Type = "egress_error"
	SessionLogError     Type = "session_log_error"
	SuccessCheck        Type = "success_check"
	RunEnd              Type = "run_end"
	EgressCacheHit      Type = "egress_cache_hit"
	EgressCacheMiss     Type = "egress_cache_miss"
)

// By is who made a docs read or a request the harness recorded: the
// agent's read_docs call, the harness (replay's reading of the route), or
// the success check's browser.
type By string

const (
	ByAgent        By = "agent"
	ByHarness      By = "harness"
	ByCheckBrowser By = "check_browser"
)

// StringsOf is the list of strings ev holds at key, as recorded ([]string)
// or as read back from trace.jsonl ([]any).
func StringsOf(ev map[string]any, key string) []string {
	switch v := ev[key].(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	return nil
}

// ByOf is who made ev, as recorded or as read back.
func ByOf(ev map[string]any) By {
	switch v := ev["by"].(type) {
	case By:
		return v
	case string:
		return By(v)
	}
	return ""
}

// OutputClip is how many characters of a tool's output, a model's text or
// the success check's output an event (and a result) keeps.
const OutputClip = 2000

// Tool names the harness owns.
const (
	ToolBash     = "bash"
	ToolReadDocs = "read_docs"
)

// Secs is d in seconds to the millisecond, as durations are written.
func Secs(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }

// Raw is an event another package describes by name (the egress proxy's
// decisions arrive this way).
func Raw(typ Type, fields map[string]any) Event { return Event{typ, fields} }

// RunStarted is run_start's facts.
type RunStarted struct {
	Task, Agent, Backend string
	Enforced             bool
	Image                string
	Attempt              int
	Source               string
	Egress               string // "enforced" or "advisory"
	RegistryCache        string // the registry cache's folder; "" for none
	AffordancePolicy     string // read_docs' affordances; "" without read_docs
	DocsCache            string // the docs cache's folder; "" for none
}

// Start is run_start.
func Start(s RunStarted) Event {
	f := map[string]any{"task": s.Task, "agent": s.Agent, "backend": s.Backend, "enforced": s.Enforced,
		"image": s.Image, "attempt": s.Attempt, "source": s.Source, "egress": s.Egress}
	if s.RegistryCache != "" {
		f["registry_cache"] = s.RegistryCache
	}
	if s.AffordancePolicy != "" {
		f["affordance_policy"] = s.AffordancePolicy
	}
	if s.DocsCache != "" {
		f["docs_cache"] = s.DocsCache
	}
	return Event{RunStart, f}
}

// Command is what a shell command did, for setup and bash results.
type Command struct {
	Command   string
	ExitCode  int
	TimedOut  bool
	Truncated bool
	Duration  time.Duration
	Output    string
}

// SetupDone is one setup command.
func SetupDone(c Command) Event {
	return Event{Setup, map[string]any{"command": c.Command, "exit_code": c.ExitCode, "timed_out": c.TimedOut,
		"duration": Secs(c.Duration), "output": c.Output}}
}

// BashCall is a bash tool call.
func BashCall(command string) Event {
	return Event{ToolCall, map[string]any{"tool": ToolBash, "command": command}}
}

// BashResult is a bash tool call's result.
func BashResult(c Command) Event {
	return Event{ToolResult, map[string]any{"tool": ToolBash, "exit_code": c.ExitCode, "duration": Secs(c.Duration),
		"timed_out": c.TimedOut, "output": c.Output, "truncated": c.Truncated}}
}

// DocsCall is a read_docs tool call the agent made. The harness's own
// reads of the route (for replay) have no call.
func DocsCall(url string) Event {
	return Event{ToolCall, map[string]any{"tool": ToolReadDocs, "url": url}}
}

// OtherCall is a call of any other tool (a browser tool, or a name the
// harness does not know); input is the arguments as the model sent them.
func OtherCall(tool string, input any) Event {
	return Event{ToolCall, map[string]any{"tool": tool, "input": input}}
}

// OtherResult is its result, output clipped to OutputClip characters.
func OtherResult(tool string, isError bool, output string, d time.Duration) Event {
	return Event{ToolResult, map[string]any{"tool": tool, "is_error": isError, "output": Clip(output, OutputClip), "duration": Secs(d)}}
}

// Browser is one browser tool call the agent made on the sandbox's app:
// its input and what it answered, clipped.
func Browser(tool, input string, isError bool, output string, d time.Duration, images ...Image) Event {
	f := map[string]any{"tool": tool, "input": Clip(input, 1000), "is_error": isError,
		"output": Clip(output, OutputClip), "duration": Secs(d)}
	if len(images) > 0 {
		l := make([]any, len(images))
		for i, im := range images {
			l[i] = map[string]any{"media_type": im.MediaType, "width": im.Width, "height": im.Height, "bytes": im.Bytes}
		}
		f["images"] = l
	}
	return Event{BrowserCall, f}
}

// TokenParam: the model's server refused the reply-length parameter sent
// (max_tokens or max_completion_tokens); the call is sent again with the
// other, which later calls to that model use too.
func TokenParam(turn int, model, refused, using, why string) Event {
	return Event{TokenParamSwitched, map[string]any{"turn": turn, "model": model, "refused": refused, "using": using, "error": Clip(why, 300)}}
}

// Image is what the trace keeps of an image a tool showed the model: its
// size, never its bytes.
type Image struct {
	MediaType     string
	Width, Height int
	Bytes         int
}

// NoImages: the model's server refused a request that carried an image;
// it is sent again, and later results go, without images.
func NoImages(turn int, model, why string) Event {
	return Event{ImagesUnsupported, map[string]any{"turn": turn, "model": model, "error": Clip(why, 300)}}
}

// BrowserBlocked: the agent's browser tried to leave the sandbox's
// loopback (a link, a redirect, a script); the request was refused.
func BrowserBlocked(host, url string) Event {
	return Event{BrowserRefused, map[string]any{"host": host, "url": Clip(url, 500)}}
}

// Turn is one model call's facts, as agent_turn records them.
type Turn struct {
	Turn                                 int
	Model                                string
	StopReason                           string
	Text                                 string   // the reply's text, clipped
	Calls                                []string // the tool names it called, in order
	Input, Output, CacheWrite, CacheRead int
	Duration                             time.Duration // the call, retries included
}

// TurnDone is agent_turn.
func TurnDone(t Turn) Event {
	calls := t.Calls
	if calls == nil {
		calls = []string{}
	}
	return Event{AgentTurn, map[string]any{"turn": t.Turn, "model": t.Model, "stop_reason": t.StopReason,
		"text": Clip(t.Text, OutputClip), "tool_calls": calls, "input_tokens": t.Input, "output_tokens": t.Output,
		"cache_write_tokens": t.CacheWrite, "cache_read_tokens": t.CacheRead, "duration": Secs(t.Duration)}}
}

// Final is the agent's closing text.
func Final(text string) Event {
	return Event{AgentFinal, map[string]any{"text": Clip(text, OutputClip)}}
}

// Retry is one wait before calling the model again.
func Retry(turn, attempt, status int, sleep time.Duration, err string) Event {
	return Event{APIRetry, map[string]any{"turn": turn, "attempt": attempt, "status": status, "sleep": Secs(sleep), "error": Clip(err, 500)}}
}

// NoThinking: the model refused adaptive thinking; the call is retried
// without it.
func NoThinking(turn int, model string) Event {
	return Event{ThinkingUnsupported, map[string]any{"turn": turn, "model": model}}
}

// Changed: a cached page's content differs from what was cached.
func Changed(url, hash string) Event {
	return Event{DocsChanged, map[string]any{"url": url, "content_hash": hash}}
}

// Withheld: a machine-facing file withheld by --affordances none.
func Withheld(url string, by By) Event {
	return Event{AffordanceWithheld, map[string]any{"url": url, "by": string(by)}}
}

// Affordances is the probe of which machine-facing files exist.
func Affordances(entrypoint string, found any) Event {
	return Event{AffordanceProbe, map[string]any{"entrypoint": entrypoint, "found": found}}
}

// LogError: the session log could not be written.
func LogError(err error) Event { return Event{SessionLogError, map[string]any{"error": err.Error()}} }

// Check is the success check's outcome.
func Check(exitCode int, output string) Event {
	return Event{SuccessCheck, map[string]any{"exit_code": exitCode, "passed": exitCode == 0, "output": output}}
}

// End is run_end.
func End(stop, detail, classification string, passed bool) Event {
	return Event{RunEnd, map[string]any{"stop_reason": stop, "passed": passed, "classification": classification, "detail": detail}}
}

// Clip keeps the first n characters of s.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
