package main

import (
	"os/exec"
	"strings"
	"testing"
)

// make demo runs this on the default profile: every tool it calls must be
// listed there (a profile change once broke it with no test failing).
func TestDemoRunsOnTheDefaultProfile(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(binary, "demo").CombinedOutput()
	if err != nil || strings.Contains(string(out), "unknown tool") {
		t.Fatalf("demo: %v\n%s", err, out)
	}
}
