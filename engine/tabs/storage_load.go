package tabs

import (
	"context"
	"net/url"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
)

// loadStorageState puts a storage state into a browser that just started:
// its cookies, then each origin's localStorage. localStorage is written
// from a page of its origin, so a hidden tab opens each origin in turn with
// an empty document answered by us: the origin's server is never asked
// and need not be up.
func loadStorageState(ctx context.Context, conn *cdp.Conn, st *StorageState) error {
	if _, err := setCookies(ctx, conn.Browser(), st.Cookies); err != nil {
		return errs.Wrap(errs.BrowserUnavailable, err, "loading the cookies of --storage-state").WithHint("check the cookies in the file (name, value, domain), or export the state again")
	}
	var origins []OriginStorage
	for _, o := range st.Origins {
		if len(o.LocalStorage) > 0 {
			origins = append(origins, o)
		}
	}
	if len(origins) == 0 {
		return nil
	}
	created, err := cdproto.Call(ctx, conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank", Background: ptr(true)})
	if err != nil {
		return err
	}
	defer cdproto.Call(context.WithoutCancel(ctx), conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: created.TargetID})
	sess, err := conn.Attach(ctx, created.TargetID)
	if err != nil {
		return err
	}
	stop := sess.Listen(func(method string, params jsonv2.Value) {
		if method == fetch.RequestPaused.Method {
			go answerEmpty(ctx, sess, params)
		}
	})
	defer stop()
	if _, err := cdproto.Call(ctx, sess, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}}}); err != nil {
		return err
	}
	for _, o := range origins {
		if err := writeOrigin(ctx, sess, o); err != nil {
			return err
		}
	}
	return nil
}

// answerEmpty answers a request of the loading tab with an empty page.
func answerEmpty(ctx context.Context, sess *cdp.Session, params jsonv2.Value) {
	var ev fetch.EventRequestPaused
	if jsonv2.Unmarshal(params, &ev) != nil {
		return
	}
	cdproto.Call(ctx, sess, fetch.FulfillRequest, fetch.FulfillRequestParams{
		RequestID: ev.RequestID, ResponseCode: 200,
		ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/html"}},
	})
}

// writeOrigin opens the origin in the loading tab and sets its items.
func writeOrigin(ctx context.Context, sess *cdp.Session, o OriginStorage) error {
	u, err := url.Parse(o.Origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errs.Input("--storage-state: origins", "%q is not an http(s) origin", o.Origin).
			WithHint("an origin is scheme://host[:port], e.g. https://example.com")
	}
	nav, err := cdproto.Call(ctx, sess, page.Navigate, page.NavigateParams{URL: strings.TrimSuffix(o.Origin, "/") + "/"})
	if err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return errs.New(errs.NavigationFailed, "opening %s to load its localStorage: %s", o.Origin, nav.ErrorText).WithHint("check the origin in --storage-state, or remove its localStorage entry")
	}
	res, err := cdproto.Call(ctx, sess, runtime.Evaluate, runtime.EvaluateParams{Expression: setItemsJS(o.LocalStorage), ReturnByValue: ptr(true)})
	if err == nil && res.ExceptionDetails != nil {
		err = errs.New(errs.ScriptError, "writing the localStorage of %s: %s", o.Origin, res.ExceptionDetails.Text).WithHint("the items of that origin may be too large for localStorage: check them in --storage-state")
	}
	return err
}
