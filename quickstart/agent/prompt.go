package agent

import (
	"fmt"
	"strings"

	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// System is the one system prompt every vendor gets.
const System = `You are a developer trying an unfamiliar project for the first time, by following its documentation. Your working directory is a fresh, empty workspace made for this attempt. The goal is in the first message.

Rules:
- The project's documentation, read with read_docs, is your only source about this project. Do not rely on anything you may remember about it; general programming knowledge is fine.
- Start with the pages listed in the first message, in that order, then follow links with read_docs when you need more.
- Run commands with bash. Each call is a new shell in the workspace: only files persist, so cd and exports do not carry over (chain them with &&). Long-running servers must be started in the background.
- The shell cannot reach documentation sites. Use read_docs for docs; it records what you read.
- When the goal is reached, check it with a command, then stop and give a one-paragraph summary. Do not keep polishing.
- If you are stuck because the docs are missing or wrong, stop and say exactly which page and which step failed.`

// browserNote is added when the agent has the browser tools.
const browserNote = `
- You also have browser tools for the app you run here: open a tab on its loopback address (http://127.0.0.1:PORT/ or http://localhost:PORT/), then observe and act on it as a person would. Documentation pages are read with read_docs only.`

// SystemFor is the system prompt for a run; withBrowser adds the browser note.
func SystemFor(withBrowser bool) string {
	if withBrowser {
		return System + browserNote
	}
	return System
}

// Kickoff is the first user message: the goal, the route in order, the
// allowed docs hosts, and the setup commands already run.
func Kickoff(t *task.Task) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Goal: %s\n\n", strings.TrimSpace(t.Goal))
	if len(t.Route) == 1 {
		fmt.Fprintf(&b, "Documentation entrypoint: %s\n", t.Route[0])
	} else {
		b.WriteString("Documentation, in the order the project presents it:\n")
		for i, u := range t.Route {
			fmt.Fprintf(&b, "  %d. %s\n", i+1, u)
		}
	}
	fmt.Fprintf(&b, "Allowed documentation hosts: %s\n", strings.Join(t.DocsAllow, ", "))
	if len(t.Setup) > 0 {
		b.WriteString("\nThe workspace was already prepared by running:\n")
		for _, c := range t.Setup {
			fmt.Fprintf(&b, "  $ %s\n", c)
		}
	}
	return b.String()
}

// BuiltinTools are read_docs and bash, as every vendor gets them.
func BuiltinTools() []ToolDef {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	return []ToolDef{
		{Name: trace.ToolReadDocs,
			Description: "Read a page of the project's documentation. Use it before the first command and whenever the pages read so far do not answer a question. Only this task's documentation hosts can be read; others answer BLOCKED.",
			Schema: map[string]any{"type": "object", "properties": map[string]any{"url": str("absolute http(s) URL of the page")},
				"required": []string{"url"}}},
		{Name: trace.ToolBash,
			Description: "Run a shell command in the workspace. Every call is a new shell whose working directory is the workspace; only files persist between calls. Returns the exit code and the output.",
			Schema: map[string]any{"type": "object", "properties": map[string]any{"command": str("the command line")},
				"required": []string{"command"}}},
	}
}
