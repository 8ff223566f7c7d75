package docs

import (
	"context"
	"sync"
	"testing"
)

// Warm readies the reader while the harness makes the sandbox: the tab is
// open before the first read, and a read at the same moment as Warm's
// robots.txt prefetch waits for that one request instead of asking again.
// --offline warms nothing (it reads nothing).
func TestWarmOpensTheTabAndReadsRobotsOnce(t *testing.T) {
	c, srv := newCounting(t)
	d := &Reader{Manager: mgr}
	var wg sync.WaitGroup
	wg.Add(2)
	var r *Read
	go func() { defer wg.Done(); d.Warm(context.Background(), []string{srv.URL + "/private/ok"}) }()
	go func() { defer wg.Done(); r = d.Get(context.Background(), srv.URL+"/private/ok", allow) }()
	wg.Wait()
	if r.Err != "" || r.Blocked != "" || c.count("/robots.txt") != 1 {
		t.Fatalf("read %+v, robots.txt asked %d times", r, c.count("/robots.txt"))
	}
	d.mu.Lock()
	open := d.tab != nil
	d.mu.Unlock()
	if !open {
		t.Error("Warm left no tab")
	}

	off := &Reader{Manager: mgr, Offline: true}
	_, other := newCounting(t)
	off.Warm(context.Background(), []string{other.URL + "/page"})
	if off.tab != nil || len(off.polite.robots) != 0 {
		t.Errorf("offline warmed: tab %v, robots %v", off.tab, off.polite.robots)
	}
}
