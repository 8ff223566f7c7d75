package runcmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/task"
)

// A task's image warning is printed at its first attempt's start, once
// however many attempts it has; a matching toolchain prints nothing.
func TestQSImageWarningOncePerTask(t *testing.T) {
	var out bytes.Buffer
	p := progressPrinter(&out, true, false)
	mismatch := map[string]any{"type": run.ImageCheckEvent, "image": "node:22-slim", "backend": "sandbox", "matches": false,
		"toolchain": "Node.js", "want": "22", "have": "20.11.1"}
	matching := map[string]any{"type": run.ImageCheckEvent, "image": "node:20", "backend": "sandbox", "matches": true,
		"toolchain": "Node.js", "want": "20", "have": "20.11.1"}
	for attempt := 1; attempt <= 3; attempt++ {
		p(&task.Task{Name: "a"}, attempt, mismatch, 0)
		p(&task.Task{Name: "b"}, attempt, matching, 0)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "a#1 warning  "+run.ImageToolchainMismatch+": image node:22-slim has Node.js 22") {
		t.Errorf("printed %q", out.String())
	}
}
