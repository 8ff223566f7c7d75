// Package report turns results into other forms: JUnit XML, Markdown, a
// self-contained HTML page with a pass-rate chart, and a comparison of two
// results documents with Fisher's exact test.
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	qsrun "github.com/tabwright/tabwright/quickstart/run"
)

// Error is a results document that cannot be used: the file and why.
type Error struct {
	Path    string
	Rule    string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s [rule %s]", e.Path, e.Message, e.Rule) }

// Load reads a results.json, or the results.json in a results directory.
// Documents whose schema major version is not 2 are refused.
func Load(path string) (*qsrun.Suite, string, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "results.json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, path, &Error{path, "results.missing", "no such file"}
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, path, &Error{path, "results.json", "not valid JSON: " + err.Error()}
	}
	if _, ok := probe["tasks"]; !ok {
		return nil, path, &Error{path, "results.shape", "not a results document (no tasks)"}
	}
	var s qsrun.Suite
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, path, &Error{path, "results.shape", "not a results document: " + err.Error()}
	}
	if v := s.SchemaVersion; v != "" && strings.SplitN(v, ".", 2)[0] != "2" {
		return nil, path, &Error{path, "results.version", fmt.Sprintf("results schema %s cannot be read by this version, which reads 2.x", v)}
	}
	return &s, path, nil
}
