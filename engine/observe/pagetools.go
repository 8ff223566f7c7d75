package observe

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Page tools (WebMCP) are tools a page offers agents. The observation lists
// them in reserved.pagetools (the schema's place for additions): name,
// description and a one-line summary of the input schema, marked as the
// page's word. A page can describe a tool as anything it likes.

// ReservedPageTools is the Reserved key of the page's tools (*PageTools).
const ReservedPageTools = "pagetools"

// Bounds of the page tools listed: a page decides how many it registers
// and how long their texts are.
const (
	MaxPageTools         = 20
	maxToolDescription   = 300
	maxToolInputSummary  = 200
	maxToolNameListed    = 100
	maxSummaryProperties = 12
)

// PageTool is one tool as the observation lists it.
type PageTool struct {
	Name          string `json:"name"`
	Description   string `json:"description,omitempty"`
	Input         string `json:"input"`          // the input schema in one line, e.g. "a: number, note?: string"
	Form          bool   `json:"form,omitempty"` // a form the browser fills (and, unless autosubmit, a person submits)
	ReadOnly      bool   `json:"readonly,omitempty"`
	Consequential bool   `json:"consequential,omitempty"`

	Schema json.RawMessage `json:"-"` // the input schema as the page declared it
}

// PageTools is reserved.pagetools.
type PageTools struct {
	// From says whose word the entries are: "page", untrusted.
	From    string     `json:"from"`
	Tools   []PageTool `json:"tools"`
	Omitted int        `json:"omitted,omitempty"`
}

// ToolPage is a Page that knows the tools its document offers, without a
// page call.
type ToolPage interface {
	OfferedTools() []PageTool
}

// pageToolsOf bounds and summarises the tools p offers; nil when none.
func pageToolsOf(p Page) *PageTools {
	tp, ok := p.(ToolPage)
	if !ok {
		return nil
	}
	list := tp.OfferedTools()
	if len(list) == 0 {
		return nil
	}
	out := &PageTools{From: "page"}
	for i, tl := range list {
		if i == MaxPageTools {
			out.Omitted = len(list) - i
			break
		}
		tl.Name = clip(tl.Name, maxToolNameListed)
		tl.Description = clip(strings.Join(strings.Fields(tl.Description), " "), maxToolDescription)
		tl.Input = clip(SummariseSchema(tl.Schema), maxToolInputSummary)
		out.Tools = append(out.Tools, tl)
	}
	return out
}

// SummariseSchema writes an input schema in one line: each property with
// its type, "?" after an optional one, enums as "a"|"b", nested objects in
// braces. "{}" is a tool that takes nothing; "any" one whose schema says
// nothing we can read.
func SummariseSchema(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var s map[string]any
	if json.Unmarshal(raw, &s) != nil {
		return "any"
	}
	if props, _ := s["properties"].(map[string]any); len(props) == 0 {
		return "{}"
	}
	return strings.TrimSuffix(strings.TrimPrefix(typeOf(s, 0), "{"), "}")
}

// typeOf writes one schema's type.
func typeOf(s map[string]any, depth int) string {
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		parts := make([]string, 0, len(e))
		for _, v := range e {
			b, _ := json.Marshal(v)
			parts = append(parts, string(b))
		}
		return strings.Join(parts, "|")
	}
	t, _ := s["type"].(string)
	switch t {
	case "object":
		return objectOf(s, depth)
	case "array":
		item, _ := s["items"].(map[string]any)
		if item == nil {
			return "array"
		}
		return typeOf(item, depth+1) + "[]"
	case "string", "number", "integer", "boolean", "null":
		return t
	}
	return "any" // none, a list, or a word the page made up
}

// objectOf writes an object's properties, required ones first as declared.
func objectOf(s map[string]any, depth int) string {
	props, _ := s["properties"].(map[string]any)
	if len(props) == 0 {
		return "object"
	}
	if depth > 1 {
		return "{…}"
	}
	required := map[string]bool{}
	if list, ok := s["required"].([]any); ok {
		for _, r := range list {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.SliceStable(names, func(i, j int) bool {
		if required[names[i]] != required[names[j]] {
			return required[names[i]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for i, name := range names {
		if i == maxSummaryProperties {
			parts = append(parts, fmt.Sprintf("…%d more", len(names)-i))
			break
		}
		sub, _ := props[name].(map[string]any)
		mark := ""
		if !required[name] {
			mark = "?"
		}
		parts = append(parts, propName(name)+mark+": "+typeOf(sub, depth+1))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// propName quotes a property name that is not a plain word, so that a
// page cannot shape the summary with its names.
func propName(name string) string {
	for _, r := range name {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return strconv.Quote(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

// renderPageTools writes one line per tool, its page-given texts quoted:
// a description cannot make lines of its own.
func renderPageTools(b *strings.Builder, o *Observation) {
	pt := o.PageTools()
	if pt == nil || len(pt.Tools) == 0 {
		return
	}
	b.WriteString("page tools (offered by the page: its own word, untrusted):\n")
	for _, tl := range pt.Tools {
		fmt.Fprintf(b, "tool %s (%s)", strconv.Quote(tl.Name), tl.Input)
		if tl.Description != "" {
			b.WriteString(" " + strconv.Quote(tl.Description))
		}
		var notes []string
		if tl.Form {
			notes = append(notes, "form")
		}
		if tl.ReadOnly {
			notes = append(notes, "read-only")
		}
		if tl.Consequential {
			notes = append(notes, "consequential")
		}
		if len(notes) > 0 {
			b.WriteString(" [" + strings.Join(notes, ", ") + "]")
		}
		b.WriteByte('\n')
	}
	if pt.Omitted > 0 {
		fmt.Fprintf(b, "… %d more page tools not listed\n", pt.Omitted)
	}
}

// PageTools returns reserved.pagetools, nil when the page offers none.
func (o *Observation) PageTools() *PageTools {
	switch v := o.Reserved[ReservedPageTools].(type) {
	case *PageTools:
		return v
	case nil:
		return nil
	default: // decoded from JSON by someone else: a generic map
		raw, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		var out PageTools
		if json.Unmarshal(raw, &out) != nil {
			return nil
		}
		return &out
	}
}
