//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// kernelTree writes a fake root holding the given files (path -> content),
// as /proc/sys and /sys/kernel/security would.
func kernelTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const (
	restrictFile = "proc/sys/kernel/apparmor_restrict_unprivileged_userns"
	cloneFile    = "proc/sys/kernel/unprivileged_userns_clone"
	maxFile      = "proc/sys/user/max_user_namespaces"
	profilesFile = "sys/kernel/security/apparmor/profiles"
)

func TestQSUsernsDetection(t *testing.T) {
	t.Parallel()
	const bwrap = "/usr/bin/bwrap"
	ubuntu := map[string]string{restrictFile: "1\n", maxFile: "63372\n", profilesFile: "/usr/sbin/cupsd (enforce)\nlsb_release (enforce)\n"}
	cases := []struct {
		name        string
		files       map[string]string
		blocked     bool
		setting     string   // in Setting
		fix         []string // each in Fix
		notInFixPat string   // a wrong fix
	}{
		{"ubuntu 24.04", ubuntu, true, "kernel.apparmor_restrict_unprivileged_userns = 1",
			[]string{"sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0", "profile tabwright-bwrap /usr/bin/bwrap flags=(unconfined)", "userns,", "sudo apparmor_parser -r /etc/apparmor.d/tabwright-bwrap"},
			"unprivileged_userns_clone"},
		{"ubuntu with our profile loaded", map[string]string{restrictFile: "1\n", profilesFile: "tabwright-bwrap (unconfined)\n"}, false, "", nil, ""},
		{"ubuntu with a profile named by bwrap's path", map[string]string{restrictFile: "1\n", profilesFile: "/usr/bin/bwrap (unconfined)\n"}, false, "", nil, ""},
		{"restriction lifted", map[string]string{restrictFile: "0\n", profilesFile: ""}, false, "", nil, ""},
		{"older debian", map[string]string{cloneFile: "0\n", maxFile: "1000\n"}, true, "kernel.unprivileged_userns_clone = 0",
			[]string{"sudo sysctl -w kernel.unprivileged_userns_clone=1"}, "apparmor"},
		{"no user namespaces at all", map[string]string{maxFile: "0\n", cloneFile: "1\n"}, true, "user.max_user_namespaces = 0",
			[]string{"sudo sysctl -w user.max_user_namespaces=15000"}, "apparmor"},
		{"debian 12 (this kind of machine)", map[string]string{cloneFile: "1\n", maxFile: "96362\n"}, false, "", nil, ""},
		{"nothing readable", map[string]string{}, false, "", nil, ""},
	}
	for _, c := range cases {
		b, blocked := DetectUsernsBlock(kernelTree(t, c.files), bwrap)
		if blocked != c.blocked {
			t.Errorf("%s: blocked %v, want %v (%+v)", c.name, blocked, c.blocked, b)
			continue
		}
		if !strings.Contains(b.Setting, c.setting) {
			t.Errorf("%s: setting %q, want %q", c.name, b.Setting, c.setting)
		}
		for _, f := range c.fix {
			if !strings.Contains(b.Fix, f) {
				t.Errorf("%s: fix lacks %q:\n%s", c.name, f, b.Fix)
			}
		}
		if c.notInFixPat != "" && strings.Contains(b.Fix+b.Setting, c.notInFixPat) {
			t.Errorf("%s: names the wrong setting %q:\n%s", c.name, c.notInFixPat, b.Fix)
		}
	}
	// The sandbox's refusal hint names the same fix.
	hint := UsernsHint(kernelTree(t, ubuntu), bwrap)
	if !strings.Contains(hint, "kernel.apparmor_restrict_unprivileged_userns=0") || strings.Contains(hint, "unprivileged_userns_clone") {
		t.Errorf("hint: %s", hint)
	}
}

// The AppArmor fix's printf, run by a shell, writes the profile we mean.
func TestQSUsernsAppArmorProfileText(t *testing.T) {
	t.Parallel()
	fix := appArmorFix("/usr/bin/bwrap")
	m := regexp.MustCompile(`printf '([^']*)'`).FindStringSubmatch(fix)
	if m == nil {
		t.Fatalf("no printf in %s", fix)
	}
	out := filepath.Join(t.TempDir(), "profile")
	if b, err := exec.Command("sh", "-c", "printf '"+m[1]+"' > "+out).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, b)
	}
	got, _ := os.ReadFile(out)
	want := "abi <abi/4.0>,\ninclude <tunables/global>\nprofile tabwright-bwrap /usr/bin/bwrap flags=(unconfined) {\n  userns,\n}\n"
	if string(got) != want {
		t.Errorf("profile:\n%s\nwant:\n%s", got, want)
	}
}

// A root harness whose $TMPDIR lies under a folder the sandbox's user
// cannot pass through (a 0700 home) still makes sandboxes, somewhere that
// user reaches, and Probe (doctor) agrees; a sandbox folder the user named
// there is refused with the one-line fix, not blamed on user namespaces
// (issue 44).
func TestQSUnreachableTempDirStillMakesSandboxes(t *testing.T) {
	if !dropsPrivileges() {
		t.Fatal("this test needs root, which runs the sandbox as an unprivileged user (CI runs as root)")
	}
	home := t.TempDir()
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(home, "tmp")
	if err := os.Mkdir(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	t.Setenv(SandboxDirEnv, "")
	t.Setenv("QUICKSTARTED_SANDBOX_DIR", "")
	if ok, why := Probe(context.Background()); !ok {
		t.Fatalf("Probe under an unreachable $TMPDIR: %s", why)
	}
	s, err := NewIsolated(nil)
	if err != nil {
		t.Fatalf("NewIsolated under an unreachable $TMPDIR: %v", err)
	}
	defer s.Close(false)
	if r := s.Run(context.Background(), "echo ok", Options{Timeout: time.Minute}); r.Output != "ok\n" {
		t.Fatalf("a command: %d %q", r.ExitCode, r.Output)
	}
	t.Setenv(SandboxDirEnv, filepath.Join(tmp, "sandboxes"))
	_, err = NewIsolated(nil)
	if err == nil || !strings.Contains(err.Error(), "sandbox.unreachable") || !strings.Contains(err.Error(), "export "+SandboxDirEnv+"=") {
		t.Fatalf("a named sandbox folder the sandbox's user cannot reach: %v", err)
	}
	if ok, why := Probe(context.Background()); ok || !strings.Contains(why, "sandbox.unreachable") {
		t.Fatalf("Probe with that folder: %v %s", ok, why)
	}
}
