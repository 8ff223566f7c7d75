package run

import (
	"fmt"
	"path/filepath"
)

// WriteFileAtomic writes data to path whole or not at all (a temporary file
// beside it, synced, then renamed over it), creating the parent
// directories; the error says what failed. Every results file goes through
// it: results.json, per-run files, JUnit, reports, a scaffolded task.
func WriteFileAtomic(path string, data []byte) error { return atomicWrite(path, data) }

// RunDir is where r's files go in a results directory: DIR/<task>, or
// DIR/<task>/attempt-N when the suite repeats tasks.
func (s *Suite) RunDir(dir string, r *AttemptResult) string {
	rd := filepath.Join(dir, safeName(r.Task))
	if s.Repeat > 1 {
		rd = filepath.Join(rd, fmt.Sprintf("attempt-%d", r.Attempt))
	}
	return rd
}
