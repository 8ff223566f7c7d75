// Package procwait tells a test when a process has exited, whoever its
// parent is, without reaping it: the OS signals the exit (wait_*.go), so no
// test polls /proc or sleeps to find out.
package procwait

import "time"

// Within reports whether pid exits within d.
func Within(pid int, d time.Duration) bool {
	exited := make(chan struct{})
	go func() { Wait(pid); close(exited) }()
	select {
	case <-exited:
		return true
	case <-time.After(d):
		return false
	}
}
