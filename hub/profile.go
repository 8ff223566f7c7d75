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
	Product   string `json:"product"`
	Booted    int64  `json:"booted"` // when the service worker started, ms since the epoch
	UserAgent string `json:"userAgent"`
	Claims    []struct {
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
type Profile struct {
	h  *Hub
	id string

	mu      sync.Mutex
	name    string
	product string
	booted  int64
	sock    *socket
	link    *link
	away    *time.Timer // fails the link when the extension stays away
	elide   *elider
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

// Connected tells whether the extension is connected now.
func (p *Profile) Connected() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sock != nil
}

func (p *Profile) plug(s *socket, m *hello) {
	p.mu.Lock()
	old := p.sock
	p.sock, p.name, p.product, p.booted = s, m.Profile.Name, m.Product, m.Booted
	if p.elide == nil {
		p.elide = newElider()
	}
	if p.away != nil {
		p.away.Stop()
		p.away = nil
	}
	p.mu.Unlock()
	if old != nil {
		old.conn.Close(websocket.StatusPolicyViolation, "replaced by a newer connection of the same profile")
	}
}

func (p *Profile) unplug(s *socket, why error) {
	p.mu.Lock()
	if p.sock != s {
		p.mu.Unlock()
		return // replaced already
	}
	p.sock = nil
	l := p.link
	if l != nil {
		grace := p.h.opt.Grace
		p.away = time.AfterFunc(grace, func() {
			l.fail(fmt.Errorf("the extension of browser profile %q stayed away for %v: %v", p.Name(), grace, why))
		})
	}
	p.mu.Unlock()
	if l != nil {
		l.abandon("the extension disconnected before answering (" + why.Error() + ")")
	}
}

func (p *Profile) shutdown(why error) {
	p.mu.Lock()
	s, l := p.sock, p.link
	p.sock = nil
	p.mu.Unlock()
	if s != nil {
		s.conn.Close(websocket.StatusGoingAway, "hub stopping")
	}
	if l != nil {
		l.fail(why)
	}
}

func (p *Profile) control(data []byte) {
	var m struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if json.Unmarshal(data, &m) != nil {
		return
	}
	if m.Type == "name" && m.Name != "" {
		p.mu.Lock()
		p.name = m.Name
		p.mu.Unlock()
	}
	// pong and keepalive only prove the extension is alive, which reading
	// them already did.
}

func (p *Profile) fromExtension(data []byte) {
	p.mu.Lock()
	l := p.link
	p.mu.Unlock()
	if l != nil {
		l.deliver(data)
	}
}

// Open returns the profile's CDP transport. There is one at a time: it
// lives until it is closed, or until the extension stays away longer than
// the grace period.
func (p *Profile) Open() (cdp.Transport, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sock == nil {
		return nil, errs.New(errs.BrowserUnavailable, "the extension of browser profile %q is not connected", p.name).
			WithHint("open that browser; the extension reconnects within 30 s of its start")
	}
	if p.link != nil && p.link.err() == nil {
		return nil, errs.New(errs.BrowserUnavailable, "browser profile %q is already in use by this hub", p.name)
	}
	l := &link{p: p, in: make(chan []byte, 256), done: make(chan struct{}), outstanding: map[int64]string{}}
	p.link = l
	return l, nil
}

// link is the cdp.Transport of one profile.
type link struct {
	p    *Profile
	in   chan []byte
	done chan struct{}

	mu          sync.Mutex
	why         error
	outstanding map[int64]string // command id -> its session id, until answered
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
// is away the command is answered at once with an error.
func (l *link) WriteMessage(data []byte) error {
	if err := l.err(); err != nil {
		return err
	}
	id, sid := commandID(data)
	l.p.mu.Lock()
	s := l.p.sock
	name := l.p.name
	l.p.mu.Unlock()
	if s == nil {
		if id != 0 {
			l.push(errorReply(id, sid, fmt.Sprintf("the extension of browser profile %q is reconnecting; retry in a few seconds", name)))
		}
		return nil
	}
	if id != 0 {
		l.mu.Lock()
		l.outstanding[id] = sid
		l.mu.Unlock()
	}
	if err := s.write(l.p.elide.command(id, sid, data)); err != nil {
		// the socket is going; its reader unplugs it and answers what was in flight
		return nil
	}
	return nil
}

// Close ends the transport; the extension connection stays.
func (l *link) Close() error {
	l.fail(errors.New("transport closed"))
	return nil
}

func (l *link) fail(why error) {
	l.mu.Lock()
	if l.why != nil {
		l.mu.Unlock()
		return
	}
	l.why = why
	l.mu.Unlock()
	close(l.done)
	l.p.mu.Lock()
	var s *socket
	if l.p.link == l {
		l.p.link = nil
		s = l.p.sock
		if l.p.away != nil {
			l.p.away.Stop()
			l.p.away = nil
		}
	}
	l.p.mu.Unlock()
	if s != nil {
		s.write(releaseAllMsg) // no engine connection is left to hold claims
	}
}

// releaseAllMsg makes the extension detach from every tab it attached.
var releaseAllMsg = []byte(`{"type":"release_all"}`)

// deliver passes a message from the extension to the engine.
func (l *link) deliver(data []byte) {
	if id, sid := replyID(data); id != 0 {
		if full := l.p.elide.reply(id, data); full != nil {
			// the world lacked the installers and the call did not run:
			// send the full program under the same id
			l.p.mu.Lock()
			s := l.p.sock
			l.p.mu.Unlock()
			if s != nil && s.write(full) == nil {
				return
			}
			data = errorReply(id, sid, "the extension went away while the command was sent again")
		}
		l.mu.Lock()
		delete(l.outstanding, id)
		l.mu.Unlock()
	}
	l.push(data)
}

func (l *link) push(data []byte) {
	select {
	case l.in <- data:
	case <-l.done:
	}
}

// abandon answers every command in flight with an error: the extension
// that received them is gone and will not answer.
func (l *link) abandon(why string) {
	l.mu.Lock()
	pending := l.outstanding
	l.outstanding = map[int64]string{}
	l.mu.Unlock()
	for id, sid := range pending {
		l.p.elide.forget(id)
		l.push(errorReply(id, sid, why))
	}
}

func errorReply(id int64, sid, msg string) []byte {
	out := map[string]any{"id": id, "error": map[string]any{"code": -32000, "message": msg}}
	if sid != "" {
		out["sessionId"] = sid
	}
	data, _ := json.Marshal(out)
	return data
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

func (p *Profile) hasLink() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.link != nil
}
