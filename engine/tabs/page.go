package tabs

import (
	"context"
	"time"

	"github.com/tabwright/tabwright/engine/cdp"
)

// Session returns the tab's CDP session, for the engine packages that act
// on the page (locate, act). The MCP layer never uses it.
func (t *Tab) Session() *cdp.Session { return t.sess }

// URL returns the main frame's URL as the tab's events last reported it.
func (t *Tab) URL() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.page.url
}

// WaitNetworkIdle waits until no request has been in flight for idle.
func (t *Tab) WaitNetworkIdle(ctx context.Context, idle time.Duration) error {
	for {
		t.mu.Lock()
		busy := len(t.page.inflight)
		quietFor := time.Since(t.page.netChanged)
		changed := t.changed
		t.mu.Unlock()
		wait := idle - quietFor
		if busy == 0 && wait <= 0 {
			return nil
		}
		if busy > 0 {
			wait = idle
		}
		timer := time.NewTimer(wait)
		select {
		case <-changed:
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-t.sess.Done():
			timer.Stop()
			return t.sessionGone()
		}
		timer.Stop()
	}
}

// InFlight counts the network requests not finished yet.
func (t *Tab) InFlight() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.page.inflight)
}
