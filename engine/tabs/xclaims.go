package tabs

import (
	"errors"
	"sync"

	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/claimlock"
	"github.com/tabwright/tabwright/engine/errs"
)

// Claims on a browser someone else runs (--cdp-url) are also held as file
// locks (package claimlock), so that every tabwright process of this user
// attached to that browser sees them: the kernel frees a process's locks
// when it dies, however it dies. The managed browser belongs to one process
// and paired profiles share claims through the attach hub; neither needs it.

// ClaimedByProcess is claimed_by for a tab another tabwright process holds.
const ClaimedByProcess = "another process"

// crossProcess holds the lock directory, opened on first use.
type crossProcess struct {
	once sync.Once
	dir  *claimlock.Dir
	err  error
}

func (m *Manager) lockDir() (*claimlock.Dir, error) {
	m.xp.once.Do(func() {
		path := m.opt.ClaimDir
		if path == "" {
			path = claimlock.DefaultPath()
		}
		m.xp.dir, m.xp.err = claimlock.Open(path)
		if m.xp.err != nil {
			m.xp.err = errs.Wrap(errs.PermissionDenied, m.xp.err, "the folder of claims shared with other tabwright processes").
				WithHint("remove %s if another user made it (tabwright makes it again, private to you), or set XDG_RUNTIME_DIR to a folder of yours", path).
				WithFact(FactClaimsFolder)
		}
	})
	return m.xp.dir, m.xp.err
}

func sharedClaims(p *profile) bool { return p.kind == KindCDP }

// lockAcross takes the cross-process lock of a claim this process reserved.
func (m *Manager) lockAcross(t *Tab) error {
	if !sharedClaims(t.profile) {
		return nil
	}
	dir, err := m.lockDir()
	if err != nil {
		return err
	}
	l, err := dir.Lock(string(t.TargetID))
	var held *claimlock.ErrHeld
	if errors.As(err, &held) {
		return errs.New(errs.TabInUse, "tab %s is claimed by another tabwright process (pid %d) on this browser", t.TargetID, held.Holder.PID).
			WithHint("open a new tab, or wait until that process releases it (its claims end when it exits)").WithFact(FactHeldByProcess)
	}
	if err != nil {
		return errs.Wrap(errs.Internal, err, "locking the claim")
	}
	t.xlock = l
	if err := t.deadErr(); err != nil {
		l.Release() // forgotten while we locked (the session ended)
		return err
	}
	return nil
}

// heldAcross reports whether another process holds tab id of profile p.
func (m *Manager) heldAcross(p *profile, id target.ID) bool {
	if !sharedClaims(p) {
		return false
	}
	dir, err := m.lockDir()
	if err != nil {
		return false
	}
	_, held := dir.Held(string(id))
	return held
}
