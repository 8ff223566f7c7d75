package launch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The profile is made where ProfileIn says, the stale profiles of dead
// processes there are swept, and Close removes it. A ProfileIn that cannot
// hold one falls back to the system's temporary directory.
func TestProfileIn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dead := exec.Command(os.Args[0], "-test.run=^$") // a process that has ended
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, fmt.Sprintf("tabwright-%d-left", dead.Process.Pid))
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	b, err := Start(ctx, Options{ProfileIn: dir})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(b.DataDir()) != dir {
		t.Errorf("profile %s, want it in %s", b.DataDir(), dir)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead process's profile %s was not swept (%v)", stale, err)
	}
	b.Close()
	if _, err := os.Stat(b.DataDir()); !os.IsNotExist(err) {
		t.Errorf("profile %s still exists after Close", b.DataDir())
	}

	b, err = Start(ctx, Options{ProfileIn: filepath.Join(dir, "missing")})
	if err != nil {
		t.Fatalf("a ProfileIn that does not exist failed the start: %v", err)
	}
	defer b.Close()
	if !strings.HasPrefix(b.DataDir(), os.TempDir()) {
		t.Errorf("profile %s, want the fallback in %s", b.DataDir(), os.TempDir())
	}
}
