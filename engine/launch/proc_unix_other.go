//go:build unix && !linux

package launch

import "syscall"

// procAttr starts the browser as a process group leader. Without a
// parent-death signal (Linux only), a server killed with SIGKILL leaves the
// browser to notice its DevTools pipe close, which makes Chromium exit.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
