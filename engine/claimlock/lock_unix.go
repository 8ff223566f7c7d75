//go:build unix

package claimlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// DefaultPath is where the locks of this user live: under
// $XDG_RUNTIME_DIR when set (private to the user, cleared at logout), else
// in the user's cache folder, where no other user can make it first (a
// name in the shared temporary directory could be taken by anyone), else
// in the temporary directory.
func DefaultPath() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "tabwright", "claims")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "tabwright", "claims")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("tabwright-%d", os.Getuid()), "claims")
}

// private refuses a directory another user owns or can open.
func private(p string) error { return ownedWithout(p, 0o077, "mode 0700") }

// ownedNotShared refuses a directory another user owns or can write to.
func ownedNotShared(p string) error { return ownedWithout(p, 0o022, "no group or other write") }

// ownedWithout refuses a directory another user owns or whose mode has
// any of the bits in mask.
func ownedWithout(p string, mask os.FileMode, want string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&mask != 0 {
		return fmt.Errorf("%s is not a directory of this user's (want %s, owned by uid %d)", p, want, os.Getuid())
	}
	return nil
}

// tryLock takes f's flock without waiting; held says another process has it.
func tryLock(f *os.File, exclusive bool) (held bool, err error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

func unlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// release removes the file before it closes it (closing the last
// descriptor drops the flock): whoever opens the name afterwards makes a
// new file, and Lock's samePath check catches one opened in between.
func release(f *os.File, path string) {
	os.Remove(path)
	f.Close()
}
