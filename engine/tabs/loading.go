package tabs

import (
	"context"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/deadline"
)

// Loading says that the tab's main document had not finished loading when
// it was read. Committed false means the navigation had not replaced the
// old document yet: what was read is the page the tab is leaving.
type Loading struct {
	URL       string `json:"url"`
	Committed bool   `json:"committed"`
}

// String says it in words, for text results.
func (l *Loading) String() string {
	if l.Committed {
		return "loading: " + l.URL + " has not finished loading (load not fired yet)"
	}
	return "loading: " + l.URL + " has not committed yet; what was read is the page the tab is leaving"
}

// commitReserve is the share of a call's remaining time AwaitCommit leaves
// for the read or action that follows: at most half, at most 2 s.
const commitReserve = 2 * time.Second

// AwaitCommit waits until a navigation the tab had under way when it was
// claimed commits, so that a tab claimed while loading is read as the page
// it loads rather than the blank one it leaves. The wait ends early enough
// to leave the call time for its own work (commitReserve). It returns nil
// when the main document has loaded, else how far it got.
func (t *Tab) AwaitCommit(ctx context.Context) *Loading {
	wait := deadline.Left(ctx)
	wait -= min(wait/2, commitReserve)
	if wait > 0 {
		wctx, cancel := context.WithTimeout(ctx, wait)
		t.waitFor(wctx, func(p *pageState) bool { return p.pending == "" })
		cancel()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.page.loading()
}

// loading is AwaitCommit's answer (t.mu held). A document counts as
// loading only when we saw it start (its init event): the one a tab shows
// when we attach is taken as it is.
func (p *pageState) loading() *Loading {
	if p.pending != "" {
		return &Loading{URL: p.pending}
	}
	lc := p.lifecycle[p.loader]
	if lc["init"] && !lc["load"] {
		return &Loading{URL: p.url, Committed: true}
	}
	return nil
}

// notePending records, right after attaching, a navigation that was under
// way before we attached: the tab's target already names the URL it loads
// while its main frame still holds the old document. commits is the count
// of main-frame commits before the two were read; a commit since then means
// nothing is pending any more.
func (t *Tab) notePending(ctx context.Context, commits int) error {
	var info *target.Info
	var frameURL string
	err := parallel(
		func() error {
			res, err := cdproto.Call(ctx, t.sess.Conn().Browser(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: t.TargetID})
			info = res.TargetInfo
			return err
		},
		func() error {
			res, err := cdproto.Call(ctx, t.sess, page.GetFrameTree, cdproto.Empty{})
			if err == nil && res.FrameTree != nil && res.FrameTree.Frame != nil {
				frameURL = res.FrameTree.Frame.URL + res.FrameTree.Frame.URLFragment
			}
			return err
		},
	)
	if err != nil || info == nil {
		return err
	}
	if frameURL == "" {
		frameURL = "about:blank" // a new tab's initial empty document
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.page.url == "" {
		t.page.url = frameURL
	}
	if info.URL != "" && info.URL != frameURL && t.page.commits == commits {
		t.page.pending = info.URL
	}
	return nil
}

// onStoppedLoading ends a pending navigation that stopped without
// committing (a download, a 204, a stop).
func (p *pageState) onStoppedLoading(params jsonv2.Value, mainFrame cdproto.FrameID) bool {
	var ev page.EventFrameStoppedLoading
	if jsonv2.Unmarshal(params, &ev) != nil || ev.FrameID != mainFrame || p.pending == "" {
		return false
	}
	p.pending = ""
	return true
}
