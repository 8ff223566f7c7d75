package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/schemas"
)

// The single-action tools take the fields of the matching browser_batch
// step variant (minus action), plus tab_handle and ref. Their input schemas
// are built from the embedded batch contract, so the structure can never
// drift from it; the descriptions are ours.

// fieldDocs describes every field an action tool takes.
var fieldDocs = map[string]string{
	"tab_handle":     "Handle of a tab this session claimed.",
	"ref":            "Ref of an element from the tab's latest browser_observe (e.g. e7); use instead of selector.",
	"selector":       "What to find, read according to selector_type: a CSS selector (default; reaches into open shadow roots, and `host >>> inner` steps into one), an XPath, the exact text of a <label>, the exact placeholder, or an ARIA role.",
	"selector_type":  "How to read selector: css (default), xpath, label, placeholder, role.",
	"name":           "With selector_type role only: the exact accessible name (\"\" matches an empty name).",
	"nth":            "Zero-based index when the selector matches several elements (DOM order; accessibility-tree order for role). Without it, more than one match is an `ambiguous` error.",
	"timeout_ms":     "How long to wait for the element to exist and be actionable, and for the action to finish.",
	"dialog_policy":  "What to do with a JavaScript dialog the action opens: ask (default: stop and report it; answer with browser_dialog), accept, dismiss.",
	"observe":        "Read one control right after the action: by default the element acted on, or another one named with its own locator fields. Returns role, name, value, checked/selected/expanded, disabled and, for selects, listboxes, comboboxes and menus, the options.",
	"popup_selector": "CSS selector of the popup holding the options; by default the control's aria-controls/aria-owns targets.",
	"max_options":    "Most options to list.",
	"max_chars":      "Cut texts at this many characters.",
	"button":         "Mouse button.",
	"click_count":    "1 for a click, 2 for a double click.",
	"mode":           "native (default) sends trusted pointer events at the hit-tested point; dom calls element.click() (left, single, no modifiers; works on covered elements).",
	"modifiers":      "Keys held during the click.",
	"offset":         "Where to click inside the element's content box, as ratios (0,0 top left; 1,1 bottom right). Default: the centre.",
	"x_ratio":        "Horizontal position, 0 to 1.",
	"y_ratio":        "Vertical position, 0 to 1.",
	"settle_ms":      "Wait this long after the click (ms, or [min, max] for a random wait) before reporting, for pages that react slowly.",
	"text":           "The text.",
	"expected_value": "What the field must hold afterwards; default: the text. A mismatch is a value_mismatch error showing both.",
	"delay_ms":       "Pause between characters (ms, or [min, max] for a random pause).",
	"focused":        "true: type into whatever editable element has focus now, instead of a located one.",
	"frame":          "Search inside a child frame instead of the page: its exact url and/or title, and/or path, a list of CSS selectors each naming one iframe in the document before it (outermost first; cross-origin frames work).",
	"frame_id":       "Search inside the child frame with this DevTools frame id (instead of frame).",
	"path":           "CSS selectors of nested iframes, outermost first; each must match exactly one element.",
	"url":            "The frame's exact URL.",
	"title":          "The frame's exact document title.",
	"value":          "The option's value attribute.",
	"label":          "The option's visible label.",
	"index":          "The option's zero-based position.",
	"delta_x":        "Pixels to scroll right (negative: left).",
	"delta_y":        "Pixels to scroll down (negative: up). Required unless until is given; with until, the step size (default 80% of the viewport).",
	"x":              "Viewport x where the wheel turns (mode wheel).",
	"y":              "Viewport y where the wheel turns (mode wheel).",
	"max_steps":      "With until: most scroll steps before giving up.",
	"until":          "Keep scrolling until this text shows in the viewport.",
	"condition":      "What to wait for: attached, absent, visible, actionable (visible, enabled, stable, not covered), text (expected is a substring, or previous is the text it must change from), value (exact), checked (true, false or \"mixed\"), selected, expanded, url (expected is a substring), network_idle (no request for idle_ms).",
	"expected":       "The value the condition waits for.",
	"previous":       "For condition text: the element's earlier full text; the wait ends when the text differs.",
	"idle_ms":        "For network_idle: how long the network must stay quiet.",
	"key":            "A key or chord: Enter, Tab, Escape, ArrowDown, a, A, Control+A, Shift+Tab, Meta+Shift+z, Control++.",
	"to":             "The element to drop on (its own locator fields).",
	"dx":             "Drag this many pixels right instead of onto an element.",
	"dy":             "Drag this many pixels down instead of onto an element.",
	"files":          "Paths of local files (on the machine running tabwright) to put in the file input.",
	"prompt_text":    "Text to enter in a prompt() dialog before accepting.",
	"action":         "What the step does; the step's other fields are those of this action's variant.",
}

// actionDocs is each action tool's description.
var actionDocs = map[string]string{
	act.Click:        `Click one element with real (trusted) mouse events. The element is found strictly (see selector), scrolled into view, and must be visible, enabled, still (not animating) and not covered at the click point, else not_actionable says why ("covered by <div#cookie-banner>", "disabled"). After the click we check the element really received it (or the page navigated). Returns the element, what was verified, any dialogs met, and the observe read if asked.`,
	act.Fill:         `Replace the value of one input, textarea or contenteditable, then read it back. native mode (default) focuses, selects all and inserts the text in one go (no per-key events); dom mode sets the value through the element's setter and fires input and change. Line breaks are kept in textareas and contenteditables. Returns the value read back; value_mismatch if it differs from expected_value (default: the text).`,
	act.Type:         `Type text key by key with trusted keyboard events into one element (or, with focused: true, into whatever editable element has focus). Stops with not_actionable as soon as focus leaves the element, saying how much was typed. Characters a US keyboard lacks are inserted as text. Returns the field's value afterwards.`,
	act.Hover:        `Move the real mouse pointer onto one element and leave it there (menus and tooltips that open on hover open). Verified by the element receiving the pointer move.`,
	act.SelectOption: `Choose one option of a native <select> by value, label or index (exactly one), without opening its popup; input and change fire as for a person's choice. Returns the selected option. For custom dropdowns, click them open and click the option instead.`,
	act.Scroll:       `Scroll the page, or a scrollable element when a locator is given. mode dom (default) moves the scroll position; mode wheel sends real wheel events (what lazy-loading lists react to) at x,y or the element. With until, repeats steps until the text shows in the viewport, waiting briefly after each for new content. Returns the steps taken and the final scroll position.`,
	act.Wait:         `Wait, without acting, until a condition holds on one element or the page. On timeout the error includes the last state seen (e.g. the text or value at that moment), so you know how far the page got.`,
	act.PressKey:     `Press a key or chord (Control+A, Shift+Tab, Enter…) with trusted keyboard events, wherever focus is. With a locator, the key is pressed only if that element has focus (a guard against typing into the wrong place).`,
	act.Drag:         `Drag one element with a real pointer: press on it, move in small steps onto the element named by to (or by dx, dy pixels), and release.`,
	act.Upload:       `Put local files into an <input type=file> (the input itself; it may be hidden behind a styled button), as choosing them in the file dialog would. Verified by the input's file count.`,
}

const v7 = "http://json-schema.org/draft-07/schema#"

// toolName is the MCP tool of an action.
func toolName(action string) string { return "browser_" + action }

// stepVariants holds each step variant of the batch contract as raw JSON,
// by action; parsed once, since the contract is 50 KB.
var stepVariants = sync.OnceValues(func() (map[string]json.RawMessage, error) {
	var contract struct {
		Properties struct {
			Steps struct {
				Items struct {
					OneOf []json.RawMessage `json:"oneOf"`
				} `json:"items"`
			} `json:"steps"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schemas.BrowserBatchInput, &contract); err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	for _, raw := range contract.Properties.Steps.Items.OneOf {
		var v struct {
			Properties struct {
				Action struct {
					Const string `json:"const"`
				} `json:"action"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		out[v.Properties.Action.Const] = raw
	}
	return out, nil
})

// stepVariant returns a fresh copy of the contract's schema for one step
// action, for the caller to edit.
func stepVariant(action string) (map[string]any, error) {
	variants, err := stepVariants()
	if err != nil {
		return nil, err
	}
	raw, ok := variants[action]
	if !ok {
		return nil, fmt.Errorf("no %s step in the batch contract", action)
	}
	var v map[string]any
	err = json.Unmarshal(raw, &v)
	return v, err
}

// actionSchema builds a tool's input schema from the step variant: action
// removed, tab_handle and ref added, selector no longer required (ref may
// stand in), descriptions replaced by ours.
func actionSchema(action string) schema {
	v, err := stepVariant(action)
	if err != nil {
		panic(err) // the embedded contract is part of the build
	}
	props := v["properties"].(map[string]any)
	delete(props, "action")
	props["tab_handle"] = map[string]any{"type": "string", "minLength": 1}
	props["ref"] = map[string]any{"type": "string", "minLength": 1}
	var required []string
	for _, r := range v["required"].([]any) {
		if r != "action" && r != "selector" {
			required = append(required, r.(string))
		}
	}
	required = append([]string{"tab_handle"}, required...)
	// The contract is draft-07 (tuple items in settle_ms and delay_ms); say so,
	// so clients validate it by the right rules.
	out := schema{"$schema": v7, "type": "object", "properties": props, "required": required, "additionalProperties": false}
	describe(out)
	return out
}

// describe replaces every property description with ours. Inside nested
// objects (observe, to, frame, offset, until) a field the tool already
// describes at the top stays undescribed: tool lists are paid for in tokens.
func describe(s map[string]any) {
	top, _ := s["properties"].(map[string]any)
	describeAt(s, top, 0)
}

func describeAt(s, top map[string]any, depth int) {
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		delete(pm, "description")
		_, atTop := top[name]
		if d, ok := fieldDocs[name]; ok && (depth == 0 || !atTop) {
			pm["description"] = d
		}
		describeAt(pm, top, depth+1)
	}
}

// actInput is a step with its tab.
type actInput struct {
	TabHandle string `json:"tab_handle"`
	act.Step
}

func (s *server) actionTool(action string) tool {
	return s.stepTool(action, func() schema { return actionSchema(action) })
}

// stepTool is a tool that runs one act.Step. Its handler accepts exactly the
// properties its listed input schema advertises.
func (s *server) stepTool(action string, inputSchema func() schema) tool {
	name := toolName(action)
	fields := sync.OnceValue(func() []string { return listedFields(name) })
	return tool{
		name: name,
		def: func() *mcp.Tool {
			return &mcp.Tool{
				Description: actionDocs[action] + "\nErrors: not_found (nothing matched in time; says what was searched), ambiguous (several matched; lists the first five), not_actionable (why), dialog_pending (a dialog is open), timeout, invalid_input, invalid_handle.",
				InputSchema: inputSchema(),
			}
		},
		run: func(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
			var in actInput
			if err := decodeOnly(args, &in, fields()); err != nil {
				return nil, "", err
			}
			in.Action = action
			if err := required("tab_handle", in.TabHandle); err != nil {
				return nil, "", err
			}
			if v := in.Step.Validate(""); len(v) > 0 {
				return nil, "", joinViolations(v)
			}
			var res *act.Result
			err := s.onTab(ctx, owner, in.TabHandle, nil, func(ctx context.Context, t *tabs.Tab) (err error) {
				res, err = act.Run(ctx, t, &in.Step)
				return err
			})
			if err != nil {
				return nil, "", err
			}
			return res, renderResult(res), nil
		},
	}
}

// joinViolations reports every problem of an input at once; the first
// gives the error its path.
func joinViolations(v []*errs.Error) error {
	if len(v) == 1 {
		return v[0]
	}
	parts := make([]string, 0, len(v))
	for _, e := range v {
		parts = append(parts, e.Path+": "+e.Message)
	}
	e := errs.Input(v[0].Path, "%d problems: %s", len(v), strings.Join(parts, "; "))
	return e
}

func renderResult(r *act.Result) string {
	var b strings.Builder
	b.WriteString(r.Action)
	if r.Target != nil {
		fmt.Fprintf(&b, " <%v", r.Target["tag"])
		if id, ok := r.Target["id"]; ok {
			fmt.Fprintf(&b, "#%v", id)
		}
		b.WriteString(">")
		if tx, ok := r.Target["text"]; ok {
			fmt.Fprintf(&b, " %q", tx)
		}
	}
	if r.Verified != "" {
		b.WriteString(": " + r.Verified)
	}
	if r.Value != nil {
		fmt.Fprintf(&b, "\nvalue: %q", *r.Value)
	}
	if r.Selected != nil {
		fmt.Fprintf(&b, "\nselected: %v", r.Selected["label"])
	}
	for _, d := range r.Dialogs {
		fmt.Fprintf(&b, "\n%s dialog %q %s", d.Type, d.Message, d.Action)
	}
	if r.Control != nil {
		c, _ := json.Marshal(r.Control)
		fmt.Fprintf(&b, "\nobserve: %s", c)
	}
	if r.ObserveError != nil {
		fmt.Fprintf(&b, "\nobserve failed: %s", r.ObserveError.Error())
	}
	return b.String()
}

// ---- drag and upload: not batch steps, so their schemas are written here.

func locatorProps() map[string]any {
	return map[string]any{
		"selector":      map[string]any{"type": "string", "minLength": 1, "maxLength": 10000},
		"selector_type": map[string]any{"type": "string", "enum": []any{"css", "xpath", "label", "placeholder", "role"}},
		"name":          map[string]any{"type": "string", "maxLength": 10000},
		"nth":           map[string]any{"type": "integer", "minimum": 0},
		"ref":           map[string]any{"type": "string", "minLength": 1},
		"frame_id":      map[string]any{"type": "string"},
		"frame": map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
			"url":   map[string]any{"type": "string", "minLength": 1},
			"title": map[string]any{"type": "string", "minLength": 1},
			"path":  map[string]any{"type": "array", "minItems": 1, "maxItems": 16, "items": map[string]any{"type": "string", "minLength": 1}},
		}},
	}
}

func (s *server) dragTool() tool { return s.stepTool(act.Drag, dragSchema) }

func dragSchema() schema {
	props := locatorProps()
	props["tab_handle"] = map[string]any{"type": "string", "minLength": 1}
	props["timeout_ms"] = map[string]any{"type": "integer", "minimum": 100, "maximum": 30000}
	props["dialog_policy"] = map[string]any{"type": "string", "enum": []any{"ask", "accept", "dismiss"}}
	props["offset"] = map[string]any{"type": "object", "additionalProperties": false, "required": []any{"x_ratio", "y_ratio"},
		"properties": map[string]any{"x_ratio": map[string]any{"type": "number", "minimum": 0, "maximum": 1}, "y_ratio": map[string]any{"type": "number", "minimum": 0, "maximum": 1}}}
	props["to"] = map[string]any{"type": "object", "additionalProperties": false, "properties": locatorProps()}
	props["dx"] = map[string]any{"type": "number"}
	props["dy"] = map[string]any{"type": "number"}
	in := schema{"type": "object", "properties": props, "required": []string{"tab_handle"}, "additionalProperties": false}
	describe(in)
	return in
}

func (s *server) uploadTool() tool { return s.stepTool(act.Upload, uploadSchema) }

func uploadSchema() schema {
	props := locatorProps()
	props["tab_handle"] = map[string]any{"type": "string", "minLength": 1}
	props["timeout_ms"] = map[string]any{"type": "integer", "minimum": 100, "maximum": 30000}
	props["files"] = map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"type": "string", "minLength": 1}}
	in := schema{"type": "object", "properties": props, "required": []string{"tab_handle", "files"}, "additionalProperties": false}
	describe(in)
	return in
}

// ---- browser_dialog

type dialogInput struct {
	TabHandle  string `json:"tab_handle"`
	Action     string `json:"action"`
	PromptText string `json:"prompt_text"`
}

func (s *server) dialogTool() tool {
	return tool{
		name: "browser_dialog",
		def: func() *mcp.Tool {
			return &mcp.Tool{
				Description: `Answer the JavaScript dialog (alert, confirm, prompt, beforeunload) open in a claimed tab: accept (with prompt_text for a prompt) or dismiss. An action with dialog_policy ask (the default) stops when a dialog opens and reports it; while it is open other calls on the tab fail with dialog_pending. Returns the dialog answered (type, message).
Errors: no_dialog (none is open), invalid_handle, invalid_input.`,
				InputSchema: object([]string{"tab_handle", "action"}, map[string]schema{
					"tab_handle":  tabHandleField,
					"action":      enum("accept or dismiss the open dialog.", "", "accept", "dismiss"),
					"prompt_text": str("Text to enter in a prompt() dialog before accepting."),
				}),
			}
		},
		run: func(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
			var in dialogInput
			if err := decode(args, &in); err != nil {
				return nil, "", err
			}
			if err := firstErr(required("tab_handle", in.TabHandle), required("action", in.Action), oneOf("action", in.Action, "accept", "dismiss")); err != nil {
				return nil, "", err
			}
			if in.PromptText != "" && in.Action != "accept" {
				return nil, "", errInput("prompt_text", "only goes with action accept")
			}
			t, err := s.m.Get(owner, in.TabHandle)
			if err != nil {
				return nil, "", err
			}
			ctx, cancel := withTimeout(ctx, defaultTimeoutMS)
			defer cancel()
			// Not through the tab's queue: the dialog may be blocking a call
			// that holds it.
			d, err := t.AnswerDialog(ctx, in.Action == "accept", in.PromptText)
			if err != nil {
				return nil, "", err
			}
			out := map[string]any{"dialog": d, "action": in.Action}
			return out, fmt.Sprintf("%s dialog %q: %sed", d.Type, d.Message, in.Action), nil
		},
	}
}
