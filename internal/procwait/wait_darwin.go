package procwait

import "golang.org/x/sys/unix"

// Wait blocks until pid has exited (a zombie counts) or is gone already:
// kqueue reports a process's exit (EVFILT_PROC, NOTE_EXIT) without reaping
// it.
func Wait(pid int) {
	kq, err := unix.Kqueue()
	if err != nil {
		return
	}
	defer unix.Close(kq)
	ev := unix.Kevent_t{Ident: uint64(pid), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}
	out := make([]unix.Kevent_t, 1)
	for {
		_, err := unix.Kevent(kq, []unix.Kevent_t{ev}, out, nil)
		if err != unix.EINTR {
			return // an exit, or ESRCH: no such process, gone already
		}
	}
}
