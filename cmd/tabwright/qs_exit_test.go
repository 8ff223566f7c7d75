package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// results.json says the code the process exits with: a suite that passed
// beside an invalid task file exits 3, and its results.json says 3.
func TestQSRunResultsCarryTheFinalExitCode(t *testing.T) {
	t.Parallel()
	docs := docsServer(t)
	dir := t.TempDir()
	actionTasks(t, dir, docs.URL)
	os.WriteFile(filepath.Join(dir, "tasks", "bad.yaml"), []byte("name: bad\n"), 0o644)
	res := filepath.Join(dir, "res")
	code, out, stderr := qsCmd(t, "run", filepath.Join(dir, "tasks"), "--backend", "local", "--allow-unenforced", "--out", res)
	if code != exitUsage || !strings.Contains(out, "[PASS] a (replay)") {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	b, err := os.ReadFile(filepath.Join(res, "results.json"))
	var doc struct {
		ExitCode int `json:"exit_code"`
	}
	if err != nil || json.Unmarshal(b, &doc) != nil || doc.ExitCode != int(exitUsage) {
		t.Errorf("results.json says exit_code %d, the process exited %d (%v)", doc.ExitCode, code, err)
	}
}

// qs report --merge says where to write rather than writing ./results.
func TestQSMergeNeedsOut(t *testing.T) {
	work := t.TempDir()
	t.Chdir(work)
	code, _, stderr := qsCmd(t, "report", "--merge", resultsDoc(t, 1, 1))
	if code != exitUsage || !strings.Contains(stderr, "--out DIR") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "results")); err == nil {
		t.Error("./results was written")
	}
}
