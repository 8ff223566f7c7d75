package mcpserver

import (
	"context"
	"encoding/json"
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
	Kind      string `json:"kind"`
	BrowserID string `json:"browser_id"`
}

func (s *server) discoverTool() tool {
	return tool{
		name: "browser_discover",
		def: func() *mcp.Tool {
			return &mcp.Tool{
				Description: `List browsers (browser_id, kind managed | cdp | extension: the user's paired Chrome/Edge, running, version) or, kind=tabs, one browser's tabs (tab_id, url, title, claimed_by). Default browser_id: the paired browser in attach mode, else the managed headless Chromium (or --cdp-url).
Errors: invalid_input, browser_unavailable, browser_not_found.`,
				InputSchema: object(nil, map[string]schema{
					"kind":       enum("", "browsers", "browsers", "tabs"),
					"browser_id": browserIDField,
				}),
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
			}
		},
		run: func(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
			var in discoverInput
			if err := decode(args, &in); err != nil {
				return nil, "", err
			}
			if in.Kind == "" {
				in.Kind = "browsers"
			}
			if err := oneOf("kind", in.Kind, "browsers", "tabs"); err != nil {
				return nil, "", err
			}
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
		},
	}
}

// ---- browser_open_tab

type openTabInput struct {
	URL       string `json:"url"`
	BrowserID string `json:"browser_id"`
	Active    *bool  `json:"active"`
	Claim     *bool  `json:"claim"`
	TimeoutMS *int   `json:"timeout_ms"`
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
	return tool{
		name: "browser_open_tab",
		def: func() *mcp.Tool {
			return &mcp.Tool{
				Description: `Open url in a new tab. claim=true (default) waits for load and returns tab_handle, url, title, status (or navigation_error; still claimed); claim=false returns tab_id at once. Before retrying, check browser_discover kind=tabs.
Errors: invalid_input, permission_denied (file:// without --allow-file-urls, or the extension's file access), browser_unavailable, browser_not_found, timeout.`,
				InputSchema: object([]string{"url"}, map[string]schema{
					"url":        str("Absolute http(s), file or about URL."),
					"browser_id": browserIDField,
					"active":     boolean("Bring the tab to the front.", true),
					"claim":      boolean("", true),
					"timeout_ms": timeoutField(),
				}),
			}
		},
		run: func(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
			var in openTabInput
			if err := decode(args, &in); err != nil {
				return nil, "", err
			}
			if err := firstErr(required("url", in.URL), s.checkTabURL("url", in.URL), between("timeout_ms", in.TimeoutMS, minTimeoutMS(), maxTimeoutMS())); err != nil {
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
		},
	}
}

// ---- browser_claim_tab

type claimTabInput struct {
	TabID         string `json:"tab_id"`
	BrowserID     string `json:"browser_id"`
	ExpectedURL   string `json:"expected_url"`
	ExpectedTitle string `json:"expected_title"`
}

func (s *server) claimTabTool() tool {
	return tool{
		name: "browser_claim_tab",
		def: func() *mcp.Tool {
			return &mcp.Tool{
				Description: `Claim a tab (tab_id from browser_discover kind=tabs) for its tab_handle: yours alone until release, close or your session ends. expected_url / expected_title refuse a tab that changed since listed.
Errors: tab_in_use, tab_mismatch (shows what the tab shows), invalid_input, permission_denied, browser_unavailable.`,
				InputSchema: object([]string{"tab_id"}, map[string]schema{
					"tab_id":         str(""),
					"browser_id":     browserIDField,
					"expected_url":   str(""),
					"expected_title": str(""),
				}),
			}
		},
		run: func(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
			var in claimTabInput
			if err := decode(args, &in); err != nil {
				return nil, "", err
			}
			if err := required("tab_id", in.TabID); err != nil {
				return nil, "", err
			}
			ctx, cancel := withTimeout(ctx, defaultTimeoutMS())
			defer cancel()
			t, err := s.m.Claim(ctx, tabs.ClaimOptions{Owner: owner, BrowserID: in.BrowserID, TabID: in.TabID, ExpectedURL: in.ExpectedURL, ExpectedTitle: in.ExpectedTitle})
			if err != nil {
				return nil, "", err
			}
			out := map[string]any{"tab_handle": t.Handle(), "tab_id": in.TabID, "browser_id": t.BrowserID()}
			return out, fmt.Sprintf("claimed tab %s as tab_handle %s", in.TabID, t.Handle()), nil
		},
	}
}

// ---- browser_tab_control

type tabControlInput struct {
	TabHandle string `json:"tab_handle"`
	Action    string `json:"action"`
}

func (s *server) tabControlTool() tool {
	return tool{
		name: "browser_tab_control",
		def: func() *mcp.Tool {
			return &mcp.Tool{
				Description: `release your claim (the page stays), activate (bring to front) or close a claimed tab. After release or close the handle is dead.
Errors: invalid_handle, invalid_input, browser_unavailable.`,
				InputSchema: object([]string{"tab_handle", "action"}, map[string]schema{
					"tab_handle": tabHandleField,
					"action":     enum("", "", "release", "activate", "close"),
				}), // annotations left out: their defaults (destructive, not idempotent) are right
			}
		},
		run: func(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
			var in tabControlInput
			if err := decode(args, &in); err != nil {
				return nil, "", err
			}
			if err := firstErr(required("tab_handle", in.TabHandle), required("action", in.Action), oneOf("action", in.Action, "release", "activate", "close")); err != nil {
				return nil, "", err
			}
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
		},
	}
}

// ---- browser_navigate

type navigateInput struct {
	TabHandle string `json:"tab_handle"`
	URL       string `json:"url"`
	History   string `json:"history"`
	WaitUntil string `json:"wait_until"`
	TimeoutMS *int   `json:"timeout_ms"`
}

func (s *server) navigateTool() tool {
	return tool{
		name: "browser_navigate",
		def: func() *mcp.Tool {
			return &mcp.Tool{
				Description: `Load url in a claimed tab, or go back | forward | reload, then wait for wait_until. Returns the final url, title and HTTP status (a 404 still navigated).
Errors: navigation_failed (Chromium's net error), timeout (says which load states were reached), invalid_input, invalid_handle, browser_unavailable.`,
				InputSchema: object([]string{"tab_handle"}, map[string]schema{
					"tab_handle": tabHandleField,
					"url":        str("Absolute http(s), file or about URL."),
					"history":    enum("", "", tabs.HistoryBack, tabs.HistoryForward, tabs.HistoryReload),
					"wait_until": enum("load event, HTML parsed, or no request for 500 ms.", tabs.WaitLoad, tabs.WaitLoad, tabs.WaitDOMContentLoaded, tabs.WaitNetworkIdle),
					"timeout_ms": timeoutField(),
				}),
			}
		},
		run: func(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
			var in navigateInput
			if err := decode(args, &in); err != nil {
				return nil, "", err
			}
			if err := s.checkNavigate(&in); err != nil {
				return nil, "", err
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
		},
	}
}

func (s *server) checkNavigate(in *navigateInput) error {
	if err := required("tab_handle", in.TabHandle); err != nil {
		return err
	}
	switch {
	case in.URL != "" && in.History != "":
		return errInput("url", "give url or history, not both")
	case in.URL == "" && in.History == "":
		return errInput("url", "is required unless history is given")
	case in.URL != "":
		if err := s.checkTabURL("url", in.URL); err != nil {
			return err
		}
	default:
		if err := oneOf("history", in.History, tabs.HistoryBack, tabs.HistoryForward, tabs.HistoryReload); err != nil {
			return err
		}
	}
	if in.WaitUntil != "" {
		if err := oneOf("wait_until", in.WaitUntil, tabs.WaitLoad, tabs.WaitDOMContentLoaded, tabs.WaitNetworkIdle); err != nil {
			return err
		}
	}
	return between("timeout_ms", in.TimeoutMS, minTimeoutMS(), maxTimeoutMS())
}
