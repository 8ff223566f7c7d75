package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabwright/tabwright/quickstart/agent/agenttest"
)

// modelsBuild is tabwright-models built once beside the test binary, as
// `make build` puts it beside bin/tabwright.
var modelsBuild struct {
	once sync.Once
	err  error
}

func modelsBinaryBeside(t testing.TB) string {
	path := filepath.Join(filepath.Dir(binary), modelsBinary)
	modelsBuild.once.Do(func() {
		modelsBuild.err = buildAsReleased(path, "")
	})
	if modelsBuild.err != nil {
		t.Fatal(modelsBuild.err)
	}
	return path
}

// linkedSDKs lists the model vendors' modules linked into the binary at
// path, as its build information records them.
func linkedSDKs(t testing.TB, path string) []string {
	out, err := exec.Command("go", "version", "-m", path).Output()
	if err != nil {
		t.Fatalf("go version -m %s: %v", path, err)
	}
	var sdks []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "dep" && (strings.Contains(f[1], "anthropic-sdk-go") || strings.Contains(f[1], "openai-go")) {
			sdks = append(sdks, f[1])
		}
	}
	return sdks
}

// The binary that serves MCP leaves the model SDKs out; tabwright-models
// has them. A model agent's run asked of the lean binary is handed over to
// tabwright-models beside it and runs to its verdict; without that binary
// it is refused with the path it looked at and what to do.
func TestModelAgentsLiveInTheModelsBuild(t *testing.T) {
	if sdks := linkedSDKs(t, binary); len(sdks) > 0 {
		t.Errorf("the shipped binary links %v; `tabwright mcp` would load them for nothing", sdks)
	}
	models := modelsBinaryBeside(t)
	if sdks := linkedSDKs(t, models); len(sdks) != 2 {
		t.Errorf("%s links %v, want both vendor SDKs", modelsBinary, sdks)
	}

	docs := docsServer(t)
	dir := t.TempDir()
	actionTasks(t, dir, docs.URL)
	task := filepath.Join(dir, "tasks", "a.yaml")
	run := func(bin string, fake *agenttest.Server) (int, string) {
		cmd := exec.Command(bin, "qs", "run", task, "--agent", "openai:gpt-test", "--base-url", fake.BaseURL(),
			"--backend", "local", "--allow-unenforced", "--out", filepath.Join(t.TempDir(), "res"))
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}

	fake := agenttest.OpenAI(
		agenttest.Turn{Calls: []agenttest.Call{{Name: "bash", Input: map[string]any{"command": "echo done > done.txt"}}}},
		agenttest.Turn{Text: "Created done.txt."},
	)
	defer fake.Close()
	if code, out := run(binary, fake); code != 0 || !strings.Contains(out, "passed") || len(fake.Requests()) != 2 {
		t.Errorf("handed over to %s: exit %d, %d model calls:\n%s", modelsBinary, code, len(fake.Requests()), out)
	}

	// What the arguments make qs run say is said once, by tabwright-models.
	said := exec.Command(binary, "qs", "run", task, "--agent", "openai:gpt-x", "--backend", "docker")
	said.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()} // no API key
	out, _ := said.CombinedOutput()
	for _, once := range []string{"note     --backend docker (quickstarted's)", "qs.agent_key_missing: --agent openai:gpt-x"} {
		if n := strings.Count(string(out), once); n != 1 {
			t.Errorf("%q said %d times, want once:\n%s", once, n, out)
		}
	}

	unused := agenttest.OpenAI()
	defer unused.Close()
	for name, wantWhy := range map[string]string{"tabwright": "no such file or directory", modelsBinary: "is itself built with -tags nomodels"} {
		alone := filepath.Join(t.TempDir(), name)
		copyFile(t, binary, alone)
		code, out := run(alone, unused)
		want := "qs.models_missing: --agent openai:gpt-test runs in tabwright-models"
		if code != int(exitUsage) || !strings.Contains(out, want) || !strings.Contains(out, wantWhy) || !strings.Contains(out, filepath.Dir(alone)) || !strings.Contains(out, "make build") {
			t.Errorf("the lean build alone as %s: exit %d, want %d and %q with the path and %q:\n%s", name, code, exitUsage, want, wantWhy, out)
		}
	}
	if n := len(unused.Requests()); n != 0 {
		t.Errorf("a run that could not be handed over called the model %d times", n)
	}
}

func copyFile(t testing.TB, from, to string) {
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkLeanColdStart: the MCP server as shipped (-tags nomodels)
// against the full build with the model SDKs (tabwright-models, what one
// binary was before), cold starts interleaved one for one so both see the
// same machine: medians of the time to tools/list answered, of the CPU
// time the process used (less moved by a busy machine than the wall
// clock) and of the peak resident memory; each binary's size.
func BenchmarkLeanColdStart(b *testing.B) {
	builds := map[string]string{"lean": binary, "full": modelsBinaryBeside(b)}
	runs := map[string][]started{}
	for i := 0; i < b.N; i++ {
		for _, name := range []string{"lean", "full"} {
			runs[name] = append(runs[name], coldStart(b, builds[name]))
		}
	}
	for name, bin := range builds {
		st, err := os.Stat(bin)
		if err != nil {
			b.Fatal(err)
		}
		var took, cpu []time.Duration
		var peak []float64
		for _, r := range runs[name] {
			took, cpu, peak = append(took, r.took), append(cpu, r.cpu), append(peak, r.peakMiB)
		}
		b.ReportMetric(medianMS(took), "ms/start-"+name)
		b.ReportMetric(medianMS(cpu), "ms-cpu/start-"+name)
		b.ReportMetric(median(peak), "MiB-peak-rss-"+name)
		b.ReportMetric(float64(st.Size())/1e6, "MB-binary-"+name)
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// doctor says where the model agents are: in tabwright-models beside the
// lean binary, or nowhere, with the fix.
func TestDoctorSaysWhereTheModelAgentsAre(t *testing.T) {
	t.Parallel()
	models := modelsBinaryBeside(t)
	out, _ := exec.Command(binary, "doctor").Output()
	if want := "models:   " + models + " (tabwright "; !strings.Contains(string(out), want) || strings.Contains(string(out), "not this version") {
		t.Errorf("doctor lacks %q:\n%s", want, out)
	}
	alone := filepath.Join(t.TempDir(), "tabwright")
	copyFile(t, binary, alone)
	out, _ = exec.Command(alone, "doctor").Output()
	for _, want := range []string{"models:   none: this build leaves the model SDKs out and " + filepath.Join(filepath.Dir(alone), modelsBinary), "fix:    Put tabwright-models beside this binary"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("doctor alone lacks %q:\n%s", want, out)
		}
	}
}
