package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/quickstart/runcmd"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
)

// quickstartedFlagRows reads the table of quickstarted's flags from
// docs/qs.md: "command flag" for each row.
func quickstartedFlagRows(t *testing.T) []string {
	b, err := os.ReadFile("../../docs/qs.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, "<!-- quickstarted-flags -->"), strings.Index(s, "<!-- /quickstarted-flags -->")
	if i < 0 || j < i {
		t.Fatal("docs/qs.md has no quickstarted-flags table")
	}
	row := regexp.MustCompile("^\\| (\\w+) \\| `(-[-a-z]*)")
	var rows []string
	for _, line := range strings.Split(s[i:j], "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			rows = append(rows, m[1]+" "+m[2])
		}
	}
	return rows
}

// parsedRun parses a qs run command line as qs run does.
func parsedRun(t *testing.T, args ...string) (f *runFlags, stdout, stderr string, code exitCode) {
	t.Helper()
	var out, errb bytes.Buffer
	f = newRunFlags(&errb)
	code, _ = f.parse(args, &out, &errb)
	return f, out.String(), errb.String(), code
}

// sameRun checks that a flag of quickstarted's parses into ours.
func sameRun(t *testing.T, got func(*runFlags) any, want any, args ...string) {
	t.Helper()
	f, _, stderr, code := parsedRun(t, args...)
	if code != 0 {
		t.Fatalf("qs run %v: exit %d\n%s", args, code, stderr)
	}
	if g := got(f); g != want {
		t.Errorf("qs run %v: got %v, want %v", args, g, want)
	}
}

// refusedRun checks that a flag is refused with usage, naming ours.
func refusedRun(t *testing.T, names string, args ...string) {
	t.Helper()
	_, _, stderr, code := parsedRun(t, args...)
	if code != exitUsage || !strings.Contains(stderr, names) || strings.Contains(stderr, "flag provided but not defined") {
		t.Errorf("qs run %v: exit %d, want 3 naming %q:\n%s", args, code, names, stderr)
	}
}

func qsCmd(t *testing.T, args ...string) (exitCode, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := exitCode(runQS(context.Background(), args, &out, &errb))
	return code, out.String(), errb.String()
}

// resultsDoc writes a results.json of one task with passes of n runs.
func resultsDoc(t *testing.T, passes, n int) string {
	p := filepath.Join(t.TempDir(), "results.json")
	b, _ := json.Marshal(map[string]any{"schema_version": "2.0", "tasks": []map[string]any{{"task": "t", "agent": "replay", "passes": passes, "evidential_runs": n, "attempts": n, "runs": []any{}}}})
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var quickstartedFlagCases = map[string]func(t *testing.T){
	"run --example": func(t *testing.T) {
		sameRun(t, func(f *runFlags) any { return f.example }, "hello", "--example", "hello")
		var out, errb bytes.Buffer
		if tasks, _, code := runcmd.LoadTasks(nil, "hello", "", &out, &errb); code != 0 || len(tasks) != 1 {
			t.Errorf("--example hello: exit %d, %d tasks: %s", code, len(tasks), errb.String())
		}
		if _, _, code := runcmd.LoadTasks(nil, "httpx", "", &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "hello, missing-step, web-page") {
			t.Errorf("--example httpx: exit %d: %s", code, errb.String())
		}
	},
	"run --agent": func(t *testing.T) {
		sameRun(t, func(f *runFlags) any { return *f.agent.agent }, "gemini", "--agent", "gemini")
		sameRun(t, func(f *runFlags) any { return *f.agent.agent }, "openai:m", "--agent", "openai:m")
	},
	"run --model": func(t *testing.T) {
		f, _, stderr, code := parsedRun(t, "--agent", "openai", "--model", "gpt-5.2", "--base-url", "http://127.0.0.1:9/v1")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var errb bytes.Buffer
		if ag, _, ok := f.agent.build(io.Discard, &errb); !ok || ag.Name() != "openai:gpt-5.2" {
			t.Errorf("--agent openai --model gpt-5.2 built %v (%s)", ag, errb.String())
		}
		sameRun(t, func(f *runFlags) any { return *f.agent.agent }, "claude:claude-x", "--model", "claude-x", "--agent", "claude")
		_, stdout, _, code := parsedRun(t, "--agent", "replay", "--model", "gpt-5.2")
		if code != 0 || !strings.Contains(stdout, "ignored") {
			t.Errorf("replay --model: exit %d, %q", code, stdout)
		}
		refusedRun(t, "two models", "--agent", "openai:a", "--model", "b")
	},
	"run --out":   func(t *testing.T) { sameRun(t, func(f *runFlags) any { return f.out }, "R", "--out", "R") },
	"run --junit": func(t *testing.T) { sameRun(t, func(f *runFlags) any { return f.junit }, "j.xml", "--junit", "j.xml") },
	"run --prices": func(t *testing.T) {
		t.Setenv("QUICKSTARTED_PRICES", "from-env.json")
		sameRun(t, func(f *runFlags) any { return *f.agent.prices }, "from-env.json")
		sameRun(t, func(f *runFlags) any { return *f.agent.prices }, "book.json", "--prices", "book.json")
	},
	"run --refresh-prices": func(t *testing.T) { refusedRun(t, "--prices FILE", "--refresh-prices") },
	"run --max-spend": func(t *testing.T) {
		book := filepath.Join(t.TempDir(), "p.json")
		os.WriteFile(book, []byte(`{"m": {"input": 1, "output": 2}}`), 0o644)
		f, _, stderr, code := parsedRun(t, "--max-spend", "2.5", "--prices", book, "--agent", "openai:m", "--base-url", "http://127.0.0.1:9/v1")
		var errb bytes.Buffer
		if _, _, ok := f.agent.build(io.Discard, &errb); code != 0 || !ok || *f.agent.maxCost != 2.5 {
			t.Errorf("--max-spend 2.5: exit %d, cap %v: %s%s", code, *f.agent.maxCost, stderr, errb.String())
		}
		// With replay and on an unpriced model: TestQSMaxSpend*.
		refusedRun(t, "one cap", "--max-spend", "2", "--max-cost-usd", "3")
	},
	"run --repeat":  func(t *testing.T) { sameRun(t, func(f *runFlags) any { return f.repeat }, 5, "--repeat", "5") },
	"run --workers": func(t *testing.T) { sameRun(t, func(f *runFlags) any { return f.workers }, 3, "--workers", "3") },
	"run --backend": func(t *testing.T) {
		backend := func(f *runFlags) any { return f.backend }
		sameRun(t, backend, "auto", "--backend", "auto")
		sameRun(t, backend, sandbox.Local, "--backend", "local")
		sameRun(t, backend, sandbox.Container, "--backend", "docker")
		sameRun(t, backend, sandbox.Container, "--backend", "podman")
		sameRun(t, backend, sandbox.Container, "--backend", "container")
		sameRun(t, backend, sandbox.Isolated, "--backend", "sandbox")
		refusedRun(t, "--backend sandbox", "--backend", "seatbelt")
	},
	"run --image": func(t *testing.T) {
		f, _, _, code := parsedRun(t, "--image", "node:22-slim")
		own, none := &task.Task{Image: "python:3.12-slim"}, &task.Task{}
		runcmd.ApplyImage([]*task.Task{own, none}, f.compat.image)
		if code != 0 || own.Image != "python:3.12-slim" || none.Image != "node:22-slim" {
			t.Errorf("--image: exit %d, images %q %q", code, own.Image, none.Image)
		}
	},
	"run --allow-unenforced": func(t *testing.T) {
		sameRun(t, func(f *runFlags) any { return f.allow }, true, "--allow-unenforced")
	},
	"run --github-summary": func(t *testing.T) {
		sameRun(t, func(f *runFlags) any { return f.ci.githubSummary }, true, "--github-summary")
	},
	"run --strict-inconclusive": func(t *testing.T) {
		sameRun(t, func(f *runFlags) any { return f.strict }, true, "--strict-inconclusive")
	},
	"run --verbose":      func(t *testing.T) { sameRun(t, func(f *runFlags) any { return f.verbose }, true, "--verbose") },
	"run --quiet":        func(t *testing.T) { sameRun(t, func(f *runFlags) any { return f.quiet }, true, "--quiet") },
	"run --keep-sandbox": func(t *testing.T) { sameRun(t, func(f *runFlags) any { return f.keep }, true, "--keep-sandbox") },
	"run --affordances": func(t *testing.T) {
		sameRun(t, func(f *runFlags) any { return f.docs.affordances }, "none", "--affordances", "none")
	},
	"run --probe-affordances": func(t *testing.T) {
		sameRun(t, func(f *runFlags) any { return f.docs.probe }, true, "--probe-affordances")
	},
	"run --cache-dir": func(t *testing.T) {
		sameRun(t, func(f *runFlags) any { return f.docs.cacheDir }, "C", "--cache-dir", "C")
	},
	"run --refresh": func(t *testing.T) {
		sameRun(t, func(f *runFlags) any { return f.docs.refresh }, true, "--cache-dir", "C", "--refresh")
	},
	"run --offline": func(t *testing.T) {
		sameRun(t, func(f *runFlags) any { return f.docs.offline }, true, "--cache-dir", "C", "--offline")
	},
	"run --rate-limit": func(t *testing.T) {
		sameRun(t, func(f *runFlags) any { return f.docs.rateLimit }, 0.5, "--rate-limit", "0.5")
	},
	"run --ignore-robots": func(t *testing.T) {
		sameRun(t, func(f *runFlags) any { return f.docs.ignoreRobots }, true, "--ignore-robots")
	},
	"run -h": func(t *testing.T) {
		for _, h := range []string{"-h", "--help"} {
			if code, _, stderr := qsCmd(t, "run", h); code != 0 || !strings.Contains(stderr, "-max-spend") {
				t.Errorf("qs run %s: exit %d\n%s", h, code, stderr)
			}
		}
	},
	"validate --example": func(t *testing.T) {
		if code, out, stderr := qsCmd(t, "validate", "--example", "hello"); code != 0 || !strings.HasPrefix(out, "ok ") {
			t.Errorf("validate --example hello: exit %d\n%s%s", code, out, stderr)
		}
		if code, _, stderr := qsCmd(t, "validate", "--example", "vite"); code != exitUsage || !strings.Contains(stderr, "hello") {
			t.Errorf("validate --example vite: exit %d\n%s", code, stderr)
		}
	},
	"validate --check-urls": func(t *testing.T) {
		if code, out, stderr := qsCmd(t, "validate", "--example", "hello", "--check-urls"); code != 0 || !strings.Contains(out, " read, ") {
			t.Errorf("validate --check-urls: exit %d\n%s%s", code, out, stderr)
		}
	},
	"report --out": func(t *testing.T) {
		dest := filepath.Join(t.TempDir(), "page.html")
		if code, out, stderr := qsCmd(t, "report", resultsDoc(t, 1, 1), "--out", dest); code != 0 || out != "wrote "+dest+"\n" {
			t.Errorf("report --out: exit %d\n%s%s", code, out, stderr)
		}
		if _, err := os.Stat(dest); err != nil {
			t.Error(err)
		}
	},
	"diff --fail-on-regression": func(t *testing.T) {
		before, after := resultsDoc(t, 10, 10), resultsDoc(t, 0, 10)
		if code, _, stderr := qsCmd(t, "diff", before, after, "--fail-on-regression"); code != exitFailed || !strings.Contains(stderr, "regression: t") {
			t.Errorf("diff --fail-on-regression: exit %d\n%s", code, stderr)
		}
	},
	"init --name": func(t *testing.T) {
		dest := filepath.Join(t.TempDir(), "x.yaml")
		code, _, stderr := qsCmd(t, "init", "https://docs.example.com/start", "--name", "mine", "--out", dest)
		if b, _ := os.ReadFile(dest); code != 0 || !strings.Contains(string(b), "name: mine\n") {
			t.Errorf("init --name: exit %d %s\n%s", code, stderr, b)
		}
	},
	"init --out": func(t *testing.T) {
		dest := filepath.Join(t.TempDir(), "sub", "x.yaml")
		if code, out, stderr := qsCmd(t, "init", "https://docs.example.com/start", "--out", dest); code != 0 || !strings.HasPrefix(out, "wrote "+dest) {
			t.Errorf("init --out: exit %d\n%s%s", code, out, stderr)
		}
	},
	"init --force": func(t *testing.T) {
		dest := filepath.Join(t.TempDir(), "x.yaml")
		os.WriteFile(dest, []byte("old"), 0o644)
		if code, _, _ := qsCmd(t, "init", "https://docs.example.com/start", "--out", dest); code != exitUsage {
			t.Errorf("init over a file without --force: exit %d", code)
		}
		if code, _, stderr := qsCmd(t, "init", "https://docs.example.com/start", "--out", dest, "--force"); code != 0 {
			t.Errorf("init --force: exit %d %s", code, stderr)
		}
	},
	"show --verbose": func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "trace.jsonl")
		os.WriteFile(p, []byte(`{"ts": 1, "type": "tool_call", "tool": "bash", "command": "echo hi"}
{"ts": 2, "type": "tool_result", "tool": "bash", "exit_code": 0, "output": "the-output"}
`), 0o644)
		if _, out, _ := qsCmd(t, "show", p); strings.Contains(out, "the-output") {
			t.Errorf("show without --verbose shows a passing command's output:\n%s", out)
		}
		if code, out, stderr := qsCmd(t, "show", p, "--verbose"); code != 0 || !strings.Contains(out, "the-output") {
			t.Errorf("show --verbose: exit %d\n%s%s", code, out, stderr)
		}
	},
}

// Every flag of quickstarted's run, validate, report, diff, init and show
// is accepted with its meaning, mapped, or refused naming ours: one case
// per row of docs/qs.md's table, and no case without a row.
func TestQuickstartedFlags(t *testing.T) {
	rows := quickstartedFlagRows(t)
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r] = true
		check, ok := quickstartedFlagCases[r]
		if !ok {
			t.Errorf("docs/qs.md lists %q, which has no test case", r)
			continue
		}
		t.Run(strings.ReplaceAll(r, " ", "_"), check)
	}
	var extra []string
	for k := range quickstartedFlagCases {
		if !seen[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("test cases with no row in docs/qs.md: %v", extra)
	}
}
