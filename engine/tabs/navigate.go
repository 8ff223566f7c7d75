package tabs

import (
	"context"
	"errors"
	"fmt"
	"sort"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/errs"
)

// Load states a navigation can wait for; the values are the names agents use.
const (
	WaitLoad             = "load"
	WaitDOMContentLoaded = "domcontentloaded"
	WaitNetworkIdle      = "network_idle"
)

// lifecycleName maps a load state to Chromium's lifecycle event name.
// networkIdle fires after 500 ms with no network connections.
var lifecycleName = map[string]string{
	WaitLoad:             "load",
	WaitDOMContentLoaded: "DOMContentLoaded",
	WaitNetworkIdle:      "networkIdle",
}

// History moves.
const (
	HistoryBack    = "back"
	HistoryForward = "forward"
	HistoryReload  = "reload"
)

// Navigation is one navigation request: URL or History, not both.
type Navigation struct {
	URL       string
	History   string
	WaitUntil string // default load
}

// NavResult is where a navigation ended.
type NavResult struct {
	URL    string `json:"url"`
	Title  string `json:"title"`
	Status int64  `json:"status,omitempty"` // HTTP status of the main document, when one was fetched
}

// Navigate loads a URL or moves in history and waits for the load state.
// The caller bounds it with ctx.
func (t *Tab) Navigate(ctx context.Context, nav Navigation) (*NavResult, error) {
	defer t.refillDue()
	if nav.WaitUntil == "" {
		nav.WaitUntil = WaitLoad
	}
	event, ok := lifecycleName[nav.WaitUntil]
	if !ok {
		return nil, errs.Input("wait_until", "must be one of load, domcontentloaded, network_idle; got %q", nav.WaitUntil)
	}

	t.mu.Lock()
	mark := navMark{t.page.loader, t.page.sameDocNavs, t.page.restores}
	t.page.pending = "" // ours replaces any navigation under way
	t.mu.Unlock()
	var loader cdproto.LoaderID
	var err error
	switch {
	case nav.URL != "":
		loader, err = t.loadURL(ctx, nav.URL, event, mark)
	case nav.History == HistoryReload:
		err = t.reload(ctx, event, mark)
	case nav.History == HistoryBack || nav.History == HistoryForward:
		err = t.moveInHistory(ctx, nav.History, event, mark)
	default:
		return nil, errs.Input("history", "must be back, forward or reload; got %q", nav.History)
	}
	if err != nil {
		return nil, err
	}
	return t.navResult(ctx, loader)
}

// navMark is where the tab's page stood before a navigation, to tell a new
// document (or a same-document move) from the old one.
type navMark struct {
	loader            cdproto.LoaderID
	sameDoc, restores int
}

// loadURL loads url and waits for event; it returns the loader of the new
// document ("" for a same-document navigation, where nothing loads).
func (t *Tab) loadURL(ctx context.Context, url, event string, mark navMark) (cdproto.LoaderID, error) {
	// A beforeunload dialog holds Page.navigate until it is answered:
	// report it instead of waiting out the deadline.
	var res page.NavigateResult
	_, err := t.guardDialogs(ctx, DialogAsk, false, func(ctx context.Context) (err error) {
		res, err = cdproto.Call(ctx, t.sess, page.Navigate, page.NavigateParams{URL: url})
		return err
	})
	if err != nil {
		return "", navErr(ctx, err, url, event)
	}
	if res.ErrorText != "" {
		return "", errs.New(errs.NavigationFailed, "loading %s failed: %s", url, res.ErrorText).
			WithHint("check the URL and that its server is reachable from the browser")
	}
	loader := res.LoaderID
	if loader == "" {
		return "", nil
	}
	err = t.waitFor(ctx, func(p *pageState) bool {
		if p.lifecycle[loader][event] {
			return true
		}
		// A client-side redirect replaced our document: follow it.
		return p.loader != mark.loader && p.loader != loader && p.lifecycle[p.loader][event]
	})
	if err != nil {
		return "", t.waitErr(ctx, err, url, event, loader)
	}
	return loader, nil
}

// reload reloads the page and waits for event in the new document.
func (t *Tab) reload(ctx context.Context, event string, mark navMark) error {
	const what = "reload"
	_, err := t.guardDialogs(ctx, DialogAsk, false, func(ctx context.Context) error {
		_, err := cdproto.Call(ctx, t.sess, page.Reload, page.ReloadParams{})
		return err
	})
	if err != nil {
		return navErr(ctx, err, what, event)
	}
	if err := t.waitFor(ctx, func(p *pageState) bool { return p.loader != mark.loader && p.lifecycle[p.loader][event] }); err != nil {
		return t.waitErr(ctx, err, what, event, "")
	}
	return nil
}

// moveInHistory goes one entry back or forward and waits until the tab
// shows it: a same-document move, a restore from the back-forward cache, or
// a new document that reached event.
func (t *Tab) moveInHistory(ctx context.Context, what, event string, mark navMark) error {
	hist, err := cdproto.Call(ctx, t.sess, page.GetNavigationHistory, cdproto.Empty{})
	if err != nil {
		return err
	}
	step := int64(-1)
	if what == HistoryForward {
		step = 1
	}
	i := hist.CurrentIndex + step
	if i < 0 || i >= int64(len(hist.Entries)) {
		return errs.Input("history", "there is no page to go %s to in this tab's history", what).
			WithHint("navigate to a url instead")
	}
	if _, err := cdproto.Call(ctx, t.sess, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: hist.Entries[i].ID}); err != nil {
		return navErr(ctx, err, what, event)
	}
	err = t.waitFor(ctx, func(p *pageState) bool {
		return p.sameDocNavs > mark.sameDoc || p.restores > mark.restores || (p.loader != mark.loader && p.lifecycle[p.loader][event])
	})
	if err != nil {
		return t.waitErr(ctx, err, what, event, "")
	}
	return nil
}

// navResult reads where the navigation ended and the status of the
// document of loader (the current one when loader is "").
func (t *Tab) navResult(ctx context.Context, loader cdproto.LoaderID) (*NavResult, error) {
	info, err := cdproto.Call(ctx, t.sess.Conn().Browser(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: t.TargetID})
	if err != nil {
		return nil, err
	}
	out := &NavResult{URL: info.TargetInfo.URL, Title: info.TargetInfo.Title}
	t.mu.Lock()
	if loader == "" {
		loader = t.page.loader
	}
	out.Status = t.page.status[loader]
	t.mu.Unlock()
	return out, nil
}

func navErr(ctx context.Context, err error, what, event string) error {
	if errs.Code(err) == errs.Timeout {
		return errs.New(errs.Timeout, "navigation (%s) did not reach %q before %s ran out: the server has not answered yet", what, event, deadline.Name(ctx)).
			WithHint("raise timeout_ms, or check that the server responds and no dialog blocks the page")
	}
	return err
}

// waitErr explains a wait that ended before the load state: what we waited
// for, and which lifecycle events the document did reach.
func (t *Tab) waitErr(ctx context.Context, err error, what, event string, loader cdproto.LoaderID) error {
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return deadline.Err(ctx, fmt.Sprintf("navigating (%s)", what))
	}
	t.mu.Lock()
	if loader == "" {
		loader = t.page.loader
	}
	var seen []string
	for name := range t.page.lifecycle[loader] {
		seen = append(seen, name)
	}
	t.mu.Unlock()
	sort.Strings(seen)
	reached := "none"
	if len(seen) > 0 {
		reached = fmt.Sprint(seen)
	}
	return errs.New(errs.Timeout, "navigation (%s) did not reach %q before %s ran out; lifecycle events seen: %s", what, event, deadline.Name(ctx), reached).
		WithHint("raise timeout_ms, or wait for an earlier state (domcontentloaded) on pages that keep loading")
}
