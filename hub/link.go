package hub

import (
	"encoding/json"
	"errors"
	"sync"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
)

// A link is one engine connection's CDP transport over a profile: what it
// may send, and the answers and events routed back to it.

// Open returns a new CDP transport for the profile. Each engine connection
// has its own; they live until closed, or until the extension stays away
// longer than the grace period.
func (p *Profile) Open() (cdp.Transport, error) {
	return p.open("this process")
}

func (p *Profile) open(who string) (*link, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sock == nil {
		return nil, errs.New(errs.BrowserUnavailable, "the extension of browser profile %q is not connected", p.name).
			WithHint("open that browser; the extension reconnects within 30 s of its start")
	}
	l := &link{p: p, who: who, in: make(chan []byte, 256), done: make(chan struct{})}
	p.links[l] = true
	return l, nil
}

// link is one engine connection's cdp.Transport on a profile.
type link struct {
	p    *Profile
	who  string // "this process", or the address of a joined process
	in   chan []byte
	done chan struct{}

	mu  sync.Mutex
	why error
}

func (l *link) err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.why
}

// ReadMessage returns the next CDP message from the extension.
func (l *link) ReadMessage() ([]byte, error) {
	select {
	case data := <-l.in:
		return data, nil
	case <-l.done:
		select {
		case data := <-l.in:
			return data, nil
		default:
		}
		return nil, l.err()
	}
}

// WriteMessage sends a CDP command to the extension. While the extension
// is away, and when the command touches a tab another link holds, it is
// answered at once with an error.
func (l *link) WriteMessage(data []byte) error {
	if err := l.err(); err != nil {
		return err
	}
	id, sid := commandID(data)
	if id == 0 {
		return nil // not a command
	}
	var cmd browserCmd
	if sid == "" {
		cmd = parseBrowserCmd(data)
	}
	p := l.p
	p.mu.Lock()
	s := p.sock
	if s == nil {
		name := p.name
		p.mu.Unlock()
		l.push(refusalReply(id, sid, errs.New(errs.BrowserUnavailable, "the extension of browser profile %q is reconnecting", name).
			WithHint("retry in a few seconds; if it stays away, check that the browser runs and the extension shows \"connected\"")))
		return nil
	}
	if refusal := p.check(l, sid, cmd); refusal != nil {
		p.mu.Unlock()
		l.push(refusalReply(id, sid, refusal))
		return nil
	}
	pc := &pendingCmd{l: l, id: id, sid: sid}
	if cmd.Method == "Target.attachToTarget" {
		pc.attach = cmd.Params.TargetID
		p.attaching[pc.attach] = l
	}
	p.nextID++
	hid := p.nextID
	p.pending[hid] = pc
	p.mu.Unlock()
	// a failed write means the socket is going: its reader unplugs it and
	// answers what was in flight
	s.write(withID(data, hid))
	return nil
}

// check refuses a command on a session or a tab another link holds. p.mu
// is held.
func (p *Profile) check(l *link, sid string, cmd browserCmd) *errs.Error {
	if sid != "" {
		if o, ok := p.sessions[sid]; !ok || o.l != l {
			return errs.New(errs.TabNotFound, "no session %s of this connection", sid)
		}
		return nil
	}
	switch cmd.Method {
	case "Target.attachToTarget", "Target.closeTarget", "Target.activateTarget":
		tid := cmd.Params.TargetID
		holder := p.attaching[tid]
		if sid, ok := p.tabs[tid]; ok {
			holder = p.sessions[sid].l
		}
		if holder == nil || holder == l {
			return nil
		}
		if cmd.Method == "Target.activateTarget" {
			return nil // bringing a tab to the front is no claim
		}
		where := "another tabwright process (" + holder.who + ")"
		if holder.who == l.who {
			where = "another connection of this process"
		}
		return errs.New(errs.TabInUse, "tab %s is claimed by %s", tid, where).WithPath("tab_id").
			WithHint("open a new tab with browser_open_tab, or wait until the other session releases it")
	case "Target.detachFromTarget":
		if o, ok := p.sessions[cmd.Params.SessionID]; !ok || o.l != l {
			return errs.New(errs.TabNotFound, "no session %s of this connection", cmd.Params.SessionID)
		}
	}
	return nil
}

// browserCmd is what the hub reads of a browser-level command.
type browserCmd struct {
	Method string `json:"method"`
	Params struct {
		TargetID  string `json:"targetId"`
		SessionID string `json:"sessionId"`
	} `json:"params"`
}

func parseBrowserCmd(data []byte) browserCmd {
	var c browserCmd
	json.Unmarshal(data, &c)
	return c
}

// Close ends the transport; the extension connection stays.
func (l *link) Close() error {
	l.fail(errors.New("transport closed"))
	return nil
}

// fail ends the link and detaches every tab it held: no claim is left
// without a holder.
func (l *link) fail(why error) {
	l.mu.Lock()
	if l.why != nil {
		l.mu.Unlock()
		return
	}
	l.why = why
	l.mu.Unlock()
	close(l.done)
	p := l.p
	p.mu.Lock()
	delete(p.links, l)
	var roots []string
	for sid, o := range p.sessions {
		if o.l == l && o.root == sid {
			roots = append(roots, sid)
		}
	}
	for _, sid := range roots {
		p.dropTab(sid)
	}
	for tid, al := range p.attaching {
		if al == l {
			delete(p.attaching, tid)
		}
	}
	for _, pc := range p.pending {
		if pc.l == l {
			pc.l = nil // its answer is dropped
		}
	}
	none := len(p.links) == 0
	if none && p.away != nil {
		p.away.Stop()
		p.away = nil
	}
	s := p.sock
	p.mu.Unlock()
	if s == nil {
		return
	}
	if none {
		s.write(releaseAllMsg) // no engine connection is left to hold claims
		return
	}
	for _, sid := range roots {
		p.hubCommand(s, "Target.detachFromTarget", map[string]any{"sessionId": sid})
	}
}

// releaseAllMsg makes the extension detach from every tab it attached.
var releaseAllMsg = []byte(`{"type":"release_all"}`)

func (l *link) push(data []byte) {
	select {
	case l.in <- data:
	case <-l.done:
	}
}

// refusalReply answers a command with one of our coded errors, which the
