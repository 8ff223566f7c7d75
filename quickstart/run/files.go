package run

// WriteFileAtomic writes data to path whole or not at all (a temporary file
// beside it, synced, then renamed over it), creating the parent
// directories; the error says what failed. Every results file goes through
// it: results.json, per-run files, JUnit, reports, a scaffolded task.
func WriteFileAtomic(path string, data []byte) error { return atomicWrite(path, data) }
