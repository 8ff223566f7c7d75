package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// killPid kills pid as a crash would (TerminateProcess).
func killPid(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// pidRuns reports whether pid is a process that has not exited.
func pidRuns(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	ev, _ := windows.WaitForSingleObject(h, 0)
	return ev == uint32(windows.WAIT_TIMEOUT)
}
