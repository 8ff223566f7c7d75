package hub

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/tabwright/tabwright/engine/errs"
)

// Profile is one browser profile paired through the extension.
//
// Several engine connections (links) may use one profile at once: this
// process's own and those of other tabwright processes that joined the hub
// (see Node). The hub gives every command an id of its own on the way to
// the extension and routes the answer back to the link that sent it; every
// tab session belongs to the link that attached it, and its events go there
// only. A tab attached by one link cannot be attached, detached or closed
// by another, so claims stay exclusive across processes.
type Profile struct {
	h  *Hub
	id string

	mu         sync.Mutex
	name       string
	product    string
	booted     int64
	fileAccess bool
	sock       *socket
	away       *time.Timer // fails the links when the extension stays away

	links     map[*link]bool
	nextID    int64                   // the hub's command ids towards the extension
	pending   map[int64]*pendingCmd   // hub id -> who waits for the answer
	sessions  map[string]sessionOwner // session id (a tab's or an iframe's) -> owner
	tabs      map[string]string       // target id of an attached tab -> its session id
	attaching map[string]*link        // target id -> the link whose attach is in flight
}

type sessionOwner struct {
	l    *link
	root string // the tab's session: itself for a tab, its tab's for an iframe
}

type pendingCmd struct {
	l      *link // nil: the hub's own command, whose answer is dropped
	id     int64 // the id the link gave it
	sid    string
	attach string // Target.attachToTarget: the target
}

func newProfile(h *Hub, id string) *Profile {
	return &Profile{h: h, id: id, links: map[*link]bool{}, pending: map[int64]*pendingCmd{},
		sessions: map[string]sessionOwner{}, tabs: map[string]string{}, attaching: map[string]*link{}}
}

// ID returns the profile's stable id, chosen by the extension.
func (p *Profile) ID() string { return p.id }

// Name returns the name the user gave the profile on the options page.
func (p *Profile) Name() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.name
}

// Product returns the browser and version, e.g. "Chrome/156.0.8078.114".
func (p *Profile) Product() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.product
}

// FileAccess tells whether the user allowed the extension file:// URLs
// ("Allow access to file URLs" on chrome://extensions).
func (p *Profile) FileAccess() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fileAccess
}

// Connected tells whether the extension is connected now.
func (p *Profile) Connected() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sock != nil
}

// info is what the hub tells joined processes about the profile.
func (p *Profile) info() profileInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	return profileInfo{ID: p.id, Name: p.name, Product: p.product, Connected: p.sock != nil, FileAccess: p.fileAccess}
}

func (p *Profile) plug(s *socket, m *hello) {
	p.mu.Lock()
	old := p.sock
	p.sock, p.name, p.product, p.booted, p.fileAccess = s, m.Profile.Name, m.Product, m.Booted, m.FileAccess
	if p.away != nil {
		p.away.Stop()
		p.away = nil
	}
	// Tabs the extension holds that no link owns (their tabwright stopped
	// while the extension was away, or the hub is new): nothing may stay
	// attached without a claim.
	var orphans []string
	kept := map[string]bool{}
	for _, c := range m.Claims {
		kept[c.SessionID] = true
		if o, ok := p.sessions[c.SessionID]; !ok || o.l == nil {
			orphans = append(orphans, c.SessionID)
		}
	}
	// And tabs a link holds that the extension no longer has (it was
	// reloaded or crashed, and its state with it): their owners hear that
	// the session ended, so that the claims end with a reason.
	type lost struct {
		l        *link
		sid, tid string
	}
	var gone []lost
	for tid, sid := range p.tabs {
		if !kept[sid] {
			gone = append(gone, lost{p.sessions[sid].l, sid, tid})
		}
	}
	for _, g := range gone {
		p.dropTab(g.sid)
	}
	none := len(p.links) == 0
	p.mu.Unlock()
	for _, g := range gone {
		ev, _ := json.Marshal(map[string]any{"method": "Target.detachedFromTarget", "params": map[string]any{"sessionId": g.sid, "targetId": g.tid}})
		g.l.push(ev)
	}
	if old != nil {
		old.conn.Close(websocket.StatusPolicyViolation, "replaced by a newer connection of the same profile")
	}
	switch {
	case len(m.Claims) > 0 && none:
		s.write(releaseAllMsg)
	default:
		for _, sid := range orphans {
			p.hubCommand(s, "Target.detachFromTarget", map[string]any{"sessionId": sid})
		}
	}
}

func (p *Profile) unplug(s *socket, why error) {
	p.mu.Lock()
	if p.sock != s {
		p.mu.Unlock()
		return // replaced already
	}
	p.sock = nil
	if len(p.links) > 0 {
		grace := p.h.opt.Grace
		p.away = time.AfterFunc(grace, func() {
			p.failLinks(fmt.Errorf("the extension of browser profile %q stayed away for %v: %v", p.Name(), grace, why))
		})
	}
	p.mu.Unlock()
	p.abandon(errs.New(errs.BrowserUnavailable, "the extension of browser profile %q disconnected before answering (%v)", p.Name(), why).
		WithHint("retry once it is back (within seconds when the browser runs); the command may or may not have taken effect"))
}

func (p *Profile) shutdown(why error) {
	p.mu.Lock()
	s := p.sock
	p.sock = nil
	p.mu.Unlock()
	if s != nil {
		s.conn.Close(websocket.StatusGoingAway, "hub stopping")
	}
	p.failLinks(why)
}

func (p *Profile) failLinks(why error) {
	p.mu.Lock()
	list := make([]*link, 0, len(p.links))
	for l := range p.links {
		list = append(list, l)
	}
	p.mu.Unlock()
	for _, l := range list {
		l.fail(why)
	}
}

// control handles the extension's own messages.
func (p *Profile) control(data []byte) {
	var m struct {
		Type       string `json:"type"`
		Name       string `json:"name"`
		FileAccess *bool  `json:"fileAccess"`
	}
	if json.Unmarshal(data, &m) != nil {
		return
	}
	if m.Type == "name" && m.Name != "" {
		p.mu.Lock()
		p.name = m.Name
		p.mu.Unlock()
		p.h.notify()
	}
	if m.FileAccess != nil {
		p.mu.Lock()
		changed := p.fileAccess != *m.FileAccess
		p.fileAccess = *m.FileAccess
		p.mu.Unlock()
		if changed {
			p.h.notify()
		}
	}
	// pong and keepalive only prove the extension is alive, which reading
	// them already did.
}

// abandon answers every command in flight with an error: the extension
// that received them is gone and will not answer.
func (p *Profile) abandon(why *errs.Error) {
	p.mu.Lock()
	pending := p.pending
	p.pending = map[int64]*pendingCmd{}
	clear(p.attaching)
	p.mu.Unlock()
	for _, pc := range pending {
		if pc.l != nil {
			pc.l.push(refusalReply(pc.id, pc.sid, why))
		}
	}
}

// hubCommand sends a command of the hub's own; its answer is dropped.
func (p *Profile) hubCommand(s *socket, method string, params any) {
	p.mu.Lock()
	p.nextID++
	hid := p.nextID
	p.pending[hid] = &pendingCmd{}
	p.mu.Unlock()
	data, _ := json.Marshal(map[string]any{"id": hid, "method": method, "params": params})
	s.write(data)
}

// fromExtension routes a CDP message of the extension: an answer to the
// link that sent the command, an event to the link that owns its session.
func (p *Profile) fromExtension(data []byte) {
	if hid, _ := replyID(data); hid != 0 {
		p.answer(hid, data)
		return
	}
	method, sid, ok := eventHead(data)
	if !ok {
		var m struct {
			Method    string `json:"method"`
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(data, &m) != nil || m.Method == "" {
			return
		}
		method, sid = m.Method, m.SessionID
	}
	var to []*link
	p.mu.Lock()
	switch method {
	case "Target.attachedToTarget", "Target.detachedFromTarget":
		to = p.targetEvent(method, sid, data)
	default:
		if sid == "" {
			for l := range p.links { // no browser-level events are expected; all may hear them
				to = append(to, l)
			}
		} else if o, ok := p.sessions[sid]; ok {
			to = []*link{o.l}
		}
	}
	p.mu.Unlock()
	for _, l := range to {
		l.push(data)
	}
}

// targetEvent keeps the session owners current and says who hears the
// event. p.mu is held.
func (p *Profile) targetEvent(method, sid string, data []byte) []*link {
	var m struct {
		Params struct {
			SessionID  string `json:"sessionId"`
			TargetID   string `json:"targetId"`
			TargetInfo struct {
				TargetID string `json:"targetId"`
			} `json:"targetInfo"`
		} `json:"params"`
	}
	if json.Unmarshal(data, &m) != nil || m.Params.SessionID == "" {
		return nil
	}
	child := m.Params.SessionID
	if method == "Target.attachedToTarget" {
		if sid == "" { // a tab: the link whose attach is in flight owns it
			tid := m.Params.TargetInfo.TargetID
			l := p.attaching[tid]
			if l == nil {
				return nil
			}
			p.sessions[child] = sessionOwner{l: l, root: child}
			p.tabs[tid] = child
			return []*link{l}
		}
		o, ok := p.sessions[sid] // an iframe of a tab
		if !ok {
			return nil
		}
		p.sessions[child] = sessionOwner{l: o.l, root: o.root}
		return []*link{o.l}
	}
	if sid != "" { // an iframe's session ended
		o, ok := p.sessions[sid]
		delete(p.sessions, child)
		if !ok {
			return nil
		}
		return []*link{o.l}
	}
	o, ok := p.sessions[child] // a tab's session ended, and its iframes' with it
	p.dropTab(child)
	if !ok {
		return nil
	}
	return []*link{o.l}
}

// dropTab forgets a tab's session and its iframes'. p.mu is held.
func (p *Profile) dropTab(root string) {
	for sid, o := range p.sessions {
		if o.root == root {
			delete(p.sessions, sid)
		}
	}
	for tid, sid := range p.tabs {
		if sid == root {
			delete(p.tabs, tid)
		}
	}
}

// answer passes the extension's answer to the link that sent the command,
// under that link's id.
func (p *Profile) answer(hid int64, data []byte) {
	p.mu.Lock()
	pc := p.pending[hid]
	delete(p.pending, hid)
	if pc != nil && pc.attach != "" {
		if p.attaching[pc.attach] == pc.l {
			delete(p.attaching, pc.attach)
		}
		if pc.l != nil {
			// the event named the owner already; the answer makes sure
			var r struct {
				Result struct {
					SessionID string `json:"sessionId"`
				} `json:"result"`
			}
			if json.Unmarshal(data, &r) == nil && r.Result.SessionID != "" {
				if _, ok := p.sessions[r.Result.SessionID]; !ok {
					p.sessions[r.Result.SessionID] = sessionOwner{l: pc.l, root: r.Result.SessionID}
					p.tabs[pc.attach] = r.Result.SessionID
				}
			}
		}
	}
	p.mu.Unlock()
	if pc == nil || pc.l == nil {
		return // the hub's own command, or answered by the hub already
	}
	pc.l.push(withID(data, pc.id))
}
