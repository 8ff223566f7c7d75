package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
)

// hello is the extension's first message on a connection.
type hello struct {
	Type    string `json:"type"`
	Profile struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"profile"`
	Product    string `json:"product"`
	Booted     int64  `json:"booted"` // when the service worker started, ms since the epoch
	UserAgent  string `json:"userAgent"`
	FileAccess bool   `json:"fileAccess"` // the user allowed the extension file:// URLs
	Claims     []struct {
		TabID     int    `json:"tabId"`
		SessionID string `json:"sessionId"`
	} `json:"claims"`
}

func parseHello(data []byte) (*hello, error) {
	var m hello
	if err := json.Unmarshal(data, &m); err != nil || m.Type != "hello" {
		return nil, errors.New("the first message was not a hello")
	}
	if m.Profile.ID == "" || len(m.Profile.ID) > 64 {
		return nil, errors.New("the hello names no profile id")
	}
	if m.Profile.Name == "" {
		m.Profile.Name = "Chrome profile"
	}
	if len(m.Profile.Name) > 200 {
		m.Profile.Name = m.Profile.Name[:200]
	}
	return &m, nil
}

// socket is one WebSocket from the extension.
type socket struct {
	conn    *websocket.Conn
	ctx     context.Context
	writeMu sync.Mutex
}

func (s *socket) write(data []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	return s.conn.Write(ctx, websocket.MessageText, data)
}

var pingMsg = []byte(`{"type":"ping"}`)

// heartbeat pings the extension; the traffic also keeps its service worker
// from being stopped as idle.
func (s *socket) heartbeat(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if s.write(pingMsg) != nil {
				return
			}
		case <-s.ctx.Done():
			return
		}
	}
}

// readLoop relays the extension's messages to the profile until the
// connection ends or stays silent longer than silence.
func (s *socket) readLoop(p *Profile, silence time.Duration) error {
	for {
		ctx, cancel := context.WithTimeout(s.ctx, silence)
		_, data, err := s.conn.Read(ctx)
		cancel()
		if err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				s.conn.Close(websocket.StatusPolicyViolation, "no heartbeat")
				return fmt.Errorf("silent for %v", silence)
			}
			s.conn.CloseNow()
			return err
		}
		if isControl(data) {
			p.control(data)
			continue
		}
		p.fromExtension(data)
	}
}

// isControl tells the extension's own messages, whose first key is "type",
// from relayed CDP without decoding a possibly huge CDP message.
func isControl(data []byte) bool { return bytes.HasPrefix(data, []byte(`{"type":`)) }

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
// engine's connection passes on as it is (cdp.RelayErrorPrefix).
func refusalReply(id int64, sid string, e *errs.Error) []byte {
	coded, _ := json.Marshal(e)
	out := map[string]any{"id": id, "error": map[string]any{"code": -32000, "message": e.Message, "data": cdp.RelayErrorPrefix + string(coded)}}
	if sid != "" {
		out["sessionId"] = sid
	}
	data, _ := json.Marshal(out)
	return data
}

// withID returns the message with its id replaced; both the engine and the
// extension write "id" first.
func withID(data []byte, id int64) []byte {
	rest, ok := bytes.CutPrefix(data, []byte(`{"id":`))
	if ok {
		if end := bytes.IndexAny(rest, ",}"); end > 0 {
			return bytes.Join([][]byte{[]byte(`{"id":`), strconv.AppendInt(nil, id, 10), rest[end:]}, nil)
		}
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return data
	}
	m["id"], _ = json.Marshal(id)
	out, _ := json.Marshal(m)
	return out
}

// eventHead reads the method and session id of an event the extension
// wrote as {"method":…,"sessionId":…,"params":…} (session optional).
func eventHead(data []byte) (method, sid string, ok bool) {
	rest, found := bytes.CutPrefix(data, []byte(`{"method":"`))
	if !found {
		return "", "", false
	}
	q := bytes.IndexByte(rest, '"')
	if q < 0 {
		return "", "", false
	}
	method, rest = string(rest[:q]), rest[q+1:]
	if s, found := bytes.CutPrefix(rest, []byte(`,"sessionId":"`)); found {
		q := bytes.IndexByte(s, '"')
		if q < 0 {
			return "", "", false
		}
		return method, string(s[:q]), true
	}
	if !bytes.HasPrefix(rest, []byte(`,"params":`)) && !bytes.HasPrefix(rest, []byte(`}`)) {
		return "", "", false
	}
	return method, "", true
}

// commandID reads the id and session id of a command the engine wrote. The
// engine writes "id" first and "sessionId" second, so this never scans a
// big params object; anything else is decoded in full.
func commandID(data []byte) (int64, string) {
	rest, ok := bytes.CutPrefix(data, []byte(`{"id":`))
	if !ok {
		return decodeIDs(data)
	}
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return decodeIDs(data)
	}
	id, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	if err != nil {
		return decodeIDs(data)
	}
	rest = rest[end:]
	if s, ok := bytes.CutPrefix(rest, []byte(`,"sessionId":"`)); ok {
		if q := bytes.IndexByte(s, '"'); q >= 0 {
			return id, string(s[:q])
		}
		return decodeIDs(data)
	}
	return id, ""
}

// replyID reads the id of a reply from the extension, which writes "id"
// first; events carry none.
func replyID(data []byte) (int64, string) {
	if !bytes.HasPrefix(data, []byte(`{"id":`)) {
		return 0, ""
	}
	return commandID(data)
}

func decodeIDs(data []byte) (int64, string) {
	var m struct {
		ID        int64  `json:"id"`
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(data, &m)
	return m.ID, m.SessionID
}
