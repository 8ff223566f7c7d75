//go:build unix

package main

import "syscall"

// killPid kills pid as a crash would.
func killPid(pid int) { syscall.Kill(pid, syscall.SIGKILL) }

// pidRuns reports whether pid is a process (a zombie counts).
func pidRuns(pid int) bool { return syscall.Kill(pid, 0) == nil }
