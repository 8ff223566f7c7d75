package procwait

import "golang.org/x/sys/windows"

// Wait blocks until pid has exited or is gone already: a process handle is
// signalled when its process exits.
func Wait(pid int) {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return // no such process: it is gone already
	}
	defer windows.CloseHandle(h)
	windows.WaitForSingleObject(h, windows.INFINITE)
}
