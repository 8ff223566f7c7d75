package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/tabs"
)

// ---- browser_discover

type discoverInput struct {
	Kind      string `json:"kind" tool:"enum=browsers|tabs,default=browsers"`
	BrowserID string `json:"browser_id" tool:"nonempty"`
}

func (s *server) discoverTool() tool {
	return defineTool("browser_discover", `List browsers (browser_id, kind managed | cdp | extension: the user's paired Chrome/Edge, running, version) or, kind=tabs, one browser's tabs (tab_id, url, title, claimed_by). Default browser_id: the paired browser in attach mode, else the managed headless Chromium (or --cdp-url).
Errors: invalid_input, browser_unavailable, browser_not_found.`,
		func(ctx context.Context, owner string, in *discoverInput) (any, string, error) {
			if in.Kind == "browsers" {
				list := s.m.Browsers()
				if in.BrowserID != "" {
					one, err := s.m.Browser(in.BrowserID)
					if err != nil {
						return nil, "", err
					}
					list = []tabs.BrowserInfo{one}
				}
				var b strings.Builder
				for _, br := range list {
					state := "not started"
					if br.Connected {
						state = "running " + br.Version
					}
					name := ""
					if br.Name != "" {
						name = fmt.Sprintf(" %q", br.Name)
					}
					fmt.Fprintf(&b, "%s%s (%s): %s\n", br.BrowserID, name, br.Kind, state)
				}
				return map[string]any{"browsers": list}, b.String(), nil
			}
			ctx, cancel := withTimeout(ctx, defaultTimeoutMS())
			defer cancel()
			list, err := s.m.Tabs(ctx, owner, in.BrowserID)
			if err != nil {
				return nil, "", err
			}
			var b strings.Builder
			for _, t := range list {
				claim := "free"
				if t.Claimed {
					claim = "claimed by " + t.ClaimedBy
				}
				fmt.Fprintf(&b, "%s %q %s [%s]\n", t.TabID, t.Title, t.URL, claim)
			}
			if len(list) == 0 {
				b.WriteString("no tabs\n")
			}
			id := in.BrowserID
			if id == "" {
				id = s.m.DefaultBrowser()
			}
			return map[string]any{"browser_id": id, "tabs": list}, b.String(), nil
		}).annotate(&mcp.ToolAnnotations{ReadOnlyHint: true})
}

// ---- browser_open_tab

type openTabInput struct {
	URL       string `json:"url" tool:"required,nonempty" doc:"Absolute http(s), file or about URL."`
	BrowserID string `json:"browser_id" tool:"nonempty"`
	Active    *bool  `json:"active" tool:"default=true" doc:"Bring the tab to the front."`
	Claim     *bool  `json:"claim" tool:"default=true"`
	TimeoutMS *int   `json:"timeout_ms" tool:"timeout"`
}

type openTabResult struct {
	TabID           string `json:"tab_id"`
	BrowserID       string `json:"browser_id"`
	TabHandle       string `json:"tab_handle,omitempty"`
	URL             string `json:"url"`
	Title           string `json:"title,omitempty"`
	Status          int64  `json:"status,omitempty"`
	NavigationError any    `json:"navigation_error,omitempty"`
}

func (s *server) openTabTool() tool {
	return defineTool("browser_open_tab", `Open url in a new tab. claim=true (default) waits for load and returns tab_handle, url, title, status (or navigation_error; still claimed); claim=false returns tab_id at once. Before retrying, check browser_discover kind=tabs.
Errors: invalid_input, permission_denied (file:// without --allow-file-urls, or the extension's file access), browser_unavailable, browser_not_found, timeout.`,
		func(ctx context.Context, owner string, in *openTabInput) (any, string, error) {
			if err := s.checkTabURL("url", in.URL); err != nil {
				return nil, "", err
			}
			ctx, cancel := withTimeout(ctx, orDefault(in.TimeoutMS, defaultTimeoutMS()))
			defer cancel()
			opt := tabs.OpenOptions{Owner: owner, BrowserID: in.BrowserID, URL: in.URL, Active: boolOr(in.Active, true), Claim: boolOr(in.Claim, true)}
			if !opt.Claim {
				opened, err := s.m.Open(ctx, opt)
				if err != nil {
					return nil, "", err
				}
				out := openTabResult{TabID: opened.TabID, BrowserID: opened.BrowserID, URL: in.URL}
				return out, fmt.Sprintf("opened tab %s on %s (not claimed)", out.TabID, out.URL), nil
			}
			opened, nav, err := s.m.OpenAndLoad(ctx, opt)
			if opened == nil {
				return nil, "", err
			}
			out := openTabResult{TabID: opened.TabID, BrowserID: opened.BrowserID, URL: in.URL, TabHandle: opened.Tab.Handle()}
			if nav != nil && err == nil {
				out.URL, out.Title, out.Status = nav.URL, nav.Title, nav.Status
			}
			if errors.Is(ctx.Err(), context.Canceled) {
				// The client will never learn the handle: leave no claim and no tab behind.
				closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				defer cancel()
				s.m.CloseTab(closeCtx, owner, out.TabHandle)
				return nil, "", deadline.Err(ctx, "opening the tab")
			}
			text := fmt.Sprintf("tab_handle %s (tab %s): %s %q status %d", out.TabHandle, out.TabID, out.URL, out.Title, out.Status)
			if err != nil {
				out.NavigationError = errorResult(err).StructuredContent.(map[string]any)["error"]
				text = fmt.Sprintf("tab_handle %s (tab %s) is open but loading %s failed: %v", out.TabHandle, out.TabID, in.URL, err)
			}
			return out, text, nil
		})
}

// ---- browser_claim_tab

type claimTabInput struct {
	TabID         string `json:"tab_id" tool:"required,nonempty"`
	BrowserID     string `json:"browser_id" tool:"nonempty"`
	ExpectedURL   string `json:"expected_url" tool:"nonempty"`
	ExpectedTitle string `json:"expected_title" tool:"nonempty"`
}

func (s *server) claimTabTool() tool {
	return defineTool("browser_claim_tab", `Claim a tab (tab_id from browser_discover kind=tabs) for its tab_handle: yours alone until release, close or your session ends. expected_url / expected_title refuse a tab that changed since listed.
Errors: tab_in_use, tab_mismatch (shows what the tab shows), invalid_input, permission_denied, browser_unavailable.`,
		func(ctx context.Context, owner string, in *claimTabInput) (any, string, error) {
			ctx, cancel := withTimeout(ctx, defaultTimeoutMS())
			defer cancel()
			t, err := s.m.Claim(ctx, tabs.ClaimOptions{Owner: owner, BrowserID: in.BrowserID, TabID: in.TabID, ExpectedURL: in.ExpectedURL, ExpectedTitle: in.ExpectedTitle})
			if err != nil {
				return nil, "", err
			}
			out := map[string]any{"tab_handle": t.Handle(), "tab_id": in.TabID, "browser_id": t.BrowserID()}
			return out, fmt.Sprintf("claimed tab %s as tab_handle %s", in.TabID, t.Handle()), nil
		})
}

// ---- browser_tab_control

type tabControlInput struct {
	TabHandle string `json:"tab_handle" tool:"required"`
	Action    string `json:"action" tool:"required,enum=release|activate|close"`
}

// browser_tab_control's annotations are left out: their defaults
// (destructive, not idempotent) are right.
func (s *server) tabControlTool() tool {
	return defineTool("browser_tab_control", `release your claim (the page stays), activate (bring to front) or close a claimed tab. After release or close the handle is dead.
Errors: invalid_handle, invalid_input, browser_unavailable.`,
		func(ctx context.Context, owner string, in *tabControlInput) (any, string, error) {
			ctx, cancel := withTimeout(ctx, defaultTimeoutMS())
			defer cancel()
			var err error
			switch in.Action {
			case "release":
				err = s.m.Release(ctx, owner, in.TabHandle)
			case "activate":
				err = s.m.Activate(ctx, owner, in.TabHandle)
			case "close":
				err = s.m.CloseTab(ctx, owner, in.TabHandle)
			}
			if err != nil {
				return nil, "", err
			}
			return map[string]any{"tab_handle": in.TabHandle, "action": in.Action, "ok": true}, in.Action + " done", nil
		})
}

// ---- browser_navigate

type navigateInput struct {
	TabHandle string `json:"tab_handle" tool:"required"`
	URL       string `json:"url" tool:"nonempty" doc:"Absolute http(s), file or about URL."`
	History   string `json:"history" tool:"enum=back|forward|reload"`
	WaitUntil string `json:"wait_until" tool:"enum=load|domcontentloaded|network_idle,default=load" doc:"load event, HTML parsed, or no request for 500 ms."`
	TimeoutMS *int   `json:"timeout_ms" tool:"timeout"`
}

// rules: url or history, one of them.
func (in *navigateInput) rules() error {
	switch {
	case in.URL != "" && in.History != "":
		return errInput("url", "give url or history, not both")
	case in.URL == "" && in.History == "":
		return errInput("url", "is required unless history is given")
	}
	return nil
}

func (s *server) navigateTool() tool {
	return defineTool("browser_navigate", `Load url in a claimed tab, or go back | forward | reload, then wait for wait_until. Returns the final url, title and HTTP status (a 404 still navigated).
Errors: navigation_failed (Chromium's net error), timeout (says which load states were reached), invalid_input, invalid_handle, browser_unavailable.`,
		func(ctx context.Context, owner string, in *navigateInput) (any, string, error) {
			if in.URL != "" {
				if err := s.checkTabURL("url", in.URL); err != nil {
					return nil, "", err
				}
			}
			var res *tabs.NavResult
			err := s.onTab(ctx, owner, in.TabHandle, in.TimeoutMS, func(ctx context.Context, t *tabs.Tab) (err error) {
				res, err = t.Navigate(ctx, tabs.Navigation{URL: in.URL, History: in.History, WaitUntil: in.WaitUntil})
				return err
			})
			if err != nil {
				return nil, "", err
			}
			return res, fmt.Sprintf("%s %q status %d", res.URL, res.Title, res.Status), nil
		})
}
