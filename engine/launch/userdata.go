package launch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/tabwright/tabwright/engine/claimlock"
	"github.com/tabwright/tabwright/engine/errs"
)

// profileDir is the browser's user data directory: the user's own
// (kept, and locked while this process runs a browser on it), or a
// throwaway one made for this start (removed at Close).
func profileDir(opt Options) (dir string, lock *claimlock.Lock, err error) {
	if opt.UserDataDir != "" {
		return userProfile(opt.UserDataDir)
	}
	sweepStaleDataDirs(opt.ProfileIn)
	pattern := fmt.Sprintf("tabwright-%d-", os.Getpid())
	dir, err = os.MkdirTemp(opt.ProfileIn, pattern)
	if err != nil && opt.ProfileIn != "" {
		dir, err = os.MkdirTemp("", pattern) // a place to prefer, not to fail on
	}
	if err != nil {
		return "", nil, errs.Wrap(errs.BrowserUnavailable, err, "creating the browser profile directory").WithHint("free space in the temporary folder or point TMPDIR at a writable one")
	}
	return dir, nil, nil
}

// profileLockFile is the file tabwright locks in a profile it runs a
// browser on. Chromium's own lock (singletonLock) is not made headless,
// and two browsers on one profile would corrupt it.
const profileLockFile = "tabwright.lock"

// userProfile makes dir if needed and locks it, or refuses it while
// another browser holds it.
func userProfile(dir string) (string, *claimlock.Lock, error) {
	if rest, ok := strings.CutPrefix(dir, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, rest) // as a shell would, for config files
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, errs.Input("--user-data-dir", "%q: %v", dir, err).WithHint("give the profile folder as an absolute path")
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", nil, errs.Input("--user-data-dir", "cannot make %s: %v", abs, err).WithHint("give a folder you can write, or make it first")
	}
	inUse := func(pid int) error {
		return errs.Input("--user-data-dir", "the profile %s is in use by another browser (process %d)", abs, pid).
			WithHint("close that browser or the tabwright server that runs it, or give another --user-data-dir")
	}
	lock, err := claimlock.LockFile(filepath.Join(abs, profileLockFile))
	if held, ok := err.(*claimlock.ErrHeld); ok {
		return "", nil, inUse(held.Holder.PID)
	}
	if err != nil {
		return "", nil, errs.Input("--user-data-dir", "cannot lock %s: %v", abs, err).WithHint("give a folder you can write on a local disk (network file systems may refuse locks)")
	}
	if pid := profileHolder(abs); pid != 0 {
		lock.Release()
		return "", nil, inUse(pid)
	}
	// A port from an earlier run would be dialled before the new one is written.
	os.Remove(filepath.Join(abs, activePortFile))
	return abs, lock, nil
}

// singletonLock is the link Chromium keeps in a profile it runs on Linux
// and macOS; it points at "host-pid".
const singletonLock = "SingletonLock"

// profileHolder is the process of this machine that holds dir's profile,
// or 0. A lock left by a browser that was killed names a process that is
// gone, and Chromium takes such a profile over.
func profileHolder(dir string) int {
	target, err := os.Readlink(filepath.Join(dir, singletonLock))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(target, '-')
	if i < 0 {
		return 0
	}
	pid, err := strconv.Atoi(target[i+1:])
	host, _ := os.Hostname()
	if err != nil || target[:i] != host || !processAlive(pid) {
		return 0
	}
	return pid
}

// gracefulWait bounds how long a kept profile's browser gets to write its
// cookies and storage and exit before it is killed.
const gracefulWait = 5 * time.Second

// closeGracefully asks the browser to close, so that it writes the
// profile it holds in memory (cookies are saved every 30 s otherwise),
// and waits for it to exit.
func (b *Browser) closeGracefully() {
	if b.Conn == nil || b.Conn.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), gracefulWait)
	defer cancel()
	cdproto.Call(ctx, b.Conn.Browser(), browser.Close, cdproto.Empty{}) // the reply may never come: it exits
	select {
	case <-b.exited:
	case <-ctx.Done():
	}
}
