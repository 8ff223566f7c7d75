package tabs

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/cdp"
)

// spareTab is the blank tab a headless managed browser keeps ready for the
// next Open, its renderer process already started: a new tab's renderer
// takes about 0.3 s to start on a 2-core machine, most of a first
// navigation. The first spare is the tab the browser opens as it starts
// (its renderer starts alongside the browser's own start); each one handed
// out is replaced once its opener is done with it. A spare is nobody's
// tab: tab listings and claims do not see it until it is handed out.
type spareTab struct {
	// mu is held from before a spare's target exists until its id is
	// recorded, so a listing that saw the new target finds it here.
	mu      sync.Mutex
	id      target.ID // the spare ready to hand out, "" for none
	gen     int       // the connection generation it belongs to
	handing target.ID // handed out, not yet claimed

	// refills counts the refills asked for (tests read it). Not under mu,
	// which a refill holds while the browser makes the tab.
	refills atomic.Int32
}

// spareWait bounds making a spare; a browser that cannot make one in this
// time leaves Open to make its tabs as before.
const spareWait = 10 * time.Second

// keepsSpare says whether the profile keeps a spare tab: only a headless
// managed browser, where nobody sees a blank tab waiting. Never a browser
// someone else runs.
func (p *profile) keepsSpare() bool {
	return p.kind == KindManaged && !p.m.opt.Launch.Headful
}

// adoptStartupTab makes the tab the browser started with the spare of
// generation gen, or makes one when it has none.
func (p *profile) adoptStartupTab(conn *cdp.Conn, gen int) {
	p.spare.mu.Lock()
	defer p.spare.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), spareWait)
	defer cancel()
	if res, err := cdproto.Call(ctx, conn.Browser(), target.GetTargets, target.GetTargetsParams{}); err == nil {
		for _, ti := range res.TargetInfos {
			if ti.Type == "page" && ti.OpenerID == "" {
				p.spare.id, p.spare.gen = ti.TargetID, gen
				return
			}
		}
	}
	p.makeSpareLocked(ctx, conn, gen)
}

// refillSpare makes a new spare for generation gen in the background, when
// there is none. With SingleSpare a spare taken is not replaced.
func (p *profile) refillSpare(gen int) {
	if !p.keepsSpare() || p.m.opt.SingleSpare {
		return
	}
	p.spare.refills.Add(1)
	go func() {
		p.spare.mu.Lock()
		defer p.spare.mu.Unlock()
		browser := p.browserOf(gen)
		if browser == nil || p.spare.id != "" || p.m.isClosed() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), spareWait)
		defer cancel()
		p.makeSpareLocked(ctx, browser.Conn(), gen)
	}()
}

// refillAfterFirstNavigation has the spare replaced once t's first navigation
// has ended, or its claim, whichever comes first: the caller of Open waits
// for that navigation, and a new spare's renderer starting at once would
// take the CPU from it (about 20 ms of a first navigation of 60 on two
// cores).
func (t *Tab) refillAfterFirstNavigation() { t.spareDue.Store(true) }

// refillDue makes the spare refillAfterFirstNavigation asked for, once.
func (t *Tab) refillDue() {
	if t.spareDue.CompareAndSwap(true, false) {
		t.profile.refillSpare(t.gen)
	}
}

// makeSpareLocked creates a background blank tab as the spare (spare.mu held).
func (p *profile) makeSpareLocked(ctx context.Context, conn *cdp.Conn, gen int) {
	created, err := cdproto.Call(ctx, conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank", Background: ptr(true)})
	if err != nil {
		return // Open makes its own tabs
	}
	p.spare.id, p.spare.gen = created.TargetID, gen
}

// takeSpare hands out the spare of generation gen, waiting for one being
// made; "" when there is none. The caller claims it and then calls
// spareClaimed.
func (p *profile) takeSpare(gen int) target.ID {
	if !p.keepsSpare() {
		return ""
	}
	p.spare.mu.Lock()
	defer p.spare.mu.Unlock()
	id := p.spare.id
	if id == "" || p.spare.gen != gen {
		return ""
	}
	p.spare.id, p.spare.handing = "", id
	return id
}

// spareClaimed ends the handing out of id: from now on its claim (or its
// absence, once closed) is what listings see.
func (p *profile) spareClaimed(id target.ID) {
	p.spare.mu.Lock()
	defer p.spare.mu.Unlock()
	if p.spare.handing == id {
		p.spare.handing = ""
	}
}

// isSpare says whether target id is the spare or one being handed out.
func (p *profile) isSpare(id target.ID) bool {
	if !p.keepsSpare() {
		return false
	}
	p.spare.mu.Lock()
	defer p.spare.mu.Unlock()
	return id != "" && (id == p.spare.id || id == p.spare.handing)
}

// hiddenSpare says whether target id is a spare that no claim holds yet:
// listings leave it out and claims do not find it.
func (m *Manager) hiddenSpare(p *profile, id target.ID) bool {
	if !p.isSpare(id) {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.claims[p.id][id] == nil
}

// openSpare claims the spare tab for opt.Owner, as Open would claim a tab
// it made; ok is false when there is no spare or claiming it failed (then
// the spare is closed and the caller makes a tab).
func (m *Manager) openSpare(ctx context.Context, opt OpenOptions, p *profile, conn *cdp.Conn, gen int) (*OpenResult, bool) {
	id := p.takeSpare(gen)
	if id == "" {
		return nil, false
	}
	defer p.spareClaimed(id)
	t, err := m.claim(ctx, opt.Owner, p, conn, gen, id, true)
	if err == nil && opt.Active {
		_, err = cdproto.Call(ctx, conn.Browser(), target.ActivateTarget, target.ActivateTargetParams{TargetID: id})
		if err != nil {
			m.forget(t, deadHandle("tab handle %q was never handed out", t.handle))
		}
	}
	if err != nil {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeWait)
		defer cancel()
		cdproto.Call(closeCtx, conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: id})
		return nil, false
	}
	res := &OpenResult{TabInfo: TabInfo{TabID: string(id), BrowserID: p.id, URL: opt.URL, Claimed: true, ClaimedBy: "you"}, Tab: t}
	return res, true
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}
