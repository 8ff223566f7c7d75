package run

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tabwright/tabwright/quickstart/trace"
)

// Transcript renders events as the run's story: turns with their text and
// tool calls, commands with exit codes, docs reads, retries and the
// verdict. Output is clipped (more with verbose, which also shows the
// output of commands that succeeded).
func Transcript(events []map[string]any, verbose bool) string {
	if len(events) == 0 {
		return ""
	}
	var b strings.Builder
	t0, _ := events[0]["ts"].(float64)
	for _, ev := range events {
		line := eventLine(ev, verbose)
		if line == "" {
			continue
		}
		ts, _ := ev["ts"].(float64)
		fmt.Fprintf(&b, "[%6.1fs] %s\n", ts-t0, line)
	}
	return b.String()
}

func eventLine(ev map[string]any, verbose bool) string {
	clip := 400
	if verbose {
		clip = 1200
	}
	switch trace.TypeOf(ev) {
	case trace.DocsRead, trace.DocsReadBlocked, trace.AffordanceWithheld, trace.DocsReadError, trace.DocsChanged, trace.AffordanceProbe:
		return docsLine(ev)
	case trace.AgentTurn, trace.APIRetry, trace.ThinkingUnsupported, trace.ImagesUnsupported, trace.TokenParamSwitched, trace.AgentFinal:
		return modelLine(ev, verbose, clip)
	case trace.BrowserCall, trace.BrowserRefused:
		return browserLine(ev, verbose, clip)
	}
	return runLine(ev, verbose, clip)
}

// runLine is the line of an event of the run itself: its start and end,
// setup, the shell's commands and refusals, the check.
func runLine(ev map[string]any, verbose bool, clip int) string {
	switch trace.TypeOf(ev) {
	case trace.RunStart:
		enf := "UNENFORCED"
		if ev["enforced"] == true {
			enf = "enforced"
		}
		return fmt.Sprintf("%v on %v (%s), agent %v, attempt %v", ev["task"], ev["backend"], enf, ev["agent"], ev["attempt"])
	case trace.Setup:
		return fmt.Sprintf("setup: %v  -> exit %v", ev["command"], ev["exit_code"]) + outputIf(ev, verbose || num(ev["exit_code"]) != 0, clip)
	case trace.EgressBlocked:
		return fmt.Sprintf("blocked from the shell: %v (%v)", ev["host"], ev["reason"])
	case trace.DocsRequestBlocked:
		path, _ := ev["path"].(string)
		return fmt.Sprintf("read_docs' browser refused %v %v%s for %v (%v)", ev["method"], ev["host"], path, ev["url"], ev["reason"])
	case trace.ToolCall:
		return callLine(ev)
	case trace.ToolResult:
		return resultLine(ev, verbose, clip)
	case trace.SuccessCheck:
		return fmt.Sprintf("success check exited %v", ev["exit_code"]) + outputIf(ev, true, 1200)
	case trace.RunEnd:
		d := ""
		if s := str(ev["detail"]); s != "" {
			d = ": " + clipText(s, 300)
		}
		return fmt.Sprintf("%v (stop reason: %v%s)", ev["classification"], ev["stop_reason"], d)
	}
	return ""
}

// resultLine is a tool's result: a bash command's exit, another tool's
// word; the output when verbose or when it failed.
func resultLine(ev map[string]any, verbose bool, clip int) string {
	if ranBash(ev) {
		line := fmt.Sprintf("  exit %v", ev["exit_code"])
		if ev["timed_out"] == true {
			line += " (timed out)"
		}
		return line + outputIf(ev, verbose || num(ev["exit_code"]) != 0, clip)
	}
	return "  -> " + resultWord(ev) + outputIf(ev, verbose || ev["is_error"] == true, clip)
}

// modelLine is the line of a model call's event: a turn, a retry, a
// fallback the server forced, the agent's closing words.
func modelLine(ev map[string]any, verbose bool, clip int) string {
	switch trace.TypeOf(ev) {
	case trace.AgentTurn:
		return turnLine(ev, verbose)
	case trace.APIRetry:
		return fmt.Sprintf("api retry: turn %v try %v failed (%v), waiting %vs", ev["turn"], ev["attempt"], ev["error"], ev["sleep"])
	case trace.ThinkingUnsupported:
		return fmt.Sprintf("%v refused adaptive thinking; asking again without it", ev["model"])
	case trace.ImagesUnsupported:
		return fmt.Sprintf("%v's server refused an image (%v); going on without images", ev["model"], ev["error"])
	case trace.TokenParamSwitched:
		return fmt.Sprintf("%v's server refused %v (%v); asking again with %v", ev["model"], ev["refused"], ev["error"], ev["using"])
	case trace.AgentFinal:
		return "agent says: " + clipText(fmt.Sprint(ev["text"]), clip)
	}
	return ""
}

func docsLine(ev map[string]any) string {
	switch trace.TypeOf(ev) {
	case trace.DocsRead:
		by := ""
		if trace.ByOf(ev) == trace.ByHarness {
			by = ", read by the harness"
		}
		if ev["from_cache"] == true {
			by += ", cached"
		}
		return fmt.Sprintf("read %v (%v chars%s)", ev["url"], ev["chars"], by)
	case trace.DocsReadBlocked:
		return fmt.Sprintf("BLOCKED %v (%v)", ev["url"], ev["reason"])
	case trace.AffordanceWithheld:
		return fmt.Sprintf("BLOCKED %v (withheld)", ev["url"])
	case trace.DocsChanged:
		return fmt.Sprintf("CHANGED %v since it was cached (sha256 %v)", ev["url"], ev["content_hash"])
	case trace.AffordanceProbe:
		return affordancesLine(ev["found"])
	case trace.DocsReadError:
		return fmt.Sprintf("READ ERROR %v: %v", ev["url"], ev["error"])
	}
	return ""
}

func browserLine(ev map[string]any, verbose bool, clip int) string {
	switch trace.TypeOf(ev) {
	case trace.BrowserCall:
		return fmt.Sprintf("browser %v %s -> %s", ev["tool"], clipText(str(ev["input"]), 200), resultWord(ev)) + imagesShown(ev["images"]) + outputIf(ev, verbose || ev["is_error"] == true, clip)
	case trace.BrowserRefused:
		return fmt.Sprintf("browser blocked from %v (%v): only the sandbox's loopback is reachable", ev["host"], ev["url"])
	}
	return ""
}

// imagesShown is the images a browser call showed the model, by size (the
// trace never holds their bytes).
func imagesShown(v any) string {
	l, _ := v.([]any)
	out := ""
	for _, x := range l {
		m, _ := x.(map[string]any)
		out += fmt.Sprintf(" [image %vx%v, %v bytes]", m["width"], m["height"], m["bytes"])
	}
	return out
}

func turnLine(ev map[string]any, verbose bool) string {
	line := fmt.Sprintf("turn %v: %v, stop %v, tokens %v in / %v out", ev["turn"], ev["model"], ev["stop_reason"], ev["input_tokens"], ev["output_tokens"])
	if num(ev["cache_write_tokens"])+num(ev["cache_read_tokens"]) > 0 {
		line += fmt.Sprintf(", cache %v written / %v read", ev["cache_write_tokens"], ev["cache_read_tokens"])
	}
	if text := strings.TrimSpace(str(ev["text"])); text != "" {
		n := 300
		if verbose {
			n = trace.OutputClip // all the trace kept
		}
		line += indent(clipText(text, n))
	}
	return line
}

// callLine is a tool call: the command or URL when the input fitted the
// tool, else the input as the model sent it (the harness refused it).
func callLine(ev map[string]any) string {
	if c, ok := ev["command"].(string); ok && ev["tool"] == trace.ToolBash {
		return "$ " + c
	}
	if u, ok := ev["url"].(string); ok && ev["tool"] == trace.ToolReadDocs {
		return "read_docs " + u
	}
	return fmt.Sprintf("%v %s", ev["tool"], clipText(str(ev["input"]), 200))
}

// ranBash reports whether ev is the result of a bash command that ran (a
// call whose input did not fit was answered with an error, and ran nothing).
func ranBash(ev map[string]any) bool {
	_, ran := ev["exit_code"]
	return ev["tool"] == trace.ToolBash && ran
}

func resultWord(ev map[string]any) string {
	if ev["is_error"] == true {
		return "ERROR"
	}
	return "ok"
}

func outputIf(ev map[string]any, show bool, n int) string {
	if !show {
		return ""
	}
	return indent(clipText(str(ev["output"]), n))
}

func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + fmt.Sprintf("[... %d more characters ...]", len(r)-n)
}

func num(v any) float64 {
	f, _ := v.(float64)
	if i, ok := v.(int); ok {
		f = float64(i)
	}
	return f
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

func indent(out string) string {
	out = strings.TrimRight(out, "\n")
	if out == "" {
		return ""
	}
	return "\n           | " + strings.ReplaceAll(out, "\n", "\n           | ")
}

// affordancesLine says which machine-facing files the probe found; found
// is the probe's map as written or as read back from JSON.
func affordancesLine(found any) string {
	b, _ := json.Marshal(found)
	var m map[string]struct {
		Present bool   `json:"present"`
		Status  int    `json:"status"`
		Note    string `json:"note"`
	}
	json.Unmarshal(b, &m)
	var parts []string
	for _, label := range []string{"llms.txt", "llms-full.txt", "page.md"} {
		f, ok := m[label]
		switch {
		case !ok:
		case f.Present:
			parts = append(parts, label+" present")
		case f.Note != "":
			parts = append(parts, label+" absent ("+f.Note+")")
		default:
			parts = append(parts, fmt.Sprintf("%s absent (%d)", label, f.Status))
		}
	}
	return "affordances: " + strings.Join(parts, ", ")
}
