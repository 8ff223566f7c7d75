package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestObserveCommand(t *testing.T) {
	t.Parallel()
	site := fixtures(t)
	out, stderr, code := runCLI(t, nil, "observe", site.URL+"/form", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var obs any
	if err := json.Unmarshal([]byte(out), &obs); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if err := observationSchema(t).Validate(obs); err != nil {
		t.Fatalf("observation does not validate: %v", err)
	}

	// A local file works as the URL; the text rendering is the default.
	page := filepath.Join(t.TempDir(), "page.html")
	os.WriteFile(page, []byte("<title>Local</title><p>from disk</p>"), 0o644)
	out, stderr, code = runCLI(t, nil, "observe", page)
	if code != 0 || !strings.Contains(out, `"Local"`) || !strings.Contains(out, "from disk") {
		t.Fatalf("file observe: exit %d\n%s\n%s", code, out, stderr)
	}

	_, stderr, code = runCLI(t, nil, "observe", "not a url")
	if code != 3 || !strings.Contains(stderr, "invalid_input") || !strings.Contains(stderr, "absolute http(s), file or about URL") {
		t.Fatalf("bad URL: exit %d: %s", code, stderr)
	}
	_, stderr, code = runCLI(t, nil, "observe", closedPort(t))
	if code != 1 || !strings.Contains(stderr, "navigation_failed") {
		t.Fatalf("unreachable URL: exit %d: %s", code, stderr)
	}
}

func TestDoctorAndVersion(t *testing.T) {
	t.Parallel()
	out, _, code := runCLI(t, nil, "doctor")
	if code != 0 || !strings.Contains(out, "browser:") || !strings.Contains(out, "ready:    yes") || !strings.Contains(out, "found:    --browser chromium") {
		t.Fatalf("doctor: exit %d\n%s", code, out)
	}
	out, _, code = runCLI(t, []string{"TABWRIGHT_CHROME=/nonexistent/chrome"}, "doctor")
	if code != 1 || !strings.Contains(out, "MISSING") || !strings.Contains(out, "apt-get install -y chromium") {
		t.Fatalf("doctor without a browser: exit %d\n%s", code, out)
	}
	// A command that needs the browser names the missing binary too.
	_, stderr, code := runCLI(t, []string{"TABWRIGHT_CHROME=/nonexistent/chrome"}, "observe", "about:blank")
	if code != 1 || !strings.Contains(stderr, "browser_not_found") {
		t.Fatalf("observe without a browser: exit %d: %s", code, stderr)
	}
	out, _, code = runCLI(t, nil, "version")
	if code != 0 || !strings.HasPrefix(out, "tabwright ") {
		t.Fatalf("version: %q", out)
	}
	_, stderr, code = runCLI(t, nil, "frobnicate")
	if code != 3 || !strings.Contains(stderr, "unknown command") {
		t.Fatalf("unknown command: exit %d: %s", code, stderr)
	}
}
