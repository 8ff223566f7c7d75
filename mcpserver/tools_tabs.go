package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
				Description: `List what you can control. kind=browsers (default) returns each browser: browser_id, kind (managed = a headless Chromium this server starts on first use; cdp = an existing browser reached through its DevTools endpoint; extension = a profile of the user's own Chrome/Edge paired through the tabwright extension, listed with the name the user gave it), whether it is running (for extension: connected now), its version and capabilities. An extension profile lists file_urls among its capabilities only when the user allowed the extension access to file URLs; without it file:// tabs cannot be claimed or opened there. It starts nothing.
kind=tabs returns the page tabs of one browser: tab_id, url, title, and claimed / claimed_by ("you" or "another session", which includes other tabwright processes sharing the user's browser). Listing tabs starts the managed browser if needed.
When browser_id is omitted (here and in every tool) the default is the user's paired browser profile if exactly one is paired (attach mode), else the managed browser (or the --cdp-url one); the answer names the browser_id used.
Errors: invalid_input (unknown browser_id), browser_unavailable, browser_not_found.`,
				InputSchema: object(nil, map[string]schema{
					"kind":       enum("What to list.", "browsers", "browsers", "tabs"),
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
			ctx, cancel := withTimeout(ctx, defaultTimeoutMS)
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
				Description: `Open a new tab on url (a new tab even if that URL is open elsewhere). With claim=true (default) the tab is claimed for you, the call waits for the page's load event and returns tab_handle, the final url, title and HTTP status; if the page fails to load, the tab stays open and claimed and navigation_error says why. With claim=false it returns tab_id at once without waiting. Never repeat a failed open blindly: check browser_discover kind=tabs first, the tab may exist.
Errors: invalid_input (url not absolute http(s)/file/about), permission_denied (a file:// URL in the user's browser without file access for the extension), browser_unavailable, browser_not_found, timeout.`,
				InputSchema: object([]string{"url"}, map[string]schema{
					"url":        str("Absolute http(s), file or about URL to open."),
					"browser_id": browserIDField,
					"active":     boolean("Bring the new tab to the front.", true),
					"claim":      boolean("Claim the tab and return a tab_handle.", true),
					"timeout_ms": timeoutField,
				}),
			}
		},
		run: func(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
			var in openTabInput
			if err := decode(args, &in); err != nil {
				return nil, "", err
			}
			if err := firstErr(required("url", in.URL), tabs.CheckURL("url", in.URL), between("timeout_ms", in.TimeoutMS, minTimeoutMS, maxTimeoutMS)); err != nil {
				return nil, "", err
			}
			ctx, cancel := withTimeout(ctx, orDefault(in.TimeoutMS, defaultTimeoutMS))
			defer cancel()
			claim := boolOr(in.Claim, true)
			start := in.URL
			if claim {
				start = "about:blank" // load through Navigate so that we wait and learn the status
			}
			opened, err := s.m.Open(ctx, owner, in.BrowserID, start, boolOr(in.Active, true), claim)
			if err != nil {
				return nil, "", err
			}
			out := openTabResult{TabID: opened.TabID, BrowserID: opened.BrowserID, URL: in.URL}
			if !claim {
				return out, fmt.Sprintf("opened tab %s on %s (not claimed)", out.TabID, out.URL), nil
			}
			out.TabHandle = opened.Tab.Handle()
			err = opened.Tab.Do(ctx, func(ctx context.Context) error {
				nav, err := opened.Tab.Navigate(ctx, tabs.Navigation{URL: in.URL})
				if err != nil {
					return err
				}
				out.URL, out.Title, out.Status = nav.URL, nav.Title, nav.Status
				return nil
			})
			if err != nil && errors.Is(ctx.Err(), context.Canceled) {
				// The client will never learn the handle: leave no claim and no tab behind.
				closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				defer cancel()
				s.m.CloseTab(closeCtx, owner, out.TabHandle)
				return nil, "", err
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
				Description: `Claim an existing tab (tab_id from browser_discover kind=tabs) for this session and get its tab_handle. Only you can act on a claimed tab until you release or close it, or your session ends. expected_url / expected_title, when given, must equal the tab's current URL / title exactly, so you never act on a tab that changed since you listed it.
Errors: tab_in_use (another session, maybe of another tabwright process, or you already hold it), tab_mismatch (the guard did not match; the message shows what the tab shows), invalid_input (unknown tab_id or browser_id), permission_denied (a file:// tab of the user's browser while the extension has no file access; the hint says what the user must turn on), browser_unavailable.`,
				InputSchema: object([]string{"tab_id"}, map[string]schema{
					"tab_id":         str("Tab id from browser_discover kind=tabs."),
					"browser_id":     browserIDField,
					"expected_url":   str("Claim only if the tab's URL is exactly this."),
					"expected_title": str("Claim only if the tab's title is exactly this."),
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
			ctx, cancel := withTimeout(ctx, defaultTimeoutMS)
			defer cancel()
			t, err := s.m.Claim(ctx, owner, in.BrowserID, in.TabID, in.ExpectedURL, in.ExpectedTitle)
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
				Description: `Control a claimed tab. action=release ends your claim and leaves the page open as it is; activate brings the tab to the front; close closes the tab. After release or close the tab_handle is dead: later calls with it fail with invalid_handle.
Errors: invalid_handle, invalid_input, browser_unavailable.`,
				InputSchema: object([]string{"tab_handle", "action"}, map[string]schema{
					"tab_handle": tabHandleField,
					"action":     enum("What to do with the tab.", "", "release", "activate", "close"),
				}),
				Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true)},
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
			ctx, cancel := withTimeout(ctx, defaultTimeoutMS)
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
				Description: `Load url in a claimed tab, or move in its history (history=back | forward | reload); give exactly one of url and history. Waits until wait_until: load (default: the load event), domcontentloaded (HTML parsed), or network_idle (no network activity for 500 ms). Returns the final url (after redirects), title and the HTTP status of the document (omitted when none was fetched, e.g. a back/forward cache restore). A 404 or 500 page is a successful navigation with that status.
Errors: navigation_failed (DNS, refused connection, TLS… the message has Chromium's net error), timeout (says which load states were reached), invalid_input (no page to go back/forward to, bad url), invalid_handle, browser_unavailable.`,
				InputSchema: object([]string{"tab_handle"}, map[string]schema{
					"tab_handle": tabHandleField,
					"url":        str("Absolute http(s), file or about URL to load."),
					"history":    enum("Move in the tab's history instead of loading a url.", "", tabs.HistoryBack, tabs.HistoryForward, tabs.HistoryReload),
					"wait_until": enum("Load state to wait for.", tabs.WaitLoad, tabs.WaitLoad, tabs.WaitDOMContentLoaded, tabs.WaitNetworkIdle),
					"timeout_ms": timeoutField,
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
		if err := tabs.CheckURL("url", in.URL); err != nil {
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
	return between("timeout_ms", in.TimeoutMS, minTimeoutMS, maxTimeoutMS)
}
