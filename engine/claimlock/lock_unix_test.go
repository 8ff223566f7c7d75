//go:build unix

package claimlock

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOpenRefusesSharedParent(t *testing.T) {
	open := filepath.Join(t.TempDir(), "open")
	os.MkdirAll(filepath.Join(open, "claims"), 0o700)
	os.Chmod(open, 0o777)
	if _, err := Open(filepath.Join(open, "claims")); err == nil {
		t.Fatal("a world-writable parent was accepted")
	}
}

// awaitReleased does nothing: a reaped process's flocks are gone already.
func awaitReleased(*testing.T, string) {}
