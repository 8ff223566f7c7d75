package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tabwright/tabwright/quickstart/agent/agenttest"
	yaml "go.yaml.in/yaml/v2"
)

type actionStep struct {
	ID               string            `yaml:"id"`
	Name             string            `yaml:"name"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	Run              string            `yaml:"run"`
	Shell            string            `yaml:"shell"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
	With             map[string]string `yaml:"with"`
}

type actionFile struct {
	Inputs map[string]struct {
		Default     string `yaml:"default"`
		Description string `yaml:"description"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) *actionFile {
	t.Helper()
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	return &a
}

// quickstarted's action inputs (snehankekre/quickstarted 0.6.1's action.yml).
var quickstartedInputs = []string{"tasks", "agent", "model", "repeat", "workers", "backend", "image", "affordances",
	"probe-affordances", "cache-dir", "prices", "max-spend", "python-version", "working-directory", "out", "junit",
	"github-summary", "strict-inconclusive", "allow-unenforced"}

// The action's inputs are a superset of quickstarted's, and each one is
// used by a step: an input passed to the script as QS_NAME is read there.
func TestActionPassesEveryInput(t *testing.T) {
	t.Parallel()
	a := readAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("not a composite action: %q", a.Runs.Using)
	}
	for _, in := range quickstartedInputs {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("quickstarted's input %q is missing (GitHub would only warn, and drop it)", in)
		}
	}
	script, _ := os.ReadFile("../../scripts/qs-action.sh")
	b, _ := os.ReadFile("../../action.yml")
	for in := range a.Inputs {
		ref := "${{ inputs." + in + " }}"
		if !strings.Contains(string(b), ref) && !strings.Contains(string(b), "inputs."+in+" ") {
			t.Errorf("input %s is never used by a step", in)
		}
		for _, s := range a.Runs.Steps {
			for k, v := range s.Env {
				if v == ref && strings.HasPrefix(k, "QS_") && !strings.Contains(string(script), "${"+k) {
					t.Errorf("input %s is passed as %s, which the script never reads", in, k)
				}
			}
		}
	}
}

// actionRunner runs action.yml's steps as a GitHub runner does: each run
// step's script by its shell with the variables GitHub sets (GITHUB_*,
// RUNNER_*, INPUT_*), expressions replaced, step outputs read from
// $GITHUB_OUTPUT, if: conditions honoured. Steps that use another action
// (setup-go, setup-python, upload-artifact) are recorded, not run: this
// machine has Go, and the upload is checked by the path it would take.
type actionRunner struct {
	t                      *testing.T
	action                 *actionFile
	inputs                 map[string]string
	env                    []string
	workspace, temp, path  string
	outputs                map[string]map[string]string
	ran, used              []string
	uploadPath, summaryLog string
}

func newActionRunner(t *testing.T, inputs map[string]string, extraEnv ...string) *actionRunner {
	root, _ := filepath.Abs("../..")
	r := &actionRunner{t: t, action: readAction(t), inputs: map[string]string{}, workspace: t.TempDir(), temp: t.TempDir(),
		path: root, outputs: map[string]map[string]string{}}
	for k, v := range r.action.Inputs {
		r.inputs[k] = v.Default
	}
	for k, v := range inputs {
		if _, ok := r.action.Inputs[k]; !ok {
			t.Fatalf("the action has no input %q", k)
		}
		r.inputs[k] = v
	}
	r.summaryLog = filepath.Join(r.temp, "step_summary")
	r.env = append(os.Environ(), "GITHUB_ACTIONS=true", "CI=true", "GITHUB_WORKSPACE="+r.workspace, "GITHUB_ACTION_PATH="+root,
		"GITHUB_ACTION_REPOSITORY=tabwright/tabwright", "GITHUB_SERVER_URL=https://github.com", "GITHUB_REPOSITORY=someone/docs",
		"GITHUB_STEP_SUMMARY="+r.summaryLog, "GITHUB_ENV="+filepath.Join(r.temp, "env"), "GITHUB_PATH="+filepath.Join(r.temp, "path"),
		"RUNNER_TEMP="+r.temp, "RUNNER_OS=Linux", "RUNNER_ARCH=X64")
	r.env = append(r.env, extraEnv...)
	for k, v := range r.inputs {
		r.env = append(r.env, "INPUT_"+strings.ToUpper(k)+"="+v)
	}
	return r
}

var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

func (r *actionRunner) value(e string) string {
	e = strings.TrimSpace(e)
	switch {
	case strings.HasPrefix(e, "'"):
		return strings.Trim(e, "'")
	case strings.HasPrefix(e, "inputs."):
		return r.inputs[strings.TrimPrefix(e, "inputs.")]
	case e == "runner.temp":
		return r.temp
	case e == "github.action_path":
		return r.path
	case strings.HasPrefix(e, "steps."):
		p := strings.Split(e, ".") // steps.ID.outputs.NAME
		return r.outputs[p[1]][p[3]]
	}
	r.t.Fatalf("an expression this runner does not know: %q", e)
	return ""
}

func (r *actionRunner) subst(s string) string {
	return exprRE.ReplaceAllStringFunc(s, func(m string) string { return r.value(exprRE.FindStringSubmatch(m)[1]) })
}

// cond evaluates the if: forms the action uses: always(), a == 'b',
// a != 'b', joined by &&.
func (r *actionRunner) cond(e string, failed bool) bool {
	if e == "" {
		return !failed
	}
	ok, always := true, false
	for _, part := range strings.Split(e, "&&") {
		part = strings.TrimSpace(part)
		switch {
		case part == "always()":
			always = true
		case strings.Contains(part, "!="):
			p := strings.SplitN(part, "!=", 2)
			ok = ok && r.value(p[0]) != r.value(p[1])
		case strings.Contains(part, "=="):
			p := strings.SplitN(part, "==", 2)
			ok = ok && r.value(p[0]) == r.value(p[1])
		default:
			r.t.Fatalf("an if: this runner does not know: %q", e)
		}
	}
	return ok && (always || !failed)
}

// runAll runs every step; it returns the action's outputs and whether a
// step failed (the job's result), with the steps' combined log.
func (r *actionRunner) runAll() (map[string]string, bool, string) {
	var log bytes.Buffer
	failed := false
	for i, s := range r.action.Runs.Steps {
		if !r.cond(s.If, failed) {
			continue
		}
		if s.Uses != "" {
			r.used = append(r.used, s.Uses)
			if strings.HasPrefix(s.Uses, "actions/upload-artifact") {
				r.uploadPath = r.subst(s.With["path"])
			}
			continue
		}
		r.ran = append(r.ran, s.Name)
		outFile := filepath.Join(r.temp, fmt.Sprintf("output-%d", i))
		script := filepath.Join(r.temp, fmt.Sprintf("step-%d.sh", i))
		os.WriteFile(script, []byte(r.subst(s.Run)), 0o644)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = r.workspace
		if s.WorkingDirectory != "" {
			cmd.Dir = filepath.Join(r.workspace, r.subst(s.WorkingDirectory))
		}
		cmd.Env = append(append([]string{}, r.env...), "GITHUB_OUTPUT="+outFile, "GITHUB_ACTION="+s.ID)
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+r.subst(v))
		}
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(&log, "step %q failed: %v\n", s.Name, err)
			failed = true
		}
		r.outputs[s.ID] = readOutputs(outFile)
	}
	outs := map[string]string{}
	for k, o := range r.action.Outputs {
		outs[k] = r.subst(o.Value)
	}
	return outs, failed, log.String()
}

func readOutputs(path string) map[string]string {
	m := map[string]string{}
	b, _ := os.ReadFile(path)
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

var release struct {
	once sync.Once
	dir  string
	err  error
}

const releaseTag = "v0.0.0-actiontest"

// releaseDir builds the release artifacts for this machine once, with the
// script `make release` runs.
func releaseDir(t *testing.T) string {
	release.once.Do(func() {
		release.dir, release.err = os.MkdirTemp("", "tabwright-release")
		if release.err == nil {
			release.err = buildRelease(release.dir)
		}
	})
	if release.err != nil {
		t.Fatal(release.err)
	}
	return release.dir
}

func buildRelease(dist string) error {
	cmd := exec.Command("sh", "../../scripts/release.sh", dist, releaseTag)
	// The Linux binaries alone: the Action installs nothing else
	// (release_test.go builds the archives and npm packages).
	cmd.Env = append(os.Environ(), "ARCHES="+runtime.GOARCH, "PACKAGES=0", "SOURCE_DATE_EPOCH=1700000000")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("release build: %v\n%s", err, out)
	}
	return nil
}

// serveRelease serves dist as a releases/download tree: TAG/FILE.
func serveRelease(t *testing.T, dist string, tamper bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		tag, file, _ := strings.Cut(strings.TrimPrefix(req.URL.Path, "/"), "/")
		b, err := os.ReadFile(filepath.Join(dist, file))
		if tag != releaseTag || err != nil {
			http.NotFound(w, req)
			return
		}
		if tamper && file == "SHA256SUMS" {
			b = bytes.Replace(b, b[:8], []byte("00000000"), 1)
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// releaseFile names a release artifact of this machine's architecture.
func releaseFile(name string) string { return name + "-linux-" + runtime.GOARCH }

// The release artifacts are reproducible: the release script's binaries
// are byte for byte those the tests build on their own (another build,
// with another cache state), and SHA256SUMS lists their sums. The tests
// therefore exercise what ships.
func TestReleaseBuildIsReproducible(t *testing.T) {
	t.Parallel()
	dist := releaseDir(t)
	sums := map[string]string{}
	for name, built := range map[string]string{"tabwright": binary, modelsBinary: modelsBinaryBeside(t)} {
		a, _ := os.ReadFile(filepath.Join(dist, releaseFile(name)))
		b, _ := os.ReadFile(built)
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the release and another build (%d and %d bytes)", releaseFile(name), len(a), len(b))
		}
		sums[releaseFile(name)] = fmt.Sprintf("%x", sha256.Sum256(a))
	}
	b, _ := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	var listed []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, file, _ := strings.Cut(line, "  ")
		if sums[file] != sum {
			t.Errorf("SHA256SUMS gives %s as %q, its bytes hash to %q", file, sum, sums[file])
		}
		listed = append(listed, file)
	}
	if !slices.Equal(listed, []string{releaseFile("tabwright"), releaseFile(modelsBinary)}) {
		t.Errorf("SHA256SUMS lists %v:\n%s", listed, b)
	}
}

func actionTasks(t *testing.T, dir, docsURL string) {
	os.MkdirAll(filepath.Join(dir, "tasks"), 0o755)
	os.WriteFile(filepath.Join(dir, "tasks", "a.yaml"), []byte(fmt.Sprintf("name: a\ngoal: Create done.txt.\ndocs:\n  entrypoint: %s/docs/\nreplay: ['echo done > done.txt']\nsuccess:\n  script: test -f done.txt || qs_fail \"no done.txt\"\n", docsURL)), 0o644)
}

func docsServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><article><h1>Docs</h1><p>Write done.txt with echo; this is the whole quickstart, and it is enough.</p></article></body></html>")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A quickstarted workflow's step, unchanged but for `uses:`, runs the
// action end to end: the prebuilt release is downloaded (from a loopback
// release server) and its checksum checked, quickstarted's inputs reach
// qs run (backend docker, junit, working-directory, strict-inconclusive,
// model ignored by replay), the report, summary, outputs and upload path
// are as GitHub would see them.
func TestActionRunsAQuickstartedWorkflow(t *testing.T) {
	t.Parallel()
	dist := releaseDir(t)
	rel := serveRelease(t, dist, false)
	docs := docsServer(t)
	// backend: docker runs each task in its image, as quickstarted does:
	// here the image the container backend's tests build from Debian
	// packages, so that no registry is needed.
	_, image := containerEngine(t)
	r := newActionRunner(t, map[string]string{"agent": "replay", "model": "claude-opus-5", "repeat": "2", "backend": "docker",
		"junit": "junit.xml", "working-directory": "site", "strict-inconclusive": "true", "image": image,
		"release-url": rel.URL}, "GITHUB_ACTION_REF="+releaseTag)
	actionTasks(t, filepath.Join(r.workspace, "site"), docs.URL)
	outs, failed, log := r.runAll()
	if failed || outs["exit-code"] != "0" {
		t.Fatalf("the job failed (exit-code %q):\n%s", outs["exit-code"], log)
	}
	if r.outputs["fetch"]["build"] != "false" || strings.Contains(strings.Join(r.used, " "), "setup-go") || !strings.Contains(log, "installed tabwright "+releaseTag) {
		t.Errorf("the release was not installed (fetch outputs %v, used %v):\n%s", r.outputs["fetch"], r.used, log)
	}
	for _, name := range []string{"tabwright", modelsBinary} {
		if got, _ := exec.Command(filepath.Join(r.temp, "tabwright-bin", name), "version").Output(); string(got) != "tabwright "+releaseTag+"\n" {
			t.Errorf("installed %s says %q", name, got)
		}
	}
	results := filepath.Join(r.workspace, "site", "qs-results")
	if outs["results"] != results || r.uploadPath != results || outs["report"] != results+"/report.html" {
		t.Errorf("outputs %v, upload path %q", outs, r.uploadPath)
	}
	for _, f := range []string{"qs-results/results.json", "qs-results/report.html", "junit.xml"} {
		if _, err := os.Stat(filepath.Join(r.workspace, "site", f)); err != nil {
			t.Error(err)
		}
	}
	for _, want := range []string{"--backend container", "backend: container", "--model claude-opus-5 is ignored", "--junit junit.xml", "--strict-inconclusive", "a (replay): pass rate 100%"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if b, _ := os.ReadFile(r.summaryLog); !strings.Contains(string(b), "# tabwright qs results") {
		t.Errorf("job summary: %q", b)
	}
}

// The model input works for model agents: --agent openai --model M asks
// the server for M (an honest fake of Chat Completions on loopback).
func TestActionModelInputReachesTheAgent(t *testing.T) {
	t.Parallel()
	dist := releaseDir(t)
	rel := serveRelease(t, dist, false)
	docs := docsServer(t)
	fake := agenttest.OpenAI(
		agenttest.Turn{Calls: []agenttest.Call{{Name: "read_docs", Input: map[string]any{"url": docs.URL + "/docs/"}}}},
		agenttest.Turn{Calls: []agenttest.Call{{Name: "bash", Input: map[string]any{"command": "echo done > done.txt"}}}},
		agenttest.Turn{Text: "Created done.txt as the docs say."},
	)
	defer fake.Close()
	r := newActionRunner(t, map[string]string{"agent": "openai", "model": "gpt-test", "args": "--base-url " + fake.BaseURL(),
		"release-url": rel.URL}, "GITHUB_ACTION_REF="+releaseTag)
	actionTasks(t, r.workspace, docs.URL)
	outs, failed, log := r.runAll()
	if failed || outs["exit-code"] != "0" || !strings.Contains(log, "a (openai:gpt-test): pass rate 100%") {
		t.Fatalf("exit-code %q:\n%s", outs["exit-code"], log)
	}
	reqs := fake.Requests()
	if len(reqs) != 3 || reqs[0].Body["model"] != "gpt-test" {
		t.Errorf("%d requests; first asked for %v", len(reqs), reqs[0].Body["model"])
	}
	if errs := fake.Errs(); len(errs) > 0 {
		t.Errorf("the fake saw protocol errors: %v", errs)
	}
}

// A release whose checksum does not match stops the job before anything
// runs; a ref with no release builds from source.
func TestActionReleaseChecksumAndFallback(t *testing.T) {
	t.Parallel()
	dist := releaseDir(t)
	bad := serveRelease(t, dist, true)
	r := newActionRunner(t, map[string]string{"release-url": bad.URL}, "GITHUB_ACTION_REF="+releaseTag)
	_, failed, log := r.runAll()
	if !failed || !strings.Contains(log, "qs.release_checksum") || strings.Contains(strings.Join(r.ran, "|"), "Run the quickstart tasks") {
		t.Errorf("a tampered SHA256SUMS: failed %v, steps run %v:\n%s", failed, r.ran, log)
	}
	if _, err := os.Stat(filepath.Join(r.temp, "tabwright-bin", "tabwright")); err == nil {
		t.Error("the binary was installed despite its checksum")
	}

	docs := docsServer(t)
	r = newActionRunner(t, map[string]string{"release-url": bad.URL, "tasks": "tasks/a.yaml"}, "GITHUB_ACTION_REF=main")
	actionTasks(t, r.workspace, docs.URL)
	outs, failed, log := r.runAll()
	used := strings.Join(r.used, " ")
	if failed || outs["exit-code"] != "0" || r.outputs["fetch"]["build"] != "true" || !strings.Contains(used, "actions/setup-go") {
		t.Errorf("ref main: exit-code %q, fetch %v, used %v:\n%s", outs["exit-code"], r.outputs["fetch"], used, log)
	}
	if !strings.Contains(strings.Join(r.ran, "|"), "Build tabwright from source") {
		t.Errorf("the build step did not run: %v", r.ran)
	}
}

// The script the action calls, run as a shard of a matrix: the HTML report
// beside the results, the exit code deferred or not, shards merged.
func TestActionScriptRunsShards(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(releaseDir(t), releaseFile("tabwright"))
	srv := docsServer(t)
	tasks := t.TempDir()
	os.WriteFile(filepath.Join(tasks, "a.yaml"), []byte(fmt.Sprintf("name: a\ngoal: g\ndocs:\n  entrypoint: %s/docs/\nreplay: ['echo done > done.txt']\nsuccess:\n  script: test -f done.txt\n", srv.URL)), 0o644)
	os.WriteFile(filepath.Join(tasks, "b.yaml"), []byte(fmt.Sprintf("name: b\ngoal: g\ndocs:\n  entrypoint: %s/docs/\nreplay: ['true']\nsuccess:\n  script: test -f done.txt || qs_fail \"no done.txt\"\n", srv.URL)), 0o644)
	work := t.TempDir()
	script, _ := filepath.Abs("../../scripts/qs-action.sh")
	run := func(shard, deferExit string) (int, map[string]string, string) {
		outputs := filepath.Join(work, "outputs-"+strings.ReplaceAll(shard, "/", "-"))
		cmd := exec.Command("sh", script, "run")
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "TABWRIGHT="+bin, "QS_TASKS="+tasks, "QS_BACKEND=local", "QS_ALLOW_UNENFORCED=true",
			"QS_SHARD="+shard, "QS_OUT=res-"+strings.ReplaceAll(shard, "/", "-"), "QS_GITHUB_SUMMARY=true",
			"QS_ARGS=--quiet", "QS_DEFER_EXIT="+deferExit, "GITHUB_OUTPUT="+outputs, "GITHUB_STEP_SUMMARY="+filepath.Join(work, "summary.md"), "GITHUB_ACTIONS=")
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, readOutputs(outputs), string(out)
	}
	code, outputs, log := run("1/2", "1")
	if code != 0 || outputs["exit-code"] != "0" || outputs["report"] != filepath.Join(work, "res-1-2", "report.html") {
		t.Errorf("shard 1/2 (deferred): exit %d, outputs %v\n%s", code, outputs, log)
	}
	code, outputs, log = run("2/2", "")
	if code != 1 || outputs["exit-code"] != "1" || !strings.Contains(log, "--shard 2/2") || !strings.Contains(log, "--github-summary") {
		t.Errorf("shard 2/2: exit %d, outputs %v\n%s", code, outputs, log)
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

// The action's script never publishes an earlier run as this one: run
// twice in one workspace, the second time with an input qs run refuses,
// the step publishes the error alone (no report, no results.json); a later
// run of other tasks leaves no folder of the first run's in what it
// uploads.
func TestActionNeverRepublishesAPreviousRun(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(releaseDir(t), releaseFile("tabwright"))
	srv := docsServer(t)
	work := t.TempDir()
	actionTasks(t, work, srv.URL)
	os.WriteFile(filepath.Join(work, "tasks", "b.yaml"), []byte(fmt.Sprintf("name: b\ngoal: g\ndocs:\n  entrypoint: %s/docs/\nreplay: ['echo done > done.txt']\nsuccess:\n  script: test -f done.txt\n", srv.URL)), 0o644)
	script, _ := filepath.Abs("../../scripts/qs-action.sh")
	n := 0
	run := func(env ...string) (map[string]string, string) {
		n++
		outputs := filepath.Join(work, fmt.Sprintf("outputs-%d", n))
		cmd := exec.Command("sh", script, "run")
		cmd.Dir = work
		cmd.Env = append(os.Environ(), append([]string{"TABWRIGHT=" + bin, "QS_BACKEND=local", "QS_ALLOW_UNENFORCED=true", "QS_OUT=res",
			"QS_ARGS=--quiet", "QS_DEFER_EXIT=1", "GITHUB_ACTIONS=true", "GITHUB_OUTPUT=" + outputs, "RUNNER_TEMP=" + t.TempDir()}, env...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("run %d: %v\n%s", n, err, out)
		}
		return readOutputs(outputs), string(out)
	}
	outputs, log := run("QS_TASKS=tasks/a.yaml")
	if outputs["exit-code"] != "0" || outputs["report"] == "" {
		t.Fatalf("the first run: %v\n%s", outputs, log)
	}
	outputs, log = run("QS_TASKS=tasks/a.yaml", "QS_REPEAT=0")
	if outputs["exit-code"] != "3" || outputs["report"] != "" {
		t.Errorf("a refused input: outputs %v\n%s", outputs, log)
	}
	published, _ := os.ReadDir(outputs["results"])
	errText, _ := os.ReadFile(filepath.Join(outputs["results"], "error.txt"))
	if len(published) != 1 || !strings.Contains(string(errText), "--repeat") {
		t.Errorf("a refused input publishes %v from %s, want its error alone: %q\n%s", published, outputs["results"], errText, log)
	}
	for _, stale := range []string{"results.json", "report.html", "a", "pages"} {
		if _, err := os.Stat(filepath.Join(work, "res", stale)); err == nil {
			t.Errorf("the first run's %s is still in res/ for a later step to take as this run's", stale)
		}
	}
	outputs, log = run("QS_TASKS=tasks/b.yaml")
	if _, err := os.Stat(filepath.Join(outputs["results"], "a")); outputs["exit-code"] != "0" || err == nil {
		t.Errorf("a run of task b publishes task a's folder from the first run: %v\n%s", outputs, log)
	}
}

// action.yml says what quickstarted's backend: docker becomes, as qs run
// maps it (mapBackend): the container backend, not the sandbox.
func TestActionSaysWhereDockerRuns(t *testing.T) {
	t.Parallel()
	desc := readAction(t).Inputs["backend"].Description
	_, stdout, _, code := parsedRun(t, "--backend", "docker")
	if code != 0 || !strings.Contains(stdout, "tabwright's --backend "+sandbox.Container) || !strings.Contains(desc, "quickstarted's docker is "+sandbox.Container) {
		t.Errorf("qs run maps docker to %s (%q), but action.yml says: %q", sandbox.Container, stdout, desc)
	}
}
