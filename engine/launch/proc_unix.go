//go:build unix

package launch

import (
	"errors"
	"os/exec"
	"syscall"
)

// procTree is the browser's process group: it was started as its leader
// (Setpgid), and its children stay in it.
type procTree struct{ pgid int }

func startTree(cmd *exec.Cmd) (procTree, error) {
	if err := cmd.Start(); err != nil {
		return procTree{}, err
	}
	return procTree{pgid: cmd.Process.Pid}, nil
}

// kill ends every process of the group at once.
func (t procTree) kill() {
	if t.pgid > 0 {
		syscall.Kill(-t.pgid, syscall.SIGKILL)
	}
}

// processAlive reports whether pid runs (EPERM: it runs as another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
