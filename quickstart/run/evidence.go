package run

import "fmt"

// DocsUnreadable reports a run that tried to read the docs and read none:
// whatever its check says, it is no evidence about the documentation (the
// docs host was down, or every page refused), and why.
func DocsUnreadable(events []map[string]any) (bool, string) {
	reads, failed, first := 0, 0, ""
	for _, ev := range events {
		switch ev["type"] {
		case "docs_read":
			reads++
		case "docs_read_error", "docs_read_blocked":
			failed++
			if first == "" {
				why := ev["error"]
				if why == nil {
					why = ev["reason"]
				}
				first = fmt.Sprintf("%v: %v", ev["url"], why)
			}
		}
	}
	if reads > 0 || failed == 0 {
		return false, ""
	}
	return true, fmt.Sprintf("no docs page could be read (%d attempt(s); first: %s)", failed, first)
}

// StepWarnings lists the commands that timed out or failed in a run, so a
// run whose check passed anyway still says so.
func StepWarnings(events []map[string]any) []string {
	var out []string
	step := 0
	var command any
	for _, ev := range events {
		switch ev["type"] {
		case "setup":
			if w := commandWarning("setup command", 0, ev["command"], ev); w != "" {
				out = append(out, w)
			}
		case "tool_call":
			if ev["tool"] == "bash" {
				step++
				command = ev["command"]
			}
		case "tool_result":
			if ev["tool"] == "bash" {
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
