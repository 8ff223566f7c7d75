package procwait

import (
	"syscall"
	"unsafe"
)

// Wait blocks until pid has exited (a zombie counts) or is gone already:
// a pidfd becomes readable when its process exits.
func Wait(pid int) {
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno != 0 {
		return // no such process: it is gone already
	}
	defer syscall.Close(int(fd))
	fds := []pollFd{{fd: int32(fd), events: pollIn}}
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 1, 0, 0, 0, 0)
		if errno != syscall.EINTR {
			return
		}
	}
}

const (
	sysPidfdOpen = 434 // pidfd_open(2), the same number on every Linux architecture
	pollIn       = 0x1
)

// pollFd is struct pollfd of poll(2).
type pollFd struct {
	fd             int32
	events, revent int16
}
