package tabs

// How claims and tabs end: a session's end, a tab closed, a browser gone.

import (
	"context"
	"slices"
	"sync"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
)

// EndSession ends every claim of owner, as when its MCP session ends: the
// tabs opened for it (Open) are closed with their popups, the tabs it
// claimed (a user's own, in attach mode) are released and left open.
func (m *Manager) EndSession(ctx context.Context, owner string) {
	m.mu.Lock()
	var opened, claimed []*Tab
	for _, t := range m.handles {
		switch {
		case t.owner != owner:
		case t.opened:
			opened = append(opened, t)
		default:
			claimed = append(claimed, t)
		}
	}
	m.mu.Unlock()
	for _, t := range claimed {
		m.forget(t, deadHandle("the session that held tab handle %q ended", t.handle))
		t.detach(ctx)
	}
	m.closeAll(opened, "the session that opened it ended")
}

// closeAll closes tabs and their popups at once, for why, each within
// closeWait; their handles die.
func (m *Manager) closeAll(list []*Tab, why string) {
	popups := m.popupsOf(list)
	var wg sync.WaitGroup
	for browser, ids := range popups {
		wg.Go(func() { closeTargets(browser, ids) })
	}
	for _, t := range list {
		m.forget(t, deadHandle("tab handle %q belongs to a closed tab: %s", t.handle, why).WithHint("open or claim another tab"))
		browser := t.profile.browserOf(t.gen)
		if browser == nil {
			continue // its browser is gone, and the tab with it
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), closeWait)
			defer cancel()
			cdproto.Call(ctx, browser, target.CloseTarget, target.CloseTargetParams{TargetID: t.TargetID})
		})
	}
	wg.Wait()
}

// popupsOf lists, per browser, the popups under the tabs (at any depth)
// that no one else holds: a popup another claim holds stays, with its own.
func (m *Manager) popupsOf(list []*Tab) map[*cdp.Session][]target.ID {
	roots := map[*cdp.Session]map[target.ID]bool{}
	for _, t := range list {
		if browser := t.profile.browserOf(t.gen); browser != nil {
			if roots[browser] == nil {
				roots[browser] = map[target.ID]bool{}
			}
			roots[browser][t.TargetID] = true
		}
	}
	out := map[*cdp.Session][]target.ID{}
	for browser, ids := range roots {
		ctx, cancel := context.WithTimeout(context.Background(), closeWait)
		tree, err := listTargets(ctx, browser)
		cancel()
		if err != nil {
			continue // the browser is going: its tabs go with it
		}
		for _, id := range tree.below(ids) {
			if !m.heldElsewhere(id, list) {
				out[browser] = append(out[browser], id)
			}
		}
	}
	return out
}

// heldElsewhere says whether a claim other than those in list holds target id.
func (m *Manager) heldElsewhere(id target.ID, list []*Tab) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, claims := range m.claims {
		if c := claims[id]; c != nil && !slices.Contains(list, c) {
			return true
		}
	}
	return false
}

// forget removes a claim and kills its handle with why.
func (m *Manager) forget(t *Tab, why *errs.Error) {
	m.mu.Lock()
	if m.handles[t.handle] != t {
		m.mu.Unlock()
		return // already gone, and the first reason stands
	}
	delete(m.handles, t.handle)
	if m.claims[t.profile.id][t.TargetID] == t {
		delete(m.claims[t.profile.id], t.TargetID)
	}
	if len(m.tombs) >= maxTombs {
		clear(m.tombs) // only explains old handles better; safe to forget
	}
	m.tombs[t.handle] = why
	m.mu.Unlock()
	t.kill(why)
	t.xlock.Release()
	t.refillDue()
}

// dropClaims kills every claim made on generation gen of a profile's
// connection, once that connection died.
func (m *Manager) dropClaims(p *profile, gen int) {
	m.mu.Lock()
	var gone []*Tab
	for _, t := range m.claims[p.id] {
		if t.gen == gen {
			gone = append(gone, t)
		}
	}
	m.mu.Unlock()
	for _, t := range gone {
		m.forget(t, m.browserGone(p, gen, t.handle))
	}
}

// browserGone is the error of a handle whose browser connection (profile
// p's generation gen) ended: closed for want of use, or exited. The tab's
// own watch and dropClaims may race to say it; both say the same.
func (m *Manager) browserGone(p *profile, gen int, handle string) *errs.Error {
	why := "the browser that held tab handle %q exited"
	if p.closedIdle(gen) {
		why = "the managed browser that held tab handle %q was closed after " + m.opt.IdleTimeout.String() + " unused (--idle-timeout)"
	}
	return deadHandle(why, handle).WithHint("open a new tab: a managed browser is relaunched on the next call")
}

// maxTombs bounds how many dead handles keep the reason they died.
const maxTombs = 4096

func deadHandle(format string, args ...any) *errs.Error {
	e := errs.New(errs.InvalidHandle, format, args...)
	e.Path = "tab_handle"
	return e
}
