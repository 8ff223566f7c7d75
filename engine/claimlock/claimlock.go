// Package claimlock makes a tab's claim visible to every tabwright process
// of this user on this machine: a claim is an exclusive lock on a file
// named after the tab's target id (flock on Unix, LockFileEx on Windows:
// lock_*.go). The OS releases the lock when its process exits, however it
// exits, so a dead process's claims are free once it is gone; there is no
// coordinator to elect, no port, no heartbeat. Target ids are random
// 128-bit values, unique across browsers.
package claimlock

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
)

// Dir holds the lock files.
type Dir struct {
	path string

	mu   sync.Mutex
	mine map[string]bool // ids this process holds
}

// Open makes the directory if needed. It must be the user's own and private
// (0700): another user who could write to it could fake or remove claims.
func Open(path string) (*Dir, error) {
	if err := os.MkdirAll(path, 0o700); err != nil {
		return nil, err
	}
	if err := private(path); err != nil {
		return nil, err
	}
	// A parent someone else made, or can write, could swap the directory
	// under us; one others may only read (a cache folder is often 0755)
	// cannot.
	if err := ownedNotShared(filepath.Dir(path)); err != nil {
		return nil, err
	}
	return &Dir{path: path, mine: map[string]bool{}}, nil
}

// Holder says who holds a claim.
type Holder struct {
	PID int `json:"pid"`
}

// ErrHeld is returned by Lock when another process holds the claim.
type ErrHeld struct{ Holder Holder }

func (e *ErrHeld) Error() string {
	return fmt.Sprintf("claimed by another process (pid %d)", e.Holder.PID)
}

// Lock is a claim this process holds.
type Lock struct {
	f    *os.File
	path string
	d    *Dir // nil for LockFile's
	id   string
}

var validID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

func (d *Dir) file(id string) (string, error) {
	if !validID.MatchString(id) {
		return "", fmt.Errorf("target id %q cannot name a lock file", id)
	}
	return filepath.Join(d.path, id+".lock"), nil
}

// Lock claims id for this process, or returns *ErrHeld.
func (d *Dir) Lock(id string) (*Lock, error) {
	path, err := d.file(id)
	if err != nil {
		return nil, err
	}
	l, err := lockPath(path)
	if err != nil {
		return nil, err
	}
	l.d, l.id = d, id
	d.mu.Lock()
	d.mine[id] = true
	d.mu.Unlock()
	return l, nil
}

// LockFile takes the lock of the file at path, made if missing, outside
// any claims folder (a browser profile's lock), or returns *ErrHeld.
func LockFile(path string) (*Lock, error) {
	return lockPath(path)
}

// lockPath locks the file at path for this process.
func lockPath(path string) (*Lock, error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if held, err := tryLock(f, true); held || err != nil {
			h := readHolder(f)
			f.Close()
			if held {
				return nil, &ErrHeld{Holder: h}
			}
			return nil, err
		}
		// The file may have been removed by its last holder between our open
		// and our lock: then the lock is on a name nobody else sees. Retry.
		if !samePath(f, path) {
			f.Close()
			continue
		}
		f.Truncate(0)
		json.NewEncoder(f).Encode(Holder{PID: os.Getpid()})
		return &Lock{f: f, path: path}, nil
	}
}

// Held reports whether another process holds id's claim.
func (d *Dir) Held(id string) (Holder, bool) {
	d.mu.Lock()
	mine := d.mine[id]
	d.mu.Unlock()
	if mine {
		return Holder{}, false
	}
	path, err := d.file(id)
	if err != nil {
		return Holder{}, false
	}
	f, err := os.Open(path)
	if err != nil {
		return Holder{}, false
	}
	defer f.Close()
	if held, err := tryLock(f, false); held || err != nil {
		return readHolder(f), held
	}
	unlock(f)
	return Holder{}, false
}

// Release ends the claim and removes its file.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	release(l.f, l.path)
	l.f = nil
	if l.d == nil {
		return
	}
	l.d.mu.Lock()
	delete(l.d.mine, l.id)
	l.d.mu.Unlock()
}

func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

func readHolder(f *os.File) Holder {
	var h Holder
	b := make([]byte, 64)
	n, _ := f.ReadAt(b, 0)
	json.Unmarshal(b[:n], &h)
	return h
}
