package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/tabs"
)

// ---- browser_observe

type observeInput struct {
	TabHandle      string            `json:"tab_handle"`
	Include        includeArg        `json:"include"`
	MaxChars       *int              `json:"max_chars"`
	MaxInteractive *int              `json:"max_interactive"`
	Mode           string            `json:"mode"`
	Since          string            `json:"since"`
	Scope          string            `json:"scope"`
	Selector       string            `json:"selector"`
	SelectorType   string            `json:"selector_type"`
	Name           *string           `json:"name"`
	Nth            *int              `json:"nth"`
	Ref            string            `json:"ref"`
	Frame          *locate.FrameSpec `json:"frame"`
	FrameID        string            `json:"frame_id"`
	TimeoutMS      *int              `json:"timeout_ms"`
}

// framePage reads a child frame of the tab: page-side calls go to the
// frame's isolated world; per-tab state (history, watch) stays the tab's.
type framePage struct {
	*tabs.Tab
	frame *tabs.Frame
}

func (p framePage) Eval(ctx context.Context, expression string, out any) error {
	return p.EvalIn(ctx, p.frame, expression, out)
}

const (
	minObserveChars = 100
	maxObserveChars = 100000
	maxScopeChars   = 1000
	maxSinceChars   = 64
)

func (s *server) observeTool() tool {
	return tool{
		name: "browser_observe",
		def: func() *mcp.Tool {
			return &mcp.Tool{
				Description: `Read a claimed tab as one compact JSON observation (schemaversion 1). Always: url, title, capturedat (epoch ms), environment, mode (left out when passive), digest (16 hex digits naming this content; equal digests mean nothing changed), and textpreview/textlength, forms, interactive (present even when not included: then empty, and reserved.notincluded says so).
Sections (include, default ["text","forms","interactive"]; "all" = every section but vision):
- text: textpreview = visible text in reading order cut at max_chars (default 4000), textlength = its full length.
- forms: each form (or group of controls outside a form): selector, action, method (left out for get), fields with label, type (left out for text), name (left out when the selector is [name=N]), unique selector, value (never a password's; a select's or radio group's choice), required, disabled, options {value, label (left out when equal to value)}; a radio option without a selector is input[name=N][value=V].
- interactive: visible actionable elements in DOM order, at most max_interactive (default 150): ref like e7 (stable for the element while the document lives), unique CSS selector, role, label, state, href (same-origin links as a path; left out when the selector, like a[href='/x'], spells it). A run of 3+ consecutive stateless elements comes as one entry {role, columns:["ref","selector","label"(,"href")], rows:[[...],...]}, one row per element; when their roles differ, role is a column after ref. When forms is included, the controls it lists are left out here.
- a11y: accessibility outline, one line per landmark/heading/list/table/control, role "name" [state], indented; at most 200 lines / 8000 chars.
- reader: the main article as Markdown with absolute links, plus title, byline, sitename, lang, excerpt, length; from the rendered DOM, so script-built pages work; markdown cut at max_chars (default 20000); found=false when no article stands out.
- listpattern: repeated sibling structures (cards, results): container and item selectors, count, fields items carry (title, price, link, image...), up to 3 samples; at most 10.
- tableshape: data tables (<table> and ARIA grids; layout tables skipped): selector, caption, headers, rows, cols, up to 3 sample rows; at most 10.
- vision (by name only): PNG screenshot path of the viewport, groundings ref -> [x,y,w,h] CSS px in it, OCR text when tesseract is installed (else ocrnote says so).
Every cut is counted in reserved.truncated.
Modes: passive (default). diffing: pass since = the digest of one of this tab's last 8 observations; the payload adds diff {base, added, removed, changed} keyed by section (interactive by ref, forms/tableshape by selector, listpattern by item selector, text and a11y by line; removed lists keys). watching: the first call starts a change journal in the page and returns a full payload; each later call returns delta=true with only added or changed entries in each section (textpreview = added lines), diff naming every change by key, required fields present; after a navigation it returns a full payload again (reserved.watch says why).
scope: a CSS selector; all sections are read under the first element it matches. Or scope with a strict locator, as the action tools take it: selector + selector_type (css, xpath, label, placeholder, role) + name + nth, or ref; it must name exactly one element. frame (url, title and/or path of iframe selectors) or frame_id: read a child frame instead of the page, cross-origin ones included.
Errors: invalid_input (path names the field: include[i], mode, since, scope, selector, max_chars...), not_found and ambiguous (a locator scope), invalid_handle, timeout, browser_unavailable.`,
				InputSchema: object([]string{"tab_handle"}, map[string]schema{
					"tab_handle": tabHandleField,
					"include": {
						"type":        "array",
						"items":       schema{"type": "string", "enum": observe.Sections},
						"minItems":    1,
						"maxItems":    observe.MaxInclude,
						"description": "Sections to read. Default: text, forms, interactive. \"all\" = every section but vision; the digest is always there.",
					},
					"max_chars":       integer("Cut textpreview (default 4000) and reader markdown (default 20000) at this many characters.", minObserveChars, maxObserveChars, observe.DefaultMaxChars),
					"max_interactive": integer("List at most this many interactive elements; the rest are counted in reserved.truncated.interactive.", 1, observe.LimitMaxInteractive, observe.DefaultMaxInteractive),
					"mode":            enum("passive: one shot. diffing: compare with the observation whose digest is since. watching: only what changed since this tab's previous watching observation.", observe.ModePassive, observe.ModePassive, observe.ModeDiffing, observe.ModeWatching),
					"since":           str("Digest of one of this tab's last 8 observations; required with mode diffing, refused otherwise."),
					"scope":           str("CSS selector of the element to read under (the first match); default the whole page."),
					"selector":        str("Read under the one element this strict locator finds (instead of scope): read according to selector_type."),
					"selector_type":   enum("How to read selector: css (default), xpath, label, placeholder, role.", "", "css", "xpath", "label", "placeholder", "role"),
					"name":            str("With selector_type role only: the exact accessible name."),
					"nth":             schema{"type": "integer", "minimum": 0, "maximum": 100000, "description": "Zero-based index among the matches (AX order for role); without it a second match is an ambiguous error."},
					"ref":             str("Read under the element with this ref from an earlier observation (instead of scope or selector)."),
					"frame": {
						"type": "object", "additionalProperties": false,
						"description": "Read this child frame: its exact url and/or title, and/or path, CSS selectors of nested iframes, outermost first.",
						"properties": map[string]any{
							"url":   schema{"type": "string", "minLength": 1},
							"title": schema{"type": "string", "minLength": 1},
							"path":  schema{"type": "array", "minItems": 1, "maxItems": 16, "items": schema{"type": "string", "minLength": 1}},
						},
					},
					"frame_id":   str("Read the child frame with this DevTools frame id (instead of frame)."),
					"timeout_ms": timeoutField,
				}),
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
			}
		},
		run: func(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
			var in observeInput
			if err := decode(args, &in); err != nil {
				return nil, "", err
			}
			if err := firstErr(
				required("tab_handle", in.TabHandle),
				in.Include.err,
				between("max_chars", in.MaxChars, minObserveChars, maxObserveChars),
				between("max_interactive", in.MaxInteractive, 1, observe.LimitMaxInteractive),
				modeCheck(in.Mode),
				sinceCheck(in.Mode, in.Since),
				scopeCheck(in.Scope),
				scopeLocatorCheck(in),
				between("timeout_ms", in.TimeoutMS, minTimeoutMS, maxTimeoutMS),
			); err != nil {
				return nil, "", err
			}
			opt := observe.Options{
				MaxChars:       orDefault(in.MaxChars, 0),
				MaxInteractive: orDefault(in.MaxInteractive, 0),
				Include:        in.Include.names,
				Mode:           in.Mode,
				Since:          in.Since,
				Scope:          in.Scope,
			}
			if err := frameCheck(in.Frame, in.FrameID); err != nil {
				return nil, "", err
			}
			var obs *observe.Observation
			err := s.onTab(ctx, owner, in.TabHandle, in.TimeoutMS, func(ctx context.Context, t *tabs.Tab) (err error) {
				var page observe.Page = t
				if loc, ok := in.locator(); ok {
					// The element is found where the action tools would find
					// it, then read through its handle in the same world.
					tg, err := locate.Resolve(ctx, t, loc, locate.Attached)
					if err != nil {
						return err
					}
					opt.ScopeHandle, opt.ScopeName = tg.Handle, loc.String()
					if tg.Frame != nil {
						page = framePage{Tab: t, frame: tg.Frame}
					}
				} else if in.Frame != nil || in.FrameID != "" {
					f, err := locate.FrameOf(ctx, t, locate.Locator{Frame: in.Frame, FrameID: in.FrameID})
					if err != nil {
						return err
					}
					page = framePage{Tab: t, frame: f}
				}
				obs, err = observe.Capture(ctx, page, opt)
				if err == nil {
					obs.Environment = t.Environment()
				}
				return err
			})
			if err != nil {
				return nil, "", err
			}
			if v := obs.Vision; v != nil && v.Image != nil {
				return withContent{result: obs, extra: []mcp.Content{&mcp.ImageContent{Data: v.Image.Data, MIMEType: v.Image.MIME}}}, observe.Render(obs), nil
			}
			return obs, observe.Render(obs), nil
		},
	}
}

// includeArg is the include argument: a JSON array of section names. It
// decodes without failing and keeps the first problem, so the error can name
// the entry at fault (include[2]) rather than the whole field.
type includeArg struct {
	names []string
	err   error
}

func (a *includeArg) UnmarshalJSON(raw []byte) error {
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		a.err = errs.Input("include", "must be an array of section names, e.g. [\"reader\"]")
		return nil
	}
	if len(entries) == 0 {
		a.err = errs.Input("include", "must not be empty").WithHint("omit it for the default sections, or name some: %s", strings.Join(observe.Sections, ", "))
		return nil
	}
	if len(entries) > observe.MaxInclude {
		a.err = errs.Input("include", "at most %d entries, got %d", observe.MaxInclude, len(entries))
		return nil
	}
	seen := map[string]bool{}
	for i, e := range entries {
		path := "include[" + strconv.Itoa(i) + "]"
		var name string
		if json.Unmarshal(e, &name) != nil {
			a.err = errs.Input(path, "must be a string (a section name)")
			return nil
		}
		if name == "" {
			a.err = errs.Input(path, "must not be empty")
			return nil
		}
		if seen[name] {
			a.err = errs.Input(path, "section %q is given twice", name)
			return nil
		}
		seen[name] = true
		a.names = append(a.names, name)
	}
	_, a.err = observe.ParseInclude(a.names)
	return nil
}

func modeCheck(mode string) error {
	if mode == "" {
		return nil
	}
	return oneOf("mode", mode, observe.ModePassive, observe.ModeDiffing, observe.ModeWatching)
}

func sinceCheck(mode, since string) error {
	switch {
	case mode == observe.ModeDiffing && since == "":
		return errs.Input("since", "is required with mode diffing").WithHint("pass the digest of an earlier observation of this tab")
	case mode != observe.ModeDiffing && since != "":
		return errs.Input("since", "is only used with mode diffing").WithHint("add \"mode\": \"diffing\", or drop since")
	case len(since) > maxSinceChars:
		return errs.Input("since", "is not a digest: at most %d characters", maxSinceChars)
	}
	return nil
}

// frameCheck applies the locator rules for frames: frame or frame_id, and a
// frame names at least one of url, title and path.
func frameCheck(f *locate.FrameSpec, id string) error {
	switch {
	case f != nil && id != "":
		return errs.Input("frame", "give frame or frame_id, not both")
	case f != nil && f.URL == "" && f.Title == "" && len(f.Path) == 0:
		return errs.Input("frame", "needs at least one of url, title and path")
	case f != nil && len(f.Path) > 16:
		return errs.Input("frame.path", "has more than 16 steps")
	}
	if f != nil {
		for i, p := range f.Path {
			if p == "" {
				return errs.Input(fmt.Sprintf("frame.path[%d]", i), "must not be empty")
			}
		}
	}
	return nil
}

// locator is the scope locator, when one was given.
func (in observeInput) locator() (locate.Locator, bool) {
	if in.Selector == "" && in.Ref == "" {
		return locate.Locator{}, false
	}
	return locate.Locator{Selector: in.Selector, SelectorType: in.SelectorType, Name: in.Name, Nth: in.Nth, Ref: in.Ref, Frame: in.Frame, FrameID: in.FrameID}, true
}

// scopeLocatorCheck applies the action tools' locator rules to the scope
// locator; frame and frame_id are checked apart, since they also work alone.
func scopeLocatorCheck(in observeInput) error {
	if in.Scope != "" && (in.Selector != "" || in.Ref != "") {
		return errs.Input("scope", "give scope (a CSS selector) or a locator (selector or ref), not both")
	}
	if in.Ref != "" && (in.Frame != nil || in.FrameID != "") {
		return errs.Input("ref", "a ref names the element alone: drop frame and frame_id")
	}
	l := locate.Locator{Selector: in.Selector, SelectorType: in.SelectorType, Name: in.Name, Nth: in.Nth, Ref: in.Ref}
	if v := act.ValidateLocator(l); len(v) > 0 {
		return v[0]
	}
	return nil
}

func scopeCheck(scope string) error {
	if len(scope) > maxScopeChars {
		return errs.Input("scope", "at most %d characters, got %d", maxScopeChars, len(scope))
	}
	return nil
}
