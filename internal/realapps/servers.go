//go:build realapps

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// elem is one element a server's observation offers to act on.
type elem struct {
	Ref   string `json:"ref"`
	Role  string `json:"role"`
	Name  string `json:"name"`
	Value string `json:"value"` // what a field holds, for a field with no name
	// Selector, for an element tabwright folded into repeated cards (no
	// ref): the card's selector with its index, then the element's path.
	Selector string `json:"selector,omitempty"`
}

// key names e among the elements the driver knows: its ref, else its
// selector.
func (e elem) key() string {
	if e.Ref != "" {
		return e.Ref
	}
	return "css:" + e.Selector
}

// server is one MCP browser server behind the same small driver interface.
// Every method but eval counts what it read.
type server interface {
	label() string
	open(ctx context.Context, url string) error
	// observe returns what the server's observation lists; delta says the
	// list holds only what changed since the last one (merge, not replace).
	observe(ctx context.Context) (els []elem, delta bool, err error)
	act(ctx context.Context, st step, e, to *elem) (result, error)
	// waitText waits with the server's own wait tool for text on the page.
	waitText(ctx context.Context, text string) error
	// eval runs a check; what it returns is not counted as read.
	eval(ctx context.Context, fn string) (string, error)
	conn() *conn
}

// ---- tabwright ----

type tabwright struct {
	c      *conn
	handle string
}

func (s *tabwright) label() string { return "tabwright" }
func (s *tabwright) conn() *conn   { return s.c }

func (s *tabwright) open(ctx context.Context, url string) error {
	if s.handle != "" {
		_, err := s.c.call(ctx, "browser_navigate", map[string]any{"tab_handle": s.handle, "url": url})
		return err
	}
	r, err := s.c.call(ctx, "browser_open_tab", map[string]any{"url": url})
	if err != nil {
		return err
	}
	var v struct {
		TabHandle string `json:"tab_handle"`
	}
	json.Unmarshal(r.structured, &v)
	if v.TabHandle == "" {
		return fmt.Errorf("browser_open_tab returned no tab_handle: %s", oneLine(r.text, 200))
	}
	s.handle = v.TabHandle
	return nil
}

// observe reads the structured interactive list (the contract; the text
// view lists the same elements). A repeated observation leaves out what
// this claim was already shown, so it is a delta.
func (s *tabwright) observe(ctx context.Context) ([]elem, bool, error) {
	r, err := s.c.call(ctx, "browser_observe", map[string]any{"tab_handle": s.handle})
	if err != nil {
		return nil, false, err
	}
	var v struct {
		Interactive []struct {
			Ref   string `json:"ref"`
			Role  string `json:"role"`
			Label string `json:"label"`
			Value any    `json:"value"`
		} `json:"interactive"`
		Forms []struct {
			Fields []struct {
				Ref   string `json:"ref"`
				Label string `json:"label"`
				Type  string `json:"type"`
				Value any    `json:"value"`
			} `json:"fields"`
		} `json:"forms"`
		Reserved struct {
			Repeated []repeat `json:"repeated"`
		} `json:"reserved"`
	}
	if err := json.Unmarshal(r.structured, &v); err != nil {
		return nil, false, fmt.Errorf("browser_observe: no structured content: %v", err)
	}
	var els []elem
	at := map[string]int{}
	for _, it := range v.Interactive {
		if it.Ref != "" {
			v, _ := it.Value.(string)
			at[it.Ref] = len(els)
			els = append(els, elem{Ref: it.Ref, Role: it.Role, Name: it.Label, Value: v})
		}
	}
	// A form field's value is told with the form (a textarea holding an
	// example body is read by what it holds).
	for _, f := range v.Forms {
		for _, fl := range f.Fields {
			val, _ := fl.Value.(string)
			if i, ok := at[fl.Ref]; ok && els[i].Value == "" {
				els[i].Value = val
			} else if !ok && fl.Ref != "" {
				at[fl.Ref] = len(els)
				els = append(els, elem{Ref: fl.Ref, Role: fieldRole(fl.Type), Name: fl.Label, Value: val})
			}
		}
	}
	for _, r := range v.Reserved.Repeated {
		els = append(els, r.elems()...)
	}
	return els, true, nil
}

// repeat is a run of cards tabwright folded out of interactive
// (reserved.repeated): what a model reads as "cards SEL, n 2-19, each:
// ...; labels by n: ...".
type repeat struct {
	Card     string `json:"card"`
	From     int    `json:"from"`
	To       int    `json:"to"`
	Elements []struct {
		Selector string `json:"selector"`
		Role     string `json:"role"`
		Label    string `json:"label"`
		In       []int  `json:"in"`
	} `json:"elements"`
	Labels [][]string `json:"labels"`
}

// elems are the folded elements, each named by its label and reached by
// the selector a model writes from what the fold says: the card's
// selector with n filled in, then the element's path under the card.
func (r repeat) elems() []elem {
	var out []elem
	for n := r.From; n <= r.To && n-r.From < len(r.Labels); n++ {
		labels := r.Labels[n-r.From]
		for _, e := range r.Elements {
			if e.In != nil && !slices.Contains(e.In, n) {
				continue
			}
			name := e.Label
			if name == "" && len(labels) > 0 {
				name, labels = labels[0], labels[1:]
			}
			sel := strings.Replace(r.Card, "(n)", fmt.Sprintf("(%d)", n), 1)
			if e.Selector != "" {
				sel += " " + e.Selector
			}
			out = append(out, elem{Role: e.Role, Name: name, Selector: sel})
		}
	}
	return out
}

// fieldRole is the ARIA role of a form field's type.
func fieldRole(typ string) string {
	switch typ {
	case "checkbox", "radio":
		return typ
	case "select":
		return "combobox"
	case "number":
		return "spinbutton"
	}
	return "textbox"
}

func (s *tabwright) act(ctx context.Context, st step, e, to *elem) (result, error) {
	a := map[string]any{"tab_handle": s.handle}
	if e != nil {
		a["ref"] = e.Ref
		if e.Ref == "" {
			delete(a, "ref")
			a["selector"] = e.Selector
		}
	}
	switch st.Do {
	case "click":
		return s.c.call(ctx, "browser_click", a)
	case "dblclick":
		a["click_count"] = 2
		return s.c.call(ctx, "browser_click", a)
	case "fill":
		a["text"] = st.Value
		return s.c.call(ctx, "browser_fill", a)
	case "type":
		a["text"] = st.Value
		return s.c.call(ctx, "browser_type", a)
	case "press":
		a["key"] = st.Value
		return s.c.call(ctx, "browser_press_key", a)
	case "select":
		a["label"] = st.Value
		return s.c.call(ctx, "browser_select_option", a)
	case "drag":
		a["to"] = map[string]any{"ref": to.Ref}
		if to.Ref == "" {
			a["to"] = map[string]any{"selector": to.Selector}
		}
		return s.c.call(ctx, "browser_drag", a)
	}
	return result{}, fmt.Errorf("unknown action %s", st.Do)
}

func (s *tabwright) waitText(ctx context.Context, text string) error {
	_, err := s.c.call(ctx, "browser_wait", map[string]any{"tab_handle": s.handle, "condition": "text", "selector": "body", "expected": text, "timeout_ms": waitMS})
	return err
}

func (s *tabwright) eval(ctx context.Context, fn string) (string, error) {
	r, err := s.c.callQuiet(ctx, "browser_evaluate", map[string]any{"tab_handle": s.handle, "expression": "(" + fn + ")()", "timeout_ms": 20000})
	return r.text + string(r.structured), err
}

// ---- Playwright MCP ----

type playwright struct{ c *conn }

func (s *playwright) label() string { return "playwright-mcp" }
func (s *playwright) conn() *conn   { return s.c }

func (s *playwright) open(ctx context.Context, url string) error {
	_, err := s.c.call(ctx, "browser_navigate", map[string]any{"url": url})
	return err
}

func (s *playwright) observe(ctx context.Context) ([]elem, bool, error) {
	r, err := s.c.call(ctx, "browser_snapshot", map[string]any{})
	if err != nil {
		return nil, false, err
	}
	return parseAriaSnapshot(r.text), false, nil
}

func (s *playwright) act(ctx context.Context, st step, e, to *elem) (result, error) {
	a := map[string]any{}
	if e != nil {
		a["target"] = e.Ref
		a["element"] = describe(e)
	}
	switch st.Do {
	case "click":
		return s.c.call(ctx, "browser_click", a)
	case "dblclick":
		a["doubleClick"] = true
		return s.c.call(ctx, "browser_click", a)
	case "fill":
		a["text"] = st.Value
		return s.c.call(ctx, "browser_type", a)
	case "type":
		a["text"] = st.Value
		a["slowly"] = true
		return s.c.call(ctx, "browser_type", a)
	case "press":
		return s.c.call(ctx, "browser_press_key", map[string]any{"key": st.Value})
	case "select":
		a["values"] = []string{st.Value}
		return s.c.call(ctx, "browser_select_option", a)
	case "drag":
		return s.c.call(ctx, "browser_drag", map[string]any{"startTarget": e.Ref, "startElement": describe(e), "endTarget": to.Ref, "endElement": describe(to)})
	}
	return result{}, fmt.Errorf("unknown action %s", st.Do)
}

func (s *playwright) waitText(ctx context.Context, text string) error {
	_, err := s.c.call(ctx, "browser_wait_for", map[string]any{"text": text, "time": waitMS / 1000})
	return err
}

func (s *playwright) eval(ctx context.Context, fn string) (string, error) {
	r, err := s.c.callQuiet(ctx, "browser_evaluate", map[string]any{"function": fn})
	return r.text, err
}

// ariaLine is one line of Playwright's YAML snapshot that carries a ref:
// `- role "name" [attrs] [ref=e12]: text`, single-quoted when it holds
// ": ". ariaText is a text line with no ref of its own.
var (
	ariaLine = regexp.MustCompile(`^(\s*)- '?(\w[\w-]*)(?: "((?:[^"\\]|\\.)*)")?[^\n]*?\[ref=([^\]]+)\][^:\n]*(?::\s*(.*))?$`)
	ariaText = regexp.MustCompile(`^(\s*)- text: (.*)$`)
)

// parseAriaSnapshot lists the elements with a ref. An element with no
// name is named by its inline text or, as a reader would take it, by the
// text lines right under it (a contenteditable showing its placeholder).
func parseAriaSnapshot(text string) []elem {
	var els []elem
	var stack []int // indents of the open elements, parallel to open
	var open []int  // their indexes in els
	for _, line := range strings.Split(text, "\n") {
		if m := ariaText.FindStringSubmatch(line); m != nil {
			for len(stack) > 0 && stack[len(stack)-1] >= len(m[1]) {
				stack, open = stack[:len(stack)-1], open[:len(open)-1]
			}
			if len(open) > 0 && els[open[len(open)-1]].Name == "" {
				els[open[len(open)-1]].Name = yamlScalar(m[2])
			}
			continue
		}
		m := ariaLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := unquote(m[3])
		if name == "" {
			name = yamlScalar(m[5])
		}
		for len(stack) > 0 && stack[len(stack)-1] >= len(m[1]) {
			stack, open = stack[:len(stack)-1], open[:len(open)-1]
		}
		els = append(els, elem{Ref: m[4], Role: m[2], Name: name})
		stack, open = append(stack, len(m[1])), append(open, len(els)-1)
	}
	return els
}

// yamlScalar reads an inline YAML value, double-quoted (JSON escapes) or
// plain.
func yamlScalar(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, `"`) {
		if u, err := jsonUnquote(s); err == nil {
			return u
		}
	}
	return strings.Trim(s, `"'`)
}

// ---- Chrome DevTools MCP ----

type devtools struct {
	c      *conn
	pageID int
}

func (s *devtools) label() string { return "chrome-devtools-mcp" }
func (s *devtools) conn() *conn   { return s.c }

var pageLine = regexp.MustCompile(`(?m)^\s*(\d+):.*\[selected\]`)

func (s *devtools) open(ctx context.Context, url string) error {
	if s.pageID == 0 {
		r, err := s.c.call(ctx, "list_pages", map[string]any{})
		if err != nil {
			return err
		}
		m := pageLine.FindStringSubmatch(r.text)
		if m == nil {
			return fmt.Errorf("list_pages: no selected page in %q", oneLine(r.text, 200))
		}
		fmt.Sscan(m[1], &s.pageID)
	}
	_, err := s.c.call(ctx, "navigate_page", map[string]any{"pageId": s.pageID, "type": "url", "url": url})
	return err
}

func (s *devtools) observe(ctx context.Context) ([]elem, bool, error) {
	r, err := s.c.call(ctx, "take_snapshot", map[string]any{"pageId": s.pageID})
	if err != nil {
		return nil, false, err
	}
	return parseUIDSnapshot(r.text), false, nil
}

func (s *devtools) act(ctx context.Context, st step, e, to *elem) (result, error) {
	a := map[string]any{"pageId": s.pageID}
	if e != nil {
		a["uid"] = e.Ref
	}
	switch st.Do {
	case "click":
		return s.c.call(ctx, "click", a)
	case "dblclick":
		a["dblClick"] = true
		return s.c.call(ctx, "click", a)
	case "fill", "select":
		a["value"] = st.Value
		return s.c.call(ctx, "fill", a)
	case "type":
		// type_text types into the focused element; the step before
		// focused it (the target was still looked up in the snapshot).
		return s.c.call(ctx, "type_text", map[string]any{"pageId": s.pageID, "text": st.Value})
	case "press":
		return s.c.call(ctx, "press_key", map[string]any{"pageId": s.pageID, "key": st.Value})
	case "drag":
		return s.c.call(ctx, "drag", map[string]any{"pageId": s.pageID, "from_uid": e.Ref, "to_uid": to.Ref})
	}
	return result{}, fmt.Errorf("unknown action %s", st.Do)
}

func (s *devtools) waitText(ctx context.Context, text string) error {
	_, err := s.c.call(ctx, "wait_for", map[string]any{"pageId": s.pageID, "text": []string{text}, "timeout": waitMS})
	return err
}

func (s *devtools) eval(ctx context.Context, fn string) (string, error) {
	r, err := s.c.callQuiet(ctx, "evaluate_script", map[string]any{"pageId": s.pageID, "function": fn})
	return r.text, err
}

// uidLine is one line of DevTools MCP's snapshot: `uid=1_5 button "Save" …`,
// or `uid=2_2 "buy milk"` for a text node (no role).
var uidLine = regexp.MustCompile(`^\s*uid=(\S+)(?: ([^\s"]+))?(?: "((?:[^"\\]|\\.)*)")?`)

var uidStart = regexp.MustCompile(`^\s*uid=\S`)

var uidValue = regexp.MustCompile(` value="((?:[^"\\]|\\.)*)"`)

func parseUIDSnapshot(text string) []elem {
	var els []elem
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		// A multi-line value (a textarea's) is written raw, not escaped:
		// it goes on until the next element's line.
		if k := strings.Index(line, ` value="`); k >= 0 && !strings.HasSuffix(line[k+8:], `"`) {
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" && !uidStart.MatchString(lines[i+1]) {
				i++
				line += "\n" + lines[i]
			}
		}
		if m := uidLine.FindStringSubmatch(line); m != nil {
			e := elem{Ref: m[1], Role: m[2], Name: unquote(m[3])}
			if k := strings.Index(line, ` value="`); k >= 0 {
				e.Value = strings.TrimSuffix(line[k+8:], `"`)
				if v := uidValue.FindStringSubmatch(line); v != nil && !strings.Contains(e.Value, "\n") {
					e.Value = unquote(v[1])
				}
			}
			els = append(els, e)
		}
	}
	return els
}

func unquote(s string) string {
	if u, err := jsonUnquote(`"` + s + `"`); err == nil {
		return u
	}
	return s
}

func jsonUnquote(s string) (string, error) {
	var out string
	err := json.Unmarshal([]byte(s), &out)
	return out, err
}

func describe(e *elem) string {
	return strings.TrimSpace(e.Role + " " + e.Name)
}
