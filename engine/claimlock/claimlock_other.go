//go:build !unix

package claimlock

import (
	"errors"
	"os"
	"path/filepath"
)

// Dir holds the lock files; without flock there is none, and claims stay
// within one process.
type Dir struct{}

// Holder says who holds a claim.
type Holder struct {
	PID int `json:"pid"`
}

// ErrHeld is returned by Lock when another process holds the claim.
type ErrHeld struct{ Holder Holder }

func (e *ErrHeld) Error() string { return "claimed by another process" }

// Lock is a claim this process holds.
type Lock struct{}

// DefaultPath is where the locks would live.
func DefaultPath() string { return filepath.Join(os.TempDir(), "tabwright-claims") }

// Open is not supported here.
func Open(string) (*Dir, error) {
	return nil, errors.New("claims across processes need flock, which this system lacks")
}

// Lock is not supported here.
func (d *Dir) Lock(string) (*Lock, error) { return &Lock{}, nil }

// Held is never true here.
func (d *Dir) Held(string) (Holder, bool) { return Holder{}, false }

// Release does nothing here.
func (l *Lock) Release() {}
