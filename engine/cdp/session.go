package cdp

import (
	"context"
	"sync"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/timing"
)

// Session is one flattened target session (or the browser session, whose id
// is empty). It implements cdproto's Session, so cdproto.Call and
// cdproto.Events work on it.
type Session struct {
	c  *Conn
	id target.SessionID

	mu        sync.Mutex
	subs      map[string][]*subscription
	listeners map[int]func(method string, params jsonv2.Value)
	nextL     int
	closed    bool
	done      chan struct{}
}

var _ cdproto.Session = (*Session)(nil)

// ID returns the session id ("" for the browser session).
func (s *Session) ID() target.SessionID { return s.id }

// Conn returns the connection the session runs on.
func (s *Session) Conn() *Conn { return s.c }

// Done closes when the target detached or the connection died.
func (s *Session) Done() <-chan struct{} { return s.done }

// Call sends a command and decodes its result into result (which may be nil).
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultCallTimeout)
		defer cancel()
	}
	return s.c.send(s.id, method, params)(ctx, result)
}

// Pipeline sends the commands in order without waiting between them, then
// waits for every reply: one round trip's latency for the lot. It returns
// the first error.
func (s *Session) Pipeline(ctx context.Context, cmds ...Command) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultCallTimeout)
		defer cancel()
	}
	waits := make([]func(context.Context, any) error, len(cmds))
	for i, c := range cmds {
		waits[i] = s.c.send(s.id, c.Method, c.Params)
	}
	var first error
	for _, wait := range waits {
		if err := wait(ctx, nil); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Post sends a command whose answer nobody waits for (a release): it costs
// the caller no round trip. A failure shows in no one's result; a dead
// connection fails the next call anyway.
func (s *Session) Post(ctx context.Context, method string, params any) {
	s.c.send(s.id, method, params)
	timing.Sent(ctx, method, time.Now())
}

// Command is one CDP command for Pipeline.
type Command struct {
	Method string
	Params any
}

// Subscribe buffers every event of method from now on. The channel closes
// when cancel is called or the session ends. Delivery never blocks the
// connection: a slow reader only grows its own buffer.
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	sub := &subscription{out: make(chan jsonv2.Value), wake: make(chan struct{}, 1), stop: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		close(sub.out)
		return sub.out, func() {}
	}
	s.subs[method] = append(s.subs[method], sub)
	s.mu.Unlock()
	go sub.pump()
	var once sync.Once
	return sub.out, func() {
		once.Do(func() {
			s.mu.Lock()
			list := s.subs[method]
			for i, x := range list {
				if x == sub {
					s.subs[method] = append(list[:i:i], list[i+1:]...)
					break
				}
			}
			s.mu.Unlock()
			sub.end()
		})
	}
}

// Listen calls fn for every event of the session, in arrival order, on the
// connection's reader goroutine. Because it runs before any later reply is
// delivered, state kept by fn is current when a later call returns. fn must
// be quick and must not call the session.
func (s *Session) Listen(fn func(method string, params jsonv2.Value)) (cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listeners == nil {
		s.listeners = map[int]func(string, jsonv2.Value){}
	}
	s.nextL++
	id := s.nextL
	s.listeners[id] = fn
	return func() {
		s.mu.Lock()
		delete(s.listeners, id)
		s.mu.Unlock()
	}
}

func (s *Session) deliver(method string, params jsonv2.Value) {
	s.mu.Lock()
	subs := s.subs[method]
	fns := make([]func(string, jsonv2.Value), 0, len(s.listeners))
	for _, fn := range s.listeners {
		fns = append(fns, fn)
	}
	s.mu.Unlock()
	for _, fn := range fns {
		fn(method, params)
	}
	for _, sub := range subs {
		sub.push(params)
	}
}

func (s *Session) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	all := s.subs
	s.subs = nil
	s.mu.Unlock()
	close(s.done)
	for _, list := range all {
		for _, sub := range list {
			sub.end()
		}
	}
}

// subscription is an unbounded queue in front of an unbuffered channel.
type subscription struct {
	mu    sync.Mutex
	queue []jsonv2.Value
	ended bool
	out   chan jsonv2.Value
	wake  chan struct{}
	stop  chan struct{}
	once  sync.Once
}

func (q *subscription) push(v jsonv2.Value) {
	q.mu.Lock()
	if !q.ended {
		q.queue = append(q.queue, v)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *subscription) end() {
	q.once.Do(func() {
		q.mu.Lock()
		q.ended = true
		q.mu.Unlock()
		close(q.stop)
	})
}

func (q *subscription) pump() {
	defer close(q.out)
	for {
		q.mu.Lock()
		if len(q.queue) == 0 {
			q.mu.Unlock()
			select {
			case <-q.wake:
				continue
			case <-q.stop:
				return
			}
		}
		v := q.queue[0]
		q.queue[0] = nil
		q.queue = q.queue[1:]
		q.mu.Unlock()
		select {
		case q.out <- v:
		case <-q.stop:
			return
		}
	}
}
