// Package docs is read_docs: a documentation page rendered in the engine's
// browser and returned as reader-view Markdown with links kept, limited to
// the task's documentation hosts: the page, its redirects and everything
// the browser fetches for it (gate.go).
package docs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/quickstart/egress"
	"github.com/tabwright/tabwright/quickstart/sandbox"
)

// BlockReason is why read_docs refused a page (Read.Blocked): one closed
// set, written as it is into the trace and results.
type BlockReason string

const (
	// BlockedOffAllowlist: the page's host is not on the task's docs
	// allowlist.
	BlockedOffAllowlist BlockReason = "outside_allowlist"
	// BlockedAffordance: a machine-facing file withheld by --affordances none.
	BlockedAffordance BlockReason = "affordance_withheld"
	// BlockedRobots: the site's robots.txt disallows the page.
	BlockedRobots BlockReason = "robots_disallowed"
	// BlockedRedirect: a redirect (or the page the browser ended on) left
	// the allowlist.
	BlockedRedirect BlockReason = "redirect_outside_allowlist"
	// OfflineCacheMiss: --offline found no copy of the page.
	OfflineCacheMiss BlockReason = "offline_cache_miss"
)

// DefaultMaxChars is the page cap: longer pages keep their head and tail.
const DefaultMaxChars = 60000

// browserOptions are the options of a Reader's browser: the reader opens
// one tab, so the tab the browser starts with is the only spare it keeps.
// Its profile is made in memory when there is room (see memoryProfileDir),
// its HTTP cache bounded to match.
func browserOptions() tabs.Options {
	opt := tabs.Options{SingleSpare: true}
	if dir := memoryProfileDir(); dir != "" {
		opt.Launch = launch.Options{ProfileIn: dir, Args: []string{fmt.Sprintf("--disk-cache-size=%d", profileCacheBytes)}}
	}
	return opt
}

// Where a docs browser's profile goes when it can be in memory: Chromium
// creates a dozen databases in a new profile as it starts, and a disk
// syncs each. In memory its first tab was ready 10 to 28 ms sooner (medians
// of 9, three interleaved rounds, 2-core machine), most of the way to a
// process's first docs read. Only with memoryProfileRoom free, so a small
// /dev/shm (a container's 64 MiB) keeps the profile on disk.
const (
	memoryProfileRoom = 512 << 20
	profileCacheBytes = 32 << 20
)

var memoryDir = "/dev/shm" // a variable for tests

// Reader reads pages for one harness process; its tab is reused and reads
// are serialised through it.
type Reader struct {
	Browser  *Browser      // NewBrowser; a reader with none refuses to render
	MaxChars int           // 0: DefaultMaxChars
	Timeout  time.Duration // per read; 0: 30 s

	// Cache, when set, serves pages read before (qs run --cache-dir);
	// Refresh reads them again and says when one changed; Offline reads
	// only the cache (a miss is refused as offline_cache_miss).
	Cache            *Cache
	Refresh, Offline bool
	// RateLimit is the least time between two reads of one host (loopback
	// hosts excepted); 0: none.
	RateLimit time.Duration
	// IgnoreRobots reads pages the site's robots.txt disallows.
	IgnoreRobots bool
	// Affordances is AffordancesAll (or "") or AffordancesNone, which
	// withholds llms.txt, llms-full.txt and *.md without a request.
	Affordances string

	// OnStage, when set, is told when the reader's tab is open in a
	// started browser (StageBrowserReady) and when a page is rendered
	// (StageRendered): the harness's timeline, which benchmarks read.
	OnStage func(stage string)

	mu     sync.Mutex
	tab    *tabs.Tab
	polite polite

	aheadMu sync.Mutex
	ahead   *aheadRead // the entry page Warm reads before it is asked for
}

// aheadRead is one page read by Warm for the read that will ask for it:
// r is set when done closes.
type aheadRead struct {
	url   string
	allow []string
	done  chan struct{}
	r     *Read
}

// The stages OnStage is told of.
const (
	StageBrowserReady = "browser_ready"
	StageRendered     = "rendered"
)

func (d *Reader) stage(name string) {
	if d.OnStage != nil {
		d.OnStage(name)
	}
}

// Read is the outcome of one read_docs call: a page (Text set), a refusal
// (Blocked set) or an error (Err set).
type Read struct {
	URL           string      `json:"url"`
	ResolvedTo    string      `json:"resolved_to,omitempty"`
	Redirects     []string    `json:"redirects,omitempty"`
	Status        int         `json:"status,omitempty"`
	Text          string      `json:"-"`
	Chars         int         `json:"chars"`
	OriginalChars int         `json:"original_chars"`
	Truncated     bool        `json:"truncated"`
	ContentHash   string      `json:"content_hash,omitempty"`
	Rendered      bool        `json:"rendered"` // through the browser (HTML), or passed through (text, Markdown)
	Blocked       BlockReason `json:"blocked,omitempty"`
	Err           string      `json:"error,omitempty"`
	FromCache     bool        `json:"from_cache"`
	// Requests are what the browser asked for while it rendered the page,
	// allowed or refused (the trace keeps them; result.json the count of
	// refusals); RequestsLeftOut counts those past maxRequests.
	Requests        []Request `json:"-"`
	RequestsLeftOut int       `json:"-"`
	RefusedRequests int       `json:"refused_requests,omitempty"`
	// Reached are the hosts the read reached (the page's, and the browser's
	// allowed requests'): a cached copy serves only an allowlist that has
	// all of them.
	Reached    []string `json:"-"`
	Changed    bool     `json:"changed,omitempty"`     // --refresh read other text than the cache held
	CacheError string   `json:"cache_error,omitempty"` // the read stands, but the cache did not keep it
}

// ToolText is what the agent gets back.
func (r *Read) ToolText(allow []string) string {
	switch {
	case r.Blocked == BlockedAffordance:
		return fmt.Sprintf("NOT AVAILABLE: %s could not be retrieved. Use the regular documentation pages.", r.URL)
	case r.Blocked == BlockedOffAllowlist:
		return fmt.Sprintf("BLOCKED: %s is outside this task's documentation allowlist (%s). Only the target project's docs may be read.", r.URL, strings.Join(allow, ", "))
	case r.Blocked != "":
		return fmt.Sprintf("BLOCKED: %s (%s)", r.URL, r.Blocked)
	case r.Err != "":
		return fmt.Sprintf("READ ERROR for %s: %s", r.URL, r.Err)
	}
	return r.Text
}

type blockedErr struct {
	reason BlockReason
	at     string
}

func (e *blockedErr) Error() string { return string(e.reason) + ": " + e.at }

// fail records why r could not be read: a refusal (a hop off the
// allowlist) or any other error.
func (r *Read) fail(err error) *Read {
	var be *blockedErr
	if errors.As(err, &be) {
		r.Blocked, r.ResolvedTo = be.reason, be.at
	} else {
		r.Err = err.Error()
	}
	return r
}

// Get reads rawURL for a task whose docs hosts are allow. The URL, every
// redirect hop and the page the browser ends on must all be on allow. In
// order: the allowlist, the affordance policy, the cache (and --offline),
// robots.txt, the host's rate limit, then the read, which the cache keeps.
func (d *Reader) Get(ctx context.Context, rawURL string, allow []string) *Read {
	if r := d.takeAhead(ctx, rawURL, allow); r != nil {
		return r
	}
	return d.get(ctx, rawURL, allow)
}

// takeAhead hands out Warm's read of rawURL once, waiting for it if it is
// under way; nil when Warm read another page (or under another allowlist)
// or its read failed (a failure may be passing, so the caller reads again).
func (d *Reader) takeAhead(ctx context.Context, rawURL string, allow []string) *Read {
	d.aheadMu.Lock()
	a := d.ahead
	if a == nil || a.url != rawURL || !slices.Equal(a.allow, allow) {
		d.aheadMu.Unlock()
		return nil
	}
	d.ahead = nil
	d.aheadMu.Unlock()
	select {
	case <-a.done:
	case <-ctx.Done():
		return nil
	}
	if a.r.Err != "" {
		return nil
	}
	return a.r
}

func (d *Reader) get(ctx context.Context, rawURL string, allow []string) *Read {
	r := &Read{URL: rawURL}
	if !egress.URLHostMatches(rawURL, allow) {
		r.Blocked = BlockedOffAllowlist
		return r
	}
	if d.Affordances == AffordancesNone && IsAffordanceURL(rawURL) {
		r.Blocked = BlockedAffordance
		return r
	}
	var before *Read
	if d.Cache != nil {
		before = d.Cache.get(rawURL, allow)
		if before != nil && !d.Refresh {
			return before
		}
	}
	if d.Offline {
		r.Blocked = OfflineCacheMiss
		return r
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	if !d.IgnoreRobots && !d.robotsAllow(ctx, u) {
		r.Blocked = BlockedRobots
		return r
	}
	if err := d.wait(ctx, u.Hostname()); err != nil {
		r.Err = err.Error()
		return r
	}
	r = d.fetch(ctx, rawURL, allow)
	if d.Cache != nil && r.Err == "" && r.Blocked == "" {
		r.Changed = before != nil && before.ContentHash != r.ContentHash
		if err := d.Cache.put(r); err != nil {
			r.CacheError = err.Error()
		}
	}
	return r
}

// fetch reads rawURL from the network: the server's answer, its redirects
// checked, then the page rendered when it is HTML.
func (d *Reader) fetch(ctx context.Context, rawURL string, allow []string) *Read {
	r := &Read{URL: rawURL}
	ctx, cancel := context.WithTimeout(ctx, d.timeout())
	defer cancel()

	// The server's answer first, with every redirect hop checked against
	// the allowlist before it is followed.
	client := &http.Client{Transport: direct.Transport, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("more than 10 redirects")
		}
		r.Redirects = append(r.Redirects, req.URL.String())
		if !egress.URLHostMatches(req.URL.String(), allow) {
			return &blockedErr{BlockedRedirect, req.URL.String()}
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	req.Header.Set("User-Agent", UserAgent)
	resp, err := client.Do(req)
	if err != nil {
		return r.fail(err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	resp.Body.Close()
	r.Status = resp.StatusCode
	final := resp.Request.URL.String()
	if resp.StatusCode >= 400 {
		r.Err = fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
		return r
	}
	ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var text string
	if strings.Contains(ctype, "html") || ctype == "" && strings.Contains(strings.ToLower(string(body[:min(len(body), 512)])), "<html") {
		// A client-side redirect stub (meta refresh) is followed here, not
		// left to the browser's timer, and checked like any other hop.
		if target := metaRefresh(body, resp.Request.URL); target != "" && target != final {
			r.Redirects = append(r.Redirects, target)
			if !egress.URLHostMatches(target, allow) {
				r.Blocked, r.ResolvedTo = BlockedRedirect, target
				return r
			}
			final = target
		}
		var seen *window
		text, final, seen, err = d.render(ctx, final, allow)
		r.keep(seen)
		if err != nil {
			return r.fail(err)
		}
		r.Rendered = true
	} else {
		text = strings.ToValidUTF8(string(body), "\uFFFD")
	}
	if final != rawURL {
		r.ResolvedTo = final
	}
	r.Reached = reachedHosts(final, r.Requests)
	max := d.MaxChars
	if max == 0 {
		max = DefaultMaxChars
	}
	r.OriginalChars = utf8.RuneCountInString(text)
	r.Text, r.Truncated = sandbox.Truncate(text, max)
	r.Chars = utf8.RuneCountInString(r.Text)
	r.ContentHash = hashOf(r.Text)
	return r
}

// timeout bounds one read (and Warm's start of the browser).
func (d *Reader) timeout() time.Duration {
	if d.Timeout == 0 {
		return 30 * time.Second
	}
	return d.Timeout
}

func hashOf(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

func runeCount(s string) int { return utf8.RuneCountInString(s) }

// Warm gets the reader ready for an attempt's first read while the harness
// makes the sandbox: the browser started and the reader's tab open, the
// robots.txt of the pages' sites read, and the first page (the task's docs
// entry, allowed by allow) read through Get as the agent's read would be,
// for the first Get of that URL to return. Reads wait for it, so it runs in
// a goroutine; a failure is left to the read that meets it. --offline reads
// nothing, so it warms nothing.
func (d *Reader) Warm(ctx context.Context, pages, allow []string) {
	if d.Offline {
		return
	}
	var a *aheadRead
	if len(pages) > 0 {
		a = &aheadRead{url: pages[0], allow: allow, done: make(chan struct{})}
		d.aheadMu.Lock()
		d.ahead = a
		d.aheadMu.Unlock()
		defer func() {
			a.r = d.get(ctx, a.url, allow)
			close(a.done)
		}()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.prefetchRobots(ctx, pages, allow)
	}()
	d.mu.Lock()
	if d.tab == nil && d.Browser != nil {
		ctx, cancel := context.WithTimeout(ctx, d.timeout())
		if opened, err := d.Browser.Manager.Open(ctx, tabs.OpenOptions{Owner: "qs-docs", URL: "about:blank", Active: true, Claim: true}); err == nil {
			d.tab = opened.Tab
			d.stage(StageBrowserReady)
		}
		cancel()
	}
	d.mu.Unlock()
	<-done
}

// Close closes the reader's tab, so that a browser which outlives the
// reader keeps nothing of it; a later read would open another. A live
// browser closes a tab in milliseconds; closeWait bounds a hung one, so a
// qs run's exit never waits on it for long.
func (d *Reader) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.tab != nil {
		ctx, cancel := context.WithTimeout(context.Background(), closeWait)
		defer cancel()
		d.Browser.Manager.CloseTab(ctx, "qs-docs", d.tab.Handle())
		d.tab = nil
	}
}

const closeWait = 2 * time.Second

// render loads u in the reader's tab, every request of the browser under
// allow (the gate's window, open until the page is read), and returns the
// reader view's Markdown, where the page ended, and what it asked for. A
// client-side redirect to a host off the allowlist is refused.
func (d *Reader) render(ctx context.Context, u string, allow []string) (string, string, *window, error) {
	if d.Browser == nil || d.Browser.gate == nil {
		return "", "", nil, errs.New(errs.BrowserUnavailable, "read_docs has no gated docs browser, so nothing would hold its pages to the allowlist").
			WithHint("make the reader's browser with docs.NewBrowser")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	changed, done, err := d.Browser.gate.open(ctx, allow)
	if err != nil {
		return "", "", nil, err
	}
	nav, err := d.load(ctx, u, changed)
	if err != nil {
		return "", "", done(), err
	}
	if !egress.URLHostMatches(nav.URL, allow) {
		return "", "", done(), &blockedErr{BlockedRedirect, nav.URL}
	}
	obs, err := observe.Capture(ctx, d.tab, observe.Options{Include: []string{"reader"}, MaxChars: observe.LimitMaxChars})
	seen := done()
	if err != nil {
		return "", "", seen, err
	}
	d.stage(StageRendered)
	if obs.Reader == nil || strings.TrimSpace(obs.Reader.Markdown) == "" {
		// No article found: the page's visible text is what a reader sees.
		return obs.TextPreview, nav.URL, seen, nil
	}
	md := obs.Reader.Markdown
	if obs.Reader.Title != "" && !strings.HasPrefix(md, "# ") {
		md = "# " + obs.Reader.Title + "\n\n" + md
	}
	return md, nav.URL, seen, nil
}

// load navigates the reader's tab to u, opening it when there is none.
// When the allowlist changed since the browser's last read, its HTTP cache
// is emptied first: a cached answer is served without a request, so the
// gate would never see it.
func (d *Reader) load(ctx context.Context, u string, allowChanged bool) (*tabs.NavResult, error) {
	m := d.Browser.Manager
	if d.tab == nil && !allowChanged {
		opened, nav, err := m.OpenAndLoad(ctx, tabs.OpenOptions{Owner: "qs-docs", URL: u, Active: true})
		if opened != nil {
			d.tab = opened.Tab
			d.stage(StageBrowserReady)
		}
		if err != nil {
			d.tab = nil // a broken tab is not reused
		}
		return nav, err
	}
	if d.tab == nil {
		opened, err := m.Open(ctx, tabs.OpenOptions{Owner: "qs-docs", URL: "about:blank", Active: true, Claim: true})
		if err != nil {
			return nil, err
		}
		d.tab = opened.Tab
		d.stage(StageBrowserReady)
	}
	if allowChanged {
		if err := d.tab.Session().Call(ctx, "Network.clearBrowserCache", nil, nil); err != nil {
			d.tab = nil
			return nil, errs.Wrap(errs.ProtocolError, err, "read_docs could not empty its browser's cache before a read under another allowlist")
		}
	}
	nav, err := d.tab.Navigate(ctx, tabs.Navigation{URL: u})
	if err != nil {
		d.tab = nil // a broken tab is not reused
	}
	return nav, err
}

// keep takes what the page asked for into the read.
func (r *Read) keep(w *window) {
	if w == nil {
		return
	}
	r.Requests, r.RequestsLeftOut, r.RefusedRequests = w.requests, w.leftOut, w.refused
}

// reachedHosts are the hosts of final and of the allowed requests, sorted.
func reachedHosts(final string, reqs []Request) []string {
	var hosts []string
	if u, err := url.Parse(final); err == nil && u.Hostname() != "" {
		hosts = append(hosts, strings.ToLower(u.Hostname()))
	}
	for _, q := range reqs {
		if q.Allowed && q.Host != "" {
			hosts = append(hosts, strings.ToLower(q.Host))
		}
	}
	slices.Sort(hosts)
	return slices.Compact(hosts)
}

var (
	metaTagRe     = regexp.MustCompile(`(?is)<meta\b[^>]*>`)
	refreshRe     = regexp.MustCompile(`(?i)http-equiv\s*=\s*["']?refresh`)
	refreshContRe = regexp.MustCompile(`(?is)content\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))`)
	refreshURLRe  = regexp.MustCompile(`(?i)^\s*[0-9.]*\s*[;,]?\s*url\s*=\s*['"]?([^'"]+)`)
)

// metaRefresh returns the absolute target of the first meta refresh tag in
// an HTML body, or "".
func metaRefresh(body []byte, base *url.URL) string {
	for _, tag := range metaTagRe.FindAll(body[:min(len(body), 64<<10)], -1) {
		if !refreshRe.Match(tag) {
			continue
		}
		m := refreshContRe.FindSubmatch(tag)
		if m == nil {
			return ""
		}
		content := string(m[1]) + string(m[2]) + string(m[3])
		u := refreshURLRe.FindStringSubmatch(content)
		if u == nil {
			return ""
		}
		ref, err := url.Parse(strings.TrimSpace(u[1]))
		if err != nil {
			return ""
		}
		return base.ResolveReference(ref).String()
	}
	return ""
}
