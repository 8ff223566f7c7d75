package tabs

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/cdp"
)

// A claimed tab keeps at most a bound of live popups: windows its pages
// opened, and the windows those opened in turn. The ones over it are
// closed at once and hidden from Tabs until the browser has destroyed them;
// each look logs what it let through and what it closed in the opener's log.
//
// We learn of a popup from Page.windowOpen on the opener's own sessions and
// find it in Target.getTargets by its openerId. Target discovery on the
// browser connection would tell us too, but it delays every new tab's
// attach enough to miss its first navigation in the log.
const (
	DefaultMaxPopups = 20   // the bound when Options.MaxPopups is 0
	NoPopups         = -1   // Options.MaxPopups that closes every popup
	MaxPopupsLimit   = 1000 // the largest bound one may set
)

// Popup log entries are of kind navigation, with one of these types.
const (
	PopupOpened = "popup"        // a popup within the bound; tab_id names it
	PopupClosed = "popup_closed" // popups closed for being over the bound; count says how many
)

// popupWait bounds one look at the popups after a window.open.
const popupWait = 10 * time.Second

// popupBound is how many live popups one claimed tab may keep (0: none).
func (m *Manager) popupBound() int {
	switch n := m.opt.MaxPopups; {
	case n == 0:
		return DefaultMaxPopups
	case n < 0:
		return 0
	default:
		return min(n, MaxPopupsLimit)
	}
}

// popupLedger is what became of a claimed tab's popups. Its maps are
// guarded by the profile's popupMu (one look at a time per browser).
type popupLedger struct {
	opened  chan struct{}      // a page of the tab called window.open; one slot, so calls coalesce
	ready   bool               // the popups it had when claimed are adopted; looks may judge new ones
	live    map[target.ID]bool // popups let through and still listed at the last look
	refused map[target.ID]bool // popups we closed, until the browser stops listing them
}

func newPopupLedger(fresh bool) popupLedger {
	return popupLedger{opened: make(chan struct{}, 1), ready: fresh, live: map[target.ID]bool{}, refused: map[target.ID]bool{}}
}

// nudge asks for a look at the popups; it never blocks the event reader.
func (l *popupLedger) nudge() {
	select {
	case l.opened <- struct{}{}:
	default: // a look is due already and will see this popup too
	}
}

// admit judges one of the tab's popups: it stays if it was let through
// before, or if there is room and its own opener was not refused.
func (l *popupLedger) admit(id target.ID, bound int, viaRefused bool) (allowed, fresh bool) {
	switch {
	case l.live[id]:
		return true, false
	case l.refused[id]:
		return false, false
	case !viaRefused && len(l.live) < bound:
		l.live[id] = true
		return true, true
	}
	l.refused[id] = true
	return false, true
}

// forgetGone drops the popups the browser no longer lists: a closed popup
// frees its place.
func (l *popupLedger) forgetGone(tree targetTree) {
	for _, set := range []map[target.ID]bool{l.live, l.refused} {
		for id := range set {
			if tree.pages[id] == nil {
				delete(set, id)
			}
		}
	}
}

// watchPopups looks at the popups each time the tab opened a window, until
// the claim ends.
func (t *Tab) watchPopups() {
	for {
		select {
		case <-t.popups.opened:
		case <-t.dead:
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), popupWait)
		t.profile.m.policePopups(ctx, t.profile, t.sess.Conn().Browser())
		cancel()
	}
}

// policePopups lists the browser's targets, applies each claimed tab's
// bound to its popups, logs the verdicts and closes the popups refused. It
// returns the pages without those, so no one is shown a tab about to close.
func (m *Manager) policePopups(ctx context.Context, p *profile, browser *cdp.Session) ([]*target.Info, error) {
	visible, doomed, err := m.judgePopups(ctx, p, browser)
	if err != nil {
		return nil, err
	}
	closeTargets(browser, doomed)
	return visible, nil
}

func (m *Manager) judgePopups(ctx context.Context, p *profile, browser *cdp.Session) (visible []*target.Info, doomed []target.ID, err error) {
	p.popupMu.Lock()
	defer p.popupMu.Unlock()
	tree, err := listTargets(ctx, browser)
	if err != nil {
		return nil, nil, err
	}
	claimed := m.claimedOn(p)
	for _, t := range claimed {
		if t.popups.ready {
			t.popups.forgetGone(tree)
		}
	}
	bound := m.popupBound()
	reports := map[*Tab]*popupReport{}
	for _, ti := range tree.pagesByDepth() {
		if claimed[ti.TargetID] == nil && p.isSpare(ti.TargetID) {
			continue // nobody's tab until Open hands it out
		}
		opener, path := tree.claimedOpener(ti.TargetID, claimed)
		if opener == nil || !opener.popups.ready {
			visible = append(visible, ti)
			continue
		}
		viaRefused := false
		for _, id := range path {
			viaRefused = viaRefused || opener.popups.refused[id]
		}
		allowed, fresh := opener.popups.admit(ti.TargetID, bound, viaRefused)
		if allowed {
			visible = append(visible, ti)
		} else {
			doomed = append(doomed, ti.TargetID)
		}
		if fresh {
			r := reports[opener]
			if r == nil {
				r = &popupReport{}
				reports[opener] = r
			}
			r.add(ti, allowed)
		}
	}
	for t, r := range reports {
		r.log(t, bound)
	}
	return visible, doomed, nil
}

// adoptPopups lets the popups a tab already has when it is claimed stay,
// over the bound or not: they are not the claim's doing. Looks judge the
// tab's popups only after this.
func (m *Manager) adoptPopups(ctx context.Context, t *Tab) error {
	p := t.profile
	p.popupMu.Lock()
	defer p.popupMu.Unlock()
	tree, err := listTargets(ctx, t.sess.Conn().Browser())
	if err != nil {
		return err
	}
	claimed := m.claimedOn(p)
	for _, ti := range tree.pagesByDepth() {
		if opener, _ := tree.claimedOpener(ti.TargetID, claimed); opener == t {
			t.popups.live[ti.TargetID] = true
		}
	}
	t.popups.ready = true
	return nil
}

// claimedOn returns the claims on profile p by target.
func (m *Manager) claimedOn(p *profile) map[target.ID]*Tab {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[target.ID]*Tab, len(m.claims[p.id]))
	for id, t := range m.claims[p.id] {
		out[id] = t
	}
	return out
}

// popupReport is what one look decided about one tab's new popups.
type popupReport struct {
	opened   []*target.Info
	refused  int
	firstURL string
}

func (r *popupReport) add(ti *target.Info, allowed bool) {
	if allowed {
		r.opened = append(r.opened, ti)
		return
	}
	if r.refused == 0 {
		r.firstURL = ti.URL
	}
	r.refused++
}

// log writes one entry per popup let through and one for those closed
// (added to the last such entry while no one has read it), so a page that
// opens 500 windows costs the log a few entries, not 500.
func (r *popupReport) log(t *Tab, bound int) {
	for _, ti := range r.opened {
		t.logs.locked(LogEntry{Kind: LogNavigation, Type: PopupOpened, URL: ti.URL, TabID: string(ti.TargetID),
			Text: "the page opened a popup tab"})
	}
	if r.refused > 0 {
		t.logs.addClosedPopups(LogEntry{Kind: LogNavigation, Type: PopupClosed, URL: r.firstURL, Count: r.refused,
			Text: fmt.Sprintf("closed at once, over the %d live popups a tab may keep (the server's --max-popups); url is the first one's", bound)})
	}
}

// targetTree is one listing of the browser's targets, with who opened or
// holds whom: a popup's opener, an out-of-process frame's page.
type targetTree struct {
	pages map[target.ID]*target.Info
	order []*target.Info // pages in the browser's order
	up    map[target.ID]target.ID
}

func listTargets(ctx context.Context, browser *cdp.Session) (targetTree, error) {
	res, err := cdproto.Call(ctx, browser, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return targetTree{}, err
	}
	return newTargetTree(res.TargetInfos), nil
}

func newTargetTree(list []*target.Info) targetTree {
	tree := targetTree{pages: map[target.ID]*target.Info{}, up: map[target.ID]target.ID{}}
	for _, ti := range list {
		switch {
		case ti.Type == "page":
			tree.pages[ti.TargetID] = ti
			tree.order = append(tree.order, ti)
			if ti.OpenerID != "" {
				tree.up[ti.TargetID] = ti.OpenerID
			}
		case ti.ParentID != "":
			tree.up[ti.TargetID] = ti.ParentID // a frame's popup names the frame as its opener
		}
	}
	return tree
}

// above returns the targets above id, nearest first; a cycle ends it.
func (tree targetTree) above(id target.ID) []target.ID {
	var out []target.ID
	seen := map[target.ID]bool{id: true}
	for next, ok := tree.up[id]; ok && !seen[next]; next, ok = tree.up[next] {
		seen[next] = true
		out = append(out, next)
	}
	return out
}

// claimedOpener is the nearest claimed tab above page id, and the targets
// between the two.
func (tree targetTree) claimedOpener(id target.ID, claimed map[target.ID]*Tab) (*Tab, []target.ID) {
	path := tree.above(id)
	for i, up := range path {
		if t := claimed[up]; t != nil {
			return t, path[:i]
		}
	}
	return nil, nil
}

// pagesByDepth returns the pages, openers before the popups they opened,
// so a popup of a refused popup is judged after it.
func (tree targetTree) pagesByDepth() []*target.Info {
	out := append([]*target.Info(nil), tree.order...)
	depth := make(map[target.ID]int, len(out))
	for _, ti := range out {
		depth[ti.TargetID] = len(tree.above(ti.TargetID))
	}
	sort.SliceStable(out, func(i, j int) bool { return depth[out[i].TargetID] < depth[out[j].TargetID] })
	return out
}

// below returns every page under one of roots: their popups, the popups'
// popups, and so on.
func (tree targetTree) below(roots map[target.ID]bool) []target.ID {
	var out []target.ID
	for _, ti := range tree.order {
		for _, up := range tree.above(ti.TargetID) {
			if roots[up] {
				out = append(out, ti.TargetID)
				break
			}
		}
	}
	return out
}

// closeTargets asks the browser to close targets, a few at a time, each
// within closeWait; a target already gone is no error worth reporting.
func closeTargets(browser *cdp.Session, ids []target.ID) {
	const atOnce = 16
	turn := make(chan struct{}, atOnce)
	var wg sync.WaitGroup
	for _, id := range ids {
		turn <- struct{}{}
		wg.Go(func() {
			defer func() { <-turn }()
			ctx, cancel := context.WithTimeout(context.Background(), closeWait)
			defer cancel()
			cdproto.Call(ctx, browser, target.CloseTarget, target.CloseTargetParams{TargetID: id})
		})
	}
	wg.Wait()
}
