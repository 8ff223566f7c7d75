package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What a first-time user meets after a failing run: qs show on the results
// directory lists its runs (and shows the one when there is one), and the
// report's failure box shows the command that failed with its error, not
// only a check that printed nothing.
func TestQSFirstUseAfterAFailure(t *testing.T) {
	t.Parallel()
	docs := docsServer(t)
	dir := t.TempDir()
	actionTasks(t, dir, docs.URL)
	os.WriteFile(filepath.Join(dir, "tasks", "b.yaml"), []byte(fmt.Sprintf("name: b\ngoal: g\ndocs:\n  entrypoint: %s/docs/\n"+
		"replay: ['echo \"Error: Cannot find package commander\" >&2; exit 1']\nsuccess:\n  script: test -f done.txt\n", docs.URL)), 0o644)
	res := filepath.Join(dir, "res")
	code, out, stderr := qsCmd(t, "run", filepath.Join(dir, "tasks"), "--backend", "local", "--allow-unenforced", "--out", res, "--quiet")
	if code != exitFailed {
		t.Fatalf("exit %d, want 1 (a docs gap)\n%s%s", code, out, stderr)
	}
	code, out, stderr = qsCmd(t, "show", res)
	for _, want := range []string{"holds 2 runs", filepath.Join(res, "a") + " ", "passed (stop reason: completed)", filepath.Join(res, "b") + " ", "docs_gap (stop reason: command_failed)"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("qs show RESULTS-DIR: exit %d, lacks %q\n%s%s", code, want, out, stderr)
		}
	}
	one := filepath.Join(dir, "one")
	qsCmd(t, "run", filepath.Join(dir, "tasks", "b.yaml"), "--backend", "local", "--allow-unenforced", "--out", one, "--quiet")
	if code, out, stderr = qsCmd(t, "show", one); code != 0 || !strings.Contains(out, "Cannot find package commander") {
		t.Errorf("qs show on a results directory of one run: exit %d\n%s%s", code, out, stderr)
	}
	page := filepath.Join(dir, "report.html")
	qsCmd(t, "report", res, "--out", page)
	b, _ := os.ReadFile(page)
	html := string(b)
	i, j := strings.Index(html, "<h2>Where it failed</h2>"), strings.Index(html, "<h2>Docs pages read</h2>")
	if i < 0 || j < i {
		t.Fatalf("the report has no failure section:\n%s", html)
	}
	box := html[i:j]
	for _, want := range []string{"The last command that failed (exit 1)", "Error: Cannot find package commander"} {
		if !strings.Contains(box, want) {
			t.Errorf("the failure box lacks %q:\n%s", want, box)
		}
	}
}
