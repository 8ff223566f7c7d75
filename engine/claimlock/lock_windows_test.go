package claimlock

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// awaitReleased blocks in LockFileEx (no fail-immediately flag) until the
// lock on path is free, then lets it go: Windows frees a dead process's
// locks when it gets to it, and this is its signal.
func awaitReleased(t *testing.T, path string) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return // no file, no lock
	}
	defer f.Close()
	done := make(chan error, 1)
	go func() {
		h := windows.Handle(f.Fd())
		err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, lockRegion())
		if err == nil {
			windows.UnlockFileEx(h, 0, 1, 0, lockRegion())
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("waiting for the lock of %s: %v", path, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the lock of %s is still held 10 s after its holder was reaped", path)
	}
}
