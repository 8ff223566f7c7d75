// Package cdp carries Chrome DevTools Protocol messages over a transport
// (WebSocket, --remote-debugging-pipe, or the extension relay) and implements
// the Session interface of github.com/chromedp/cdproto/cdp, so every typed
// command and event of cdproto runs over it.
//
// One Conn multiplexes flattened target sessions. When the transport fails,
// every pending call and every later call fails at once with
// browser_unavailable, and every session's Done channel closes.
package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/timing"
)

// maxGone bounds how many detached session ids are remembered.
const maxGone = 1024

// DefaultCallTimeout bounds a call whose context has no deadline, so that a
// browser that stops answering never hangs a caller.
const DefaultCallTimeout = 30 * time.Second

// Transport moves whole CDP messages. ReadMessage blocks until a message
// arrives or the transport fails; it is called from one goroutine only.
type Transport interface {
	ReadMessage() ([]byte, error)
	WriteMessage([]byte) error
	Close() error
}

// Conn is one DevTools connection to a browser.
type Conn struct {
	t         Transport
	closeOnce sync.Once
	closeErr  error // what closing the transport said
	writeMu   sync.Mutex

	mu       sync.Mutex
	nextID   int64
	pending  map[int64]*pendingCall
	sessions map[target.SessionID]*Session
	gone     map[target.SessionID]bool // detached sessions, so a late lookup gets a closed one
	err      error                     // set once, when the connection dies

	done       chan struct{}
	roundTrips atomic.Int64
	browser    *Session
}

type pendingCall struct {
	session target.SessionID
	method  string
	ch      chan reply
}

type reply struct {
	result jsonv2.Value
	err    error
}

type outgoing struct {
	ID        int64            `json:"id"`
	SessionID target.SessionID `json:"sessionId,omitempty"`
	Method    string           `json:"method"`
	Params    jsonv2.Value     `json:"params,omitempty"`
}

type incoming struct {
	ID        int64            `json:"id,omitzero"`
	SessionID target.SessionID `json:"sessionId,omitzero"`
	Method    string           `json:"method,omitzero"`
	Params    jsonv2.Value     `json:"params,omitzero"`
	Result    jsonv2.Value     `json:"result,omitzero"`
	Error     *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
		Data    string `json:"data,omitzero"`
	} `json:"error,omitzero"`
}

// New starts reading from t and returns the connection.
func New(t Transport) *Conn {
	c := &Conn{
		t:        t,
		pending:  make(map[int64]*pendingCall),
		sessions: make(map[target.SessionID]*Session),
		gone:     make(map[target.SessionID]bool),
		done:     make(chan struct{}),
	}
	c.browser = c.newSession("")
	go c.readLoop()
	return c
}

// Browser returns the browser-level session.
func (c *Conn) Browser() *Session { return c.browser }

// Done closes when the connection has died or was closed.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err says why the connection died, or nil while it lives.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// RoundTrips counts the commands sent on this connection, for measuring.
func (c *Conn) RoundTrips() int64 { return c.roundTrips.Load() }

// Close closes the transport; pending calls fail with browser_unavailable.
// The connection is marked closed before the transport closes: what the
// browser says as it goes (a session's detach) must not fail a call with
// another reason first.
func (c *Conn) Close() error {
	c.fail(errors.New("connection closed"))
	return c.closeTransport()
}

// closeTransport closes the transport once and says how that went.
func (c *Conn) closeTransport() error {
	c.closeOnce.Do(func() { c.closeErr = c.t.Close() })
	return c.closeErr
}

// Attach attaches to a target with a flattened session.
func (c *Conn) Attach(ctx context.Context, id target.ID) (*Session, error) {
	res, err := cdproto.Call(ctx, c.browser, target.AttachToTarget, target.AttachToTargetParams{TargetID: id, Flatten: ptr(true)})
	if err != nil {
		return nil, err
	}
	s := c.session(res.SessionID)
	select {
	case <-s.Done():
		return nil, errs.New(errs.TabNotFound, "target %s went away while we attached", id)
	default:
		return s, nil
	}
}

// SessionByID returns the flattened session with the id (one the browser
// attached on its own, e.g. an out-of-process iframe).
func (c *Conn) SessionByID(id target.SessionID) *Session { return c.session(id) }

// Session returns the session with the id, creating its record if the
// attach event has not been seen yet.
func (c *Conn) session(id target.SessionID) *Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.sessions[id]; ok {
		return s
	}
	s := &Session{c: c, id: id, subs: map[string][]*subscription{}, done: make(chan struct{})}
	if c.err != nil || c.gone[id] {
		s.close()
	} else {
		c.sessions[id] = s
	}
	return s
}

func (c *Conn) newSession(id target.SessionID) *Session { return c.session(id) }

func (c *Conn) readLoop() {
	for {
		data, err := c.t.ReadMessage()
		if err != nil {
			c.fail(err)
			return
		}
		var msg incoming
		if err := jsonv2.Unmarshal(data, &msg); err != nil {
			continue // a message we cannot parse belongs to no caller
		}
		if msg.Method == "" {
			c.resolve(&msg)
			continue
		}
		c.dispatch(&msg)
	}
}

func (c *Conn) resolve(msg *incoming) {
	c.mu.Lock()
	p := c.pending[msg.ID]
	delete(c.pending, msg.ID)
	c.mu.Unlock()
	if p == nil {
		return // its caller gave up
	}
	r := reply{result: msg.Result}
	if msg.Error != nil {
		if e := relayError(msg.Error.Data); e != nil {
			r.err = e
			p.ch <- r
			return
		}
		text := msg.Error.Message
		if msg.Error.Data != "" {
			text += ": " + msg.Error.Data
		}
		r.err = errs.Wrap(errs.ProtocolError, &ProtocolError{Code: msg.Error.Code, Message: text}, "the browser refused "+p.method)
	}
	p.ch <- r
}

func (c *Conn) dispatch(msg *incoming) {
	switch msg.Method {
	case "Target.attachedToTarget":
		var ev target.EventAttachedToTarget
		if jsonv2.Unmarshal(msg.Params, &ev) == nil {
			c.session(ev.SessionID)
		}
	case "Target.detachedFromTarget":
		var ev target.EventDetachedFromTarget
		if jsonv2.Unmarshal(msg.Params, &ev) == nil {
			defer c.dropSession(ev.SessionID, errors.New("target detached"))
		}
	}
	c.mu.Lock()
	s := c.sessions[msg.SessionID]
	c.mu.Unlock()
	if s != nil {
		s.deliver(msg.Method, msg.Params)
	}
}

func (c *Conn) dropSession(id target.SessionID, why error) {
	c.mu.Lock()
	s := c.sessions[id]
	delete(c.sessions, id)
	if len(c.gone) >= maxGone {
		clear(c.gone) // only late lookups of long-gone sessions rely on it
	}
	c.gone[id] = true
	var fail []*pendingCall
	for cid, p := range c.pending {
		if p.session == id {
			fail = append(fail, p)
			delete(c.pending, cid)
		}
	}
	c.mu.Unlock()
	for _, p := range fail {
		p.ch <- reply{err: errs.New(errs.TabNotFound, "the tab went away during the call: %v", why)}
	}
	if s != nil {
		s.close()
	}
}

// fail marks the connection dead and fails everything waiting on it.
func (c *Conn) fail(cause error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = unavailable(cause)
	pending := c.pending
	sessions := c.sessions
	c.pending = map[int64]*pendingCall{}
	c.sessions = map[target.SessionID]*Session{}
	c.mu.Unlock()
	close(c.done)
	for _, p := range pending {
		p.ch <- reply{err: c.err}
	}
	for _, s := range sessions {
		s.close()
	}
	c.closeTransport()
}

func unavailable(cause error) *errs.Error {
	return errs.Wrap(errs.BrowserUnavailable, cause, "the browser connection is gone").
		WithHint("retry: a managed browser is relaunched on the next call; an attached browser must be running again")
}

// send writes one command and returns the function that waits for its
// reply. Commands sent one after another reach the browser in that order,
// so a caller can pipeline several and wait once.
func (c *Conn) send(sid target.SessionID, method string, params any) func(ctx context.Context, result any) error {
	failed := func(err error) func(context.Context, any) error {
		return func(context.Context, any) error { return err }
	}
	out := outgoing{SessionID: sid, Method: method}
	if params != nil {
		raw, err := jsonv2.Marshal(params)
		if err != nil {
			return failed(errs.Wrap(errs.Internal, err, "encoding "+method))
		}
		out.Params = raw
	}
	p := &pendingCall{session: sid, method: method, ch: make(chan reply, 1)}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return failed(err)
	}
	c.nextID++
	out.ID = c.nextID
	c.pending[out.ID] = p
	c.mu.Unlock()

	data, err := jsonv2.Marshal(out)
	if err != nil {
		c.forget(out.ID)
		return failed(errs.Wrap(errs.Internal, err, "encoding "+method))
	}
	c.roundTrips.Add(1)
	sent := time.Now()
	c.writeMu.Lock()
	err = c.t.WriteMessage(data)
	c.writeMu.Unlock()
	if err != nil {
		c.fail(err)
	}

	return func(ctx context.Context, result any) error {
		defer timing.Sent(ctx, method, sent)
		select {
		case r := <-p.ch:
			if r.err != nil {
				return r.err
			}
			if result != nil && len(r.result) > 0 {
				if err := jsonv2.Unmarshal(r.result, result); err != nil {
					return errs.Wrap(errs.ProtocolError, err, "decoding the result of "+method)
				}
			}
			return nil
		case <-ctx.Done():
			c.forget(out.ID)
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return errs.New(errs.Timeout, "the browser did not answer %s before %s ran out", method, deadline.Name(ctx)).
					WithHint("raise timeout_ms, or check that the page is not stuck in a dialog or an endless script")
			}
			return errs.New(errs.Cancelled, "the call %s was cancelled before the browser answered", method)
		}
	}
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// RelayErrorPrefix starts the data of an error that the attach relay (the
// hub or the extension, not the browser) answered with one of our coded
// errors: the rest is the JSON of an errs.Error, which the caller gets as is.
const RelayErrorPrefix = "tabwright-error:"

func relayError(data string) *errs.Error {
	raw, ok := strings.CutPrefix(data, RelayErrorPrefix)
	if !ok {
		return nil
	}
	var e errs.Error
	if json.Unmarshal([]byte(raw), &e) != nil || e.Code == "" || e.Message == "" {
		return nil
	}
	return &e
}

// ProtocolError is an error the browser returned for a command.
type ProtocolError struct {
	Code    int64
	Message string
}

func (e *ProtocolError) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

func ptr[T any](v T) *T { return &v }
