package runcmd

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// progressPrinter prints the progress lines as events happen, each
// prefixed by task#attempt when several run. A task's image warning is
// printed at its first attempt's start, not again at each attempt's.
func progressPrinter(stdout io.Writer, multi, verbose bool) func(*task.Task, int, map[string]any, time.Duration) {
	var mu sync.Mutex
	warned := map[string]bool{}
	return func(t *task.Task, attempt int, ev map[string]any, el time.Duration) {
		where := ""
		if multi {
			where = fmt.Sprintf("%s#%d ", t.Name, attempt)
		}
		if trace.TypeOf(ev) == run.ImageCheckEvent {
			w := run.ImageWarning(ev)
			mu.Lock()
			first := !warned[t.Name+"\x00"+w]
			warned[t.Name+"\x00"+w] = true
			mu.Unlock()
			if w != "" && first {
				fmt.Fprintf(stdout, "  [%4.0fs] %swarning  %s\n", el.Seconds(), where, w)
			}
			return
		}
		if line := progressLine(ev, verbose); line != "" {
			fmt.Fprintf(stdout, "  [%4.0fs] %s%s\n", el.Seconds(), where, line)
		}
	}
}

// progressLine is an event's progress line, "" for events that have none.
func progressLine(ev map[string]any, verbose bool) string {
	if line := agentProgressLine(ev, verbose); line != "" {
		return line
	}
	switch trace.TypeOf(ev) {
	case trace.DocsRead, trace.DocsChanged, trace.AffordanceWithheld, trace.DocsReadBlocked, trace.DocsReadError:
		return docsProgressLine(ev)
	case trace.EgressCacheHit, trace.EgressCacheMiss:
		return cacheProgressLine(ev, verbose)
	case trace.RunStart:
		if ev["enforced"] == true {
			return fmt.Sprintf("started on %v (enforced)", ev["backend"])
		}
		return fmt.Sprintf("started on %v (unenforced)", ev["backend"])
	case trace.EgressBlocked:
		return fmt.Sprintf("blocked from the shell: %v", ev["host"])
	case trace.ToolCall:
		if c, ok := ev["command"].(string); ok && verbose && ev["tool"] == trace.ToolBash {
			c = strings.Join(strings.Fields(c), " ")
			if len(c) > 90 {
				c = c[:90]
			}
			return "$ " + c
		}
	case trace.SuccessCheck:
		return fmt.Sprintf("check exited %v", ev["exit_code"])
	}
	return ""
}

// docsProgressLine is the line of a docs read, refusal or change.
func docsProgressLine(ev map[string]any) string {
	switch trace.TypeOf(ev) {
	case trace.DocsRead:
		if ev["from_cache"] == true {
			return fmt.Sprintf("read %v (cached)", ev["url"])
		}
		return fmt.Sprintf("read %v", ev["url"])
	case trace.DocsChanged:
		return fmt.Sprintf("CHANGED %v since it was cached", ev["url"])
	case trace.AffordanceWithheld:
		return fmt.Sprintf("BLOCKED %v (withheld)", ev["url"])
	case trace.DocsReadBlocked:
		return fmt.Sprintf("BLOCKED %v (%v)", ev["url"], ev["reason"])
	case trace.DocsReadError:
		return fmt.Sprintf("READ ERROR %v: %v", ev["url"], ev["error"])
	}
	return ""
}

// cacheProgressLine is a registry download's line, with --verbose only.
func cacheProgressLine(ev map[string]any, verbose bool) string {
	if !verbose {
		return ""
	}
	what := "from the registry cache"
	if trace.TypeOf(ev) == trace.EgressCacheMiss {
		what = "downloaded"
		if ev["stored"] == true {
			what += ", now cached"
		}
	}
	return fmt.Sprintf("%v (%v bytes) %s", ev["url"], ev["bytes"], what)
}

// agentProgressLine is the progress line of a model agent's event: retries
// and the browser always, turns with --verbose; "" for other events.
func agentProgressLine(ev map[string]any, verbose bool) string {
	switch trace.TypeOf(ev) {
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
	tools := trace.StringsOf(ev, "tool_calls")
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
