package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/quickstart/sandbox"
)

// doctor names the exact fix for AppArmor's userns restriction (Ubuntu
// 24.04, GitHub's ubuntu-latest), read from a kernel tree written here.
func TestDoctorNamesTheUsernsFix(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for rel, v := range map[string]string{
		"proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1\n",
		"sys/kernel/security/apparmor/profiles":                 "/usr/sbin/cupsd (enforce)\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(root, rel), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	usernsReport(&out, root, "/usr/bin/bwrap")
	got := out.String()
	for _, want := range []string{"userns:   RESTRICTED: kernel.apparmor_restrict_unprivileged_userns = 1", "  fix:    ", "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0", "/etc/apparmor.d/tabwright-bwrap"} {
		if !strings.Contains(got, want) {
			t.Errorf("doctor lacks %q:\n%s", want, got)
		}
	}
	os.WriteFile(filepath.Join(root, "proc/sys/kernel/apparmor_restrict_unprivileged_userns"), []byte("0\n"), 0o644)
	out.Reset()
	usernsReport(&out, root, "/usr/bin/bwrap")
	if got := out.String(); !strings.HasPrefix(got, "userns:   unprivileged user namespaces are allowed") {
		t.Errorf("lifted: %s", got)
	}
}

// doctor names the container engine qs runs a task's image: in (podman
// here: CI installs it; the docker CLI may be present without a daemon),
// and says what was tried when the one named does not answer.
func TestDoctorReportsTheContainerEngine(t *testing.T) {
	var out bytes.Buffer
	containerReport(&out)
	if got := out.String(); !strings.HasPrefix(got, "container: podman ") && !strings.HasPrefix(got, "container: docker ") {
		t.Fatalf("doctor's container line: %q; want the engine that answers", got)
	}
	rt, why := sandbox.FindRuntimeNamed(context.Background(), "no-such-engine-here")
	if rt != nil || !strings.Contains(why, "no-such-engine-here: not installed") || !strings.Contains(why, "apt-get install -y podman") {
		t.Fatalf("an engine that is not installed: %v, %q", rt, why)
	}
}

// doctor shows the price book qs run would use and its date, and reads
// quickstarted's --prices instead of ignoring it; `qs doctor`, quickstarted's
// spelling, is the same check.
func TestQSDoctorShowsThePriceBook(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if !pricesReport(&out, "") || !strings.HasPrefix(out.String(), "prices:   built-in, rates as of 20") {
		t.Errorf("the built-in book: %s", out.String())
	}
	bad := filepath.Join(t.TempDir(), "prices.json")
	os.WriteFile(bad, []byte(`{"m": {"input": "one"}}`), 0o644)
	code, stdout, stderr := qsCmd(t, "doctor", "--prices", bad)
	if code != exitFailed || !strings.Contains(stdout, "prices:   UNUSABLE: qs.prices: "+bad+" at m.input") {
		t.Errorf("qs doctor --prices BAD: exit %d\n%s%s", code, stdout, stderr)
	}
}
