//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The sweep unmounts and removes exactly the sandboxes whose recorded
// owner is dead: not a live one's, not one without a record, not one of
// another pid namespace, and nothing outside tabwright-qs-* folders.
func TestSweepClearsOnlyDeadOwners(t *testing.T) {
	tmp := t.TempDir()
	dead := exec.Command("sleep", "600")
	if err := dead.Start(); err != nil {
		t.Fatal(err)
	}
	deadStart, ns := processIdentity(dead.Process.Pid)
	dead.Process.Kill()
	dead.Wait()
	selfStart, _ := processIdentity(os.Getpid())
	owners := map[string]string{
		"tabwright-qs-dead":     fmt.Sprintf("%d %s %s\n", dead.Process.Pid, deadStart, ns),
		"tabwright-qs-live":     fmt.Sprintf("%d %s %s\n", os.Getpid(), selfStart, ns),
		"tabwright-qs-otherns":  fmt.Sprintf("%d %s pid:[1]\n", dead.Process.Pid, deadStart),
		"tabwright-qs-norecord": "",
		"tabwright-qs-dead two": fmt.Sprintf("%d %s %s\n", dead.Process.Pid, deadStart, ns), // a space: escaped in mountinfo
		"elsewhere-dead":        fmt.Sprintf("%d %s %s\n", dead.Process.Pid, deadStart, ns),
	}
	for name, owner := range owners {
		ws := filepath.Join(tmp, name, "workspace")
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			os.WriteFile(filepath.Join(tmp, name, ownerFile), []byte(owner), 0o600)
		}
		if err := syscall.Mount(ws, ws, "", syscall.MS_BIND, ""); err != nil {
			t.Fatalf("bind %s: %v (the sandbox's bounds need root; so does this test)", ws, err)
		}
		t.Cleanup(func() { syscall.Unmount(ws, syscall.MNT_DETACH) })
	}
	sweepStaleIn(tmp, "/proc/self/mountinfo")
	for name := range owners {
		base := filepath.Join(tmp, name)
		_, statErr := os.Stat(base)
		gone := !isMounted(filepath.Join(base, "workspace")) && os.IsNotExist(statErr)
		if want := strings.HasPrefix(name, "tabwright-qs-dead"); gone != want {
			t.Errorf("%s: cleared %v, want %v", name, gone, want)
		}
	}
}

func isMounted(dir string) bool {
	for _, m := range mountPoints("/proc/self/mountinfo") {
		if m == dir {
			return true
		}
	}
	return false
}

// A kept sandbox is the user's: it names no owner, so a mount made in it
// later (qs check --sandbox under Docker) is never swept once the harness
// that kept it has ended.
func TestKeptSandboxNamesNoOwner(t *testing.T) {
	s, err := newBounded(MinWorkspaceBytes*4, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.bound == 0 {
		t.Fatal("the workspace is not bounded: this test needs root, as the bounds do")
	}
	if _, err := os.Stat(filepath.Join(s.Base, ownerFile)); err != nil {
		t.Fatalf("a bounded sandbox names no owner while in use: %v", err)
	}
	if err := s.Close(true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(s.Base) })
	if _, err := os.Stat(filepath.Join(s.Base, ownerFile)); !os.IsNotExist(err) {
		t.Fatalf("the kept sandbox still names an owner: %v", err)
	}
}

// Sandboxes are made where TABWRIGHT_SANDBOX_DIR says, else where
// quickstarted's QUICKSTARTED_SANDBOX_DIR does (made when missing), else
// in the system's temporary folder; a folder that cannot be made is an
// error naming the variable.
func TestSandboxDirFromTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o711) // the test's own folder is 0700: the sandbox's user must pass through it
	for _, c := range []struct{ ours, theirs, want string }{
		{"", filepath.Join(dir, "qs", "made"), filepath.Join(dir, "qs", "made")},
		{filepath.Join(dir, "ours"), filepath.Join(dir, "theirs"), filepath.Join(dir, "ours")},
		{"", "", os.TempDir()},
	} {
		t.Setenv(SandboxDirEnv, c.ours)
		t.Setenv("QUICKSTARTED_SANDBOX_DIR", c.theirs)
		s, err := New()
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(s.Base) != c.want {
			t.Errorf("%s=%q QUICKSTARTED_SANDBOX_DIR=%q: made in %s, want %s", SandboxDirEnv, c.ours, c.theirs, filepath.Dir(s.Base), c.want)
		}
		s.Close(false)
	}
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, nil, 0o644)
	t.Setenv(SandboxDirEnv, filepath.Join(file, "below"))
	if _, err := New(); err == nil || !strings.Contains(err.Error(), "sandbox.sandbox_dir") || !strings.Contains(err.Error(), SandboxDirEnv) {
		t.Errorf("a folder under a file: %v; want sandbox.sandbox_dir naming %s", err, SandboxDirEnv)
	}
}

// A sandbox folder the sandbox's user cannot reach is refused before
// bubblewrap is asked, naming the folder and the variable.
func TestSandboxDirTheSandboxCannotReach(t *testing.T) {
	if !dropsPrivileges() {
		t.Fatal("the sandbox's user differs from the harness's only under root; run the tests as root, as CI does")
	}
	closed := filepath.Join(t.TempDir(), "closed")
	os.Mkdir(closed, 0o700)
	t.Setenv(SandboxDirEnv, filepath.Join(closed, "sandboxes"))
	s, err := NewIsolatedBounded(nil, 0)
	if err == nil {
		s.Close(false)
	}
	if err == nil || !strings.Contains(err.Error(), "sandbox.unreachable") || !strings.Contains(err.Error(), closed) || !strings.Contains(err.Error(), SandboxDirEnv) {
		t.Fatalf("a sandbox folder under a 0700 folder: %v; want sandbox.unreachable naming %s and %s", err, closed, SandboxDirEnv)
	}
}

// A bubblewrap that fails at once is reported as the sandbox ending, with
// what it said, not after the start's 20 s wait as if the machine were slow.
func TestQSIsolatedStartFailureSaysWhy(t *testing.T) {
	bin := t.TempDir()
	os.Chmod(bin, 0o755) // bubblewrap runs as the sandbox's user under root
	os.Chmod(filepath.Dir(bin), 0o755)
	os.WriteFile(filepath.Join(bin, "bwrap"), []byte("#!/bin/sh\necho 'bwrap: refused by the test' >&2\nexit 1\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	s, err := NewIsolatedBounded(nil, 0)
	if err == nil {
		s.Close(false)
	}
	if err == nil || !strings.Contains(err.Error(), "ended before it was ready") || !strings.Contains(err.Error(), "refused by the test") {
		t.Fatalf("a bubblewrap that exits at once: %v; want the sandbox's end and its message", err)
	}
}
