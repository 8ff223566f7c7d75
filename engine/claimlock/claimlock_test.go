package claimlock

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain doubles as the holder process: with CLAIMLOCK_HOLD=dir|id it
// takes the claim, says so and waits to be killed.
func TestMain(m *testing.M) {
	if spec := os.Getenv("CLAIMLOCK_HOLD"); spec != "" {
		dir, id, _ := strings.Cut(spec, "|")
		d, err := Open(dir)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		l, err := d.Lock(id)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("held")
		// The lock stays reachable: dropped, its file's finalizer would
		// close it (and free the claim) at the next collection.
		heldForever = l
		// Held until the parent closes our stdin (or kills us). Not select{}:
		// with nothing else to run, the runtime ends that as a deadlock, so
		// the holder died just after saying "held".
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var heldForever any

func holder(t *testing.T, dir, id string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), "CLAIMLOCK_HOLD="+dir+"|"+id)
	out, _ := cmd.StdoutPipe()
	cmd.StdinPipe() // kept open: the holder holds until it closes
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "held\n" {
		t.Fatalf("holder: %q", line)
	}
	return cmd
}

func TestClaimAcrossProcessesAndDeath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tabwright", "claims")
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	const id = "0A1B2C3D4E5F60718293A4B5C6D7E8F9"
	cmd := holder(t, dir, id)
	var held *ErrHeld
	if _, err := d.Lock(id); !errors.As(err, &held) || held.Holder.PID != cmd.Process.Pid {
		t.Fatalf("lock held by pid %d: %v", cmd.Process.Pid, err)
	}
	if h, ok := d.Held(id); !ok || h.PID != cmd.Process.Pid {
		t.Fatalf("Held: %v %v", h, ok)
	}
	cmd.Process.Kill()
	// Wait returns once the holder is reaped, and the kernel closes a
	// process's files (dropping its lock) before it can be reaped: the
	// claim is free now, with no polling (lockAfterExit: Windows aside).
	cmd.Wait()
	l, err := lockAfterExit(t, d, id)
	if err != nil {
		t.Fatalf("claim of a reaped process still held: %v", err)
	}
	if _, ok := d.Held(id); ok {
		t.Fatal("Held reports our own lock as another process's")
	}
	// Released: the file is gone, and another process can take it.
	l.Release()
	if _, err := os.Stat(filepath.Join(dir, id+".lock")); !os.IsNotExist(err) {
		t.Fatalf("lock file left after release: %v", err)
	}
	holder(t, dir, id)
}

func TestLockRefusesBadIDsAndSharedDirs(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "x", "claims"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"", "../etc", "a/b", strings.Repeat("a", 200)} {
		if _, err := d.Lock(id); err == nil {
			t.Errorf("id %q accepted", id)
		}
	}
}

// lockAfterExit takes a claim whose holder has just been reaped. Windows
// documents that it releases a dead process's locks asynchronously, so
// there the lock is first waited for in the kernel (awaitReleased);
// elsewhere it is free at once, and the test says so.
func lockAfterExit(t *testing.T, d *Dir, id string) (*Lock, error) {
	path, err := d.file(id)
	if err != nil {
		return nil, err
	}
	awaitReleased(t, path)
	return d.Lock(id)
}
