package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/errs"
)

// The single-action tools take the fields of the matching step (act's
// table, read from the batch contract), minus action, plus tab_handle and
// ref. Their listed schemas are lean: each field's type, enum, default and
// numeric bounds, nested objects by their fields' types, and the two big
// shared objects (frame, observe) by a one-line shape. The handler checks
// everything else (lengths, the rules between fields) from the same table
// and names the field at fault. What a locator field means is said once,
// in browser_observe's description.

// fieldDocs describes the fields whose name and type do not say enough.
var fieldDocs = map[string]string{
	"offset":         "Point in the element as ratios (0,0 top left); default centre.",
	"settle_ms":      "Wait after the click: ms or [min, max].",
	"delay_ms":       "Pause between keys: ms or [min, max].",
	"expected_value": "What the field must hold afterwards (default: text).",
	"delta_y":        "Pixels down; with until, the step size.",
	"until":          "Scroll until this text is in the viewport (inside selector, if given).",
	"x":              "Viewport point for mode wheel.",
	"expected":       "The value to wait for (a substring for text and url).",
	"previous":       "For text: wait until the text differs from this.",
	"key":            "Key or chord: Enter, Tab, ArrowDown, a, Control+A, Shift+Tab.",
	"to":             "Drop target: a locator object.",
	"files":          "Paths of files inside the upload folder (--upload-root; relative paths are taken from it).",
}

// summarised are the nested objects listed by their description alone.
var summarised = map[string]bool{"frame": true, "observe": true, "to": true}

// actionDocs is each action tool's description.
var actionDocs = map[string]string{
	act.Click:        `Click one element with trusted mouse events once it is visible, enabled, still and uncovered; checks it got the click. button; click_count 2: double; modifiers held. mode dom: element.click() (works when covered).`,
	act.Fill:         `Replace the value of an input, textarea or contenteditable and check it reads back (value_mismatch if not). mode dom sets it, fires input and change.`,
	act.Type:         `Type text key by key with trusted keyboard events into one element, or with focused: true wherever focus is; stops if focus leaves it.`,
	act.Hover:        `Move the mouse onto one element and leave it there, so that hover menus and tooltips open.`,
	act.SelectOption: `Choose an option of a native select by exactly one of value, label or index (custom dropdowns: click it open, then the option).`,
	act.Scroll:       `Scroll the page, or the element a locator names, by delta_x/delta_y pixels. mode wheel sends real wheel events (what lazy lists react to). With until, scroll step by step (at most max_steps) until the text shows.`,
	act.Wait:         `Wait until a condition holds on one element or the page (url, network_idle for idle_ms). On timeout the error shows the last state seen.`,
	act.PressKey:     `Press a key or chord with trusted keyboard events where focus is; with a locator, only if that element has focus.`,
	act.Drag:         `Drag one element with a real pointer (press, move, release) onto to, or by dx, dy pixels.`,
	act.Upload:       `Put files from the upload folder (--upload-root) into a file input (even a hidden one), as the file dialog would.`,
}

// actionErrors ends every action tool's description.
const actionErrors = "\nErrors: see browser_observe."

// toolName is the MCP tool of an action.
func toolName(action string) string { return "browser_" + action }

// actionSchema is an action tool's listed input schema.
func actionSchema(action string) schema {
	v := act.StepSchema(action)
	if v == nil {
		panic("mcpserver: no " + action + " step in act's table") // part of the build
	}
	props := map[string]any{}
	for name, p := range v["properties"].(map[string]any) {
		if name != "action" {
			props[name] = leanField(name, p.(map[string]any))
		}
	}
	props["tab_handle"] = schema{"type": "string"}
	props["ref"] = schema{"type": "string"}
	required := []string{"tab_handle"}
	for _, r := range v["required"].([]any) {
		if r != "action" && r != "selector" {
			required = append(required, r.(string))
		}
	}
	return schema{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// stepBound is a numeric bound of a click step's field in the batch
// contract, for a description to state it without copying it.
func stepBound(field, bound string) int {
	p := act.StepSchema(act.Click)["properties"].(map[string]any)[field].(map[string]any)
	return int(p[bound].(float64))
}

// leanField is a field's listed schema: lean, with our description.
func leanField(name string, p map[string]any) map[string]any {
	out := map[string]any{"type": "object"}
	if !summarised[name] {
		out = lean(p)
	}
	if name == "timeout_ms" { // the same for every action: said once, in browser_observe
		delete(out, "minimum")
		delete(out, "maximum")
	}
	if d := fieldDocs[name]; d != "" {
		out["description"] = d
	}
	return out
}

// lean keeps what an agent needs to write a value: type, enum, const,
// default, numeric bounds, items and nested fields.
func lean(p map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"type", "enum", "const", "default", "minimum", "maximum", "required", "additionalProperties"} {
		if v, ok := p[k]; ok {
			out[k] = v
		}
	}
	if hi, ok := p["maximum"].(float64); ok && hi >= 1<<53-1 {
		delete(out, "maximum")
	}
	if items, ok := p["items"].(map[string]any); ok {
		out["items"] = lean(items)
	}
	if props, ok := p["properties"].(map[string]any); ok {
		lp := map[string]any{}
		for k, v := range props {
			lp[k] = lean(v.(map[string]any))
		}
		out["properties"] = lp
	}
	if branches, ok := p["anyOf"].([]any); ok {
		leanAnyOf(out, branches)
	}
	return out
}

// leanAnyOf lists consts as an enum (click_count) and other branches by
// their types (settle_ms: integer or [min, max]; expected: string or
// boolean), as an anyOf of one type each: a union "type" list is refused
// by strict validators (Ajv's strict mode).
func leanAnyOf(out map[string]any, branches []any) {
	var consts, types []any
	for _, b := range branches {
		bm := b.(map[string]any)
		if c, ok := bm["const"]; ok {
			consts = append(consts, c)
		}
		types = append(types, map[string]any{"type": bm["type"]})
	}
	if len(consts) == len(branches) {
		out["enum"] = consts
		return
	}
	out["anyOf"] = types
}

// actInput is a step with its tab.
type actInput struct {
	TabHandle string `json:"tab_handle"`
	act.Step
}

// actionTool is a tool that runs one act.Step. Its handler accepts exactly
// the properties its listed input schema advertises.
func (s *server) actionTool(action string) tool {
	name := toolName(action)
	fields := sync.OnceValue(func() []string { return actionFields(action) })
	return tool{
		name: name,
		def: func() *mcp.Tool {
			return &mcp.Tool{
				Description: actionDocs[action] + actionErrors,
				InputSchema: actionSchema(action),
			}
		},
		run: func(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
			var in actInput
			if err := decodeOnly(args, &in, fields()); err != nil {
				return nil, "", err
			}
			in.Action = action
			return s.runStep(ctx, owner, in.TabHandle, &in.Step)
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
	if r.Loading != nil {
		b.WriteString("\n" + r.Loading.String())
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

// locatorProps are the locator fields (and ref) as the action tools list
// them, for tools that name one element the same way.
func locatorProps() map[string]any {
	click := act.StepSchema(act.Click)["properties"].(map[string]any)
	out := map[string]any{"ref": schema{"type": "string"}}
	for _, f := range []string{"selector", "selector_type", "name", "nth", "frame", "frame_id"} {
		out[f] = leanField(f, click[f].(map[string]any))
	}
	return out
}

// actionFields are the fields an action tool's handler accepts: its
// step's, tab_handle and ref.
func actionFields(action string) []string {
	fields, _ := act.StepFields(action)
	out := []string{"tab_handle", "ref"}
	for _, f := range fields {
		if f != "action" {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

func (s *server) dragTool() tool { return s.actionTool(act.Drag) }

func (s *server) uploadTool() tool { return s.actionTool(act.Upload) }

// ---- browser_dialog

type dialogInput struct {
	TabHandle  string `json:"tab_handle" tool:"required"`
	Action     string `json:"action" tool:"required,enum=accept|dismiss"`
	PromptText string `json:"prompt_text" tool:"nonempty"`
}

// rules: a prompt's text is only sent with accept.
func (in *dialogInput) rules() error {
	if in.PromptText != "" && in.Action != "accept" {
		return errInput("prompt_text", "only goes with action accept")
	}
	return nil
}

func (s *server) dialogTool() tool {
	return defineTool("browser_dialog", `Answer a claimed tab's open JavaScript dialog (alert, confirm, prompt, beforeunload): accept (prompt_text for a prompt) or dismiss. While open, other calls on the tab get dialog_pending.
Errors: no_dialog, invalid_handle, invalid_input.`,
		func(ctx context.Context, owner string, in *dialogInput) (any, string, error) {
			t, err := s.m.Get(owner, in.TabHandle)
			if err != nil {
				return nil, "", err
			}
			ctx, cancel := withTimeout(ctx, defaultTimeoutMS())
			defer cancel()
			// Not through the tab's queue: the dialog may be blocking a call
			// that holds it.
			d, err := t.AnswerDialog(ctx, in.Action == "accept", in.PromptText)
			if err != nil {
				return nil, "", err
			}
			out := map[string]any{"dialog": d, "action": in.Action}
			return out, fmt.Sprintf("%s dialog %q: %sed", d.Type, d.Message, in.Action), nil
		})
}
