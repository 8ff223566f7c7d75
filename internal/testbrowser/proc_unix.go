//go:build unix

package testbrowser

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the browser as a process group leader (and, on Linux,
// with a parent-death signal: procattr_linux.go).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = procAttr() }

// killTree kills the browser's process group.
func killTree(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
