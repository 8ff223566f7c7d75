package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/observetab"
	"github.com/tabwright/tabwright/engine/tabs"
)

// ---- browser_observe

type observeInput struct {
	TabHandle      string     `json:"tab_handle" tool:"required"`
	Include        includeArg `json:"include"`
	MaxChars       *int       `json:"max_chars"`
	MaxInteractive *int       `json:"max_interactive"`
	Mode           string     `json:"mode"`
	Since          string     `json:"since" tool:"nonempty"`
	Scope          string     `json:"scope" tool:"nonempty"`
	// The part of the page to read: the one locator type of every tool
	// (selector, selector_type, name, nth, ref, frame, frame_id).
	locate.Locator
	TimeoutMS *int `json:"timeout_ms" tool:"timeout"`
	Rows      bool `json:"rows" tool:"default=false" doc:"Runs of plain elements as {columns, rows}, not one entry each."`
	// Full repeats what this claim was already shown (see observe.Since).
	Full bool `json:"full" tool:"default=false"`
}

// listedAs: the engine's sections, bounds, defaults and modes. An explicit
// 0 is out of bounds here (the engine reads 0 as its default).
func (*observeInput) listedAs() map[string]schema {
	return map[string]schema{
		"include":         {"type": "array", "items": schema{"type": "string", "enum": observe.Sections}},
		"max_chars":       integer(fmt.Sprintf("reader: default %d.", observe.DefaultMaxReaderChars), observe.MinMaxChars, observe.LimitMaxChars, observe.DefaultMaxChars),
		"max_interactive": integer("", 1, observe.LimitMaxInteractive, observe.DefaultMaxInteractive),
		"mode":            enum("", observe.ModePassive, observe.ModePassive, observe.ModeDiffing, observe.ModeWatching),
	}
}

// rules: include's entries, and the part of the page to read is a CSS
// scope, or a locator (or a frame alone) by the rules of every tool's
// locator, not both.
func (in *observeInput) rules() error {
	if in.Include.err != nil {
		return in.Include.err
	}
	if in.Scope != "" && (in.Selector != "" || in.Ref != "") {
		return errs.Input("scope", "give scope (a CSS selector) or a locator (selector or ref), not both")
	}
	return firstViolation(act.ValidateScope(in.Locator))
}

// observeDoc is browser_observe's description for a server whose actions
// default to actionMS; it also says once what the fields every locating
// tool shares mean.
func observeDoc(actionMS int) string {
	return fmt.Sprintf(`Read a claimed tab: url, title, digest, textpreview, forms (fields: label, type, ref, selector, value, options), interactive (up to max_interactive visible actionable elements: ref, selector, role, label, state); child frames inline. include adds sections (reader: article Markdown). Cuts are said. mode diffing with since (an earlier digest) adds a diff; watching: changes since the last watching. scope (CSS), a locator or a frame reads part of the page. Unchanged since your last observe: one line (reserved.unchanged; full: true repeats).
Locators, in every tool: ref (latest observation), or selector by selector_type: css (default; open shadow roots too), xpath, label (exact text), placeholder, role (name: exact accessible name). Several matches are ambiguous unless nth (0-based) picks one. frame {path: iframe selectors outermost first, url, title} or frame_id: in a child frame. Actions wait up to timeout_ms (%d..%d; default %d, --action-timeout) for the element; dialog_policy ask stops at a dialog (see browser_dialog), accept/dismiss handle it; observe {} reads the acted-on element after, or a locator's control (state, max_options options).
Errors: invalid_input (path: the field), not_found, ambiguous, stale_ref (observe again), invalid_handle, timeout, cancelled, tab_crashed, browser_unavailable; actions also not_actionable (why: "covered by div#cookie"), value_mismatch, dialog_pending.`,
		stepBound("timeout_ms", "minimum"), stepBound("timeout_ms", "maximum"), actionMS)
}

func (s *server) observeTool() tool {
	return defineTool("browser_observe", observeDoc(s.actionMS),
		func(ctx context.Context, owner string, in *observeInput) (any, string, error) {
			opt := observe.Options{
				MaxChars:       orDefault(in.MaxChars, 0),
				MaxInteractive: orDefault(in.MaxInteractive, 0),
				Include:        in.Include.names,
				Mode:           in.Mode,
				Since:          in.Since,
				Scope:          in.Scope,
				Rows:           in.Rows,
				HideHost:       s.opt.HideHost,
			}
			if err := opt.Validate(); err != nil { // the engine's rules between its options
				return nil, "", err
			}
			var obs *observe.Observation
			err := s.onTab(ctx, owner, in.TabHandle, in.TimeoutMS, func(ctx context.Context, t *tabs.Tab) (err error) {
				part := observetab.Part{Frame: in.Frame, FrameID: in.FrameID}
				if in.Selector != "" || in.Ref != "" {
					part.Locator = &in.Locator
				}
				if obs, err = observetab.Capture(ctx, t, part, opt); err != nil {
					return err
				}
				obs = toldOnce(t, in.TabHandle, obs, in.Full)
				return nil
			})
			if err != nil {
				return nil, "", err
			}
			if v := obs.Vision; v != nil && v.Image != nil {
				return withContent{result: obs, extra: []mcp.Content{&mcp.ImageContent{Data: v.Image.Data, MIMEType: v.Image.MIME}}}, observe.Render(obs), nil
			}
			return obs, observe.Render(obs), nil
		}).annotate(&mcp.ToolAnnotations{ReadOnlyHint: true})
}

// seenKey keeps, per tab and claim, what the claim's last observation
// showed; a new claim (a new handle) starts knowing nothing.
const seenKey = "mcpserver.seen."

type seenBox struct {
	mu   sync.Mutex
	seen observe.Seen
}

// toldOnce leaves out of obs what the claim handle was already shown
// (everything when the page is unchanged), unless full asks for it all,
// and remembers what it shows now.
func toldOnce(t *tabs.Tab, handle string, obs *observe.Observation, full bool) *observe.Observation {
	box := t.State(seenKey+handle, func() any { return &seenBox{} }).(*seenBox)
	box.mu.Lock()
	defer box.mu.Unlock()
	prev := box.seen
	box.seen = observe.SeenIn(obs)
	if full {
		return obs
	}
	return obs.Since(prev)
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
