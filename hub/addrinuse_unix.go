//go:build !windows

package hub

import (
	"errors"
	"syscall"
)

// addrInUse reports whether a listen failed because another process holds
// the port.
func addrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }
