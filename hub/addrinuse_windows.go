package hub

import (
	"errors"

	"golang.org/x/sys/windows"
)

// addrInUse reports whether a listen failed because another process holds
// the port: Winsock says so with WSAEADDRINUSE, which syscall.EADDRINUSE
// (a made-up number on Windows) does not match.
func addrInUse(err error) bool { return errors.Is(err, windows.WSAEADDRINUSE) }
