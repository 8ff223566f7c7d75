package launch

import "syscall"

// procAttr starts the browser as a process group leader that the kernel
// kills when this process dies, however it dies (Pdeathsig is Linux's).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
