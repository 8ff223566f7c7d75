package tabs

import (
	"sync/atomic"
	"time"

	"github.com/tabwright/tabwright/engine/cdp"
)

// idleState is what Options.IdleTimeout needs of a profile: when a call
// last used it, and which connection generation was closed for want of
// use (so that the claims it ends say so).
type idleState struct {
	lastUse    atomic.Int64 // unix nanoseconds
	inflight   atomic.Int32 // manager calls (open, claim, list) running
	closedGen  atomic.Int64
	everClosed atomic.Bool
}

// touch records a use: a call that needs the browser or one of its tabs.
func (p *profile) touch() { p.idle.lastUse.Store(time.Now().UnixNano()) }

// busy marks a manager call on the browser as running until the returned
// function is called: however long it takes, it is a use.
func (p *profile) busy() func() {
	p.idle.inflight.Add(1)
	p.touch()
	return func() {
		p.touch()
		p.idle.inflight.Add(-1)
	}
}

func (p *profile) sinceUse() time.Duration {
	return time.Since(time.Unix(0, p.idle.lastUse.Load()))
}

// closedIdle reports whether generation gen was closed for want of use.
func (p *profile) closedIdle(gen int) bool {
	return p.idle.everClosed.Load() && p.idle.closedGen.Load() == int64(gen)
}

// watchIdle closes the managed browser of generation gen once nothing has
// used it for IdleTimeout. A browser that sits unused holds hundreds of
// megabytes and a handful of processes for a client that may never call
// again (an MCP client starts a server per conversation).
func (p *profile) watchIdle(conn *cdp.Conn, gen int) {
	idle := p.m.opt.IdleTimeout
	timer := time.NewTimer(idle)
	defer timer.Stop()
	for {
		select {
		case <-conn.Done():
			return
		case <-timer.C:
		}
		if left := idle - p.sinceUse(); left > 0 {
			timer.Reset(left)
			continue
		}
		if p.closeIfIdle(gen) {
			return
		}
		timer.Reset(idle)
	}
}

// closeIfIdle closes generation gen unless a call is starting or using the
// browser right now (it holds the connect lock, or touched it meanwhile).
func (p *profile) closeIfIdle(gen int) bool {
	select {
	case p.lock <- struct{}{}:
	default:
		return false // a call is connecting: in use
	}
	defer func() { <-p.lock }()
	if p.sinceUse() < p.m.opt.IdleTimeout || p.idle.inflight.Load() > 0 {
		return false
	}
	p.mu.Lock()
	managed := p.managed
	if p.gen != gen || managed == nil {
		p.mu.Unlock()
		return true // replaced or gone already
	}
	p.idle.closedGen.Store(int64(gen))
	p.idle.everClosed.Store(true)
	p.conn, p.managed = nil, nil
	p.mu.Unlock()
	managed.Close() // its connection closes, and its claims go with it
	return true
}
