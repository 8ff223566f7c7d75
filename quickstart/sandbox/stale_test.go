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
