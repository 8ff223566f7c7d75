package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v2"
)

// The action's inputs all reach the script it runs, by the names the script
// reads.
func TestActionPassesEveryInput(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]any `yaml:"inputs"`
		Runs   struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID  string            `yaml:"id"`
				Run string            `yaml:"run"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatal(err)
	}
	script, _ := os.ReadFile("../../scripts/qs-action.sh")
	var env map[string]string
	for _, s := range action.Runs.Steps {
		if s.ID == "qs" {
			env = s.Env
			if !strings.Contains(s.Run, "qs-action.sh\" run") {
				t.Errorf("the qs step does not run the script: %q", s.Run)
			}
		}
	}
	if action.Runs.Using != "composite" || env == nil {
		t.Fatalf("not a composite action with a qs step")
	}
	for in := range action.Inputs {
		if in == "upload" || in == "artifact-name" {
			continue // the action's own steps use these
		}
		v := "QS_" + strings.ToUpper(strings.ReplaceAll(in, "-", "_"))
		if env[v] != "${{ inputs."+in+" }}" {
			t.Errorf("input %s is not passed as %s (env has %q)", in, v, env[v])
		}
		if !strings.Contains(string(script), "${"+v) {
			t.Errorf("the script never reads %s", v)
		}
	}
}

// The script the action calls, run here as the action runs it: a shard of
// the suite, the HTML report beside the results, the step's outputs, the
// job summary, the exit code deferred or not.
func TestActionScriptRunsLocally(t *testing.T) {
	t.Parallel()
	bin := binary // TestMain's build: a second one cost most of this test's time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><article><h1>Docs</h1><p>Write done.txt with echo; this is the whole quickstart, and it is enough.</p></article></body></html>")
	}))
	defer srv.Close()
	tasks := t.TempDir()
	os.WriteFile(filepath.Join(tasks, "a.yaml"), []byte(fmt.Sprintf("name: a\ngoal: g\ndocs:\n  entrypoint: %s/docs/\nreplay: ['echo done > done.txt']\nsuccess:\n  script: test -f done.txt\n", srv.URL)), 0o644)
	os.WriteFile(filepath.Join(tasks, "b.yaml"), []byte(fmt.Sprintf("name: b\ngoal: g\ndocs:\n  entrypoint: %s/docs/\nreplay: ['true']\nsuccess:\n  script: test -f done.txt || qs_fail \"no done.txt\"\n", srv.URL)), 0o644)
	work := t.TempDir()
	script, _ := filepath.Abs("../../scripts/qs-action.sh")
	run := func(shard, deferExit string) (int, string, string) {
		outputs := filepath.Join(work, "outputs-"+strings.ReplaceAll(shard, "/", "-"))
		summary := filepath.Join(work, "summary.md")
		cmd := exec.Command("sh", script, "run")
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "TABWRIGHT="+bin, "QS_TASKS="+tasks, "QS_BACKEND=local", "QS_ALLOW_UNENFORCED=true",
			"QS_REPEAT=1", "QS_WORKERS=1", "QS_SHARD="+shard, "QS_OUT=res-"+strings.ReplaceAll(shard, "/", "-"), "QS_GITHUB_SUMMARY=true",
			"QS_ARGS=--quiet", "QS_DEFER_EXIT="+deferExit, "GITHUB_OUTPUT="+outputs, "GITHUB_STEP_SUMMARY="+summary, "GITHUB_ACTIONS=")
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		o, _ := os.ReadFile(outputs)
		return code, string(o), string(out)
	}
	code, outputs, log := run("1/2", "1")
	if code != 0 || !strings.Contains(outputs, "exit-code=0\n") || !strings.Contains(outputs, "report=res-1-2/report.html") {
		t.Errorf("shard 1/2 (deferred): exit %d, outputs %q\n%s", code, outputs, log)
	}
	code, outputs, log = run("2/2", "")
	if code != 1 || !strings.Contains(outputs, "exit-code=1\n") || !strings.Contains(log, "--shard 2/2") || !strings.Contains(log, "--github-summary") {
		t.Errorf("shard 2/2: exit %d, outputs %q\n%s", code, outputs, log)
	}
	for _, f := range []string{"res-1-2/report.html", "res-2-2/results.json", "res-2-2/b/report.md"} {
		if _, err := os.Stat(filepath.Join(work, f)); err != nil {
			t.Error(err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(work, "summary.md")); strings.Count(string(b), "# tabwright qs results") != 2 {
		t.Errorf("job summary:\n%s", b)
	}
	merge := exec.Command(bin, "qs", "report", "--merge", "res-1-2", "res-2-2", "--out", "merged")
	merge.Dir = work
	if out, err := merge.CombinedOutput(); err == nil || !strings.Contains(string(out), "a (replay): pass rate 100%") || !strings.Contains(string(out), "b (replay): pass rate 0%") {
		t.Errorf("merge (want exit 1, a docs gap): %v\n%s", err, out)
	}
}
