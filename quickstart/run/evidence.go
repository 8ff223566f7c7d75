package run

import (
	"fmt"
	"strings"

	"github.com/tabwright/tabwright/quickstart/trace"
)

// DocsUnreadable reports a run that tried to read the docs and read none:
// whatever its check says, it is no evidence about the documentation (the
// docs host was down, or every page refused), and why.
func DocsUnreadable(f trace.Facts) (bool, string) {
	if f.DocsReads > 0 || f.DocsFailures == 0 {
		return false, ""
	}
	return true, fmt.Sprintf("no docs page could be read (%d attempt(s); first: %s)", f.DocsFailures, f.FirstDocsFailure)
}

// StepWarnings lists the commands that timed out or failed in a run, so a
// run whose check passed anyway still says so.
func StepWarnings(events []map[string]any) []string {
	var out []string
	step := 0
	var command any
	for _, ev := range events {
		switch trace.TypeOf(ev) {
		case ImageCheckEvent:
			if w := ImageWarning(ev); w != "" {
				out = append(out, w)
			}
		case "setup":
			if w := commandWarning("setup command", 0, ev["command"], ev); w != "" {
				out = append(out, w)
			}
		case "tool_call":
			if c, ok := ev["command"].(string); ok && ev["tool"] == "bash" {
				step++
				command = c
			}
		case "tool_result":
			if ranBash(ev) {
				if w := commandWarning("step", step, command, ev); w != "" {
					out = append(out, w)
				}
			}
		}
	}
	return out
}

func commandWarning(what string, n int, command any, ev map[string]any) string {
	where := what
	if n > 0 {
		where = fmt.Sprintf("%s %d", what, n)
	}
	code := fmt.Sprint(ev["exit_code"])
	switch {
	case ev["timed_out"] == true:
		return fmt.Sprintf("%s timed out (exit %s): %v", where, code, command)
	case code != "0":
		return fmt.Sprintf("%s exited %s: %v", where, code, command)
	}
	return ""
}

// FailedCommand is the last command of a run that exited non-zero, with
// the end of its output: often the real error (a missing package) while
// the check only says the goal was not met.
type FailedCommand struct {
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"`
	Output   string `json:"output"` // its last lines (failedLines)
}

// failedLines is how much of a failed command's output a result keeps.
const failedLines = 20

// LastFailedCommand finds the last setup or bash command that exited
// non-zero (or timed out) in a run's events; nil when none did.
func LastFailedCommand(events []map[string]any) *FailedCommand {
	var last *FailedCommand
	var command string
	for _, ev := range events {
		switch {
		case trace.TypeOf(ev) == "tool_call" && ev["tool"] == "bash":
			command, _ = ev["command"].(string)
		case trace.TypeOf(ev) == "setup", trace.TypeOf(ev) == "tool_result" && ranBash(ev):
			if trace.TypeOf(ev) == "setup" {
				command, _ = ev["command"].(string)
			}
			if commandWarning("", 0, command, ev) == "" {
				continue
			}
			code, _ := ev["exit_code"].(float64)
			if n, ok := ev["exit_code"].(int); ok {
				code = float64(n)
			}
			out, _ := ev["output"].(string)
			last = &FailedCommand{Command: command, ExitCode: int(code), Output: lastLines(out, failedLines)}
		}
	}
	return last
}

// lastLines is the last n lines of s, without trailing blank lines.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n "), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
