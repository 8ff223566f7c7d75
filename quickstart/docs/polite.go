package docs

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/tabwright/tabwright/engine/netgate"
)

// UserAgent is what read_docs sends; its product token, "tabwright", is the
// one robots.txt groups are matched against.
const UserAgent = "tabwright-qs (documentation readability testing)"

const robotsToken = "tabwright"

// polite holds a Reader's manners: one request per host per RateLimit, and
// each origin's robots.txt, fetched once.
type polite struct {
	mu     sync.Mutex
	next   map[string]time.Time // host -> the earliest time of its next request
	robots map[string]*robotsEntry
}

// robotsEntry is one origin's robots.txt, read once: done closes when
// rules is set (nil rules: everything allowed).
type robotsEntry struct {
	done  chan struct{}
	rules *Robots
}

// wait reserves host's next slot and sleeps until it. Loopback hosts are
// the reader's own machine and are not throttled.
func (d *Reader) wait(ctx context.Context, host string) error {
	if d.RateLimit <= 0 || netgate.IsLoopback(host) {
		return nil
	}
	d.polite.mu.Lock()
	if d.polite.next == nil {
		d.polite.next = map[string]time.Time{}
	}
	now := time.Now()
	slot := d.polite.next[host]
	if slot.Before(now) {
		slot = now
	}
	d.polite.next[host] = slot.Add(d.RateLimit)
	d.polite.mu.Unlock()
	t := time.NewTimer(time.Until(slot))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the rate limit of %s: %w", host, ctx.Err())
	}
}

// robotsAllow reports whether u's origin's robots.txt lets read_docs fetch
// it. A robots.txt that cannot be read (any failure, any non-2xx answer)
// allows everything.
func (d *Reader) robotsAllow(ctx context.Context, u *url.URL) bool {
	r := d.robotsOf(ctx, u.Scheme+"://"+u.Host)
	pq := u.EscapedPath()
	if pq == "" {
		pq = "/"
	}
	if u.RawQuery != "" {
		pq += "?" + u.RawQuery
	}
	return r.Allowed(pq)
}

// robotsOf is origin's rules, fetched by the first caller; the others
// (a read and Warm's prefetch at once) wait for that one fetch.
func (d *Reader) robotsOf(ctx context.Context, origin string) *Robots {
	d.polite.mu.Lock()
	e, seen := d.polite.robots[origin]
	if !seen {
		if d.polite.robots == nil {
			d.polite.robots = map[string]*robotsEntry{}
		}
		e = &robotsEntry{done: make(chan struct{})}
		d.polite.robots[origin] = e
	}
	d.polite.mu.Unlock()
	if !seen {
		e.rules = d.fetchRobots(ctx, origin)
		if ctx.Err() != nil {
			// Cut short, not answered: a later read asks again.
			d.polite.mu.Lock()
			delete(d.polite.robots, origin)
			d.polite.mu.Unlock()
		}
		close(e.done)
		return e.rules
	}
	select {
	case <-e.done:
		return e.rules
	case <-ctx.Done():
		return nil // the read itself fails on the same context
	}
}

// prefetchRobots reads the robots.txt of each page's origin that a read
// would ask (not for pages the cache will serve, nor with --ignore-robots).
func (d *Reader) prefetchRobots(ctx context.Context, pages, allow []string) {
	if d.IgnoreRobots {
		return
	}
	for _, page := range pages {
		if d.Cache != nil && !d.Refresh && d.Cache.get(page, allow) != nil {
			continue
		}
		if u, err := url.Parse(page); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			d.robotsOf(ctx, u.Scheme+"://"+u.Host)
		}
	}
}

// fetchRobots is not throttled: it is one request per origin, just before
// the page's own.
func (d *Reader) fetchRobots(ctx context.Context, origin string) *Robots {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+"/robots.txt", nil)
	if err != nil {
		return nil
	}
	req.Header.Set("User-Agent", UserAgent)
	resp, err := direct.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 || strings.Contains(resp.Header.Get("Content-Type"), "html") {
		return nil // an HTML page at /robots.txt is a site answering every path, not rules
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxRobots))
	return ParseRobots(string(b), robotsToken)
}
