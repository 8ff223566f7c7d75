package claimlock

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// DefaultPath is where the locks of this user live: in the user's local
// application data, which only the user (and administrators) can open.
func DefaultPath() string {
	if d, err := os.UserCacheDir(); err == nil { // %LocalAppData%
		return filepath.Join(d, "tabwright", "claims")
	}
	return filepath.Join(os.TempDir(), "tabwright", "claims")
}

// private checks only that p is a directory: on Windows, privacy comes
// from the ACL of the user's profile folder that DefaultPath is inside,
// and mode bits say nothing about it.
func private(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return &os.PathError{Op: "open", Path: p, Err: errors.New("not a directory")}
	}
	return nil
}

// ownedNotShared is private on Windows: the ACL, not mode bits, decides.
func ownedNotShared(p string) error { return private(p) }

// lockOffset is where the one locked byte sits, far past the holder's pid
// at the start of the file: Windows locks are mandatory, and a lock over
// the pid would stop others from reading who holds the claim.
const lockOffset = 1 << 40

func lockRegion() *windows.Overlapped {
	return &windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
}

// tryLock takes a lock on f's byte without waiting; held says another
// process has it.
func tryLock(f *os.File, exclusive bool) (held bool, err error) {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	err = windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, lockRegion())
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return true, nil
	}
	return false, err
}

func unlock(f *os.File) { windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockRegion()) }

// release closes the file before it removes it: Windows refuses to remove
// a file that is open. A removal that fails because another process has
// just opened the file leaves it for that process, which is harmless.
func release(f *os.File, path string) {
	f.Close()
	os.Remove(path)
}
